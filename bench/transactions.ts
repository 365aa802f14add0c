/**
 * `npm run bench -- --transactions`: transactional produce against idempotent produce (acks=all) on
 * one partition of a `tide dev` running as its own process (broker + transaction coordinator, as in
 * the quick start). Rounds alternate idempotent, transactional at each size, idempotent, … so the
 * shared machine's drift hits every mode alike; each mode's best round is compared with the best
 * idempotent one (ratio). Each transaction is beginTransaction, one sendBatch (not awaited) and
 * commitTransaction. Commit latency is commitTransaction()'s call to its resolution: the flush of
 * the transaction's records (AddPartitionsToTxn first, then the produce) and the EndTxn round (the
 * coordinator's prepare write, the markers, the complete write); "txn" is the whole transaction.
 * Percentiles over every transaction of every round.
 *
 *   npm run bench -- --transactions [--records 200000] [--size 100] [--per-txn 100,1000]
 *                    [--rounds 3] [--chunk 1000] [--policy os] [--state-policy P]
 *                    [--producers 1] [--warmup 500000]
 *
 * --records: records per round and mode. --chunk: records per sendBatch of the idempotent producer
 * (transactions send theirs as one sendBatch each). --policy: the data topics' flush.policy.
 * --state-policy: `__transaction_state`'s flush.policy (default: the same as --policy, so both
 * modes pay the same for durability; `sync` = every coordinator write waits for an fdatasync).
 * --producers: transactional producers running side by side in a transactional round (each its
 * own transactional id, the records split between them); the idempotent round keeps one.
 */
import * as fs from 'fs';
import * as os from 'os';
import { Tide, type Producer, type TransactionalProducer } from '../client';
import { makeTempDir, startTide, type TideProcess } from '../test/harness/processes';
import { cpuSecondsOf, formatRate, percentile } from './stats';

interface TxnBenchOptions {
  records: number;
  size: number;
  perTxn: number[];
  rounds: number;
  chunk: number;
  policy: string;
  statePolicy: string | undefined;
  producers: number;
  warmup: number;
}

function parseArgs(argv: string[]): TxnBenchOptions {
  const options: TxnBenchOptions = {
    records: 200_000,
    size: 100,
    perTxn: [100, 1_000],
    rounds: 3,
    chunk: 1_000,
    policy: 'os',
    statePolicy: undefined,
    producers: 1,
    warmup: 500_000,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    const number = (): number => {
      const n = Number(value);
      if (!Number.isInteger(n) || n < 0)
        throw new Error(`${flag} needs a non-negative integer, got ${value}`);
      return n;
    };
    if (flag === '--records') options.records = number();
    else if (flag === '--size') options.size = number();
    else if (flag === '--rounds') options.rounds = number();
    else if (flag === '--chunk') options.chunk = number();
    else if (flag === '--warmup') options.warmup = number();
    else if (flag === '--policy') options.policy = value;
    else if (flag === '--state-policy') options.statePolicy = value;
    else if (flag === '--producers') options.producers = Math.max(1, number());
    else if (flag === '--per-txn') {
      options.perTxn = value.split(',').map(Number);
      if (options.perTxn.some((n) => !Number.isInteger(n) || n <= 0))
        throw new Error(`--per-txn needs positive integers, got ${value}`);
    } else throw new Error(`unknown flag ${flag}; see the header of bench/transactions.ts`);
  }
  return options;
}

interface RoundResult {
  recordsPerSec: number;
  /** Transactional rounds: each commitTransaction() in ms. */
  commitMs: number[];
  /** Transactional rounds: each whole transaction, beginTransaction to the commit, ms. */
  sendMs: number[];
  producerCpuSec: number;
  brokerCpuSec: number;
  load1: number;
  /** Transactional rounds: transactions run, and records appended to `__transaction_state` meanwhile. */
  transactions?: number;
  stateRecords?: number;
}

/** Distinct values (the first bytes number them), built before timing starts. */
function valuesOf(count: number, size: number): Buffer[] {
  return Array.from({ length: count }, (_, i) => {
    const value = Buffer.alloc(size, 97 + (i % 26));
    value.writeUInt32BE(i, 0);
    return value;
  });
}

async function pipelined(
  producer: Producer,
  topic: string,
  values: Buffer[],
  records: number,
): Promise<void> {
  const pending: Promise<unknown>[] = [];
  for (let sent = 0; sent < records; sent += values.length) {
    const count = Math.min(values.length, records - sent);
    pending.push(
      producer.sendBatch(topic, count === values.length ? values : values.slice(0, count), { partition: 0 }),
    );
    // sendBatch waits for buffer space itself; yielding here lets acknowledgements run.
    if (pending.length % 64 === 0) await producer.ready();
  }
  await Promise.all(pending);
}

