/**
 * Crash recovery on real files. A "crash" is a copy of the partition folder taken while the log is
 * open (no clean-shutdown marker, no close-time index files or snapshot), then damaged:
 *   - the active segment cut at a seeded random byte, or one bit flipped in its last batches,
 *   - index files of rolled segments deleted or corrupted,
 * and reopened. The log must hold exactly the batches that lie wholly before the damage, keep
 * appending at the right offset, and keep the idempotent-producer state in step.
 * Also: damage inside an old segment is never cut or served (KAFKA_STORAGE_ERROR), stray files go,
 * index files are rebuilt, and a damaged tail behind a clean-shutdown marker is still caught.
 * Seeds are in the test names; rerun one with `-t 'seed 17'`.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { ManualClock } from '../../../services/common/clock';
import { silentLogger } from '../../../services/common/logger';
import { batchSizeAt, readBatchHeader } from '../../../services/common/records/layout';
import { OffsetIndex } from '../../../services/broker/log/offset-index';
import { SegmentedLog } from '../../../services/broker/log/partition-log';
import { TimeIndex } from '../../../services/broker/log/time-index';
import type { LogConfig } from '../../../services/broker/log/interface';
import { batchHeaders, buildBatch, offsetsIn } from './batches';
import {
  PARTITION,
  TOPIC,
  TempDirs,
  forgetCleanShutdown,
  listPartitionFiles,
  openLog,
  partitionDir,
  readAll,
  testConfig,
} from './helpers';
import { seededRandom } from '../../harness/random';

const dirs = new TempDirs();
const open: SegmentedLog[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.close().catch(() => undefined)));
  await dirs.cleanup();
});

async function track(log: Promise<SegmentedLog>): Promise<SegmentedLog> {
  const l = await log;
  open.push(l);
  return l;
}

interface FileBatch {
  position: number;
  sizeBytes: number;
  baseOffset: number;
  lastOffset: number;
}

function walk(bytes: Buffer): FileBatch[] {
  const out: FileBatch[] = [];
  for (let at = 0; at + 61 <= bytes.length;) {
    const size = batchSizeAt(bytes, at);
    if (at + size > bytes.length) break;
    const h = readBatchHeader(bytes, at);
    out.push({
      position: at,
      sizeBytes: size,
      baseOffset: h.baseOffset,
      lastOffset: h.baseOffset + h.lastOffsetDelta,
    });
    at += size;
  }
  return out;
}

const segmentFile = (dataDir: string, base: number, suffix = '.log'): string =>
  path.join(partitionDir(dataDir), `${String(base).padStart(20, '0')}${suffix}`);

/** Copies the partition folder of a live log: the disk as a crash would leave it. */
async function crashCopy(dataDir: string): Promise<string> {
  const copy = await dirs.make('tide-crash-');
  await fs.cp(partitionDir(dataDir), partitionDir(copy), { recursive: true });
  return copy;
}

const PRODUCER = 77;
const CONFIG = testConfig({ segmentBytes: 2000, indexIntervalBytes: 128 });

const fixedSeeds = Array.from({ length: 24 }, (_, i) => i + 1);
const timeSeed = Date.now() % 1_000_000;

