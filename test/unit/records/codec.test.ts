import { TideError } from '../../../services/common/errors';
import {
  BATCH_HEADER_BYTES,
  BatchBuilder,
  CONTROL_BIT,
  CompressionCodec,
  DecodedRecord,
  OFFSET_ATTRIBUTES,
  OFFSET_BATCH_LENGTH,
  OFFSET_MAGIC,
  OFFSET_RECORD_COUNT,
  OFFSET_RECORDS,
  RecordInput,
  TIMESTAMP_TYPE_BIT,
  TRANSACTIONAL_BIT,
  batchCrcIsValid,
  decodeBatch,
  decodeRecords,
  encodeBatch,
  iterateBatches,
  splitBatches,
  stampLogAppendTime,
  writeBatchCrc,
} from '../../../services/common/records';
import { crc32c } from '@node-rs/crc32';
import { GOLDEN_HEX, GOLDEN_OPTIONS, GOLDEN_RECORDS } from './fixtures/golden-batch';
import { seededRandom } from '../../harness/random';
import { kafkajsCrc32c } from './kafkajs-oracle';

const NOW_MS = 1_700_000_000_000;
const CODECS = [
  CompressionCodec.None,
  CompressionCodec.Gzip,
  CompressionCodec.Snappy,
  CompressionCodec.Lz4,
  CompressionCodec.Zstd,
];

function thrown(fn: () => unknown): TideError {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof TideError)) throw err;
    return err;
  }
  throw new Error('expected a TideError');
}

/** Records of assorted shapes: null and empty keys and values, headers, unicode, big values. */
function assortedRecords(count: number, seed: number): RecordInput[] {
  const random = seededRandom(seed);
  const records: RecordInput[] = [];
  for (let i = 0; i < count; i++) {
    const kind = i % 6;
    const size = Math.floor(random() * (i % 50 === 0 ? 5000 : 200));
    const value = Buffer.alloc(size);
    for (let j = 0; j < size; j++) value[j] = Math.floor(random() * 256);
    records.push({
      key: kind === 0 ? null : kind === 1 ? Buffer.alloc(0) : Buffer.from(`key-${i}-ключ-🔑`),
      value: kind === 2 ? null : kind === 3 ? Buffer.alloc(0) : value,
      headers:
        kind === 4
          ? [
              { key: 'trace-id', value: Buffer.from(`t${i}`) },
              { key: 'ü-🌊', value: null },
              { key: '', value: Buffer.alloc(0) },
            ]
          : undefined,
      timestampMs: NOW_MS + Math.floor(random() * 2000) - 1000,
    });
  }
  return records;
}

function expectRecordsMatch(decoded: DecodedRecord[], inputs: RecordInput[], baseOffset: number): void {
  expect(decoded).toHaveLength(inputs.length);
  decoded.forEach((record, i) => {
    expect(record.offset).toBe(baseOffset + i);
    expect(record.timestampMs).toBe(inputs[i].timestampMs);
    expect(record.key).toEqual(inputs[i].key);
    expect(record.value).toEqual(inputs[i].value);
    expect(record.headers).toEqual(inputs[i].headers ?? []);
  });
}

describe('golden bytes', () => {
  test('encodeBatch writes exactly the checked-in bytes', () => {
    expect(encodeBatch(GOLDEN_RECORDS, GOLDEN_OPTIONS).toString('hex')).toBe(GOLDEN_HEX);
  });

  test('the checked-in bytes decode to the records', () => {
    const { header, records } = decodeBatch(Buffer.from(GOLDEN_HEX, 'hex'));
    expect(header).toMatchObject({
      baseOffset: 5,
      sizeBytes: 86,
      partitionLeaderEpoch: 3,
      magic: 2,
      crc: 0xbc24b017,
      attributes: 0,
      lastOffsetDelta: 1,
      baseTimestamp: NOW_MS,
      maxTimestamp: NOW_MS + 5,
      producerId: 1000,
      producerEpoch: 2,
      baseSequence: 7,
      recordCount: 2,
    });
    expectRecordsMatch(records, GOLDEN_RECORDS, 5);
  });

  test('the CRC agrees with kafkajs', () => {
    const batch = Buffer.from(GOLDEN_HEX, 'hex');
    expect(kafkajsCrc32c(batch.subarray(21))).toBe(0xbc24b017);
  });
});

