import {
  anomalyCounts,
  checkTransactions,
  type ReaderHistory,
  type TxnHistoryEntry,
  type TxnOutcome,
} from '../../harness/txn-checker';

const txn = (
  id: string,
  seq: number,
  outcome: TxnOutcome,
  writes: [number, string][],
  producer = 'p1',
): TxnHistoryEntry => ({
  id,
  producer,
  seq,
  outcome,
  writes: writes.map(([partition, value]) => ({ partition, value })),
});
const reader = (
  name: string,
  isolation: ReaderHistory['isolation'],
  reads: [number, number, string][],
  completePartitions = [0, 1],
): ReaderHistory => ({
  reader: name,
  isolation,
  completePartitions,
  reads: reads.map(([partition, offset, value]) => ({ partition, offset, value })),
});

// p1: t1 commits a@0/0, b@1/0; t2 aborts c@0/1 (ABORT marker at 0/2); t3 commits d@0/3, e@1/2.
const history = [
  txn('t1', 0, 'committed', [
    [0, 'a'],
    [1, 'b'],
  ]),
  txn('t2', 1, 'aborted', [[0, 'c']]),
  txn('t3', 2, 'committed', [
    [0, 'd'],
    [1, 'e'],
  ]),
];
const committedReads: [number, number, string][] = [
  [0, 0, 'a'],
  [1, 0, 'b'],
  [0, 3, 'd'],
  [1, 2, 'e'],
];
const uncommittedReads: [number, number, string][] = [
  [0, 0, 'a'],
  [0, 1, 'c'],
  [0, 3, 'd'],
  [1, 0, 'b'],
  [1, 2, 'e'],
];

const counts = (h: TxnHistoryEntry[], r: ReaderHistory[]) => anomalyCounts(checkTransactions(h, r));
const none = {
  abortedReads: 0,
  tornReads: 0,
  lostWrites: 0,
  duplicated: 0,
  offsetConflicts: 0,
  orderAnomalies: 0,
};

test('a clean history passes; read_uncommitted may see aborted values', () => {
  const report = checkTransactions(history, [
    reader('rc', 'read_committed', committedReads),
    reader('ru', 'read_uncommitted', uncommittedReads),
  ]);
  expect(anomalyCounts(report)).toEqual(none);
  expect(report.ok).toBe(true);
  expect(report.transactions).toEqual({ committed: 2, aborted: 1, unknown: 0 });
});

test('an unknown-outcome transaction may be seen whole or not at all', () => {
  const h = [
    ...history,
    txn('t4', 3, 'unknown', [
      [0, 'f'],
      [1, 'g'],
    ]),
  ];
  expect(counts(h, [reader('rc', 'read_committed', committedReads)])).toEqual(none);
  expect(counts(h, [reader('rc', 'read_committed', [...committedReads, [0, 4, 'f'], [1, 3, 'g']])])).toEqual(
    none,
  );
});

test('aborted read: read_committed saw a value of an aborted transaction', () => {
  const reads: [number, number, string][] = [
    [0, 0, 'a'],
    [0, 1, 'c'],
    [1, 0, 'b'],
    [0, 3, 'd'],
    [1, 2, 'e'],
  ];
  const report = checkTransactions(history, [reader('rc', 'read_committed', reads)]);
  expect(report.abortedReads).toEqual([{ reader: 'rc', value: 'c', txn: 't2', at: '0@1' }]);
  expect(report.ok).toBe(false);
});

test('garbage read: read_committed saw a value nobody wrote', () => {
  const report = checkTransactions(history, [
    reader('rc', 'read_committed', [...committedReads, [1, 5, 'zz']]),
  ]);
  expect(report.abortedReads).toEqual([{ reader: 'rc', value: 'zz', txn: undefined, at: '1@5' }]);
});

test('torn transaction: part of a committed transaction seen, the rest missing in a partition read to the end', () => {
  const reads: [number, number, string][] = [
    [0, 0, 'a'],
    [1, 0, 'b'],
    [0, 3, 'd'],
  ];
  const report = checkTransactions(history, [reader('rc', 'read_committed', reads)]);
  expect(report.tornReads).toEqual([{ reader: 'rc', txn: 't3', seen: ['d'], missing: ['e'] }]);
  expect(report.ok).toBe(false);
});

