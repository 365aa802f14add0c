/**
 * The segment swap's crash safety, in process: the partition folder is copied at every step of
 * every swap of a cleaning pass (what a crash at that instant leaves on disk), and each copy must
 * load into a log with the same consumer view, no leftover files, working reads and appends, and
 * the same result after cleaning again. Also the load rules for `.cleaned` and `.swap` leftovers,
 * and readers holding replaced segments across a swap.
 */
import { copyFileSync, mkdirSync, promises as fs, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { ManualClock } from '../../../services/common/clock';
import { TideError } from '../../../services/common/errors';
import { partitionDirName } from '../../../services/broker/log/names';
import type { SegmentedLog } from '../../../services/broker/log/partition-log';
import { readSegment } from '../../../services/broker/log/reader';
import type { LogSegment } from '../../../services/broker/log/segment';
import type { SwapStep } from '../../../services/broker/log/segment-swap';
import { decodeRecords, encodeBatch, encodeControlBatch } from '../../../services/common/records';
import { cleanerFor, compactConfig, fold, keyedBatch, readRecords } from './compaction-helpers';
import { PARTITION, TOPIC, TempDirs, listPartitionFiles, openLog, partitionDir } from './helpers';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());

const config = compactConfig({ segmentBytes: 2048 });

async function filledLog(dataDir: string, clock: ManualClock): Promise<SegmentedLog> {
  const log = await openLog(dataDir, config, clock);
  for (let i = 0; i < 150; i++) {
    const value = i % 13 === 0 ? null : `value-${i}`;
    await log.append(
      keyedBatch([
        { key: `k${i % 9}`, value },
        { key: `u${i}`, value: 'once' },
      ]),
      { leaderEpoch: 0 },
    );
  }
  return log;
}

/**
 * Copies the folder as it is now. Replaced segments of earlier swaps may be unlinked by the
 * thread pool meanwhile: a file gone before it is copied was gone at the crash too.
 */
