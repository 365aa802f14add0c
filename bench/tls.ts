/**
 * `npm run bench -- --tls [--auth]`: the produce/consume run of bench/run.ts against a `tide dev` on plain
 * text and one on TLS (a temp CA, certificates from openssl), alternating plain, TLS, plain, TLS so
 * the machine's drift hits both alike, then the TLS/plain ratio of each figure's best round
 * (`--tls-rounds N`, default 3: the machine is shared, so the best round is the one least disturbed).
 * One flush policy (the first of --policies; `--policies os` keeps the disk out of the figure).
 * `--auth` adds a third mode, TLS plus authentication (a static token) and ACL authorization: the
 * client is an ordinary principal whose ACLs allow the run, so every call is checked.
 */
import * as fs from 'fs';
import * as path from 'path';
import { makeCa, makeLeaf } from '../test/harness/certs';
import { Tide } from '../client';
import { makeTempDir, startTide, type TideProcess } from '../test/harness/processes';
import { formatRate } from './stats';
import type { BenchOptions, ProduceConsumeResult } from './run';

interface Runner {
  warmUp(broker: TideProcess, options: BenchOptions): Promise<void>;
  runPolicy(broker: TideProcess, options: BenchOptions, policy: string): Promise<ProduceConsumeResult>;
}

type Mode = 'plain' | 'tls' | 'auth';

const BENCH_TOKEN = 'bench-token';
const ADMIN_TOKEN = 'bench-admin-token';

