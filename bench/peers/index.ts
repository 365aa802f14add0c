/**
 * `npm run bench:peers`: Tide side by side with NATS JetStream and Redis Streams on this machine,
 * in one run, with identical workloads; prints one table per workload with the ratios Tide/peer,
 * saves bench/results/peers-<time>.json and latest.json, and draws docs/bench/peers.svg.
 * See docs/benchmarks-peers.md for what each workload does and the settings; flags: --help.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { REPO_ROOT } from '../../test/harness/processes';
import { chartSpec, renderSvg } from './chart';
import { parsePeerArgs, USAGE, type PeerBenchOptions } from './options';
import { buildPlan, SkippedCase } from './plan';
import { formatWorkloadTable, resultsDocument, type MachineInfo } from './report';
import { stopServersOnExit } from './server-process';
import type { ResultRow } from './types';

function versionOf(command: string, args: string[]): string | undefined {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
      .trim()
      .split('\n')[0];
  } catch {
    return undefined;
  }
}

function machineInfo(): MachineInfo {
  const versions: Record<string, string> = {};
  const probes: [string, string, string[]][] = [
    ['nats-server', 'nats-server', ['--version']],
    ['redis-server', 'redis-server', ['--version']],
    ['redis-benchmark', 'redis-benchmark', ['--version']],
    ['go', 'go', ['version']],
  ];
  for (const [name, command, args] of probes) {
    const version = versionOf(command, args);
    if (version) versions[name] = version;
  }
  return {
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    cpus: os.cpus().length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    kernel: os.release(),
    node: process.version,
    versions,
  };
}

function requireServers(options: PeerBenchOptions, machine: MachineInfo): void {
  const needed = [
    ...(options.systems.includes('nats') ? ['nats-server'] : []),
    ...(options.systems.includes('redis')
      ? ['redis-server', ...(options.native ? ['redis-benchmark'] : [])]
      : []),
  ];
  const missing = needed.filter((n) => !machine.versions[n]);
  if (missing.length) {
    throw new Error(
      `${missing.join(', ')} not found: run \`bash scripts/install-bench-peers.sh\` (npm run bench:peers does)`,
    );
  }
}

function timestamp(date: Date): string {
  return date.toISOString().replace(/[:.]/g, '-');
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(USAGE + '\n');
    return;
  }
  const options = parsePeerArgs(argv);
  stopServersOnExit();
  const machine = machineInfo();
  requireServers(options, machine);
  const startedAt = new Date();
  const rows: ResultRow[] = [];
  const failures: string[] = [];
  const skipped: string[] = [];
  const plan = buildPlan(options);
  process.stderr.write(
    `bench:peers: ${plan.length} cases on ${machine.cpus} × ${machine.cpuModel}, ${options.records.toLocaleString('en')} records per throughput case\n`,
  );
  for (const workload of options.workloads) {
    for (const benchCase of plan.filter((c) => c.workload === workload)) {
      const t0 = performance.now();
      process.stderr.write(`  ${benchCase.label} ... `);
      try {
        rows.push(await benchCase.run());
        process.stderr.write(`${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        if (err instanceof SkippedCase) skipped.push(`${benchCase.label}: ${message}`);
        else failures.push(`${benchCase.label}: ${message}`);
        process.stderr.write(
          `${err instanceof SkippedCase ? 'skipped' : 'FAILED'}: ${message.split('\n')[0]}\n`,
        );
      }
    }
    const table = formatWorkloadTable(workload, rows);
    if (table) process.stdout.write('\n' + table);
  }

  const document = resultsDocument({
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    command: `npm run bench:peers -- ${argv.join(' ')}`.trim(),
    machine,
    options,
    rows,
    failures: [...failures, ...skipped.map((s) => `skipped: ${s}`)],
  });
  const resultsDir = path.resolve(REPO_ROOT, options.resultsDir);
  fs.mkdirSync(resultsDir, { recursive: true });
  const json = JSON.stringify(document, null, 2) + '\n';
  const resultsFile = path.join(resultsDir, `peers-${timestamp(startedAt)}.json`);
  fs.writeFileSync(resultsFile, json);
  fs.writeFileSync(path.join(resultsDir, 'latest.json'), json);

  const subtitle = `${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}, ${startedAt.toISOString().slice(0, 10)}; shared machine: compare ratios, not absolute numbers`;
  const chartFile = path.resolve(REPO_ROOT, options.chartPath);
  fs.mkdirSync(path.dirname(chartFile), { recursive: true });
  fs.writeFileSync(chartFile, await renderSvg(chartSpec(rows, subtitle)));

  process.stdout.write(
    `\nresults: ${path.relative(REPO_ROOT, resultsFile)} (and latest.json); chart: ${path.relative(REPO_ROOT, chartFile)}\n`,
  );
  for (const s of skipped) process.stdout.write(`skipped: ${s}\n`);
  for (const f of failures) process.stdout.write(`FAILED: ${f}\n`);
  if (failures.length) process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