async function createTopic(tide: Tide, name: string, policy: string): Promise<string> {
  const topic = `${name}-${Date.now()}`;
  await tide.admin().createTopic(topic, { partitions: 1, configs: { 'flush.policy': policy } });
  return topic;
}

async function idempotentRound(
  tide: Tide,
  broker: TideProcess,
  options: TxnBenchOptions,
): Promise<RoundResult> {
  const topic = await createTopic(tide, 'bench-idempotent', options.policy);
  const producer = tide.producer({ acks: 'all', idempotence: true });
  await producer.connect();
  const values = valuesOf(options.chunk, options.size);
  const result = await timed(broker, [], [], () => pipelined(producer, topic, values, options.records));
  await producer.close();
  await tide.admin().deleteTopic(topic);
  return { ...result, recordsPerSec: options.records / result.seconds };
}

async function transactionalRound(
  tide: Tide,
  broker: TideProcess,
  options: TxnBenchOptions,
  perTxn: number,
): Promise<RoundResult> {
  const topic = await createTopic(tide, `bench-txn-${perTxn}`, options.policy);
  const producers: TransactionalProducer[] = [];
  for (let i = 0; i < options.producers; i++) {
    const producer = tide.producer({ transactionalId: `bench-${perTxn}-${i}-${Date.now()}` });
    await producer.initTransactions();
    producers.push(producer);
  }
  const values = valuesOf(perTxn, options.size);
  const commitMs: number[] = [];
  const sendMs: number[] = [];
  const flushMs: number[] = [];
  const transactions = Math.ceil(options.records / perTxn / options.producers);
  const run = async (producer: TransactionalProducer) => {
    for (let t = 0; t < transactions; t++) {
      producer.beginTransaction();
      const s0 = performance.now();
      // Not awaited before the commit, as Kafka applications do: commitTransaction flushes it at
      // once (awaiting it first would add the linger of its last, partly filled batch).
      const sent = producer.sendBatch(topic, values, { partition: 0 });
      const t0 = performance.now();
      if (process.env.TXN_BENCH_PHASES) {
        await producer.flush();
        flushMs.push(performance.now() - t0);
      }
      await producer.commitTransaction();
      commitMs.push(performance.now() - t0);
      await sent;
      sendMs.push(performance.now() - s0);
    }
  };
  const stateBefore = await stateRecords(tide);
  const result = await timed(broker, commitMs, sendMs, async () => {
    await Promise.all(producers.map(run));
  });
  const written = (await stateRecords(tide)) - stateBefore;
  if (flushMs.length > 0)
    process.stdout.write(
      `  phases: flush (produce + join) p50 ${percentile(flushMs, 50).toFixed(2)} ms, commit incl. flush p50 ${percentile(commitMs, 50).toFixed(2)} ms\n`,
    );
  for (const producer of producers) await producer.close();
  await tide.admin().deleteTopic(topic);
  return {
    ...result,
    recordsPerSec: (transactions * perTxn * options.producers) / result.seconds,
    transactions: transactions * options.producers,
    stateRecords: written,
  };
}

/** Records in `__transaction_state` (every partition's log end offset, shard markers included). */
async function stateRecords(tide: Tide): Promise<number> {
  const { status } = await tide.admin().describeTopic('__transaction_state');
  return status.reduce((sum, p) => sum + p.logEndOffset, 0);
}

/** `__transaction_state` gets the flush policy the benchmark asks for (it exists after the first initTransactions). */
async function setStatePolicy(tide: Tide, options: TxnBenchOptions): Promise<void> {
  const probe = tide.producer({ transactionalId: `bench-probe-${Date.now()}` });
  await probe.initTransactions();
  await probe.close();
  await tide.admin().alterConfigs('__transaction_state', {
    set: { 'flush.policy': options.statePolicy ?? options.policy },
  });
}

async function timed(
  broker: TideProcess,
  commitMs: number[],
  sendMs: number[],
  run: () => Promise<void>,
): Promise<Omit<RoundResult, 'recordsPerSec'> & { seconds: number }> {
  const brokerCpuBefore = cpuSecondsOf(broker.child.pid!);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  await run();
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  return {
    seconds,
    commitMs,
    sendMs,
    producerCpuSec: (cpu.user + cpu.system) / 1e6,
    brokerCpuSec: cpuSecondsOf(broker.child.pid!) - brokerCpuBefore,
    load1: os.loadavg()[0],
  };
}

