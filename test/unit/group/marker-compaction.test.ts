/**
 * Shard markers across compaction, on a real compacted log: the coordinator's loader replays a
 * broker SegmentedLog that the broker's LogCleaner has compacted (passes inline). A deposed
 * owner's late write stays ignored after the cleaner has run and a new owner replays; markers of
 * earlier versions (type 2, keyed by shard only) still fence writes behind them. And the case replay
 * cannot fence, a deposed owner's write that would be the last of its key, does not arise when the
 * deposed owner woke past its lease: the lease-time fence keeps it from writing.
 */
import { ManualClock } from '../../../services/common/clock';
import { silentLogger } from '../../../services/common/logger';
import { decodeBatch, encodeBatch, iterateBatches } from '../../../services/common/records';
import type { SegmentedLog } from '../../../services/broker/log/partition-log';
import { Coordinator } from '../../../services/group-coordinator/coordinator';
import {
  decodeOffsetsRecord,
  markerValue,
  offsetKey,
  offsetValue,
} from '../../../services/group-coordinator/offsets-codec';
import type {
  OffsetsLog,
  OffsetsLogRecord,
  PartitionOffsets,
} from '../../../services/group-coordinator/offsets-log';
import { tpKey } from '../../../services/group-coordinator/partitions';
import { shardOf } from '../../../services/common/cluster/coordinator-shards';
import { cleanerFor, compactConfig } from '../log/compaction-helpers';
import { TempDirs, openLog } from '../log/helpers';
import { TestLease } from './test-lease';

const SHARDS = 4;
const GROUP = 'billing';
const SHARD = shardOf(GROUP, SHARDS);
const T0 = tpKey('t', 0);
const T1 = tpKey('t', 1);

/** `__consumer_offsets` partition 0 as one real broker log (every shard maps to it). */
class SegmentedOffsetsLog implements OffsetsLog {
  constructor(
    private readonly log: SegmentedLog,
    private readonly clock: ManualClock,
  ) {}

  async append(partition: number, records: OffsetsLogRecord[]): Promise<number> {
    expect(partition).toBe(0);
    const batch = encodeBatch(
      records.map((r) => ({ key: r.key, value: r.value, timestampMs: this.clock.nowMs() })),
    );
    return (await this.log.append(batch, { leaderEpoch: 0 })).lastOffset;
  }

  async replay(
    partition: number,
    throughOffset: number,
    onRecord: (key: Buffer | null, value: Buffer | null, offset: number) => void,
  ): Promise<void> {
    expect(partition).toBe(0);
    let offset = this.log.logStartOffset;
    while (offset <= throughOffset) {
      const { batches, nextOffset } = await this.log.read(offset, 1 << 20);
      if (batches.length === 0) break;
      for (const { at } of iterateBatches(batches))
        for (const r of decodeBatch(batches, at).records)
          if (r.offset >= offset && r.offset <= throughOffset) onRecord(r.key, r.value, r.offset);
      offset = nextOffset;
    }
  }

  /** The log's records, one line each: `marker <epoch>` or `<topic>-<partition>=<offset> by <epoch>`. */
  async lines(): Promise<string[]> {
    const out: string[] = [];
    await this.replay(0, this.log.logEndOffset - 1, (key, value) => {
      const r = decodeOffsetsRecord(key, value);
      if (r.type === 'marker') out.push(`marker ${r.value?.coordinatorEpoch}`);
      else if (r.type === 'offset')
        out.push(`${r.topic}-${r.partition}=${r.value?.offset} by ${r.value?.coordinatorEpoch}`);
      else out.push(r.type);
    });
    return out;
  }
}

/** Data-topic offsets are not part of these tests: asking for them is a test bug. */
const noDataTopics: PartitionOffsets = {
  bounds: () => Promise.reject(new Error('no data topic offsets in this test')),
  offsetForTime: () => Promise.reject(new Error('no data topic offsets in this test')),
};

const dirs = new TempDirs();
const running: Coordinator[] = [];
let clock: ManualClock;
let log: SegmentedLog;
let offsetsLog: SegmentedOffsetsLog;

beforeEach(async () => {
  clock = new ManualClock();
  // One batch per segment: everything but the last append is below the active segment, cleanable.
  log = await openLog(await dirs.make(), compactConfig({ segmentBytes: 1 }), clock);
  offsetsLog = new SegmentedOffsetsLog(log, clock);
});

afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop()));
  await log.close();
  await dirs.cleanup();
});

const LEASE_TTL_MS = 10_000;