describe('CRC32C', () => {
  test('of "123456789" is the standard check value', () => {
    expect(crc32c(Buffer.from('123456789')) >>> 0).toBe(0xe3069283);
    expect(kafkajsCrc32c(Buffer.from('123456789'))).toBe(0xe3069283);
  });

  test.each(CODECS)('a flipped byte anywhere in [21, end) is CORRUPT_MESSAGE (codec %d)', (codec) => {
    const batch = encodeBatch(assortedRecords(8, 3), { compression: codec });
    for (let i = OFFSET_ATTRIBUTES; i < batch.length; i++) {
      const copy = Buffer.from(batch);
      copy[i] ^= 0x01 << (i % 8);
      const err = thrown(() => decodeBatch(copy));
      expect(err.code).toBe('CORRUPT_MESSAGE');
      expect(err.message).toMatch(/failed its CRC32C check: stored 0x[0-9a-f]{8}, computed 0x[0-9a-f]{8}/);
    }
  });
});

describe('encodeBatch and decodeBatch', () => {
  test.each(CODECS)('assorted records round-trip (codec %d)', (codec) => {
    const inputs = assortedRecords(500, 11);
    const batch = encodeBatch(inputs, {
      compression: codec,
      baseOffset: 1000,
      producerId: 9,
      producerEpoch: 1,
    });
    const { header, records } = decodeBatch(batch);
    expect(header.attributes).toBe(codec);
    expect(header.sizeBytes).toBe(batch.length);
    expect(header.baseTimestamp).toBe(inputs[0].timestampMs);
    expect(header.maxTimestamp).toBe(Math.max(...inputs.map((r) => r.timestampMs as number)));
    expect(header.recordCount).toBe(500);
    expect(header.lastOffsetDelta).toBe(499);
    expectRecordsMatch(records, inputs, 1000);
  });

  test('defaults: no producer, epoch -1, nowMs for records without a timestamp', () => {
    const batch = encodeBatch([{ key: null, value: Buffer.from('a') }], { nowMs: 42 });
    const { header, records } = decodeBatch(batch);
    expect(header).toMatchObject({
      baseOffset: 0,
      partitionLeaderEpoch: -1,
      producerId: -1,
      producerEpoch: -1,
      baseSequence: -1,
    });
    expect(records[0].timestampMs).toBe(42);
  });

  test('transactional and LogAppendTime set their attribute bits', () => {
    const batch = encodeBatch(GOLDEN_RECORDS, {
      transactional: true,
      timestampType: 'LogAppendTime',
      nowMs: NOW_MS + 99,
    });
    const { header, records } = decodeBatch(batch);
    expect(header.attributes).toBe(TRANSACTIONAL_BIT | TIMESTAMP_TYPE_BIT);
    expect(header.maxTimestamp).toBe(NOW_MS + 99);
    expect(records.map((r) => r.timestampMs)).toEqual([NOW_MS + 99, NOW_MS + 99]);
  });

  test('stampLogAppendTime turns a CreateTime batch into LogAppendTime with a valid CRC', () => {
    const batch = encodeBatch(GOLDEN_RECORDS, { compression: CompressionCodec.Gzip });
    stampLogAppendTime(batch, 0, NOW_MS + 1234);
    expect(batchCrcIsValid(batch)).toBe(true);
    const { header, records } = decodeBatch(batch);
    expect(header.attributes).toBe(CompressionCodec.Gzip | TIMESTAMP_TYPE_BIT);
    expect(records.map((r) => r.timestampMs)).toEqual([NOW_MS + 1234, NOW_MS + 1234]);
  });

  test('timestamps may go backwards and span negative deltas', () => {
    const inputs = [NOW_MS, NOW_MS - 5_000_000_000, 0, NOW_MS + 1].map((t) => ({
      key: null,
      value: null,
      timestampMs: t,
    }));
    const { header, records } = decodeBatch(encodeBatch(inputs));
    expect(header.baseTimestamp).toBe(NOW_MS);
    expect(header.maxTimestamp).toBe(NOW_MS + 1);
    expect(records.map((r) => r.timestampMs)).toEqual(inputs.map((r) => r.timestampMs));
  });

  test('decodes a batch in the middle of a larger buffer', () => {
    const batch = encodeBatch(GOLDEN_RECORDS, GOLDEN_OPTIONS);
    const buf = Buffer.concat([Buffer.alloc(13, 0xee), batch, Buffer.alloc(7, 0xee)]);
    expectRecordsMatch(decodeBatch(buf, 13).records, GOLDEN_RECORDS, 5);
  });

  test('an empty batch is refused, a non-integer timestamp too', () => {
    expect(thrown(() => encodeBatch([])).code).toBe('INVALID_RECORD');
    expect(thrown(() => encodeBatch([{ key: null, value: null, timestampMs: 1.5 }])).message).toMatch(
      /not an integer/,
    );
  });

  test.each([CompressionCodec.Lz4, CompressionCodec.Zstd])('codec %d round-trips a batch', (codec) => {
    const batch = encodeBatch(GOLDEN_RECORDS, { compression: codec });
    expectRecordsMatch(decodeBatch(batch).records, GOLDEN_RECORDS, 0);
  });
});