describe('crash recovery of the active segment', () => {
  it.each([...fixedSeeds, timeSeed].map((seed) => ({ seed, mode: seed % 2 === 0 ? 'cut' : 'flip' })))(
    'seed $seed: $mode',
    async ({ seed, mode }) => {
      const rnd = seededRandom(seed);
      const dataDir = await dirs.make();
      const log = await track(openLog(dataDir, CONFIG));
      const producerBatches: Array<{ seq: number; records: number; baseOffset: number }> = [];
      let seq = 0;
      const count = 25 + Math.floor(rnd() * 40);
      for (let i = 0; i < count || log.segmentBaseOffsets().length < 2; i++) {
        const records = 1 + Math.floor(rnd() * 5);
        const valueBytes = Math.floor(rnd() * 150);
        if (rnd() < 0.4) {
          const r = await log.append(
            buildBatch({ records, valueBytes, producerId: PRODUCER, baseSequence: seq }),
            { leaderEpoch: 2 },
          );
          producerBatches.push({ seq, records, baseOffset: r.baseOffset });
          seq += records;
        } else {
          await log.append(buildBatch({ records, valueBytes }), { leaderEpoch: 2 });
        }
      }
      const everything = await readAll(log);
      const bases = log.segmentBaseOffsets();
      const activeBase = bases[bases.length - 1];
      const crashDir = await crashCopy(dataDir);

      // Damage the active segment.
      const activeFile = segmentFile(crashDir, activeBase);
      const bytes = await fs.readFile(activeFile);
      const batches = walk(bytes);
      let keepBytes: number;
      if (mode === 'cut' || batches.length === 0) {
        keepBytes = Math.floor(rnd() * (bytes.length + 1));
        await fs.truncate(activeFile, keepBytes);
      } else {
        const from = batches[Math.max(0, batches.length - 3)].position;
        let at: number;
        let victim: FileBatch;
        do {
          at = from + Math.floor(rnd() * (bytes.length - from));
          victim = batches.find((b) => at >= b.position && at < b.position + b.sizeBytes) as FileBatch;
        } while (at - victim.position >= 12 && at - victim.position < 16); // partitionLeaderEpoch: outside the CRC, undetectable in v2
        bytes[at] ^= 1 << Math.floor(rnd() * 8);
        await fs.writeFile(activeFile, bytes);
        keepBytes = victim.position;
      }
      const kept = batches.filter((b) => b.position + b.sizeBytes <= keepBytes);
      const keptEnd = kept.length > 0 ? kept[kept.length - 1].position + kept[kept.length - 1].sizeBytes : 0;
      const expectedLeo = kept.length > 0 ? kept[kept.length - 1].lastOffset + 1 : activeBase;
      const olderBytes = everything.length - bytes.length;

      // Sometimes also lose or garble index files of a rolled segment.
      if (rnd() < 0.5) {
        const victimBase = bases[Math.floor(rnd() * (bases.length - 1))];
        const which = rnd() < 0.5 ? '.index' : '.timeindex';
        if (rnd() < 0.5) await fs.rm(segmentFile(crashDir, victimBase, which), { force: true });
        else await fs.appendFile(segmentFile(crashDir, victimBase, which), Buffer.from([1, 2, 3]));
      }

      const recovered = await track(openLog(crashDir, CONFIG));
      expect(recovered.logEndOffset).toBe(expectedLeo);
      expect((await readAll(recovered)).equals(everything.subarray(0, olderBytes + keptEnd))).toBe(true);
      expect((await fs.stat(activeFile)).size).toBe(keptEnd);

      // The producer state matches what survived: the last kept batch is a duplicate, the next one is new.
      const survivors = producerBatches.filter((b) => b.baseOffset < expectedLeo);
      const last = survivors[survivors.length - 1];
      if (last) {
        await expect(
          recovered.append(
            buildBatch({ records: last.records, producerId: PRODUCER, baseSequence: last.seq }),
            { leaderEpoch: 3 },
          ),
        ).resolves.toMatchObject({
          baseOffset: last.baseOffset,
          duplicate: true,
        });
      }
      const nextSeq = last ? last.seq + last.records : 0;
      await expect(
        recovered.append(buildBatch({ records: 2, producerId: PRODUCER, baseSequence: nextSeq }), {
          leaderEpoch: 3,
        }),
      ).resolves.toMatchObject({
        baseOffset: expectedLeo,
        duplicate: false,
      });
      expect(offsetsIn(await readAll(recovered))).toEqual(
        Array.from({ length: expectedLeo + 2 }, (_, i) => i),
      );
    },
  );
});

