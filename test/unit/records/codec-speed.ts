/**
 * One-off speed check of the batch codec (not a jest test). Run:
 *   npx tsc --outDir /tmp/tide-speed --rootDir . test/unit/records/codec-speed.ts && node /tmp/tide-speed/test/unit/records/codec-speed.js
 * Encodes 100-byte values with 8-byte keys into ~64 KiB batches with BatchBuilder, then decodes them.
 */
import { BatchBuilder, decodeBatch } from '../../../services/common/records';

const VALUE_BYTES = 100;
const BATCH_BYTES_MAX = 64 * 1024;
const RECORDS = 5_000_000;

function main(): void {
  const value = Buffer.alloc(VALUE_BYTES, 0x61);
  const keys = Array.from({ length: 1024 }, (_, i) => Buffer.from(`key-${String(i).padStart(4, '0')}`));
  const header = { producerId: 1, producerEpoch: 0, baseSequence: 0 };
  for (let round = 0; round < 3; round++) {
    // Keep only the first 200 batches (for decoding) so the heap stays small.
    const batches: Buffer[] = [];
    let start = process.hrtime.bigint();
    let builder = new BatchBuilder({ nowMs: 1_700_000_000_000, initialCapacity: BATCH_BYTES_MAX + 1024 });
    for (let i = 0; i < RECORDS; i++) {
      builder.append({ key: keys[i & 1023], value, timestampMs: 1_700_000_000_000 + (i & 7) });
      if (builder.sizeInBytes >= BATCH_BYTES_MAX - 200) {
        const batch = builder.build(header);
        if (batches.length < 200) batches.push(batch);
        builder = new BatchBuilder({ nowMs: 1_700_000_000_000, initialCapacity: BATCH_BYTES_MAX + 1024 });
      }
    }
    if (builder.recordCount > 0) builder.build(header);
    const encodeS = Number(process.hrtime.bigint() - start) / 1e9;

    start = process.hrtime.bigint();
    let decoded = 0;
    for (let pass = 0; pass < 25; pass++) {
      for (const batch of batches) decoded += decodeBatch(batch).records.length;
    }
    const decodeS = Number(process.hrtime.bigint() - start) / 1e9;
    console.log(
      `round ${round}: ` +
        `encode ${(RECORDS / encodeS / 1e6).toFixed(2)} M records/s, decode ${(decoded / decodeS / 1e6).toFixed(2)} M records/s`,
    );
  }
}

main();
