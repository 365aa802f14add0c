/**
 * `npm run bench:tls-consume`: the consume half of `npm run bench -- --tls`, repeated enough to
 * compare CPU per byte read. One `tide dev` on plain text and one on TLS run side by side, each
 * holding the same topic; rounds alternate between them (plain, TLS, plain, TLS ...), and every
 * round reads the whole topic `--reads` times with fresh consumers. Printed per mode: the CPU
 * seconds the consumer (this process) and the broker spent per read (median of the rounds) and
 * the best round's records/s. CPU per read moves much less with other load on the machine than
 * throughput, so it shows what TLS costs on a busy one; the negotiated protocol and cipher are
 * printed first.
 *
 *   npm run bench:tls-consume -- [--records 300000] [--size 100] [--reads 5] [--rounds 4]
 *                                [--mode batches|records] [--only plain|tls]
 *
 * CHILD_NODE_ARGS="--cpu-prof --cpu-prof-dir=DIR" profiles the brokers; run this script with
 * `--cpu-prof` for the consumer. For perf, see perfControl.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as tls from 'tls';
import { Tide, type TideOptions } from '../client';
import { makeCa, makeLeaf } from '../test/harness/certs';
import { makeTempDir, startTide, type TideProcess } from '../test/harness/processes';
import { readBack, type ReadMode } from './read-back';
import { cpuSecondsOf, formatRate } from './stats';

interface Options {
  records: number;
  size: number;
  reads: number;
  rounds: number;
  mode: ReadMode;
  /** --only plain|tls: one side only (to profile it); the summary then needs both. */
  only?: 'plain' | 'tls';
}

function parseArgs(argv: string[]): Options {
  const options: Options = { records: 300_000, size: 100, reads: 5, rounds: 4, mode: 'records' };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--records') options.records = Number(value);
    else if (flag === '--size') options.size = Number(value);
    else if (flag === '--reads') options.reads = Number(value);
    else if (flag === '--rounds') options.rounds = Number(value);
    else if (flag === '--mode') {
      if (value !== 'records' && value !== 'batches') throw new Error('--mode is records or batches');
      options.mode = value;
    } else if (flag === '--only') {
      if (value !== 'plain' && value !== 'tls') throw new Error('--only is plain or tls');
      options.only = value;
    } else throw new Error(`unknown flag ${flag}; see the header of bench/tls-consume.ts`);
  }
  return options;
}

interface Side {
  name: 'plain' | 'tls';
  broker: TideProcess;
  dataDir: string;
  client: Omit<TideOptions, 'bootstrap'>;
  topic: string;
  rounds: { seconds: number; clientCpu: number; brokerCpu: number }[];
}

async function startSide(name: Side['name'], certs: string): Promise<Side> {
  const dataDir = makeTempDir('tide-bench-');
  const file = (f: string) => path.join(certs, f);
  const broker = await startTide(['dev', '--data', dataDir, '--port', '0'], {
    env: {
      TIDE_LOG_LEVEL: 'warn',
      ...(name === 'tls'
        ? {
            TIDE_TLS_CERT_FILE: file('service.crt'),
            TIDE_TLS_KEY_FILE: file('service.key'),
            TIDE_TLS_CA_FILE: file('ca.crt'),
          }
        : {}),
    },
    readyTimeoutMs: 120_000, // the shared machine can be slow to start it
  });
  const client = name === 'tls' ? { security: { tls: { caFile: file('ca.crt') } } } : {};
  return { name, broker, dataDir, client, topic: `bench-tls-consume-${Date.now()}`, rounds: [] };
}

/** What a TLS client and the broker agree on by default (a plain node:tls handshake, as grpc-js makes). */
async function negotiated(side: Side, caFile: string): Promise<string> {
  const [host, port] = [
    side.broker.address.replace(/:\d+$/, ''),
    Number(/:(\d+)$/.exec(side.broker.address)![1]),
  ];
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host, port, ca: fs.readFileSync(caFile), ALPNProtocols: ['h2'] }, () => {
      const cipher = socket.getCipher();
      resolve(`${socket.getProtocol()} ${cipher.standardName}, ALPN ${String(socket.alpnProtocol)}`);
      socket.destroy();
    });
    socket.on('error', reject);
  });
}

async function fill(side: Side, options: Options): Promise<void> {
  const tide = new Tide({ ...side.client, bootstrap: [side.broker.address] });
  await tide.admin().createTopic(side.topic, { partitions: 1, configs: { 'flush.policy': 'os' } });
  const producer = tide.producer({ acks: 'leader' });
  const chunk = 1000;
  const values = Array.from({ length: chunk }, (_, i) => {
    const value = Buffer.alloc(options.size, 97 + (i % 26));
    value.writeUInt32BE(i, 0);
    return value;
  });
  const pending: Promise<unknown>[] = [];
  for (let sent = 0; sent < options.records; sent += chunk) {
    pending.push(producer.sendBatch(side.topic, values, { partition: 0 }));
    if (pending.length % 64 === 0) await producer.ready();
  }
  await Promise.all(pending);
  await producer.close();
  await tide.close();
}