/** Untimed produce of both kinds first, so the first measured round does not pay for JIT compilation. */
async function warmUp(tide: Tide, broker: TideProcess, options: TxnBenchOptions): Promise<void> {
  if (options.warmup <= 0) return;
  await idempotentRound(tide, broker, { ...options, records: options.warmup });
  await transactionalRound(tide, broker, { ...options, records: Math.ceil(options.warmup / 5) }, 1_000);
}

export async function runTransactionsBench(argv: string[]): Promise<void> {
  const options = parseArgs(argv);
  const dataDir = makeTempDir('tide-bench-txn-');
  const broker = await startTide(['dev', '--data', dataDir, '--port', '0'], {
    env: { TIDE_LOG_LEVEL: 'warn' },
  });
  const tide = new Tide({ bootstrap: [broker.address] });
  const modes = ['idempotent', ...options.perTxn.map((n) => `txn-${n}`)];
  const results = new Map<string, RoundResult[]>(modes.map((m) => [m, []]));
  try {
    await setStatePolicy(tide, options);
    await warmUp(tide, broker, options);
    for (let round = 0; round < options.rounds; round++) {
      for (const mode of modes) {
        const result =
          mode === 'idempotent'
            ? await idempotentRound(tide, broker, options)
            : await transactionalRound(tide, broker, options, Number(mode.slice(4)));
        results.get(mode)!.push(result);
        process.stdout.write(
          `round ${round + 1} ${mode}: ${formatRate(result.recordsPerSec)} rec/s` +
            (result.commitMs.length > 0
              ? `, commit p50 ${percentile(result.commitMs, 50).toFixed(2)} ms p99 ${percentile(result.commitMs, 99).toFixed(2)} ms, txn p50 ${percentile(result.sendMs, 50).toFixed(2)} ms`
              : '') +
            (result.transactions
              ? `, tide CPU ${((result.brokerCpuSec * 1000) / result.transactions).toFixed(2)} ms/txn, ${((result.stateRecords ?? 0) / result.transactions).toFixed(2)} state writes/txn`
              : `, tide CPU ${((result.brokerCpuSec * 1e6) / options.records).toFixed(2)} ms/1000 rec`) +
            `, load ${result.load1.toFixed(2)}\n`,
        );
      }
    }
  } finally {
    await tide.close();
    await broker.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  printTable(options, modes, results);
}

function printTable(options: TxnBenchOptions, modes: string[], results: Map<string, RoundResult[]>): void {
  const best = (mode: string) =>
    results.get(mode)!.reduce((a, b) => (b.recordsPerSec > a.recordsPerSec ? b : a));
  const idempotent = best('idempotent');
  const rows = modes.map((mode) => {
    const b = best(mode);
    const commits = results.get(mode)!.flatMap((r) => r.commitMs);
    const sends = results.get(mode)!.flatMap((r) => r.sendMs);
    const per = (cpu: number) =>
      ((cpu / (b.recordsPerSec > 0 ? options.records / b.recordsPerSec : 1)) * 100).toFixed(0);
    return [
      mode === 'idempotent' ? 'idempotent (acks=all)' : `transactional, ${mode.slice(4)} rec/txn`,
      formatRate(b.recordsPerSec),
      `${((b.recordsPerSec / idempotent.recordsPerSec) * 100).toFixed(0)} %`,
      commits.length > 0 ? percentile(commits, 50).toFixed(2) : '',
      commits.length > 0 ? percentile(commits, 99).toFixed(2) : '',
      sends.length > 0 ? percentile(sends, 50).toFixed(2) : '',
      `${per(b.producerCpuSec)} % / ${per(b.brokerCpuSec)} %`,
      b.load1.toFixed(2),
    ];
  });
  const headers = [
    '',
    'rec/s',
    'vs idempotent',
    'commit p50 ms',
    'commit p99 ms',
    'txn p50 ms',
    'CPU client / tide',
    'load (1 min)',
  ];
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  process.stdout.write(
    `\nTransactional against idempotent produce: ${options.records.toLocaleString('en')} records x ${options.size} B per round, ` +
      `1 partition, flush.policy=${options.policy} (__transaction_state: ${options.statePolicy ?? options.policy}), ` +
      `${options.producers} transactional producer(s), tide dev in its own process; best of ${options.rounds} interleaved rounds ` +
      `(commit percentiles over all rounds; load = 1-minute load average at the end of that round, ${os.cpus().length} cores)\n\n`,
  );
  for (const row of [headers, ...rows])
    process.stdout.write(
      row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ') + '\n',
    );
}
