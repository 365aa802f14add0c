/**
 * The consumer's read_committed decoding: a response's aborted_transactions hide the records of
 * those transactions (and only those: the same producer's committed transaction after the ABORT
 * marker stays), control records never reach the application, and a bad isolation option is
 * refused with INVALID_REQUEST.
 */
import { Consumer } from '../../../client/consumer';
import {
  abortedOf,
  checkFetched,
  requireIsolation,
  wireIsolation,
} from '../../../client/consumer/fetch-decode';
import {
  encodeBatch,
  encodeControlBatch,
  patchBaseOffset,
  writeBatchCrc,
} from '../../../services/common/records';

const txn = (offset: number, producerId: number, value: string, transactional = true): Buffer => {
  const b = encodeBatch([{ key: null, value: Buffer.from(value) }], {
    producerId,
    producerEpoch: 0,
    baseSequence: offset,
    transactional,
    nowMs: 1000,
  });
  patchBaseOffset(b, 0, offset);
  writeBatchCrc(b, 0);
  return b;
};
const marker = (offset: number, producerId: number, type: 'COMMIT' | 'ABORT'): Buffer => {
  const b = encodeControlBatch({
    type,
    producerId,
    producerEpoch: 1,
    coordinatorEpoch: 0,
    timestampMs: 1000,
  });
  patchBaseOffset(b, 0, offset);
  writeBatchCrc(b, 0);
  return b;
};

describe('read_committed decoding in the client', () => {
  // 0 p7 aborted · 1 p8 committed · 2 ABORT p7 · 3 p7 next transaction (committed) · 4 COMMIT p8 · 5 COMMIT p7
  const bytes = Buffer.concat([
    txn(0, 7, 'x-aborted'),
    txn(1, 8, 'c1'),
    marker(2, 7, 'ABORT'),
    txn(3, 7, 'c2'),
    marker(4, 8, 'COMMIT'),
    marker(5, 7, 'COMMIT'),
  ]);
  const tp = { topic: 't', partition: 0 };

  it('hides aborted records and every control record', () => {
    const aborted = abortedOf({ aborted_transactions: [{ producer_id: '7', first_offset: '0' }] });
    expect(aborted).toEqual([{ producerId: 7, firstOffset: 0 }]);
    const { checked, error } = checkFetched(bytes, 0, tp, aborted);
    expect(error).toBeUndefined();
    expect(checked.records().map((r) => [r.offset, r.value?.toString()])).toEqual([
      [1, 'c1'],
      [3, 'c2'],
    ]);
  });

  it('read_uncommitted still hides control records, not aborted ones', () => {
    const { checked } = checkFetched(bytes, 0, tp, abortedOf({ aborted_transactions: [] }));
    expect(checked.records().map((r) => r.value?.toString())).toEqual(['x-aborted', 'c1', 'c2']);
  });

  it('checks the isolation option', () => {
    expect(requireIsolation(undefined)).toBe('read_uncommitted');
    expect(wireIsolation(requireIsolation('read_committed'))).toBe('ISOLATION_LEVEL_READ_COMMITTED');
    expect(() => requireIsolation('committed')).toThrow(
      /isolation must be 'read_uncommitted' or 'read_committed'/,
    );
    expect(
      () => new Consumer({ bootstrap: ['127.0.0.1:1'] }, { isolation: 'serializable' as never }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_REQUEST' }) as unknown as Error);
  });
});
