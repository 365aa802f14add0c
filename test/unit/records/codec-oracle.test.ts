/**
 * Tide's RecordBatch v2 codec against kafkajs 2.2.4: encode with one, decode with the other.
 * kafkajs has no snappy of its own; kafkajs-oracle.ts registers one that writes xerial framing,
 * as Java clients do.
 */
import {
  CompressionCodec,
  RecordInput,
  decodeBatch,
  decodeRecords,
  encodeBatch,
} from '../../../services/common/records';
import {
  KafkajsBatch,
  KafkajsCompression,
  KafkajsInput,
  kafkajsDecode,
  kafkajsEncode,
} from './kafkajs-oracle';
import { seededRandom } from '../../harness/random';

const NOW_MS = 1_700_000_000_000;
const FIELDS = {
  baseOffset: 4242,
  partitionLeaderEpoch: 6,
  producerId: 31337,
  producerEpoch: 4,
  baseSequence: 900,
};

const CASES: [string, CompressionCodec, number][] = [
  ['none', CompressionCodec.None, KafkajsCompression.None],
  ['gzip', CompressionCodec.Gzip, KafkajsCompression.GZIP],
  ['snappy', CompressionCodec.Snappy, KafkajsCompression.Snappy],
];

/**
 * Records kafkajs can encode too: its encoder cannot write null header values, and it groups
 * headers by key, so keys within a record are distinct.
 */
function oracleRecords(count: number, seed: number): (RecordInput & { timestampMs: number })[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, (_, i) => {
    const size = Math.floor(random() * (i % 100 === 7 ? 40_000 : 300));
    const value = Buffer.alloc(size);
    for (let j = 0; j < size; j++) value[j] = Math.floor(random() * 256);
    const kind = i % 7;
    return {
      key: kind === 0 ? null : kind === 1 ? Buffer.alloc(0) : Buffer.from(`user-${i}-ünïcødé-🦀`),
      value: kind === 2 ? null : kind === 3 ? Buffer.alloc(0) : kind === 4 ? Buffer.from('値 — ∑ 🌊') : value,
      headers:
        kind === 5
          ? [
              { key: 'trace', value: Buffer.from(`t-${i}`) },
              { key: 'ключ', value: Buffer.alloc(0) },
            ]
          : [],
      timestampMs: NOW_MS + Math.floor(random() * 10_000) - 5000,
    };
  });
}

function toKafkajsInput(record: RecordInput & { timestampMs: number }): KafkajsInput {
  const headers: Record<string, Buffer> = {};
  for (const h of record.headers ?? []) headers[h.key] = h.value as Buffer;
  return { key: record.key, value: record.value, headers, timestampMs: record.timestampMs };
}

function expectKafkajsSees(batch: KafkajsBatch, inputs: (RecordInput & { timestampMs: number })[]): void {
  expect(batch).toMatchObject({
    firstOffset: String(FIELDS.baseOffset),
    firstTimestamp: String(inputs[0].timestampMs),
    maxTimestamp: String(Math.max(...inputs.map((r) => r.timestampMs))),
    partitionLeaderEpoch: FIELDS.partitionLeaderEpoch,
    lastOffsetDelta: inputs.length - 1,
    producerId: String(FIELDS.producerId),
    producerEpoch: FIELDS.producerEpoch,
    firstSequence: FIELDS.baseSequence,
  });
  expect(batch.records).toHaveLength(inputs.length);
  batch.records.forEach((record, i) => {
    expect(record.offset).toBe(String(FIELDS.baseOffset + i));
    expect(record.timestamp).toBe(String(inputs[i].timestampMs));
    expect(record.key).toEqual(inputs[i].key);
    expect(record.value).toEqual(inputs[i].value);
    expect(record.headers).toEqual(toKafkajsInput(inputs[i]).headers);
  });
}

describe.each(CASES)('against kafkajs, compression %s', (_name, codec, kafkajsCodec) => {
  test('Tide encodes, kafkajs decodes', async () => {
    for (const count of [1, 2, 50, 700]) {
      const inputs = oracleRecords(count, count);
      const [batch] = await kafkajsDecode(encodeBatch(inputs, { ...FIELDS, compression: codec }));
      expectKafkajsSees(batch, inputs);
    }
  });

  test('kafkajs encodes, Tide decodes', async () => {
    for (const count of [1, 2, 50, 700]) {
      const inputs = oracleRecords(count, 100 + count);
      const bytes = await kafkajsEncode(inputs.map(toKafkajsInput), { ...FIELDS, compression: kafkajsCodec });
      const { header, records } = decodeBatch(bytes);
      expect(header).toMatchObject({
        ...FIELDS,
        recordCount: count,
        attributes: codec,
        sizeBytes: bytes.length,
      });
      expect(records.map((r) => r.offset)).toEqual(inputs.map((_, i) => FIELDS.baseOffset + i));
      records.forEach((record, i) => {
        expect(record.timestampMs).toBe(inputs[i].timestampMs);
        expect(record.key).toEqual(inputs[i].key);
        expect(record.value).toEqual(inputs[i].value);
        expect(record.headers).toEqual(inputs[i].headers);
      });
    }
  });
});

test('uncompressed batches are byte-identical to kafkajs', async () => {
  const inputs = oracleRecords(300, 5);
  const ours = encodeBatch(inputs, { ...FIELDS, transactional: true });
  const theirs = await kafkajsEncode(inputs.map(toKafkajsInput), {
    ...FIELDS,
    compression: 0,
    transactional: true,
  });
  expect(ours.toString('hex')).toBe(theirs.toString('hex'));
});

test('back-to-back batches from kafkajs decode with decodeRecords', async () => {
  const a = oracleRecords(10, 1);
  const b = oracleRecords(10, 2);
  const buf = Buffer.concat([
    await kafkajsEncode(a.map(toKafkajsInput), { ...FIELDS, compression: KafkajsCompression.GZIP }),
    await kafkajsEncode(b.map(toKafkajsInput), {
      ...FIELDS,
      baseOffset: FIELDS.baseOffset + 10,
      compression: KafkajsCompression.Snappy,
    }),
  ]);
  const offsets = decodeRecords(buf, FIELDS.baseOffset + 5).map((r) => r.offset);
  expect(offsets).toEqual(Array.from({ length: 15 }, (_, i) => FIELDS.baseOffset + 5 + i));
  expect((await kafkajsDecode(buf)).map((batch) => batch.records.length)).toEqual([10, 10]);
});

test('kafkajs reads null header values and LogAppendTime batches from Tide', async () => {
  const inputs = [
    { key: null, value: Buffer.from('x'), headers: [{ key: 'h', value: null }], timestampMs: NOW_MS },
  ];
  const [batch] = await kafkajsDecode(
    encodeBatch(inputs, { ...FIELDS, timestampType: 'LogAppendTime', nowMs: NOW_MS + 7 }),
  );
  expect(batch.records[0].headers).toEqual({ h: null });
  expect(batch.timestampType).toBe(1);
  expect(batch.records[0].timestamp).toBe(String(NOW_MS + 7));
});