function snapshotFolder(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const name of readdirSync(from)) {
    try {
      copyFileSync(path.join(from, name), path.join(to, name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

function isLeftover(name: string): boolean {
  return /\.(cleaned|swap|deleted|tmp)$/.test(name);
}

describe('a crash at any step of a swap', () => {
  it('leaves a folder that loads into the same log', async () => {
    const clock = new ManualClock();
    const dataDir = await dirs.make();
    const log = await filledLog(dataDir, clock);
    const model = fold(await readRecords(log));
    const images: Array<{ step: SwapStep; n: number; dir: string }> = [];
    let n = 0;
    log.compaction.swapHook = (step) => {
      const copy = path.join(dataDir, `crash-${n}`);
      snapshotFolder(partitionDir(dataDir), path.join(copy, partitionDirName(TOPIC, PARTITION)));
      images.push({ step, n: n++, dir: copy });
    };
    const pass = await cleanerFor([log], clock).clean(log);
    expect(pass!.segmentsCleaned).toBeGreaterThan(2);
    expect(images.length).toBeGreaterThan(10);
    const steps = new Set(images.map((i) => i.step));
    expect([...steps].sort()).toEqual([
      'cleaned-written',
      'indexes-written',
      'original-renamed',
      'swap-completed',
      'swap-renamed',
    ]);
    const cleaned = await readRecords(log);
    await log.close();

    for (const image of images) {
      const what = `crash image ${image.n} at ${image.step}`;
      expect((await listPartitionFiles(image.dir)).some(isLeftover) || image.step === 'indexes-written').toBe(
        true,
      );
      const reopened = await openLog(image.dir, config, clock);
      try {
        const records = await readRecords(reopened);
        expect({ what, view: fold(records) }).toEqual({ what, view: model });
        expect({ what, leftovers: (await listPartitionFiles(image.dir)).filter(isLeftover) }).toEqual({
          what,
          leftovers: [],
        });
        expect(reopened.logEndOffset).toBe(300);
        await reopened.append(keyedBatch([{ key: 'after', value: 'crash' }]), { leaderEpoch: 0 });
        await cleanerFor([reopened], clock).clean(reopened, { force: true });
        const again = await readRecords(reopened);
        expect({ what, kept: again.filter((r) => r.offset < pass!.endOffset) }).toEqual({
          what,
          kept: cleaned.filter((r) => r.offset < pass!.endOffset),
        });
      } finally {
        await reopened.close();
      }
    }
  });
});

describe('load rules for leftovers', () => {
  it('deletes a .cleaned file (a pass that never reached its commit point); the originals stay', async () => {
    const clock = new ManualClock();
    const dataDir = await dirs.make();
    let log = await filledLog(dataDir, clock);
    const records = await readRecords(log);
    const base = log.segmentBaseOffsets()[0];
    await log.close();
    const name = `${String(base).padStart(20, '0')}.log`;
    await fs.copyFile(
      path.join(partitionDir(dataDir), name),
      path.join(partitionDir(dataDir), `${name}.cleaned`),
    );
    log = await openLog(dataDir, config, clock);
    expect(await readRecords(log)).toEqual(records);
    expect((await listPartitionFiles(dataDir)).filter(isLeftover)).toEqual([]);
    await log.close();
  });

  it('deletes a damaged .swap whose first original is still there; refuses to guess when it is gone', async () => {
    const clock = new ManualClock();
    const dataDir = await dirs.make();
    let log = await filledLog(dataDir, clock);
    const records = await readRecords(log);
    await log.close();
    const dir = partitionDir(dataDir);
    const first = `${String(0).padStart(20, '0')}.log`;
    await fs.writeFile(path.join(dir, `${first}.swap`), 'not a batch');
    log = await openLog(dataDir, config, clock);
    expect(await readRecords(log)).toEqual(records);
    await log.close();

    await fs.writeFile(path.join(dir, `${first}.swap`), 'not a batch');
    await fs.rename(path.join(dir, first), path.join(dir, `${first}.deleted`));
    const err = await openLog(dataDir, config, clock).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(TideError);
    expect((err as TideError).code).toBe('KAFKA_STORAGE_ERROR');
    expect((err as TideError).message).toMatch(/cannot finish the interrupted segment swap/);
  });
});

describe('readers during a swap', () => {
  it('a read that started before a swap keeps its segments open until it ends; then they are closed and deleted', async () => {
    const clock = new ManualClock();
    const dataDir = await dirs.make();
    const log = await filledLog(dataDir, clock);
    const ticket = log.compaction.enterRead();
    const old = (log as unknown as { segments: LogSegment[] }).segments.slice(0, 3);
    await cleanerFor([log], clock).clean(log);
    expect(log.segmentBaseOffsets()[0]).toBe(0);
    const current = (log as unknown as { segments: LogSegment[] }).segments;
    for (const segment of old) {
      expect(current).not.toContain(segment);
      expect(segment.isOpen).toBe(true);
      const got = await readSegment(segment, segment.baseOffset, 100, Number.MAX_SAFE_INTEGER);
      expect(got?.batches.length).toBeGreaterThan(0);
    }
    expect((await listPartitionFiles(dataDir)).filter((f) => f.endsWith('.deleted')).length).toBeGreaterThan(
      0,
    );
    log.compaction.exitRead(ticket);
    await log.compaction.closeRetired(false);
    for (const segment of old) expect(segment.isOpen).toBe(false);
    expect((await listPartitionFiles(dataDir)).filter(isLeftover)).toEqual([]);
    await log.close();
  });

  it('reads running all through a pass never fail and always see the model', async () => {
    const clock = new ManualClock();
    const dataDir = await dirs.make();
    const log = await filledLog(dataDir, clock);
    const model = fold(await readRecords(log));
    let stop = false;
    let reads = 0;
    const readers = Array.from({ length: 4 }, async () => {
      while (!stop) {
        expect(fold(await readRecords(log))).toEqual(model);
        reads++;
      }
    });
    await cleanerFor([log], clock, { worker: true }).clean(log);
    stop = true;
    await Promise.all(readers);
    expect(reads).toBeGreaterThan(0);
    await log.close();
  });
});

describe('a crash at any step of a swap, with transactions', () => {
  const txn = (producerId: number, seq: number, key: string, value: string): Buffer =>
    encodeBatch([{ key: Buffer.from(key), value: Buffer.from(value) }], {
      producerId,
      producerEpoch: 0,
      baseSequence: seq,
      transactional: true,
    });
  const marker = (producerId: number, type: 'COMMIT' | 'ABORT'): Buffer =>
    encodeControlBatch({ type, producerId, producerEpoch: 1, coordinatorEpoch: 0, timestampMs: 1000 });

  /**
   * read_committed view: latest value per key, whether a record of an aborted transaction (odd
   * producers) showed, and the aborted ranges of the first read.
   */
  async function committedState(
    log: SegmentedLog,
  ): Promise<{ view: Map<string, string>; abortedSeen: boolean; aborted: unknown }> {
    const records: { key: string | null; value: string | null }[] = [];
    let offset = log.logStartOffset;
    let aborted: unknown;
    while (offset < log.logEndOffset) {
      const read = await log.read(offset, 1 << 20, { isolation: 'read_committed' });
      if (read.batches.length === 0) break;
      if (aborted === undefined) aborted = read.abortedTransactions;
      for (const r of decodeRecords(read.batches, offset, read.abortedTransactions))
        records.push({ key: r.key?.toString() ?? null, value: r.value?.toString() ?? null });
      offset = read.nextOffset;
    }
    const abortedSeen = records.some((r) => /^p[13]-/.test(r.value ?? ''));
    return { view: fold(records), abortedSeen, aborted };
  }

  it('keeps the aborted index and the committed view', async () => {
    const clock = new ManualClock();
    const dataDir = await dirs.make();
    const log = await openLog(dataDir, config, clock);
    // Producers 1..4 each write a transaction over a few segments; odd ones abort.
    for (let p = 1; p <= 4; p++) {
      for (let i = 0; i < 10; i++) {
        await log.append(txn(p, i, `k${i % 5}`, `p${p}-${i}`), { leaderEpoch: 0 });
        await log.append(keyedBatch([{ key: `u${p}-${i}`, value: 'x'.repeat(60) }]), { leaderEpoch: 0 });
      }
      await log.append(marker(p, p % 2 === 1 ? 'ABORT' : 'COMMIT'), {
        leaderEpoch: 0,
        origin: 'coordinator',
      });
    }
    for (let i = 0; i < 20; i++)
      await log.append(keyedBatch([{ key: `tail${i}`, value: 'y'.repeat(60) }]), { leaderEpoch: 0 });
    const before = await committedState(log);
    expect(before.view.get('k0')).toBe('p4-5');
    const images: string[] = [];
    const steps: string[] = [];
    let n = 0;
    log.compaction.swapHook = (step) => {
      const copy = path.join(dataDir, `crash-${n++}`);
      snapshotFolder(partitionDir(dataDir), path.join(copy, partitionDirName(TOPIC, PARTITION)));
      images.push(copy);
      steps.push(step);
    };
    await cleanerFor([log], clock).clean(log, { force: true });
    expect(images.length).toBeGreaterThan(5);
    expect(await committedState(log)).toEqual(before);
    await log.close();
    for (const [n, image] of images.entries()) {
      const i = `${n} ${steps[n]}`;
      const reopened = await openLog(image, config, clock);
      try {
        const after = await committedState(reopened);
        // An index entry may be gone once its transaction has no record left (a replay of the
        // cleaned log only indexes what it finds); a record of an aborted transaction never shows.
        expect({ i, view: after.view, abortedSeen: after.abortedSeen }).toEqual({
          i,
          view: before.view,
          abortedSeen: false,
        });
        expect((await listPartitionFiles(image)).filter(isLeftover)).toEqual([]);
      } finally {
        await reopened.close();
      }
    }
  });
});