export async function runTlsComparison(options: BenchOptions, runner: Runner): Promise<void> {
  const certs = makeTempDir('tide-bench-certs-');
  makeCa(certs, 'ca');
  makeLeaf(certs, 'ca', 'service', 'tide-bench');
  const policy = options.policies[0];
  fs.writeFileSync(path.join(certs, 'tokens'), `${BENCH_TOKEN} bench\n${ADMIN_TOKEN} admin\n`);
  const results: Record<Mode, ProduceConsumeResult[]> = { plain: [], tls: [], auth: [] };
  const modes: Mode[] = options.auth ? ['plain', 'tls', 'auth'] : ['plain', 'tls'];
  try {
    for (let round = 0; round < options.tlsRounds; round++) {
      for (const mode of modes) {
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
  printComparison(
    options,
    policy,
    bestOf(results.plain),
    bestOf(results.tls),
    options.auth ? bestOf(results.auth) : undefined,
  );
}

/** The bench principal's grants: everything the run does, as ordinary (non-super-user) ACLs. */
async function grantBench(address: string, caFile: string): Promise<void> {
  const admin = new Tide({ bootstrap: [address], security: { tls: { caFile }, token: ADMIN_TOKEN } });
  try {
    await admin.admin().createAcls([
      {
        principal: 'bench',
        resourceType: 'topic',
        name: 'bench-',
        patternType: 'prefixed',
        operation: 'all',
      },
      { principal: 'bench', resourceType: 'cluster', name: '', operation: 'create' },
      { principal: 'bench', resourceType: 'cluster', name: '', operation: 'idempotent_write' },
      { principal: 'bench', resourceType: 'group', name: 'bench', patternType: 'prefixed', operation: 'all' },
    ]);
  } finally {
    await admin.close();
  }
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
      ...(mode !== 'plain'
        ? {
            TIDE_TLS_CERT_FILE: file('service.crt'),
            TIDE_TLS_KEY_FILE: file('service.key'),
            TIDE_TLS_CA_FILE: file('ca.crt'),
          }
        : {}),
      ...(mode === 'auth'
        ? {
            // The dev node's own calls present its certificate (CN=tide-bench): the internal principal.
            TIDE_TLS_CLIENT_AUTH: 'request',
            TIDE_AUTH_MTLS: 'true',
            TIDE_AUTH_MTLS_PRINCIPAL_RULES: 'RULE:^CN=([^,]+).*$/$1/',
            TIDE_AUTH_STATIC_TOKENS_FILE: file('tokens'),
            TIDE_AUTHORIZATION: 'acl',
            TIDE_SUPER_USERS: 'admin',
            TIDE_INTERNAL_PRINCIPALS: 'tide-bench',
          }
        : {}),
    },
  });
  const caFile = file('ca.crt');
  const withClient: BenchOptions = {
    ...options,
    client:
      mode === 'plain'
        ? undefined
        : { security: { tls: { caFile }, ...(mode === 'auth' ? { token: BENCH_TOKEN } : {}) } },
  };
  try {
    if (mode === 'auth') await grantBench(broker.address, caFile);
    await runner.warmUp(broker, withClient);
    return await runner.runPolicy(broker, withClient, policy);
  } finally {
    await broker.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * Each figure's best round: throughputs at their highest, latency and CPU at their lowest. The
 * CPU seconds (client / broker process, all threads) change less than throughput with what else
 * runs on the machine, so they show the cost of TLS even on a busy one.
 */
function bestOf(rounds: ProduceConsumeResult[]): Figures {
  const max = (f: (r: ProduceConsumeResult) => number) => Math.max(...rounds.map(f));
  const min = (f: (r: ProduceConsumeResult) => number) => Math.min(...rounds.map(f));
  return {
    produce: max((r) => r.produceRecordsPerSec),
    consume: max((r) => r.consume.recordsPerSec),
    consumeBatches: max((r) => r.consumeBatches.recordsPerSec),
    steadyP99Ms: min((r) => r.steadyP99Ms),
    produceCpu: [min((r) => r.producerCpuSec), min((r) => r.brokerCpuSec)],
    consumeCpu: [min((r) => r.consume.consumerCpuSec), min((r) => r.consume.brokerCpuSec)],
    consumeBatchesCpu: [
      min((r) => r.consumeBatches.consumerCpuSec),
      min((r) => r.consumeBatches.brokerCpuSec),
    ],
  };
}

interface Figures {
  produce: number;
  consume: number;
  consumeBatches: number;
  steadyP99Ms: number;
  /** CPU seconds of [client, broker] over the phase. */
  produceCpu: [number, number];
  consumeCpu: [number, number];
  consumeBatchesCpu: [number, number];
}

function printComparison(
  options: BenchOptions,
  policy: string,
  plain: Figures,
  tls: Figures,
  auth: Figures | undefined,
): void {
  const ratio = (a: number, b: number) => `${((a / b) * 100).toFixed(0)} %`;
  const row = (name: string, f: (x: Figures) => number) => [
    name,
    formatRate(f(plain)),
    formatRate(f(tls)),
    ratio(f(tls), f(plain)),
    ...(auth ? [formatRate(f(auth)), ratio(f(auth), f(plain))] : []),
  ];
  const p99 = (x: Figures) => x.steadyP99Ms.toFixed(2);
  const cpu = (name: string, f: (x: Figures) => [number, number]) => {
    const cell = (x: Figures) =>
      f(x)
        .map((s) => s.toFixed(2))
        .join(' / ');
    return [name, cell(plain), cell(tls), '', ...(auth ? [cell(auth), ''] : [])];
  };
  const rows = [
    row('produce rec/s', (x) => x.produce),
    row('consume rec/s (objects)', (x) => x.consume),
    row('consume rec/s (batches)', (x) => x.consumeBatches),
    ['p99 ms @10k/s', p99(plain), p99(tls), '', ...(auth ? [p99(auth), ''] : [])],
    cpu('CPU s client / broker: produce', (x) => x.produceCpu),
    cpu('consume (objects)', (x) => x.consumeCpu),
    cpu('consume (batches)', (x) => x.consumeBatchesCpu),
  ];
  const headers = ['', 'plain text', 'TLS', 'TLS / plain', ...(auth ? ['TLS+auth+ACL', 'auth / plain'] : [])];
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  process.stdout.write(
    `\nTLS${auth ? ' (and TLS + authentication + ACLs)' : ''} against plain text: ${options.records.toLocaleString('en')} records x ${options.size} B, 1 partition, acks=${options.acks}, flush.policy=${policy}, ` +
      `tide dev in its own process; each figure's best of ${options.tlsRounds} interleaved rounds\n\n`,
  );
  for (const row of [headers, ...rows])
    process.stdout.write(
      row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ') + '\n',
    );
}