describe('recovery of other damage', () => {
  it('zeros after the last batch (a file grown without its data) are cut', async () => {
    const dataDir = await dirs.make();
    const log = await track(openLog(dataDir));
    for (let i = 0; i < 5; i++) await log.append(buildBatch({ records: 2 }), { leaderEpoch: 0 });
    const crashDir = await crashCopy(dataDir);
    await fs.appendFile(segmentFile(crashDir, 0), Buffer.alloc(4096));
    const recovered = await track(openLog(crashDir));
    expect(recovered.logEndOffset).toBe(10);
    expect(recovered.sizeBytes).toBe(log.sizeBytes);
  });

  it('a damaged batch offset (outside the CRC) in the tail is caught by the contiguity check', async () => {
    const dataDir = await dirs.make();
    const log = await track(openLog(dataDir));
    for (let i = 0; i < 5; i++) await log.append(buildBatch({ records: 2 }), { leaderEpoch: 0 });
    const crashDir = await crashCopy(dataDir);
    const file = segmentFile(crashDir, 0);
    const bytes = await fs.readFile(file);
    const victim = walk(bytes)[3];
    bytes.writeBigInt64BE(BigInt(victim.baseOffset + 100), victim.position);
    await fs.writeFile(file, bytes);
    const recovered = await track(openLog(crashDir));
    expect(recovered.logEndOffset).toBe(6);
  });

  it('a torn tail behind a clean-shutdown marker is still caught, with a warning giving the bytes dropped', async () => {
    const dataDir = await dirs.make();
    let log = await openLog(dataDir, CONFIG);
    for (let i = 0; i < 30; i++)
      await log.append(buildBatch({ records: 2, valueBytes: 50 }), { leaderEpoch: 0 });
    const bases = log.segmentBaseOffsets();
    const activeBase = bases[bases.length - 1];
    await log.close();
    const file = segmentFile(dataDir, activeBase);
    const size = (await fs.stat(file)).size;
    await fs.truncate(file, size - 10);
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    log = await track(
      SegmentedLog.open({
        dataDir,
        topic: TOPIC,
        partition: PARTITION,
        config: CONFIG,
        clock: new ManualClock(),
        logger: pino({ level: 'warn' }, sink),
      }),
    );
    expect(log.logEndOffset).toBe(58);
    const warning = lines.find((l) => l.msg === 'truncating torn or corrupt tail of the active segment');
    expect(warning).toMatchObject({
      file,
      droppedBytes: size - 10 - (log.sizeBytes - (await sizeOfOlder(dataDir, bases))),
    });
  });

  it('stray leftovers and orphan index files are deleted at load', async () => {
    const dataDir = await dirs.make();
    let log = await openLog(dataDir);
    await log.append(buildBatch(), { leaderEpoch: 0 });
    await log.close();
    const dir = partitionDir(dataDir);
    for (const name of [
      '00000000000000000000.log.deleted',
      '00000000000000000000.log.cleaned',
      '00000000000000000000.log.swap',
      'log-start-offset.tmp',
      '00000000000000000500.index',
      '00000000000000000500.timeindex',
    ])
      await fs.writeFile(path.join(dir, name), 'junk');
    log = await track(openLog(dataDir));
    expect(await listPartitionFiles(dataDir)).toEqual([
      '00000000000000000000.index',
      '00000000000000000000.log',
      '00000000000000000000.timeindex',
      '00000000000000000001.snapshot',
      'log-start-offset',
      'recovery-point',
    ]);
    expect(log.logEndOffset).toBe(1);
  });

  it.each([
    { name: 'deleted offset indexes', damage: (f: string) => (f.endsWith('.index') ? 'delete' : undefined) },
    {
      name: 'deleted time indexes',
      damage: (f: string) => (f.endsWith('.timeindex') ? 'delete' : undefined),
    },
    {
      name: 'offset indexes with a partial entry',
      damage: (f: string) => (f.endsWith('.index') ? 'append' : undefined),
    },
    {
      name: 'time indexes with garbage',
      damage: (f: string) => (f.endsWith('.timeindex') ? 'garbage' : undefined),
    },
    {
      name: 'offset indexes pointing past the file',
      damage: (f: string) => (f.endsWith('.index') ? 'far' : undefined),
    },
  ])('$name are rebuilt (clean and unclean reopen)', async ({ damage }) => {
    for (const unclean of [false, true]) {
      const dataDir = await dirs.make();
      let log = await openLog(dataDir, CONFIG);
      for (let i = 0; i < 60; i++)
        await log.append(buildBatch({ records: 3, valueBytes: 30, timestampMs: 1_000_000 + i * 100 }), {
          leaderEpoch: 0,
        });
      const expected = await readAll(log);
      const expectedTs = await log.offsetForTimestamp(1_000_000 + 3050);
      await log.close();
      if (unclean) await forgetCleanShutdown(dataDir);
      for (const f of await listPartitionFiles(dataDir)) {
        const file = path.join(partitionDir(dataDir), f);
        const what = damage(f);
        if (what === 'delete') await fs.rm(file);
        if (what === 'append') await fs.appendFile(file, Buffer.from([7]));
        if (what === 'garbage') await fs.writeFile(file, Buffer.alloc(24, 0xff));
        if (what === 'far') await fs.writeFile(file, Buffer.from([0, 0, 0, 1, 0x7f, 0, 0, 0]));
      }
      log = await track(openLog(dataDir, CONFIG));
      expect((await readAll(log)).equals(expected)).toBe(true);
      for (let offset = 0; offset < log.logEndOffset; offset += 7)
        expect(batchHeaders((await log.read(offset, 1)).batches)[0].baseOffset).toBe(offset - (offset % 3));
      await expect(log.offsetForTimestamp(1_000_000 + 3050)).resolves.toEqual(expectedTs);
      // the rebuilt files of rolled segments are valid again
      const bases = log.segmentBaseOffsets();
      for (const base of bases.slice(0, -1)) {
        const size = (await fs.stat(segmentFile(dataDir, base))).size;
        expect(
          OffsetIndex.fromBytes(base, await fs.readFile(segmentFile(dataDir, base, '.index')), size),
        ).toBeInstanceOf(OffsetIndex);
        expect(
          TimeIndex.fromBytes(base, await fs.readFile(segmentFile(dataDir, base, '.timeindex'))),
        ).toBeInstanceOf(TimeIndex);
      }
      await log.close();
      open.pop();
    }
  });
});

