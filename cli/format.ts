/** Plain-text tables for CLI output. */
import type { GroupDescription } from '../client';

export function printTable(
  headers: string[],
  rows: (string | number)[][],
  out: NodeJS.WritableStream = process.stdout,
): void {
  const cells = [headers, ...rows.map((r) => r.map(String))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  for (const row of cells)
    out.write(row.map((c, i) => (i === row.length - 1 ? c : (c ?? '').padEnd(widths[i]))).join('  ') + '\n');
}

/** A count the server does not know (negative or absent) prints as `-`. */
export function dash(n: number | undefined): string | number {
  return n === undefined || n < 0 ? '-' : n;
}

/** The per-partition lag table of a consumer group and its total, as `groups` and `streams` print it. */
export function printGroupLag(
  partitions: GroupDescription['partitions'],
  out: NodeJS.WritableStream = process.stdout,
): void {
  printTable(
    ['TOPIC', 'PARTITION', 'COMMITTED', 'END', 'LAG', 'MEMBER'],
    partitions.map((p) => [
      p.topic,
      p.partition,
      dash(p.committedOffset),
      dash(p.endOffset),
      dash(p.lag),
      p.memberId || '-',
    ]),
    out,
  );
  out.write(`\ntotal lag ${partitions.reduce((sum, p) => sum + Math.max(0, p.lag), 0)}\n`);
}