async function round(side: Side, options: Options): Promise<void> {
  const tide = new Tide({ ...side.client, bootstrap: [side.broker.address] });
  const pid = side.broker.child.pid!;
  const brokerBefore = cpuSecondsOf(pid);
  const before = process.cpuUsage();
  const started = performance.now();
  for (let read = 0; read < options.reads; read++) {
    const consumer = tide.consumer({ autoOffsetReset: 'earliest' });
    consumer.assign([{ topic: side.topic, partition: 0, offset: 0 }]);
    await readBack(consumer, options.records, options.mode);
    await consumer.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(before);
  side.rounds.push({
    seconds,
    clientCpu: (cpu.user + cpu.system) / 1e6 / options.reads,
    brokerCpu: (cpuSecondsOf(pid) - brokerBefore) / options.reads,
  });
  await tide.close();
  const last = side.rounds[side.rounds.length - 1];
  process.stdout.write(
    `${side.name.padEnd(5)} ${formatRate((options.records * options.reads) / seconds).padStart(10)} rec/s  ` +
      `CPU s per read: consumer ${last.clientCpu.toFixed(3)}, broker ${last.brokerCpu.toFixed(3)}\n`,
  );
}

/**
 * PERF_CTL_FIFO: the control fifo of a `perf record --control fifo:PATH -D -1` wrapping this run,
 * so that the profile holds the timed reads only (not start-up, JIT warm-up or filling the topic).
 */
function perfControl(command: 'enable' | 'disable'): void {
  const fifo = process.env.PERF_CTL_FIFO;
  if (fifo) fs.writeFileSync(fifo, `${command}\n`);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const certs = makeTempDir('tide-bench-certs-');
  makeCa(certs, 'ca');
  makeLeaf(certs, 'ca', 'service', 'tide-bench');
  const sides: Side[] = [];
  try {
    for (const name of ['plain', 'tls'] as const)
      if (!options.only || options.only === name) sides.push(await startSide(name, certs));
    const tlsSide = sides.find((s) => s.name === 'tls');
    if (tlsSide)
      process.stdout.write(`TLS negotiated: ${await negotiated(tlsSide, path.join(certs, 'ca.crt'))}\n`);
    for (const side of sides) await fill(side, options);
    // One untimed read each: JIT warm-up of both processes.
    for (const side of sides) await round(side, { ...options, reads: 1 });
    for (const side of sides) side.rounds = [];
    perfControl('enable');
    for (let r = 0; r < options.rounds; r++) for (const side of sides) await round(side, options);
    perfControl('disable');
  } finally {
    for (const side of sides) {
      await side.broker.stop();
      fs.rmSync(side.dataDir, { recursive: true, force: true });
    }
    fs.rmSync(certs, { recursive: true, force: true });
  }
  if (options.only) return;
  const mb = (options.records * options.size) / 1e6;
  process.stdout.write(
    `\n${options.records.toLocaleString('en')} records x ${options.size} B (${mb.toFixed(0)} MB of values) read ${options.reads}x per round as ${options.mode}, ` +
      `${options.rounds} interleaved rounds; CPU s per read = median of the rounds\n`,
  );
  const [plain, tlsSide] = sides;
  const summary = (s: Side) => ({
    best: Math.max(...s.rounds.map((r) => (options.records * options.reads) / r.seconds)),
    client: median(s.rounds.map((r) => r.clientCpu)),
    broker: median(s.rounds.map((r) => r.brokerCpu)),
  });
  const p = summary(plain);
  const t = summary(tlsSide);
  for (const [name, s] of [
    ['plain', p],
    ['tls', t],
  ] as const) {
    process.stdout.write(
      `${name.padEnd(5)} best ${formatRate(s.best).padStart(10)} rec/s  consumer ${s.client.toFixed(3)} s  broker ${s.broker.toFixed(3)} s  sum ${(s.client + s.broker).toFixed(3)} s\n`,
    );
  }
  const pct = (a: number, b: number) => `${((a / b) * 100).toFixed(0)} %`;
  process.stdout.write(
    `TLS / plain: best rec/s ${pct(t.best, p.best)}; CPU consumer ${pct(t.client, p.client)}, broker ${pct(t.broker, p.broker)}, ` +
      `sum ${pct(t.client + t.broker, p.client + p.broker)} (plain/TLS of the sum: ${pct(p.client + p.broker, t.client + t.broker)})\n`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
