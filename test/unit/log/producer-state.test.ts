import { crc32c } from '@node-rs/crc32';
/** Idempotent-producer sequence rules (table-driven) and the snapshot file format (golden). */
import { TideError } from '../../../services/common/errors';
import {
  ProducerStateManager,
  sequenceAfter,
  type ProducerBatchInfo,
} from '../../../services/broker/log/producer-state';
import {
  decodeProducerSnapshot,
  encodeProducerSnapshot,
} from '../../../services/broker/log/producer-snapshot';

const ctx = { topic: 't', partition: 0 };

function batch(epoch: number, firstSeq: number, records: number, firstOffset: number): ProducerBatchInfo {
  return { producerId: 1, epoch, firstSeq, lastOffsetDelta: records - 1, firstOffset, maxTimestamp: 5 };
}

/** Applies a history of accepted batches through the checker itself. */
function stateWith(history: ProducerBatchInfo[]): ProducerStateManager {
  const state = new ProducerStateManager();
  for (const b of history) {
    const append = state.begin(ctx);
    expect(append.check(b).duplicate).toBe(false);
    append.commit();
  }
  return state;
}

describe('sequenceAfter', () => {
  it.each([
    [0, 1, 1],
    [5, 4, 9],
    [2 ** 31 - 1, 1, 0],
    [2 ** 31 - 2, 3, 1],
  ])('sequenceAfter(%d, %d) = %d', (seq, delta, expected) => {
    expect(sequenceAfter(seq, delta)).toBe(expected);
  });
});

describe('ProducerStateManager checks', () => {
  // History: epoch 0, batches 0..4 (offsets 0..4), 5..9 (offsets 5..9).
  const history = [batch(0, 0, 5, 0), batch(0, 5, 5, 5)];
  it.each([
    { name: 'next in sequence', b: batch(0, 10, 1, 10), outcome: 'new' },
    {
      name: 'retry of the latest',
      b: batch(0, 5, 5, 10),
      outcome: { duplicate: true, original: { firstSeq: 5, lastSeq: 9, firstOffset: 5, lastOffset: 9 } },
    },
    {
      name: 'retry of an older one',
      b: batch(0, 0, 5, 10),
      outcome: { duplicate: true, original: { firstSeq: 0, lastSeq: 4, firstOffset: 0, lastOffset: 4 } },
    },
    { name: 'gap', b: batch(0, 11, 1, 10), outcome: 'OUT_OF_ORDER_SEQUENCE' },
    { name: 'old unknown sequence', b: batch(0, 3, 1, 10), outcome: 'OUT_OF_ORDER_SEQUENCE' },
    { name: 'same first seq, different length', b: batch(0, 5, 2, 10), outcome: 'OUT_OF_ORDER_SEQUENCE' },
    { name: 'new epoch from 0', b: batch(1, 0, 1, 10), outcome: 'new' },
    { name: 'new epoch not from 0', b: batch(1, 10, 1, 10), outcome: 'OUT_OF_ORDER_SEQUENCE' },
  ])('$name', ({ b, outcome }) => {
    const state = stateWith(history);
    const append = state.begin(ctx);
    if (outcome === 'new') expect(append.check(b)).toEqual({ duplicate: false });
    else if (typeof outcome === 'string')
      expect(() => append.check(b)).toThrow(expect.objectContaining({ code: outcome }));
    else expect(append.check(b)).toEqual(outcome);
  });

  it('fences an older epoch', () => {
    const state = stateWith([batch(3, 0, 1, 0)]);
    expect(() => state.begin(ctx).check(batch(2, 1, 1, 1))).toThrow(
      expect.objectContaining({ code: 'INVALID_PRODUCER_EPOCH' }),
    );
  });

  it('accepts any first sequence from an unknown producer', () => {
    const state = new ProducerStateManager();
    expect(state.begin(ctx).check(batch(0, 1234, 1, 0))).toEqual({ duplicate: false });
  });

  it('wraps the sequence from 2^31-1 to 0', () => {
    const state = stateWith([batch(0, 2 ** 31 - 2, 2, 0)]);
    expect(state.begin(ctx).check(batch(0, 0, 1, 2))).toEqual({ duplicate: false });
  });

  it('keeps only the last 5 batches for duplicate detection', () => {
    const state = stateWith(Array.from({ length: 6 }, (_, i) => batch(0, i, 1, i)));
    expect(state.get(1)?.batches.map((b) => b.firstSeq)).toEqual([1, 2, 3, 4, 5]);
    expect(state.begin(ctx).check(batch(0, 1, 1, 6)).duplicate).toBe(true);
    expect(() => state.begin(ctx).check(batch(0, 0, 1, 6))).toThrow(TideError);
  });

  it('changes nothing until commit, and checks batches of one request against each other', () => {
    const state = stateWith([batch(0, 0, 1, 0)]);
    const append = state.begin(ctx);
    append.check(batch(0, 1, 1, 1));
    expect(append.check(batch(0, 2, 1, 2))).toEqual({ duplicate: false });
    expect(state.get(1)?.batches).toHaveLength(1);
    append.commit();
    expect(state.get(1)?.batches).toHaveLength(3);
  });

  it("accepts a group coordinator's unsequenced transactional batches: no sequence checks, epoch and transaction rules kept", () => {
    const txn = (epoch: number, firstOffset: number, records = 2): ProducerBatchInfo => ({
      ...batch(epoch, -1, records, firstOffset),
      transactional: true,
    });
    const state = stateWith([txn(3, 0)]);
    // The same batch again is appended again (nothing to tell a retry by), the transaction open.
    expect(state.begin(ctx).check(txn(3, 2))).toEqual({ duplicate: false });
    expect(state.get(1)).toMatchObject({ epoch: 3, batches: [], currentTxnFirstOffset: 0 });
    expect(state.openTransactions()).toEqual([{ producerId: 1, epoch: 3, firstOffset: 0 }]);
    // The next epoch before the marker, and an older epoch, are refused as for sequenced batches.
    const codeOf = (info: ProducerBatchInfo) => {
      try {
        state.begin(ctx).check(info);
      } catch (err) {
        return (err as TideError).code;
      }
      return 'none';
    };
    expect(codeOf(txn(4, 2))).toBe('CONCURRENT_TRANSACTIONS');
    expect(codeOf(txn(2, 2))).toBe('INVALID_PRODUCER_EPOCH');
    // The marker (epoch bumped) closes it; the ended epoch is fenced from then on.
    state.replay({ ...batch(4, -1, 1, 2), transactional: true, marker: 'COMMIT' });
    expect(state.openTransactions()).toEqual([]);
    expect(codeOf(txn(3, 3))).toBe('INVALID_PRODUCER_EPOCH');
    expect(codeOf(txn(4, 3))).toBe('none');
  });

  it('removeBefore drops producers whose batches are all below the offset', () => {
    const state = stateWith([batch(0, 0, 5, 0)]);
    expect(state.removeBefore(5)).toBe(1);
    expect(state.producerCount).toBe(0);
  });
});

