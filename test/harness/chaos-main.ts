/**
 * `npm run chaos -- --seed N --duration S [--kinds a,b]`: a seeded fault schedule against real
 * processes (see chaos.ts). Prints each fault as it happens, then unavailability per fault kind
 * and the history check; exits 1 when the history or the group offsets check failed.
 */
import { FAULT_KINDS, runChaos, summarizeFaults, type FaultKind } from './chaos';

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function main(): Promise<void> {
  const seed = Number(argument('seed') ?? Date.now() % 100_000);
  const durationS = Number(argument('duration') ?? 60);
  const kinds = (argument('kinds')?.split(',') ?? [...FAULT_KINDS]) as FaultKind[];
  const unknown = kinds.filter((k) => !FAULT_KINDS.includes(k));
  if (!Number.isInteger(seed) || !(durationS > 0) || unknown.length > 0) {
    process.stderr.write(
      `usage: npm run chaos -- --seed N --duration S [--kinds ${FAULT_KINDS.join(',')}]\n` +
        (unknown.length ? `unknown kinds: ${unknown.join(', ')}\n` : ''),
    );
    process.exit(2);
  }
  const started = Date.now();
  const report = await runChaos({
    seed,
    durationS,
    kinds,
    log: (line) => process.stdout.write(`[${((Date.now() - started) / 1000).toFixed(1)} s] ${line}\n`),
  });
  process.stdout.write(`\nchaos --seed ${seed} --duration ${durationS}: ${report.faults.length} faults\n`);
  process.stdout.write('fault kind            count   unavailable ms: median      mean       max\n');
  for (const row of summarizeFaults(report.faults)) {
    process.stdout.write(
      `${row.kind.padEnd(20)}  ${String(row.count).padStart(5)}   ${String(row.medianMs).padStart(20)} ${String(row.meanMs).padStart(9)} ${String(row.maxMs).padStart(9)}\n`,
    );
  }
  process.stdout.write(`\nproducer errors (retried or given up): ${JSON.stringify(report.producerErrors)}\n`);
  process.stdout.write(
    `group offsets: ${report.commits.acknowledged} commits acknowledged, ${report.commits.reads} reads, ${report.commits.wentBack.length} went back ${JSON.stringify(report.commits.wentBack.slice(0, 5))}\n`,
  );
  process.stdout.write(`history:\n${report.historySummary}\n`);
  process.stdout.write(`${report.ok ? 'CLEAN' : 'VIOLATIONS FOUND'} (seed ${seed})\n`);
  process.exit(report.ok ? 0 : 1);
}

// process.exit runs the harness's exit hook, which SIGKILLs every process it started.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

main().catch((err: unknown) => {
  process.stderr.write(
    `chaos run failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