async function sizeOfOlder(dataDir: string, bases: number[]): Promise<number> {
  let total = 0;
  for (const b of bases.slice(0, -1)) total += (await fs.stat(segmentFile(dataDir, b))).size;
  return total;
}

describe('a corrupt batch inside an old segment', () => {
  async function setUp(config: LogConfig): Promise<{
    dataDir: string;
    bad: FileBatch;
    badFile: string;
    before: FileBatch;
    after: FileBatch;
    leo: number;
  }> {
    const dataDir = await dirs.make();
    const log = await openLog(dataDir, config);
    for (let i = 0; i < 60; i++)
      await log.append(buildBatch({ records: 2, valueBytes: 40 }), { leaderEpoch: 0 });
    const bases = log.segmentBaseOffsets();
    expect(bases.length).toBeGreaterThan(3);
    const leo = log.logEndOffset;
    await log.close();
    const badFile = segmentFile(dataDir, bases[1]);
    const bytes = await fs.readFile(badFile);
    const batches = walk(bytes);
    const middle = Math.floor(batches.length / 2);
    const bad = batches[middle];
    bytes[bad.position + 70] ^= 0x10; // inside the records: CRC fails, framing intact
    await fs.writeFile(badFile, bytes);
    return { dataDir, bad, badFile, before: batches[middle - 1], after: batches[middle + 1], leo };
  }

  it.each([
    { name: 'clean reopen', prepare: async () => undefined },
    { name: 'unclean reopen', prepare: forgetCleanShutdown },
    {
      name: 'unclean reopen with the recovery point lost (the segment is rescanned, not cut)',
      prepare: async (dataDir: string) => {
        await forgetCleanShutdown(dataDir);
        await fs.rm(path.join(partitionDir(dataDir), 'recovery-point'));
      },
    },
    {
      name: 'reopen with its index files lost (rebuilt around the damage)',
      prepare: async (dataDir: string) => {
        for (const f of await listPartitionFiles(dataDir))
          if (f.endsWith('index')) await fs.rm(path.join(partitionDir(dataDir), f));
      },
    },
  ])(
    '$name: reads of it fail with KAFKA_STORAGE_ERROR, other reads work, nothing is dropped',
    async ({ prepare }) => {
      const config = testConfig({ segmentBytes: 1000, indexIntervalBytes: 0 });
      const { dataDir, bad, badFile, before, after, leo } = await setUp(config);
      await prepare(dataDir);
      const log = await track(openLog(dataDir, config));
      expect(log.logEndOffset).toBe(leo);
      for (const offset of [bad.baseOffset, bad.lastOffset]) {
        const err = await log.read(offset, 1 << 20).catch((e: unknown) => e);
        expect(err).toMatchObject({ code: 'KAFKA_STORAGE_ERROR' });
        expect((err as Error).message).toContain(badFile);
        expect((err as Error).message).toContain(`at position ${bad.position}`);
      }
      // a read that starts before it stops just before it
      const upTo = await log.read(before.baseOffset, 1 << 20);
      expect(upTo.nextOffset).toBe(bad.baseOffset);
      // a read after it is fine, and so is everything in other segments
      expect(batchHeaders((await log.read(after.baseOffset, 1)).batches)[0].baseOffset).toBe(
        after.baseOffset,
      );
      expect(offsetsIn((await log.read(0, 1 << 20)).batches)[0]).toBe(0);
      expect(offsetsIn((await log.read(leo - 1, 1)).batches)).toContain(leo - 1);
      await expect(log.append(buildBatch(), { leaderEpoch: 0 })).resolves.toMatchObject({ baseOffset: leo });
      // the damaged file was left as it was
      expect((await fs.readFile(badFile)).length).toBeGreaterThan(bad.position + bad.sizeBytes);
    },
  );

  it('an offset-for-timestamp lookup landing on it fails too', async () => {
    const config = testConfig({ segmentBytes: 1000, indexIntervalBytes: 0 });
    const { dataDir, bad } = await setUp(config);
    const log = await track(openLog(dataDir, config));
    // all batches share one timestamp: the lookup lands on the first batch, which is fine
    await expect(log.offsetForTimestamp(0)).resolves.toMatchObject({ offset: 0 });
    expect(bad.baseOffset).toBeGreaterThan(0);
  });
});