describe('producer snapshot file', () => {
  it('golden bytes (version 2, with the open transaction)', () => {
    const entry = {
      producerId: 7,
      epoch: 2,
      lastTimestampMs: 1000,
      currentTxnFirstOffset: 10,
      batches: [{ firstSeq: 0, lastSeq: 4, firstOffset: 10, lastOffset: 14 }],
    };
    const bytes = encodeProducerSnapshot([entry]);
    const body =
      '00000001' + // producerCount
      '0000000000000007' +
      '0002' +
      '00000000000003e8' +
      '000000000000000a' +
      '01' + // id, epoch, lastTimestampMs, currentTxnFirstOffset, batchCount
      '00000000' +
      '00000004' +
      '000000000000000a' +
      '000000000000000e'; // firstSeq, lastSeq, firstOffset, lastOffset
    expect(bytes.subarray(0, 2).toString('hex')).toBe('0002');
    expect(bytes.subarray(6).toString('hex')).toBe(body);
    expect(decodeProducerSnapshot(bytes)).toEqual([entry]);
  });

  it('reads version 1 files (no open transaction)', () => {
    const body = Buffer.from('00000001' + '0000000000000007' + '0002' + '00000000000003e8' + '00', 'hex');
    const bytes = Buffer.concat([Buffer.from('0001', 'hex'), Buffer.alloc(4), body]);
    bytes.writeUInt32BE(crc32c(bytes.subarray(6)) >>> 0, 2);
    expect(decodeProducerSnapshot(bytes)).toEqual([
      { producerId: 7, epoch: 2, lastTimestampMs: 1000, currentTxnFirstOffset: -1, batches: [] },
    ]);
  });

  it.each([
    { name: 'a flipped byte', damage: (b: Buffer) => (b[b.length - 1] ^= 1), why: /crc/ },
    { name: 'a short file', damage: (b: Buffer) => b.subarray(0, 5), why: /shorter/ },
    { name: 'another version', damage: (b: Buffer) => b.writeUInt16BE(9, 0), why: /version/ },
  ])('rejects $name', ({ damage, why }) => {
    const bytes = encodeProducerSnapshot([
      { producerId: 7, epoch: 2, lastTimestampMs: 1000, currentTxnFirstOffset: -1, batches: [] },
    ]);
    const result = damage(bytes);
    expect(decodeProducerSnapshot(Buffer.isBuffer(result) ? result : bytes)).toMatch(why);
  });
});
