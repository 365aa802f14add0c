/**
 * Property test of compaction against a model. Each seed drives a random history on a compacted
 * log: keyed writes and tombstones from a small key space (random codecs, some from an idempotent
 * producer), clock jumps, cleaning passes, clean and unclean reopens. After every step:
 *   - a consumer reading from the start sees the model's latest value per key (tombstoned keys
 *     absent), and every record it reads is the record the model has at that offset;
 * after every pass with end offset E:
 *   - below E, each key has at most one record: the model's latest below E, unless that is a
 *     tombstone whose horizon (the time of the first pass with E above it + delete.retention.ms)
 *     has passed; at and above E, every record is still there;
 *   - the dirty ratio is 0.
 * Seeds are in the test names; rerun one with `-t 'seed 17'`, or try a new one with
 * TIDE_COMPACTION_SEED=<n>.
 */
import { ManualClock } from '../../../services/common/clock';
import { CompressionCodec } from '../../../services/common/records/layout';
import type { SegmentedLog } from '../../../services/broker/log/partition-log';
import { cleanerFor, compactConfig, fold, keyedBatch, readRecords, type KV } from './compaction-helpers';
import { seededRandom } from '../../harness/random';
import { TempDirs, forgetCleanShutdown, openLog } from './helpers';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());

interface ModelRecord {
  offset: number;
  key: string;
  value: string | null;
  timestampMs: number;
}

const RETENTION_MS = 50_000;
const envSeed = process.env.TIDE_COMPACTION_SEED;
const seeds = envSeed ? [Number(envSeed)] : [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

const totals = { passes: 0, removed: 0, tombstonesDropped: 0 };

describe('compaction matches the model', () => {
  afterAll(() => {
    // The histories must exercise what they check: passes that remove records and expire tombstones.
    expect(totals.passes).toBeGreaterThan(seeds.length);
    expect(totals.removed).toBeGreaterThan(0);
    if (!envSeed) expect(totals.tombstonesDropped).toBeGreaterThan(0);
  });

  it.each(seeds)('seed %d', async (seed) => {
    const random = seededRandom(seed);
    const pick = (n: number): number => Math.floor(random() * n);
    const clock = new ManualClock();
    const dataDir = await dirs.make();
    const config = compactConfig({
      deleteRetentionMs: RETENTION_MS,
      segmentBytes: 1024 + pick(3000),
      indexIntervalBytes: 64 + pick(512),
    });
    let log: SegmentedLog = await openLog(dataDir, config, clock);
    const keySpace = 3 + pick(40);
    const model: ModelRecord[] = [];
    const firstCleanedAt = new Map<number, number>(); // tombstone offset -> time of the first pass that covered it
    const pid = 5000 + seed;
    let seq = 0;
    let lastProducerBatch: Buffer | undefined;
    let lastProducerOffset = -1;
    const where = (step: number, what: string): string => `seed ${seed} step ${step}: ${what}`;

    try {
      for (let step = 0; step < 400; step++) {
        const roll = random();
        if (roll < 0.75) {
          const records: KV[] = Array.from({ length: 1 + pick(5) }, () => ({
            key: `key-${pick(keySpace)}`,
            value: random() < 0.2 ? null : `v${step}-${pick(1e6)}`.repeat(1 + pick(4)),
          }));
          const compression = [CompressionCodec.None, CompressionCodec.Gzip, CompressionCodec.Snappy][
            pick(3)
          ];
          const idempotent = random() < 0.2;
          const batch = keyedBatch(records, {
            timestampMs: clock.nowMs(),
            compression,
            ...(idempotent ? { producerId: pid, baseSequence: seq } : {}),
          });
          const copy = Buffer.from(batch);
          const result = await log.append(batch, { leaderEpoch: 0 });
          if (idempotent) {
            seq += records.length;
            lastProducerBatch = copy;
            lastProducerOffset = result.baseOffset;
          }
          records.forEach((r, i) =>
            model.push({
              offset: result.baseOffset + i,
              key: r.key,
              value: r.value,
              timestampMs: clock.nowMs(),
            }),
          );
        } else if (roll < 0.85) {
          clock.advance(pick(RETENTION_MS / 2));
        } else if (roll < 0.95) {
          const pass = await cleanerFor([log], clock).clean(log, { force: true });
          if (!pass) continue;
          totals.passes++;
          totals.removed += pass.stats.recordsRead - pass.stats.recordsKept;
          totals.tombstonesDropped += pass.stats.tombstonesDropped;
          const end = pass.endOffset;
          for (const r of model)
            if (r.value === null && r.offset < end && !firstCleanedAt.has(r.offset))
              firstCleanedAt.set(r.offset, clock.nowMs());
          const latest = new Map<string, ModelRecord>();
          for (const r of model) if (r.offset < end) latest.set(r.key, r);
          const expectedBelow = [...latest.values()]
            .filter((r) => r.value !== null || clock.nowMs() < firstCleanedAt.get(r.offset)! + RETENTION_MS)
            .map((r) => r.offset)
            .sort((a, b) => a - b);
          const read = await readRecords(log);
          expect({
            at: where(step, `kept below ${end}`),
            offsets: read.filter((r) => r.offset < end).map((r) => r.offset),
          }).toEqual({
            at: where(step, `kept below ${end}`),
            offsets: expectedBelow,
          });
          expect({
            at: where(step, 'untouched above'),
            records: read.filter((r) => r.offset >= end),
          }).toEqual({
            at: where(step, 'untouched above'),
            records: model.filter((r) => r.offset >= end),
          });
          expect({ at: where(step, 'dirty ratio'), ratio: log.dirtyRatio }).toEqual({
            at: where(step, 'dirty ratio'),
            ratio: 0,
          });
        } else if (roll < 0.98) {
          await log.close();
          log = await openLog(dataDir, config, clock);
        } else {
          await log.close();
          await forgetCleanShutdown(dataDir);
          log = await openLog(dataDir, config, clock);
        }

        const read = await readRecords(log);
        const byOffset = new Map(model.map((r) => [r.offset, r]));
        const strangers = read.filter((r) => {
          const m = byOffset.get(r.offset);
          return !m || m.key !== r.key || m.value !== r.value || m.timestampMs !== r.timestampMs;
        });
        expect({ at: where(step, 'records are the model records'), strangers }).toEqual({
          at: where(step, 'records are the model records'),
          strangers: [],
        });
        expect({ at: where(step, 'fold'), view: [...fold(read)].sort() }).toEqual({
          at: where(step, 'fold'),
          view: [...fold(model)].sort(),
        });
        if (step % 25 === 0 && log.logEndOffset > 0) {
          const offset = pick(log.logEndOffset);
          const { batches, nextOffset } = await log.read(offset, 1);
          expect(batches.length > 0 || offset >= log.writtenOffset).toBe(true);
          expect(nextOffset).toBeGreaterThan(offset);
        }
      }
      if (lastProducerBatch) {
        const retry = await log.append(Buffer.from(lastProducerBatch), { leaderEpoch: 0 });
        expect({ at: `seed ${seed}: retry of the producer's last batch`, retry }).toMatchObject({
          retry: { duplicate: true, baseOffset: lastProducerOffset },
        });
      }
    } finally {
      await log.close();
    }
  });
});