/** A coordinator instance that has taken SHARD at `epoch` and finished loading it. */
async function ownerAt(
  selfId: string,
  epoch: number,
  lease = new TestLease(clock, LEASE_TTL_MS),
): Promise<Coordinator> {
  const c = new Coordinator({
    selfId,
    clock,
    logger: silentLogger(),
    log: offsetsLog,
    offsets: noDataTopics,
    offsetsPartitions: 1,
    shardCount: () => SHARDS,
    partitionCount: (topic) => (topic === 't' ? 2 : undefined),
  });
  c.start();
  running.push(c);
  c.acquire([{ shard: SHARD, epoch, fence: lease.fence }]);
  const deadline = Date.now() + 10_000;
  while (c.loadedShards().find((s) => s.shard === SHARD)?.status !== 'active') {
    if (Date.now() > deadline) throw new Error(`${selfId} did not load shard ${SHARD} at epoch ${epoch}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return c;
}

async function commit(c: Coordinator, key: string, offset: number): Promise<void> {
  await c.runtime(GROUP, true).commit('', 0, [{ key, offset, metadata: '' }]);
}

function committed(c: Coordinator): Record<string, number | undefined> {
  return Object.fromEntries(c.fetchOffsets(GROUP, [T0, T1]).map((o) => [o.key, o.committed?.offset]));
}

async function compact(): Promise<void> {
  const cleaner = cleanerFor([log], clock);
  const pass = await cleaner.clean(log, { force: true });
  expect(pass).toBeDefined();
  await cleaner.close();
}

it('a late write of a deposed owner stays ignored after compaction and a restart', async () => {
  const zombie = await ownerAt('z', 5); // M(5)
  const a = await ownerAt('a', 9); // M(9): z's lease lapsed, z has not noticed
  await commit(a, T0, 10);
  await commit(zombie, T1, 99); // W(5), after M(9): z's late write
  const b = await ownerAt('b', 12); // M(12)
  expect(committed(b)).toEqual({ [T0]: 10, [T1]: undefined });
  await commit(b, T0, 12);
  await commit(b, T0, 13); // b's members go on committing: the records above are cleanable

  await compact();
  // The cleaner ran (a's superseded commit is gone; the active segment, b's last commit, is never
  // cleaned) and kept every marker: one key per epoch. With one key per shard it would have kept
  // M(12) only, leaving W(5) unfenced.
  expect(await offsetsLog.lines()).toEqual([
    'marker 5',
    'marker 9',
    't-1=99 by 5',
    'marker 12',
    't-0=12 by 12',
    't-0=13 by 12',
  ]);

  const c = await ownerAt('c', 15); // a restart: the next owner replays the compacted log
  expect(committed(c)).toEqual({ [T0]: 13, [T1]: undefined });
});

it('markers of earlier versions (keyed by shard only) still fence, before and after compaction', async () => {
  const legacyMarkerKey = Buffer.from('0002' + SHARD.toString(16).padStart(8, '0'), 'hex');
  const write = (records: OffsetsLogRecord[]) => offsetsLog.append(0, records);
  await write([{ key: legacyMarkerKey, value: markerValue(5, 0) }]);
  await write([{ key: legacyMarkerKey, value: markerValue(9, 0) }]);
  const zombieCommit = offsetValue({ coordinatorEpoch: 5, offset: 99, commitTimestampMs: 0, metadata: '' });
  await write([{ key: offsetKey(GROUP, 't', 1), value: zombieCommit }]);

  const upgraded = await ownerAt('u', 12);
  expect(committed(upgraded)).toEqual({ [T0]: undefined, [T1]: undefined });
  await commit(upgraded, T0, 3);

  await commit(upgraded, T0, 4);

  // The cleaner drops M(5) (same legacy key as M(9)) and keeps M(9): upgraded owners write no
  // more legacy markers, so the newest one stays, and W(5) behind it stays fenced.
  await compact();
  expect(await offsetsLog.lines()).toEqual([
    'marker 9',
    't-1=99 by 5',
    'marker 12',
    't-0=3 by 12',
    't-0=4 by 12',
  ]);
  const next = await ownerAt('n', 15);
  expect(committed(next)).toEqual({ [T0]: 4, [T1]: undefined });
});

it("a deposed owner woken past its lease writes nothing: the new owner's commit stays the last of its key", async () => {
  const zombie = await ownerAt('z', 5); // M(5)
  clock.advance(LEASE_TTL_MS + 1); // z is paused past its lease (SIGSTOP); etcd expires it
  const a = await ownerAt('a', 9); // M(9)
  await commit(a, T0, 10);
  // z wakes before any timer told it the lease is gone, and a member's commit reaches it. Written,
  // it would be the last record of t-0: the cleaner would drop a's t-0=10, and replay, ignoring
  // z's record, would find no committed offset for t-0 at all.
  await expect(commit(zombie, T0, 99)).rejects.toMatchObject({ code: 'NOT_COORDINATOR' });
  await commit(a, T1, 1);
  await commit(a, T1, 2); // later appends, so t-0's records are below the active segment

  await compact();
  // (t-1=1 stays: what supersedes it is in the active segment, which the cleaner does not read.)
  expect(await offsetsLog.lines()).toEqual([
    'marker 5',
    'marker 9',
    't-0=10 by 9',
    't-1=1 by 9',
    't-1=2 by 9',
  ]);
  const b = await ownerAt('b', 12); // the next owner replays the compacted log
  expect(committed(b)).toEqual({ [T0]: 10, [T1]: 2 });
});
