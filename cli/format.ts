/** Plain-text tables for CLI output. */
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