test('torn unknown-outcome transaction: seen committed in one partition, missing in the other', () => {
  const h = [
    ...history,
    txn('t4', 3, 'unknown', [
      [0, 'f'],
      [1, 'g'],
    ]),
  ];
  const report = checkTransactions(h, [reader('rc', 'read_committed', [...committedReads, [0, 4, 'f']])]);
  expect(report.tornReads).toEqual([{ reader: 'rc', txn: 't4', seen: ['f'], missing: ['g'] }]);
});

test('not torn when the missing part is in a partition the reader did not read to the end', () => {
  const reads: [number, number, string][] = [
    [0, 0, 'a'],
    [1, 0, 'b'],
    [0, 3, 'd'],
  ];
  expect(counts(history, [reader('rc', 'read_committed', reads, [0])])).toEqual(none);
});

test('lost write: a committed transaction nobody saw', () => {
  const reads: [number, number, string][] = [
    [0, 0, 'a'],
    [1, 0, 'b'],
  ];
  const report = checkTransactions(history, [reader('rc', 'read_committed', reads)]);
  expect(report.lostWrites.map((l) => l.value)).toEqual(['d', 'e']);
  expect(report.tornReads).toEqual([]);
});

test('lost write for one reader: another read_committed reader saw it', () => {
  const report = checkTransactions(history, [
    reader('rc1', 'read_committed', committedReads),
    reader('rc2', 'read_committed', [
      [0, 0, 'a'],
      [1, 0, 'b'],
    ]),
  ]);
  expect(report.lostWrites.map((l) => l.value)).toEqual(['d', 'e']);
});

test('duplicated write: one value read at two offsets', () => {
  const report = checkTransactions(history, [
    reader('rc', 'read_committed', [...committedReads, [0, 5, 'a']]),
  ]);
  expect(report.duplicated).toEqual([{ value: 'a', offsets: ['0@0', '0@5'] }]);
});

test('duplicated across readers: two readers read a value at different offsets', () => {
  const report = checkTransactions(history, [
    reader('rc', 'read_committed', committedReads),
    reader('ru', 'read_uncommitted', [
      [0, 0, 'a'],
      [0, 1, 'c'],
      [0, 3, 'd'],
      [1, 0, 'b'],
      [1, 7, 'e'],
    ]),
  ]);
  expect(report.duplicated).toEqual([{ value: 'e', offsets: ['1@2', '1@7'] }]);
});

test('offset conflict: readers disagree on the value at an offset', () => {
  const report = checkTransactions(history, [
    reader('rc', 'read_committed', committedReads),
    reader('ru', 'read_uncommitted', [
      [0, 0, 'c'],
      [0, 1, 'a'],
    ]),
  ]);
  expect(report.offsetConflicts.map((c) => c.at).sort()).toEqual(['0@0']);
});

test('order anomaly: a reader goes back in a partition', () => {
  const reads: [number, number, string][] = [
    [0, 3, 'd'],
    [0, 0, 'a'],
    [1, 0, 'b'],
    [1, 2, 'e'],
  ];
  const report = checkTransactions(history, [reader('rc', 'read_committed', reads)]);
  expect(report.orderAnomalies).toEqual([
    { kind: 'reader', who: 'rc', partition: 0, before: 'd', after: 'a' },
  ]);
});

test("order anomaly: a producer's later transaction read before its earlier one in a partition", () => {
  const reads: [number, number, string][] = [
    [0, 0, 'd'],
    [0, 3, 'a'],
    [1, 0, 'b'],
    [1, 2, 'e'],
  ];
  const report = checkTransactions(history, [reader('rc', 'read_committed', reads)]);
  expect(report.orderAnomalies).toEqual([
    { kind: 'producer', who: 'p1', partition: 0, before: 'a', after: 'd' },
  ]);
});

test('order anomaly within a transaction: writes to one partition out of send order', () => {
  const h = [
    txn('t1', 0, 'committed', [
      [0, 'x'],
      [0, 'y'],
    ]),
  ];
  const report = checkTransactions(h, [
    reader(
      'rc',
      'read_committed',
      [
        [0, 0, 'y'],
        [0, 1, 'x'],
      ],
      [0],
    ),
  ]);
  expect(report.orderAnomalies.map((o) => o.kind)).toEqual(['producer']);
});

test('refuses a history whose values are not unique', () => {
  expect(() =>
    checkTransactions([txn('t1', 0, 'committed', [[0, 'a']]), txn('t2', 1, 'aborted', [[1, 'a']])], []),
  ).toThrow(/unique/);
});