describe('BatchBuilder', () => {
  test.each(CODECS)('builds the same bytes as encodeBatch (codec %d)', (codec) => {
    const inputs = assortedRecords(300, 5);
    const fields = { producerId: 77, producerEpoch: 3, baseSequence: 1200, partitionLeaderEpoch: 4 };
    const builder = new BatchBuilder({ compression: codec, nowMs: NOW_MS, initialCapacity: 64 });
    for (const record of inputs) builder.append(record);
    const built = builder.build(fields);
    expect(built.equals(encodeBatch(inputs, { compression: codec, nowMs: NOW_MS, ...fields }))).toBe(true);
  });

  test('sizeInBytes is the exact uncompressed size; sizeWith predicts the next one', () => {
    const builder = new BatchBuilder({ nowMs: NOW_MS });
    expect(builder.sizeInBytes).toBe(BATCH_HEADER_BYTES);
    for (const record of assortedRecords(100, 9)) {
      const predicted = builder.sizeWith(record);
      builder.append(record);
      expect(builder.sizeInBytes).toBe(predicted);
    }
    expect(builder.recordCount).toBe(100);
    const size = builder.sizeInBytes;
    expect(builder.build({ producerId: -1, producerEpoch: -1, baseSequence: -1 }).length).toBe(size);
  });

  test('records without a timestamp get nowMs', () => {
    const builder = new BatchBuilder({ nowMs: 123 });
    builder.append({ key: null, value: Buffer.from('a') });
    builder.append({ key: null, value: Buffer.from('b'), timestampMs: 200 });
    const { records } = decodeBatch(builder.build({ producerId: -1, producerEpoch: -1, baseSequence: -1 }));
    expect(records.map((r) => r.timestampMs)).toEqual([123, 200]);
  });

  test('is single use', () => {
    const builder = new BatchBuilder({ nowMs: 1 });
    builder.append({ key: null, value: null });
    builder.build({ producerId: -1, producerEpoch: -1, baseSequence: -1 });
    expect(() => builder.append({ key: null, value: null })).toThrow(/append after build/);
  });

  test('a built batch does not pin a much larger buffer', () => {
    const builder = new BatchBuilder({ nowMs: 1, initialCapacity: 1 << 20 });
    builder.append({ key: null, value: Buffer.from('small') });
    const batch = builder.build({ producerId: -1, producerEpoch: -1, baseSequence: -1 });
    expect(batch.buffer.byteLength).toBeLessThanOrEqual(Buffer.poolSize);
  });
});

