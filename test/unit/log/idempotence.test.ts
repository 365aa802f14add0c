/**
 * Idempotent producers through the log: retries return the original offsets and write nothing,
 * gaps and fenced epochs are refused, and the state survives a clean close, an unclean reopen
 * (no marker: snapshot + replay), a lost snapshot, truncation and retention.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ManualClock } from '../../../services/common/clock';
import type { SegmentedLog } from '../../../services/broker/log/partition-log';
import { buildBatch } from './batches';
import {
  TempDirs,
  forgetCleanShutdown,
  listPartitionFiles,
  openLog,
  partitionDir,
  testConfig,
} from './helpers';

const dirs = new TempDirs();
let log: SegmentedLog | undefined;
afterEach(async () => {
  await log?.close();
  log = undefined;
  await dirs.cleanup();
});

const produce = (seq: number, records = 2, epoch = 0, producerId = 42): Buffer =>
  buildBatch({ producerId, producerEpoch: epoch, baseSequence: seq, records });

describe('idempotent producers', () => {
  it('a retried batch resolves with its original offsets and writes nothing', async () => {
    log = await openLog(await dirs.make());
    const original = await log.append(produce(0), { leaderEpoch: 0 });
    await log.append(buildBatch({ records: 3 }), { leaderEpoch: 0 });
    const size = log.sizeBytes;
    const retry = await log.append(produce(0), { leaderEpoch: 0 });
    expect(retry).toEqual({ ...original, duplicate: true, logAppendTimeMs: -1 });
    expect(log.sizeBytes).toBe(size);
    expect(log.logEndOffset).toBe(5);
  });

  it('a retry arriving while the original is still being written waits for it', async () => {
    log = await openLog(await dirs.make());
    const first = log.append(produce(0), { leaderEpoch: 0 });
    const retry = log.append(produce(0), { leaderEpoch: 0 });
    const [a, b] = await Promise.all([first, retry]);
    expect(b).toMatchObject({ baseOffset: a.baseOffset, lastOffset: a.lastOffset, duplicate: true });
    expect(log.logEndOffset).toBe(2);
  });

  it.each([
    { name: 'a gap', next: () => produce(5), code: 'OUT_OF_ORDER_SEQUENCE' },
    { name: 'an old unknown sequence', next: () => produce(1, 1), code: 'OUT_OF_ORDER_SEQUENCE' },
    { name: 'an older epoch', next: () => produce(4, 1, 0), code: 'INVALID_PRODUCER_EPOCH', epochFirst: 1 },
    { name: 'a newer epoch not starting at 0', next: () => produce(4, 1, 2), code: 'OUT_OF_ORDER_SEQUENCE' },
  ])('$name -> $code, not retriable, nothing written', async ({ next, code, epochFirst }) => {
    log = await openLog(await dirs.make());
    const epoch = epochFirst ?? 0;
    await log.append(produce(0, 2, epoch), { leaderEpoch: 0 });
    await log.append(produce(2, 2, epoch), { leaderEpoch: 0 });
    const err = await log.append(next(), { leaderEpoch: 0 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code, retriable: false });
    expect(log.logEndOffset).toBe(4);
    await expect(log.append(produce(4, 1, epoch), { leaderEpoch: 0 })).resolves.toMatchObject({
      baseOffset: 4,
    });
  });

  it('a newer epoch starting at 0 is accepted and fences the old one', async () => {
    log = await openLog(await dirs.make());
    await log.append(produce(0, 2, 0), { leaderEpoch: 0 });
    await log.append(produce(0, 2, 1), { leaderEpoch: 0 });
    await expect(log.append(produce(2, 1, 0), { leaderEpoch: 0 })).rejects.toMatchObject({
      code: 'INVALID_PRODUCER_EPOCH',
    });
  });

  describe.each([
    { name: 'clean close', unclean: false, dropSnapshots: false },
    { name: 'unclean reopen (no marker)', unclean: true, dropSnapshots: false },
    { name: 'unclean reopen without any snapshot', unclean: true, dropSnapshots: true },
  ])('state survives a $name', ({ unclean, dropSnapshots }) => {
    it('duplicates, gaps and fencing still work after reopening', async () => {
      const dataDir = await dirs.make();
      const config = testConfig({ segmentBytes: 400 });
      log = await openLog(dataDir, config);
      // producer 42 on epoch 0, producer 7 on epoch 3, interleaved across several segments
      let seq42 = 0;
      let seq7 = 0;
      const originals: Record<string, { baseOffset: number; lastOffset: number }> = {};
      for (let i = 0; i < 12; i++) {
        const r42 = await log.append(produce(seq42, 2), { leaderEpoch: 0 });
        originals[`42:${seq42}`] = r42;
        seq42 += 2;
        const r7 = await log.append(produce(seq7, 1, 3, 7), { leaderEpoch: 0 });
        originals[`7:${seq7}`] = r7;
        seq7 += 1;
      }
      expect(log.segmentBaseOffsets().length).toBeGreaterThan(2);
      const leo = log.logEndOffset;
      await log.close();
      log = undefined;
      if (unclean) await forgetCleanShutdown(dataDir);
      if (dropSnapshots) {
        for (const f of await listPartitionFiles(dataDir))
          if (f.endsWith('.snapshot')) await fs.rm(path.join(partitionDir(dataDir), f));
      }
      log = await openLog(dataDir, config);
      expect(log.logEndOffset).toBe(leo);
      await expect(log.append(produce(seq42 - 2, 2), { leaderEpoch: 0 })).resolves.toEqual({
        ...originals[`42:${seq42 - 2}`],
        duplicate: true,
        logAppendTimeMs: -1,
        logStartOffset: 0,
      });
      await expect(log.append(produce(seq7 - 1, 1, 3, 7), { leaderEpoch: 0 })).resolves.toMatchObject({
        ...originals[`7:${seq7 - 1}`],
        duplicate: true,
      });
      await expect(log.append(produce(seq42 + 1, 1), { leaderEpoch: 0 })).rejects.toMatchObject({
        code: 'OUT_OF_ORDER_SEQUENCE',
      });
      await expect(log.append(produce(seq7, 1, 2, 7), { leaderEpoch: 0 })).rejects.toMatchObject({
        code: 'INVALID_PRODUCER_EPOCH',
      });
      await expect(log.append(produce(seq42, 1), { leaderEpoch: 0 })).resolves.toMatchObject({
        baseOffset: leo,
        duplicate: false,
      });
    });
  });

  it('a request whose batches straddle a segment roll: the roll snapshot holds exactly the batches below it', async () => {
    const dataDir = await dirs.make();
    const config = testConfig({ segmentBytes: 300 });
    log = await openLog(dataDir, config);
    const request = Buffer.concat([0, 2, 4, 6, 8].map((seq) => produce(seq)));
    await log.append(request, { leaderEpoch: 0 });
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(1);
    // a crash: the folder as it is now (no close-time snapshot), reopened
    const crash = await dirs.make('tide-crash-');
    await fs.cp(partitionDir(dataDir), partitionDir(crash), { recursive: true });
    const reopened = await openLog(crash, config);
    try {
      for (const seq of [0, 2, 4, 6, 8]) {
        await expect(reopened.append(produce(seq), { leaderEpoch: 0 })).resolves.toMatchObject({
          baseOffset: seq,
          duplicate: true,
        });
      }
      await expect(reopened.append(produce(10), { leaderEpoch: 0 })).resolves.toMatchObject({
        baseOffset: 10,
        duplicate: false,
      });
    } finally {
      await reopened.close();
    }
  });

  it('truncateTo rewinds the producer state: a truncated batch may be appended again', async () => {
    log = await openLog(await dirs.make(), testConfig({ segmentBytes: 300 }));
    for (let seq = 0; seq < 20; seq += 2) await log.append(produce(seq), { leaderEpoch: 0 });
    await log.truncateTo(10); // keeps sequences 0..9 (offsets 0..9)
    expect(log.logEndOffset).toBe(10);
    await expect(log.append(produce(10), { leaderEpoch: 0 })).resolves.toMatchObject({
      baseOffset: 10,
      duplicate: false,
    });
    await expect(log.append(produce(8), { leaderEpoch: 0 })).resolves.toMatchObject({
      baseOffset: 8,
      duplicate: true,
    });
  });

  it('producers whose batches are all deleted by retention are forgotten', async () => {
    const clock = new ManualClock();
    log = await openLog(await dirs.make(), testConfig({ segmentBytes: 300, retentionMs: 1000 }), clock);
    await log.append(buildBatch({ producerId: 5, baseSequence: 0, timestampMs: clock.nowMs() }), {
      leaderEpoch: 0,
    });
    for (let i = 0; i < 5; i++)
      await log.append(buildBatch({ records: 2, timestampMs: clock.nowMs() }), { leaderEpoch: 0 });
    for (let i = 0; i < 10; i++)
      await log.append(buildBatch({ records: 2, timestampMs: clock.nowMs() + 5000 }), { leaderEpoch: 0 });
    clock.advance(2000);
    expect(await log.applyRetention(clock.nowMs())).toBeGreaterThan(0);
    expect(log.logStartOffset).toBeGreaterThan(0);
    // unknown again: any sequence is accepted
    await expect(
      log.append(buildBatch({ producerId: 5, baseSequence: 77 }), { leaderEpoch: 0 }),
    ).resolves.toMatchObject({ duplicate: false });
  });
});
