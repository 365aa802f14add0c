import { checkHistory, type AckedRecord, type ReadRecord } from '../harness/history-checker';

const acked = (
  partition: number,
  offset: number,
  value: string,
  seq: number,
  producer = 'p1',
): AckedRecord => ({ partition, offset, value, seq, producer });
const read = (partition: number, offset: number, value: string): ReadRecord => ({ partition, offset, value });

test('a clean history passes', () => {
  const report = checkHistory(
    [acked(0, 0, 'a', 0), acked(0, 1, 'b', 1), acked(1, 0, 'c', 2)],
    [read(0, 0, 'a'), read(0, 1, 'b'), read(1, 0, 'c'), read(1, 1, 'unacked')],
  );
  expect(report.ok).toBe(true);
});

test.each([
  ['lost', [acked(0, 0, 'a', 0), acked(0, 1, 'b', 1)], [read(0, 0, 'a')], 'lost'],
  ['duplicated', [acked(0, 0, 'a', 0)], [read(0, 0, 'a'), read(0, 1, 'a')], 'duplicated'],
  ['offset reused', [acked(0, 0, 'a', 0)], [read(0, 0, 'a'), read(0, 0, 'x')], 'offsetConflicts'],
  ['moved', [acked(0, 0, 'a', 0)], [read(0, 3, 'a')], 'moved'],
  ['reordered', [acked(0, 1, 'a', 0), acked(0, 0, 'b', 1)], [read(0, 1, 'a'), read(0, 0, 'b')], 'reordered'],
] as const)('detects %s records', (_name, a, r, field) => {
  const report = checkHistory([...a], [...r]);
  expect(report.ok).toBe(false);
  expect((report[field] as unknown[]).length).toBeGreaterThan(0);
});
