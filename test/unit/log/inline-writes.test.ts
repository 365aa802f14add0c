/**
 * Inline page-cache writes (log/inline-writes.ts): small rounds of a log that is not flushed on
 * each append are written on the event loop, large rounds and durable ('sync') rounds through
 * the thread pool, and writes that keep blocking send every log back to the pool for a while.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ManualClock } from '../../../services/common/clock';
import { silentLogger } from '../../../services/common/logger';
import { SegmentedLog } from '../../../services/broker/log/partition-log';
import { diskError, InlineWrites, type DiskFaults, type DiskOp } from '../../../services/broker/log';
import type { LogConfig } from '../../../services/broker/log/interface';
import { buildBatch, offsetsIn } from './batches';
import { TempDirs, readAll, testConfig } from './helpers';

const dirs = new TempDirs();
const spies: jest.SpyInstance[] = [];
let log: SegmentedLog | undefined;
afterEach(async () => {
  spies.splice(0).forEach((s) => s.mockRestore());
  await log?.close().catch(() => undefined);
  log = undefined;
  await dirs.cleanup();
});

function openWith(
  dataDir: string,
  config: LogConfig,
  inlineWrites: InlineWrites,
  faults?: DiskFaults,
): Promise<SegmentedLog> {
  return SegmentedLog.open({
    dataDir,
    topic: 't',
    partition: 0,
    config,
    clock: new ManualClock(),
    logger: silentLogger(),
    inlineWrites,
    faults,
  });
}

/** Counts FileHandle.writev calls: the thread-pool path (Node does not export the class). */
async function spyPoolWrites(dir: string): Promise<jest.SpyInstance> {
  const handle = await fs.open(path.join(dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(handle) as Record<string, unknown>;
  await handle.close();
  const spy = jest.spyOn(proto as never, 'writev' as never);
  spies.push(spy);
  return spy;
}

describe('the inline-write policy', () => {
  it('allows rounds up to maxBytes; 0 allows none', () => {
    const clock = new ManualClock();
    const inline = new InlineWrites({ clock, maxBytes: 1000 });
    expect(inline.allows(1000)).toBe(true);
    expect(inline.allows(1001)).toBe(false);
    expect(new InlineWrites({ clock, maxBytes: 0 }).allows(1)).toBe(false);
  });

  it('scattered slow writes keep writes inline; three in a row send them to the pool for the backoff', () => {
    const clock = new ManualClock();
    const inline = new InlineWrites({
      clock,
      slowWriteMs: 5,
      slowWrites: 3,
      windowWrites: 50,
      backoffMs: 30_000,
    });
    // One slow write in every 60: preemption on a busy machine, not a throttled disk.
    for (let i = 0; i < 300; i++) inline.took(i % 60 === 0 ? 9 : 0.01, 'f');
    expect(inline.stats).toMatchObject({ inline: 300, slow: 5, backoffs: 0 });
    expect(inline.allows(100)).toBe(true);

    inline.took(12, 'f');
    inline.took(0.02, 'f');
    inline.took(15, 'f');
    expect(inline.allows(100)).toBe(true);
    inline.took(20, 'f');
    expect(inline.stats.backoffs).toBe(1);
    expect(inline.allows(100)).toBe(false);
    clock.advance(29_999);
    expect(inline.allows(100)).toBe(false);
    clock.advance(1);
    expect(inline.allows(100)).toBe(true);
    // The count starts over: one more slow write does not switch them off again.
    inline.took(30, 'f');
    expect(inline.allows(100)).toBe(true);
  });
});

describe('a log with inline writes', () => {
  it("writes small 'os' rounds on the event loop and large ones through the pool; all are read back", async () => {
    const dataDir = await dirs.make();
    const inline = new InlineWrites({ clock: new ManualClock(), maxBytes: 8 * 1024 });
    log = await openWith(dataDir, testConfig({ flushPolicy: 'os', segmentBytes: 1 << 20 }), inline);
    const poolWrites = await spyPoolWrites(dataDir);

    for (let i = 0; i < 5; i++) await log.append(buildBatch({ records: 3 }), { leaderEpoch: 0 });
    expect(inline.stats.inline).toBe(5);
    expect(poolWrites).not.toHaveBeenCalled();

    await log.append(buildBatch({ records: 200, valueBytes: 100 }), { leaderEpoch: 0 });
    expect(inline.stats.inline).toBe(5);
    expect(poolWrites).toHaveBeenCalledTimes(1);

    expect(offsetsIn(await readAll(log))).toHaveLength(215);
    await log.close();
    log = await openWith(dataDir, testConfig({ flushPolicy: 'os', segmentBytes: 1 << 20 }), inline);
    expect(offsetsIn(await readAll(log))).toHaveLength(215);
  });

  it("never writes 'sync' rounds inline: they wait for the disk", async () => {
    const dataDir = await dirs.make();
    const inline = new InlineWrites({ clock: new ManualClock() });
    log = await openWith(dataDir, testConfig({ flushPolicy: 'sync' }), inline);
    const poolWrites = await spyPoolWrites(dataDir);
    await log.append(buildBatch(), { leaderEpoch: 0 });
    expect(inline.stats.inline).toBe(0);
    expect(poolWrites).toHaveBeenCalledTimes(1);
    expect(log.stats.durableWritevCalls).toBe(1);
  });

  it('never writes inline through a descriptor still opened with O_DSYNC', async () => {
    const dataDir = await dirs.make();
    const inline = new InlineWrites({ clock: new ManualClock() });
    log = await openWith(dataDir, testConfig({ flushPolicy: 'sync' }), inline);
    // The policy as the writer sees it, before updateConfig's reopen of the segment has run.
    (log as unknown as { log: { setConfig(c: LogConfig): void } }).log.setConfig(
      testConfig({ flushPolicy: 'os' }),
    );
    const poolWrites = await spyPoolWrites(dataDir);
    await log.append(buildBatch(), { leaderEpoch: 0 });
    expect(inline.stats.inline).toBe(0);
    expect(poolWrites).toHaveBeenCalledTimes(1);
  });

  it('a disk error on an inline write fails the append and takes the log offline', async () => {
    const dataDir = await dirs.make();
    const faults: DiskFaults & { on: boolean } = {
      on: false,
      beforeIo(op: DiskOp, target) {
        if (this.on && op === 'write') throw diskError('ENOSPC', op, target.file);
      },
    };
    const inline = new InlineWrites({ clock: new ManualClock() });
    log = await openWith(dataDir, testConfig({ flushPolicy: 'os' }), inline, faults);
    await log.append(buildBatch({ records: 2 }), { leaderEpoch: 0 });
    faults.on = true;
    await expect(log.append(buildBatch(), { leaderEpoch: 0 })).rejects.toMatchObject({
      code: 'KAFKA_STORAGE_ERROR',
    });
    await expect(log.append(buildBatch(), { leaderEpoch: 0 })).rejects.toMatchObject({
      code: 'KAFKA_STORAGE_ERROR',
    });
    await log.close().catch(() => undefined);
    faults.on = false;
    log = await openWith(dataDir, testConfig({ flushPolicy: 'os' }), inline, faults);
    expect(offsetsIn(await readAll(log))).toEqual([0, 1]);
  });
});
