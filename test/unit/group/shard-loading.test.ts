/**
 * The shard loading both coordinators share (services/group-coordinator/shard-loading.ts): the
 * replay fence's marker bookkeeping, the append fence checked before and after, and the loader's
 * grouping by partition, markers-then-replay order, retries with backoff, and dropping shards no
 * longer owned.
 */
import { ManualClock } from '../../../services/common/clock';
import { TideError } from '../../../services/common/errors';
import { silentLogger } from '../../../services/common/logger';
import { decodeOffsetsRecord } from '../../../services/group-coordinator/offsets-codec';
import type { OffsetsLog, OffsetsLogRecord } from '../../../services/group-coordinator/offsets-log';
import {
  appendFenced,
  LOAD_RETRY_MAX_MS,
  ReplayFence,
  ShardLoader,
  type OwnedShard,
} from '../../../services/group-coordinator/shard-loading';
import type { AcquiredShard } from '../../../services/group-coordinator/shard-ownership';
import { TestLease } from './test-lease';

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('ReplayFence', () => {
  it('skips a record older than its shard newest marker, and counts it', () => {
    const fence = new ReplayFence(new Set([1, 2]));
    expect(fence.wants(1)).toBe(true);
    expect(fence.wants(3)).toBe(false);
    expect(fence.stale(1, 5)).toBe(false);
    fence.marker(1, 7);
    fence.marker(1, 6); // an older marker does not lower the fence
    expect(fence.stale(1, 6)).toBe(true);
    expect(fence.stale(1, 7)).toBe(false);
    expect(fence.stale(2, 1)).toBe(false);
    fence.marker(3, 100); // not a shard this replay loads
    expect(fence.stale(3, 1)).toBe(false);
    expect(fence.skipped).toBe(1);
  });
});

describe('appendFenced', () => {
  const clock = new ManualClock();
  const shard = (lease: TestLease): OwnedShard => ({
    shard: 0,
    epoch: 1,
    status: 'active',
    fence: lease.fence,
    writable: true,
  });
  const fenceError = (s: OwnedShard, when: string) =>
    s.writable && s.fence.mayAct() ? undefined : new TideError('NOT_COORDINATOR', when);

  it('sends nothing when a shard may not be written, and does not acknowledge when that changed meanwhile', async () => {
    const appended: OffsetsLogRecord[][] = [];
    let onAppend = () => {};
    const log: OffsetsLog = {
      append: async (_p, records) => {
        appended.push(records);
        onAppend();
        return appended.length;
      },
      replay: async () => {},
    };
    const live = shard(new TestLease(clock, 10_000));
    await expect(appendFenced(log, [live], 0, [], fenceError)).resolves.toBe(1);

    const given = { ...live, writable: false };
    await expect(appendFenced(log, [live, given], 0, [], fenceError)).rejects.toThrow('before');
    expect(appended).toHaveLength(1);

    onAppend = () => (live.writable = false);
    await expect(appendFenced(log, [live], 0, [], fenceError)).rejects.toThrow('after');
    expect(appended).toHaveLength(2);
  });
});

describe('ShardLoader', () => {
  it('writes the markers of each partition, replays through them, retries with backoff, and drops shards no longer owned', async () => {
    const clock = new ManualClock();
    const lease = new TestLease(clock, 1e9);
    const acquired = (shard: number, epoch: number): AcquiredShard => ({ shard, epoch, fence: lease.fence });
    const owned = new Set([0, 1, 2]);
    const appends: { partition: number; shards: number[]; markers: string[] }[] = [];
    const replays: { partition: number; through: number; shards: number[] }[] = [];
    const activated: { shards: number[]; loaded: string }[] = [];
    let failures = 2;
    const loader = new ShardLoader<string>({
      clock,
      logger: silentLogger(),
      what: 'shards',
      partitionOf: (shard) => shard % 2,
      stillOwned: (a) => owned.has(a.shard),
      append: async (shards, partition, records) => {
        appends.push({
          partition,
          shards: shards.map((a) => a.shard),
          markers: records.map((r) => {
            const m = decodeOffsetsRecord(r.key, r.value);
            return m.type === 'marker' ? `${m.shard}@${m.value?.coordinatorEpoch}` : m.type;
          }),
        });
        return 41 + appends.length;
      },
      replay: async (partition, through, fence) => {
        replays.push({ partition, through, shards: [...fence.shards] });
        if (partition === 1 && failures-- > 0) throw new Error('replay failed');
        return `p${partition}`;
      },
      activate: (shards, loaded) => activated.push({ shards: shards.map((a) => a.shard), loaded }),
    });

    loader.load([acquired(0, 7), acquired(1, 8), acquired(2, 9)]);
    await flush();
    expect(appends.slice(0, 2)).toEqual([
      { partition: 0, shards: [0, 2], markers: ['0@7', '2@9'] },
      { partition: 1, shards: [1], markers: ['1@8'] },
    ]);
    expect(replays.slice(0, 2)).toEqual([
      { partition: 0, through: 42, shards: [0, 2] },
      { partition: 1, through: 43, shards: [1] },
    ]);
    expect(activated).toEqual([{ shards: [0, 2], loaded: 'p0' }]);

    // The first retry of partition 1 waits 200 ms, the second 400 ms.
    clock.advance(199);
    await flush();
    expect(replays).toHaveLength(2);
    clock.advance(1);
    await flush();
    expect(replays).toHaveLength(3);
    // Shard 1 is given up before the next attempt: its load ends without activating it.
    owned.delete(1);
    clock.advance(LOAD_RETRY_MAX_MS);
    await flush();
    expect(replays).toHaveLength(3);
    expect(activated).toEqual([{ shards: [0, 2], loaded: 'p0' }]);
  });
});