describe('malformed input', () => {
  const golden = Buffer.from(GOLDEN_HEX, 'hex');

  /** Rewrites batchLength and the CRC so only the record structure is wrong. */
  function withRecords(batch: Buffer, records: Buffer, recordCount?: number): Buffer {
    const out = Buffer.concat([batch.subarray(0, OFFSET_RECORDS), records]);
    out.writeInt32BE(out.length - 12, OFFSET_BATCH_LENGTH);
    if (recordCount !== undefined) out.writeInt32BE(recordCount, OFFSET_RECORD_COUNT);
    writeBatchCrc(out);
    return out;
  }

  test('every truncation of a batch is INVALID_RECORD', () => {
    for (let length = 0; length < golden.length; length++) {
      const err = thrown(() => decodeBatch(golden.subarray(0, length)));
      expect(err.code).toBe('INVALID_RECORD');
      expect(err.message).toMatch(/truncated batch at byte 0/);
    }
  });

  test('records cut short inside a CRC-valid batch are INVALID_RECORD', () => {
    const records = golden.subarray(OFFSET_RECORDS);
    for (let cut = 0; cut < records.length; cut++) {
      const err = thrown(() => decodeBatch(withRecords(golden, records.subarray(0, cut))));
      expect(err.code).toBe('INVALID_RECORD');
      expect(err.message).toMatch(/^batch at byte 0 \(baseOffset 5\): /);
    }
  });

  test.each([CompressionCodec.Gzip, CompressionCodec.Snappy])(
    'cut compressed records are INVALID_RECORD (codec %d)',
    (codec) => {
      const batch = encodeBatch(assortedRecords(20, 4), { compression: codec });
      const records = batch.subarray(OFFSET_RECORDS);
      for (let cut = 0; cut < records.length; cut += 7) {
        expect(thrown(() => decodeBatch(withRecords(batch, records.subarray(0, cut)))).code).toBe(
          'INVALID_RECORD',
        );
      }
    },
  );

  test('a record count that disagrees with the records is INVALID_RECORD', () => {
    const records = golden.subarray(OFFSET_RECORDS);
    expect(thrown(() => decodeBatch(withRecords(golden, records, 3))).message).toMatch(/record 2: truncated/);
    expect(thrown(() => decodeBatch(withRecords(golden, records, 1))).message).toMatch(
      /16 bytes follow the last of 1 records/,
    );
    expect(thrown(() => decodeBatch(withRecords(golden, records, -1))).message).toMatch(
      /negative record count/,
    );
    expect(thrown(() => decodeBatch(withRecords(golden, records, 2 ** 31 - 1))).message).toMatch(
      /does not fit/,
    );
  });

  test('bad magic and impossible lengths are INVALID_RECORD', () => {
    const badMagic = Buffer.from(golden);
    badMagic[OFFSET_MAGIC] = 1;
    expect(thrown(() => decodeBatch(badMagic)).message).toMatch(/magic 1; only RecordBatch v2/);
    const short = Buffer.from(golden);
    short.writeInt32BE(10, OFFSET_BATCH_LENGTH);
    expect(thrown(() => decodeBatch(short)).message).toMatch(/claims 22 bytes, less than its header/);
  });

  test('bad lengths inside records are INVALID_RECORD', () => {
    // One record: length 8, attributes, ts 0, offset 0, key length -2 (zigzag 3), ...
    expect(
      thrown(() => decodeBatch(withRecords(golden, Buffer.from('10000000036b027600', 'hex'), 1))).message,
    ).toMatch(/record 0: key length -2 is below -1/);
    // A record whose declared length leaves a byte unread.
    expect(
      thrown(() => decodeBatch(withRecords(golden, Buffer.from('12000000026b02760000', 'hex'), 1))).message,
    ).toMatch(/1 bytes left over inside the record/);
    // Negative header count.
    expect(
      thrown(() => decodeBatch(withRecords(golden, Buffer.from('10000000026b027601', 'hex'), 1))).message,
    ).toMatch(/negative header count/);
  });

  test('random damage behind a valid CRC never escapes as anything but INVALID_RECORD', () => {
    const random = seededRandom(99);
    const batches = CODECS.map((codec) => encodeBatch(assortedRecords(10, 8), { compression: codec }));
    const runs = 3000;
    let rejected = 0;
    for (let i = 0; i < runs; i++) {
      const batch = batches[i % batches.length];
      const records = Buffer.from(batch.subarray(OFFSET_RECORDS));
      for (let k = 0; k < 1 + (i % 4); k++)
        records[Math.floor(random() * records.length)] = Math.floor(random() * 256);
      let decoded: ReturnType<typeof decodeBatch>;
      try {
        decoded = decodeBatch(withRecords(batch, records));
      } catch (err) {
        if (!(err instanceof TideError) || err.code !== 'INVALID_RECORD') throw err;
        rejected++;
        continue;
      }
      // Accepted: the damage hit bytes that carry no structure (a key, a value, a timestamp), so
      // what came out is still well formed.
      const { header, records: out } = decoded;
      expect(out).toHaveLength(header.recordCount);
      out.forEach((r, j) => {
        expect(r.offset).toBeLessThanOrEqual(header.baseOffset + header.lastOffsetDelta);
        if (j > 0) expect(r.offset).toBeGreaterThan(out[j - 1].offset);
      });
    }
    // Seed 99 damages structure (lengths, varints, compressed blocks) in 1217 of the 3000 runs; far
    // fewer rejections mean the codec lets garbage through.
    expect(rejected).toBeGreaterThan(runs / 4);
  });
});

