/**
 * `npm run bench -- --tls`: the produce/consume run of bench/run.ts against a `tide dev` on plain
 * text and one on TLS (a temp CA, certificates from openssl), alternating plain, TLS, plain, TLS so
 * the machine's drift hits both alike, then the TLS/plain ratio of each figure's best round
 * (`--tls-rounds N`, default 3: the machine is shared, so the best round is the one least disturbed).
 * One flush policy (the first of --policies; `--policies os` keeps the disk out of the figure).
 */
import * as fs from 'fs';
import * as path from 'path';
import { makeCa, makeLeaf } from '../test/harness/certs';
import { makeTempDir, startTide, type TideProcess } from '../test/harness/processes';
import { formatRate } from './stats';
import type { BenchOptions, ProduceConsumeResult } from './run';

interface Runner {
  warmUp(broker: TideProcess, options: BenchOptions): Promise<void>;
  runPolicy(broker: TideProcess, options: BenchOptions, policy: string): Promise<ProduceConsumeResult>;
}

type Mode = 'plain' | 'tls';

export async function runTlsComparison(options: BenchOptions, runner: Runner): Promise<void> {
  const certs = makeTempDir('tide-bench-certs-');
  makeCa(certs, 'ca');
  makeLeaf(certs, 'ca', 'service', 'tide-bench');
  const policy = options.policies[0];
  const results: Record<Mode, ProduceConsumeResult[]> = { plain: [], tls: [] };
  try {
    for (let round = 0; round < options.tlsRounds; round++) {
      for (const mode of ['plain', 'tls'] as const) {
        const result = await measure(mode, certs, options, runner, policy);
        results[mode].push(result);
        process.stdout.write(
          `round ${round + 1} ${mode}: produce ${formatRate(result.produceRecordsPerSec)} rec/s, consume ${formatRate(result.consume.recordsPerSec)} rec/s\n`,
        );
      }
    }
  } finally {
    fs.rmSync(certs, { recursive: true, force: true });
  }
  printComparison(options, policy, bestOf(results.plain), bestOf(results.tls));
}

async function measure(
  mode: Mode,
  certs: string,
  options: BenchOptions,
  runner: Runner,
  policy: string,
): Promise<ProduceConsumeResult> {
  const dataDir = makeTempDir('tide-bench-');
  const file = (name: string) => path.join(certs, name);
  const broker = await startTide(['dev', '--data', dataDir, '--port', '0'], {
    env: {
      TIDE_LOG_LEVEL: 'warn',
      ...(mode === 'tls'
        ? {
            TIDE_TLS_CERT_FILE: file('service.crt'),
            TIDE_TLS_KEY_FILE: file('service.key'),
            TIDE_TLS_CA_FILE: file('ca.crt'),
          }
        : {}),
    },
  });
  const withClient: BenchOptions = {
    ...options,
    client: mode === 'tls' ? { security: { tls: { caFile: file('ca.crt') } } } : undefined,
  };
  try {
    await runner.warmUp(broker, withClient);
    return await runner.runPolicy(broker, withClient, policy);
  } finally {
    await broker.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Each figure's best round: throughputs at their highest, latency at its lowest. */
function bestOf(rounds: ProduceConsumeResult[]): Figures {
  const max = (f: (r: ProduceConsumeResult) => number) => Math.max(...rounds.map(f));
  const min = (f: (r: ProduceConsumeResult) => number) => Math.min(...rounds.map(f));
  return {
    produce: max((r) => r.produceRecordsPerSec),
    consume: max((r) => r.consume.recordsPerSec),
    consumeBatches: max((r) => r.consumeBatches.recordsPerSec),
    steadyP99Ms: min((r) => r.steadyP99Ms),
  };
}

interface Figures {
  produce: number;
  consume: number;
  consumeBatches: number;
  steadyP99Ms: number;
}

function printComparison(options: BenchOptions, policy: string, plain: Figures, tls: Figures): void {
  const ratio = (a: number, b: number) => `${((a / b) * 100).toFixed(0)} %`;
  const row = (name: string, f: (x: Figures) => number) => [
    name,
    formatRate(f(plain)),
    formatRate(f(tls)),
    ratio(f(tls), f(plain)),
  ];
  const rows = [
    row('produce rec/s', (x) => x.produce),
    row('consume rec/s (objects)', (x) => x.consume),
    row('consume rec/s (batches)', (x) => x.consumeBatches),
    ['p99 ms @10k/s', plain.steadyP99Ms.toFixed(2), tls.steadyP99Ms.toFixed(2), ''],
  ];
  const headers = ['', 'plain text', 'TLS', 'TLS / plain'];
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  process.stdout.write(
    `\nTLS against plain text: ${options.records.toLocaleString('en')} records x ${options.size} B, 1 partition, acks=${options.acks}, flush.policy=${policy}, ` +
      `tide dev in its own process; each figure's best of ${options.tlsRounds} interleaved rounds\n\n`,
  );
  for (const row of [headers, ...rows])
    process.stdout.write(
      row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ') + '\n',
    );
}