describe('silent logger sanity', () => {
  const openFresh = (dataDir: string) =>
    SegmentedLog.open({
      dataDir,
      topic: TOPIC,
      partition: PARTITION,
      config: CONFIG,
      clock: new ManualClock(),
      logger: silentLogger(),
    });

  it('opening a fresh folder creates segment 0 alone: missing checkpoints already mean offset 0', async () => {
    const dataDir = await dirs.make();
    await track(openFresh(dataDir));
    expect(await listPartitionFiles(dataDir)).toEqual(['00000000000000000000.log']);
  });

  it('closing a log nothing changed since a clean open writes only the marker; a write makes it rewrite all', async () => {
    const dataDir = await dirs.make();
    const dir = partitionDir(dataDir);
    const fresh = await openFresh(dataDir);
    await fresh.close();
    expect(await listPartitionFiles(dataDir)).toEqual(['00000000000000000000.log', 'clean-shutdown']);

    const written = await openFresh(dataDir);
    expect(written.logEndOffset).toBe(0);
    await written.append(buildBatch({ records: 2 }), { leaderEpoch: 0 });
    await written.close();
    const files = await listPartitionFiles(dataDir);
    expect(files).toEqual(
      expect.arrayContaining(['00000000000000000000.index', 'recovery-point', 'clean-shutdown']),
    );
    const inode = async (name: string) => (await fs.stat(path.join(dir, name))).ino;
    const before = await Promise.all(files.filter((f) => f !== 'clean-shutdown').map(inode));

    const idle = await openFresh(dataDir);
    expect(idle.logEndOffset).toBe(2);
    await idle.close();
    const after = await Promise.all(files.filter((f) => f !== 'clean-shutdown').map(inode));
    expect(after).toEqual(before);

    const reopened = await track(openFresh(dataDir));
    expect(reopened.logEndOffset).toBe(2);
    const read = await reopened.read(0, 1 << 20);
    expect(read.nextOffset).toBe(2);
  });

  it('a clean restart rewrites no checkpoint, and a reopened fresh log keeps its offsets', async () => {
    const dataDir = await dirs.make();
    const first = await openFresh(dataDir);
    await first.append(buildBatch({ records: 3 }), { leaderEpoch: 0 });
    await first.close();
    const dir = partitionDir(dataDir);
    const before = await fs.stat(path.join(dir, 'recovery-point'));
    const second = await track(openFresh(dataDir));
    expect(second.logStartOffset).toBe(0);
    expect(second.logEndOffset).toBe(3);
    expect((await fs.stat(path.join(dir, 'recovery-point'))).ino).toBe(before.ino);
    expect(await listPartitionFiles(dataDir)).not.toContain('clean-shutdown');
  });
});