describe('several batches', () => {
  const first = encodeBatch(assortedRecords(3, 1), { baseOffset: 0 });
  const second = encodeBatch(assortedRecords(4, 2), { baseOffset: 3, compression: CompressionCodec.Gzip });
  const third = encodeBatch(assortedRecords(2, 3), { baseOffset: 7, compression: CompressionCodec.Snappy });
  const all = Buffer.concat([first, second, third]);

  test('iterateBatches walks the headers', () => {
    const seen = [...iterateBatches(all)].map(({ at, header }) => [
      at,
      header.baseOffset,
      header.recordCount,
    ]);
    expect(seen).toEqual([
      [0, 0, 3],
      [first.length, 3, 4],
      [first.length + second.length, 7, 2],
    ]);
    expect([...iterateBatches(Buffer.alloc(0))]).toEqual([]);
  });

  test('iterateBatches refuses a truncated last batch', () => {
    expect(thrown(() => [...iterateBatches(all.subarray(0, all.length - 1))]).message).toMatch(
      new RegExp(`truncated batch at byte ${first.length + second.length}`),
    );
  });

  test('splitBatches reports an incomplete last batch at every cut', () => {
    const ends = [first.length, first.length + second.length, all.length];
    for (let cut = 0; cut <= all.length; cut++) {
      const { batches, trailingBytes } = splitBatches(all.subarray(0, cut));
      const complete = ends.filter((end) => end <= cut);
      expect(batches.map((b) => b.at + b.sizeBytes)).toEqual(complete);
      expect(trailingBytes).toBe(cut - (complete.at(-1) ?? 0));
    }
  });

  test('splitBatches refuses an impossible batch length', () => {
    const bad = Buffer.from(all);
    bad.writeInt32BE(3, first.length + OFFSET_BATCH_LENGTH);
    expect(thrown(() => splitBatches(bad)).code).toBe('INVALID_RECORD');
  });

  test('decodeRecords reads all batches from an offset on', () => {
    expect(decodeRecords(all).map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(decodeRecords(all, 5).map((r) => r.offset)).toEqual([5, 6, 7, 8]);
    expect(decodeRecords(all, 9)).toEqual([]);
  });

  test('decodeRecords skips batches below the offset unread and control batches', () => {
    const corruptFirst = Buffer.from(all);
    corruptFirst[OFFSET_RECORDS + 2] ^= 0xff;
    expect(decodeRecords(corruptFirst, 3).map((r) => r.offset)).toEqual([3, 4, 5, 6, 7, 8]);
    expect(thrown(() => decodeRecords(corruptFirst, 0)).code).toBe('CORRUPT_MESSAGE');

    const control = Buffer.from(all);
    control.writeInt16BE(CONTROL_BIT | TRANSACTIONAL_BIT, OFFSET_ATTRIBUTES);
    writeBatchCrc(control);
    expect(decodeRecords(control).map((r) => r.offset)).toEqual([3, 4, 5, 6, 7, 8]);
  });
});
