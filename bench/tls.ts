/**
 * `npm run bench -- --tls`: the produce/consume run of bench/run.ts against a `tide dev` on plain
 * text and one on TLS (a temp CA, certificates from openssl), alternating plain, TLS, plain, TLS so
 * the machine's drift hits both alike, then the TLS/plain ratio of the better round of each.
 * One flush policy (the first of --policies; `--policies os` keeps the disk out of the figure).
 */
import * as fs from 'fs';
import * as path from 'path';
import { makeCa, makeLeaf } from '../test/harness/certs';
import { makeTempDir, startTide, type TideProcess } from '../test/harness/processes';
import { formatRate } from './stats';
import type { BenchOptions, ProduceConsumeResult } from './run';

const ROUNDS = 2;

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
  const best: Record<Mode, ProduceConsumeResult | undefined> = { plain: undefined, tls: undefined };
  try {
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of ['plain', 'tls'] as const) {
        const result = await measure(mode, certs, options, runner, policy);
        process.stdout.write(
          `round ${round + 1} ${mode}: produce ${formatRate(result.produceRecordsPerSec)} rec/s, consume ${formatRate(result.consume.recordsPerSec)} rec/s\n`,
        );
        const kept = best[mode];
        if (
          !kept ||
          result.produceRecordsPerSec + result.consume.recordsPerSec >
            kept.produceRecordsPerSec + kept.consume.recordsPerSec
        )
          best[mode] = result;
      }
    }
  } finally {
    fs.rmSync(certs, { recursive: true, force: true });
  }
  printComparison(options, policy, best.plain!, best.tls!);
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

function printComparison(
  options: BenchOptions,
  policy: string,
  plain: ProduceConsumeResult,
  tls: ProduceConsumeResult,
): void {
  const ratio = (a: number, b: number) => `${((a / b) * 100).toFixed(0)} %`;
  const rows = [
    [
      'produce rec/s',
      formatRate(plain.produceRecordsPerSec),
      formatRate(tls.produceRecordsPerSec),
      ratio(tls.produceRecordsPerSec, plain.produceRecordsPerSec),
    ],
    [
      'consume rec/s (objects)',
      formatRate(plain.consume.recordsPerSec),
      formatRate(tls.consume.recordsPerSec),
      ratio(tls.consume.recordsPerSec, plain.consume.recordsPerSec),
    ],
    [
      'consume rec/s (batches)',
      formatRate(plain.consumeBatches.recordsPerSec),
      formatRate(tls.consumeBatches.recordsPerSec),
      ratio(tls.consumeBatches.recordsPerSec, plain.consumeBatches.recordsPerSec),
    ],
    ['p99 ms @10k/s', plain.steadyP99Ms.toFixed(2), tls.steadyP99Ms.toFixed(2), ''],
    ['broker CPU s (produce)', plain.brokerCpuSec.toFixed(1), tls.brokerCpuSec.toFixed(1), ''],
  ];
  const headers = ['', 'plain text', 'TLS', 'TLS / plain'];
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  process.stdout.write(
    `\nTLS against plain text: ${options.records.toLocaleString('en')} records x ${options.size} B, 1 partition, acks=${options.acks}, flush.policy=${policy}, ` +
      `tide dev in its own process; the better of ${ROUNDS} interleaved rounds each\n\n`,
  );
  for (const row of [headers, ...rows])
    process.stdout.write(
      row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ') + '\n',
    );
}
