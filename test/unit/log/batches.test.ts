/** The test batch builder produces exactly what kafkajs 2.2.4's RecordBatch v2 encoder produces. */
import { batchCrcIsValid, readBatchHeader } from '../../../services/common/records/layout';
import { buildBatch } from './batches';

/* eslint-disable @typescript-eslint/no-require-imports */
const Long = require('kafkajs/src/utils/long');
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0');
const Record = require('kafkajs/src/protocol/recordBatch/record/v0');
/* eslint-enable @typescript-eslint/no-require-imports */

describe('test batch builder', () => {
  it.each([
    { name: 'one record', records: [{ key: 'k', value: 'v' }] },
    {
      name: 'null key, headers, spread timestamps',
      records: [
        { key: null, value: 'a', headers: [['h', 'x']] as Array<[string, string]> },
        { key: 'b', value: 'bb', timestampMs: 1_700_000_000_500 },
      ],
    },
    {
      name: 'large timestamp delta',
      records: [
        { key: 'x', value: 'y' },
        { key: 'z', value: null, timestampMs: 1_700_000_000_000 + 2 ** 40 },
      ],
    },
  ])('matches kafkajs byte for byte: $name', async ({ records }) => {
    const base = 1_700_000_000_000;
    const ours = buildBatch({
      records,
      timestampMs: base,
      producerId: 7,
      producerEpoch: 3,
      baseSequence: 11,
    });
    const kafkajsRecords = records.map((r, i) =>
      Record({
        offsetDelta: i,
        timestampDelta: ((r as { timestampMs?: number }).timestampMs ?? base) - base,
        key: r.key === null ? null : Buffer.from(r.key),
        value: r.value === null ? null : Buffer.from(r.value),
        headers: Object.fromEntries(
          ((r as { headers?: Array<[string, string]> }).headers ?? []).map(([k, v]) => [k, Buffer.from(v)]),
        ),
      }),
    );
    const theirs = (
      await RecordBatch({
        firstOffset: Long.fromInt(0),
        firstTimestamp: base,
        maxTimestamp: Math.max(...records.map((r) => (r as { timestampMs?: number }).timestampMs ?? base)),
        lastOffsetDelta: records.length - 1,
        producerId: Long.fromInt(7),
        producerEpoch: 3,
        firstSequence: 11,
        records: kafkajsRecords,
      })
    ).buffer as Buffer;
    expect(ours.toString('hex')).toBe(theirs.toString('hex'));
    expect(batchCrcIsValid(ours)).toBe(true);
    expect(readBatchHeader(ours).recordCount).toBe(records.length);
  });
});
