/** Small measurement helpers for the benchmarks. */
import * as fs from 'fs';

/** The p-th percentile (nearest rank) of the samples; NaN when there are none. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** User + system CPU seconds a process has used so far (Linux /proc). */
export function cpuSecondsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticksPerSecond = 100;
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

export function formatRate(perSecond: number): string {
  return Math.round(perSecond).toLocaleString('en');
}
