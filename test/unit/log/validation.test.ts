/**
 * Every kind of bad append input is refused with the right error code, and afterwards nothing
 * stored changed: same LEO, same files, same bytes, and the next good append gets the next offset.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  CONTROL_BIT,
  OFFSET_ATTRIBUTES,
  OFFSET_BASE_SEQUENCE,
  OFFSET_BATCH_LENGTH,
  OFFSET_LAST_OFFSET_DELTA,
  OFFSET_MAGIC,
  OFFSET_PRODUCER_EPOCH,
  OFFSET_PRODUCER_ID,
  OFFSET_RECORD_COUNT,
  TRANSACTIONAL_BIT,
} from '../../../services/common/records/layout';
import type { SegmentedLog } from '../../../services/broker/log/partition-log';
import { buildBatch, withHeader } from './batches';
import { TempDirs, listPartitionFiles, openLog, partitionDir, readAll, testConfig } from './helpers';

const dirs = new TempDirs();
let log: SegmentedLog | undefined;
afterEach(async () => {
  await log?.close();
  log = undefined;
  await dirs.cleanup();
});

const good = (): Buffer => buildBatch({ records: 2 });
const cases: Array<{ name: string; input: () => Buffer; code: string }> = [
  { name: 'empty request', input: () => Buffer.alloc(0), code: 'INVALID_RECORD' },
  { name: 'fewer than 12 bytes', input: () => good().subarray(0, 11), code: 'INVALID_RECORD' },
  {
    name: 'batchLength below the header size',
    input: () => withHeader(good(), (b) => b.writeInt32BE(40, OFFSET_BATCH_LENGTH)),
    code: 'INVALID_RECORD',
  },
  {
    name: 'batchLength past the end',
    input: () => withHeader(good(), (b) => b.writeInt32BE(b.length, OFFSET_BATCH_LENGTH)),
    code: 'INVALID_RECORD',
  },
  { name: 'truncated batch', input: () => good().subarray(0, 70), code: 'INVALID_RECORD' },
  {
    name: 'trailing garbage after a good batch',
    input: () => Buffer.concat([good(), Buffer.alloc(5)]),
    code: 'INVALID_RECORD',
  },
  {
    name: 'magic 1',
    input: () => withHeader(good(), (b) => b.writeInt8(1, OFFSET_MAGIC)),
    code: 'INVALID_RECORD',
  },
  {
    name: 'bad CRC',
    input: () => withHeader(good(), (b) => (b[b.length - 1] ^= 0xff), true),
    code: 'CORRUPT_MESSAGE',
  },
  {
    name: 'bad CRC in the second batch',
    input: () => Buffer.concat([good(), withHeader(good(), (b) => (b[b.length - 1] ^= 0xff), true)]),
    code: 'CORRUPT_MESSAGE',
  },
  { name: 'too large', input: () => buildBatch({ records: 1, valueBytes: 2000 }), code: 'MESSAGE_TOO_LARGE' },
  {
    name: 'too large second batch',
    input: () => Buffer.concat([good(), buildBatch({ records: 1, valueBytes: 2000 })]),
    code: 'MESSAGE_TOO_LARGE',
  },
  {
    name: 'negative lastOffsetDelta',
    input: () => withHeader(good(), (b) => b.writeInt32BE(-1, OFFSET_LAST_OFFSET_DELTA)),
    code: 'INVALID_RECORD',
  },
  {
    name: 'recordCount != lastOffsetDelta + 1',
    input: () => withHeader(good(), (b) => b.writeInt32BE(5, OFFSET_RECORD_COUNT)),
    code: 'INVALID_RECORD',
  },
  {
    name: 'unknown compression codec',
    input: () => withHeader(good(), (b) => b.writeInt16BE(6, OFFSET_ATTRIBUTES)),
    code: 'INVALID_RECORD',
  },
  {
    name: 'control batch',
    input: () => withHeader(good(), (b) => b.writeInt16BE(CONTROL_BIT, OFFSET_ATTRIBUTES)),
    code: 'INVALID_RECORD',
  },
  {
    name: 'transactional batch',
    input: () => withHeader(good(), (b) => b.writeInt16BE(TRANSACTIONAL_BIT, OFFSET_ATTRIBUTES)),
    code: 'INVALID_RECORD',
  },
  {
    name: 'producerId below -1',
    input: () => withHeader(good(), (b) => b.writeBigInt64BE(-5n, OFFSET_PRODUCER_ID)),
    code: 'INVALID_RECORD',
  },
  {
    name: 'idempotent with epoch -1',
    input: () => withHeader(buildBatch({ producerId: 3 }), (b) => b.writeInt16BE(-1, OFFSET_PRODUCER_EPOCH)),
    code: 'INVALID_RECORD',
  },
  {
    name: 'idempotent with sequence -1',
    input: () => withHeader(buildBatch({ producerId: 3 }), (b) => b.writeInt32BE(-1, OFFSET_BASE_SEQUENCE)),
    code: 'INVALID_RECORD',
  },
  {
    name: 'a good batch then a bad one',
    input: () => Buffer.concat([good(), withHeader(good(), (b) => b.writeInt8(0, OFFSET_MAGIC))]),
    code: 'INVALID_RECORD',
  },
];

async function snapshotOf(dataDir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of await listPartitionFiles(dataDir))
    out[f] = (await fs.readFile(path.join(partitionDir(dataDir), f))).toString('hex');
  return out;
}

describe('append validation', () => {
  it.each(cases)('$name -> $code, nothing stored changes', async ({ input, code }) => {
    const dataDir = await dirs.make();
    log = await openLog(dataDir, testConfig({ maxMessageBytes: 1000 }));
    await log.append(buildBatch({ records: 3 }), { leaderEpoch: 0 });
    await log.append(buildBatch({ records: 1, producerId: 9 }), { leaderEpoch: 0 });
    await log.flush();
    const before = { leo: log.logEndOffset, files: await snapshotOf(dataDir), bytes: await readAll(log) };
    const bad = input();
    const badCopy = Buffer.from(bad);

    await expect(log.append(bad, { leaderEpoch: 0 })).rejects.toMatchObject({ code });

    expect(bad.equals(badCopy)).toBe(true); // the refused request was not patched
    expect(log.logEndOffset).toBe(before.leo);
    expect((await readAll(log)).equals(before.bytes)).toBe(true);
    expect(await snapshotOf(dataDir)).toEqual(before.files);
    await expect(
      log.append(buildBatch({ records: 1, producerId: 9, baseSequence: 1 }), { leaderEpoch: 0 }),
    ).resolves.toMatchObject({ baseOffset: before.leo });
  });

  it("takes transactional batches without a sequence only from a group coordinator's append", async () => {
    log = await openLog(await dirs.make());
    const unsequenced = () =>
      buildBatch({ producerId: 4, baseSequence: -1, attributes: TRANSACTIONAL_BIT, records: 2 });
    await expect(log.append(unsequenced(), { leaderEpoch: 0 })).rejects.toMatchObject({
      code: 'INVALID_RECORD',
    });
    await expect(
      log.append(unsequenced(), { leaderEpoch: 0, origin: 'group-coordinator' }),
    ).resolves.toMatchObject({ baseOffset: 0, lastOffset: 1 });
    // No sequence, so no duplicate detection: the same batch again is appended again.
    await expect(
      log.append(unsequenced(), { leaderEpoch: 0, origin: 'group-coordinator' }),
    ).resolves.toMatchObject({ baseOffset: 2, duplicate: false });
    // A non-transactional batch of the producer while its transaction is open is still refused.
    await expect(
      log.append(buildBatch({ producerId: 4, baseSequence: -1 }), {
        leaderEpoch: 0,
        origin: 'group-coordinator',
      }),
    ).rejects.toMatchObject({ code: 'INVALID_RECORD' });
  });

  it('refuses a request that mixes a retried batch with new ones', async () => {
    log = await openLog(await dirs.make());
    const first = buildBatch({ producerId: 1, baseSequence: 0 });
    await log.append(Buffer.from(first), { leaderEpoch: 0 });
    const mixed = Buffer.concat([first, buildBatch({ producerId: 1, baseSequence: 1 })]);
    await expect(log.append(mixed, { leaderEpoch: 0 })).rejects.toMatchObject({ code: 'INVALID_RECORD' });
    expect(log.logEndOffset).toBe(1);
  });

  it.each([1.5, -2, 2 ** 31])('refuses leaderEpoch %p with INVALID_REQUEST', async (leaderEpoch) => {
    log = await openLog(await dirs.make());
    const batch = buildBatch();
    const copy = Buffer.from(batch);
    await expect(log.append(batch, { leaderEpoch })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    expect(batch.equals(copy)).toBe(true);
    expect(log.logEndOffset).toBe(0);
  });

  it('refuses bad configs with INVALID_CONFIG', async () => {
    const dataDir = await dirs.make();
    await expect(openLog(dataDir, testConfig({ segmentBytes: 0 }))).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
    });
    await expect(openLog(dataDir, testConfig({ flushPolicy: 'never' as never }))).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
    });
    log = await openLog(dataDir);
    expect(() => log?.updateConfig(testConfig({ retentionMs: -2 }))).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
  });
});
