/**
 * `npm run bench:streams`: Tide Streams end to end on one `tide dev` (its own process), the
 * application in this process (issue #14's benchmark). The same input — `--records` JSON events
 * over `--keys` users, event time 1 ms apart, on `--partitions` partitions — is read by:
 *
 * - the ceiling: a plain consume + produce of the same records (a group consumer reading fetched
 *   chunks, as the app does, each chunk's records sent on to an output topic in one producer
 *   call with acks=all, as the app's sends go out);
 * - stateless: filter + mapValues → output;
 * - windowed count (10 s tumbling windows, 1 s grace, every update emitted), changelog on, with
 *   the in-memory window store, and with `stateDir` (the persistent LMDB window store);
 * - the windowed count on LMDB with `caching` (the record cache: store writes, changelog records
 *   and table updates once per key per flush, the store written in one batch);
 * - count per key on the LMDB key-value store with its changelog;
 * - stream–table join against a `users` table of `--keys` rows (read first: earlier timestamps).
 *
 * Each figure is records/s from the first input record processed to the last output (and
 * changelog) record acknowledged; the ceiling runs right before each workload (A/B, after one
 * unreported warm-up of both), and the ratio is to that ceiling. Each also prints this process's
 * CPU per input record (app or ceiling: steadier than a rate on a shared machine). Restores: a new instance of the
 * windowed counts and of the LMDB count, with no local state, reads every changelog record before
 * processing; changelog records/s from start() to the last store restored (the group join
 * included: a lower bound), and from the first store's restore start (its changelog end listed)
 * to the last store restored (the restore alone), and the CPU this process spent per restored
 * record (more stable than a rate on a shared machine: a restore takes well under a second).
 * `--restores N` repeats each restore N times per round. With several rounds or restores, medians
 * close the output.
 *
 * `npm run bench:streams` runs node with `--max-semi-space-size=64`, as docs/streams.md advises
 * for applications; the app and the ceiling share this process, so both have it.
 *
 *   npm run bench:streams -- [--records 200000] [--keys 10000] [--partitions 4] [--rounds 1]
 *                             [--restores 1] [--only NAME]
 *                             [--profile-dir DIR]   (CPU profiles of app runs, restores)
 */
import * as fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import * as path from 'node:path';
import { Tide } from '../client';
import { Serdes, TimeWindows, type RestoreProgress, type StreamsApp, type StreamsBuilder } from '../streams';
import { PROCESS_SLICE_RECORDS } from '../streams/runtime/app';
import { makeTempDir, startTide } from '../test/harness/processes';

interface Options {
  records: number;
  keys: number;
  partitions: number;
  rounds: number;
  /** Restores of each restoring workload per round. */
  restores: number;
  /** Only the workloads whose name contains this (for profiling one). */
  only: string;
  /** Write a CPU profile of each measured app run and restore (not the ceiling) to this directory. */
  profileDir: string;
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    records: 200_000,
    keys: 10_000,
    partitions: 4,
    rounds: 1,
    restores: 1,
    only: '',
    profileDir: '',
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], Number(argv[i + 1])];
    if (flag === '--only' || flag === '--profile-dir') {
      if (flag === '--only') o.only = argv[i + 1];
      else o.profileDir = argv[i + 1];
      continue;
    }
    if (flag === '--records') o.records = value;
    else if (flag === '--keys') o.keys = value;
    else if (flag === '--partitions') o.partitions = value;
    else if (flag === '--rounds') o.rounds = value;
    else if (flag === '--restores') o.restores = value;
    else throw new Error(`unknown flag ${flag}; see the header of bench/streams.ts`);
  }
  return o;
}

interface Event {
  user: string;
  amount: number;
}

const T0 = Date.UTC(2026, 0, 1);
/** No progress for this long: the run failed (it reports where it stood). */
const STALL_MS = 60_000;
/** One step of the bench (a run, a close, a restore, the broker's stop) taking longer fails it, named. */
const STEP_MAX_MS = 300_000;
let step = { name: 'start', sinceMs: Date.now() };
function enter(name: string): void {
  step = { name, sinceMs: Date.now() };
}
const events = { key: Serdes.string, value: Serdes.json<Event>() };
const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

interface Workload {
  name: string;
  /** Builds the topology writing to `out`. */
  build(b: StreamsBuilder, out: string): void;
  stateDir?: boolean;
  /** The record cache in front of the stores (Kafka Streams' record cache). */
  caching?: boolean;
  /** Measure a full restore from the changelog after the run. */
  restore?: boolean;
  /** Records the tasks process: the input, plus the table for the join. */
  inputs(o: Options): number;
}

const WORKLOADS: Workload[] = [
  {
    name: 'stateless filter + mapValues',
    build: (b, out) =>
      b
        .stream('in', events)
        .filter((_k, e) => e.amount >= 0)
        .mapValues((e) => e.amount * 2)
        .to(out, { value: Serdes.number }),
    inputs: (o) => o.records,
  },
  {
    name: 'windowed count, in-memory store',
    build: (b, out) => windowedCount(b, out),
    restore: true,
    inputs: (o) => o.records,
  },
  {
    name: 'windowed count, LMDB store',
    build: (b, out) => windowedCount(b, out),
    stateDir: true,
    restore: true,
    inputs: (o) => o.records,
  },
  {
    name: 'windowed count, LMDB, caching',
    build: (b, out) => windowedCount(b, out),
    stateDir: true,
    caching: true,
    inputs: (o) => o.records,
  },
  {
    name: 'count per key, LMDB store',
    build: (b, out) =>
      b.stream('in', events).groupByKey().count({ name: 'c' }).toStream().to(out, { value: Serdes.number }),
    stateDir: true,
    restore: true,
    inputs: (o) => o.records,
  },
  {
    name: 'stream–table join',
    build: (b, out) => {
      const users = b.table('users', { key: Serdes.string, value: Serdes.string, name: 'users' });
      b.stream('in', events)
        .join(users, (e, name) => `${name}:${e.amount}`, { name: 'j' })
        .to(out, { value: Serdes.string });
    },
    inputs: (o) => o.records + o.keys,
  },
];

function windowedCount(b: StreamsBuilder, out: string): void {
  b.stream('in', events)
    .groupByKey()
    .windowedBy(TimeWindows.ofSizeAndGrace(10_000, 1_000))
    .count({ name: 'c' })
    .toStream()
    .to(out, { key: Serdes.windowed(Serdes.string), value: Serdes.number });
}

async function fill(tide: Tide, o: Options): Promise<void> {
  const producer = tide.producer({ acks: 'all' });
  const chunk = 10_000;
  for (let from = 0; from < o.records; from += chunk) {
    const records = [];
    for (let i = from; i < Math.min(o.records, from + chunk); i++) {
      const user = `user-${i % o.keys}`;
      records.push({ key: user, value: JSON.stringify({ user, amount: i }), timestampMs: T0 + i });
    }
    await producer.send('in', records);
  }
  const users = [];
  for (let k = 0; k < o.keys; k++)
    users.push({ key: `user-${k}`, value: `name-${k}`, timestampMs: T0 - 1_000 });
  await producer.send('users', users);
  await producer.close();
}

/** Consume + produce of the same records: records/s from the first record read to the last acknowledged. */

async function ceiling(
  bootstrap: string[],
  o: Options,
  round: string,
): Promise<{ rate: number; cpuUsPerRecord: number }> {
  const tide = new Tide({ bootstrap });
  const out = `ceiling-out-${round}`;
  await tide.admin().createTopic(out, { partitions: o.partitions, replicationFactor: 1 });
  const producer = tide.producer({ acks: 'all' });
  const member = tide.consumer({
    groupId: `ceiling-${round}`,
    autoOffsetReset: 'earliest',
    autoCommit: false,
  });
  member.subscribe(['in']);
  let n = 0;
  let startNs = 0n;
  // Sends are counted, not awaited in groups: reading never waits for acknowledgements (as in the
  // app), and the end waits for the last one.
  let pending = 0;
  let failure: unknown;
  let allAcked: () => void = () => undefined;
  const acked = (): void => {
    if (--pending === 0 && n === o.records) allAcked();
  };
  const watchdog = setInterval(() => {
    if (Date.now() - lastMs > STALL_MS) {
      console.error(`ceiling-${round} stalled at ${n} of ${o.records} records`);
      process.exit(1);
    }
  }, 1_000);
  let lastMs = Date.now();
  const done = new Promise<void>((resolve) => (allAcked = resolve));
  const startCpu = process.cpuUsage();
  // A fetched chunk at a time, as the app reads (GroupConsumer.batches()), in slices of the app's
  // size (ConsumerBatch.recordSlices), each sent on in one producer call, as the app's sends go out.
  for await (const batch of member.batches()) {
    lastMs = Date.now();
    if (n === 0) startNs = process.hrtime.bigint();
    for (const slice of batch.recordSlices(PROCESS_SLICE_RECORDS)) {
      const records = slice.slice(0, o.records - n).map((r) => ({
        key: r.key,
        value: r.value,
        timestampMs: r.timestampMs,
        partition: batch.partition,
      }));
      pending++;
      producer.sendBatch(out, records).then(acked, (err: unknown) => {
        failure ??= err;
        acked();
      });
      n += records.length;
      if (n === o.records) break;
    }
    if (n === o.records) break;
  }
  if (pending > 0) await done;
  if (failure) throw failure;
  const seconds = Number(process.hrtime.bigint() - startNs) / 1e9;
  const cpu = process.cpuUsage(startCpu);
  clearInterval(watchdog);
  await member.close();
  await tide.close();
  return { rate: o.records / seconds, cpuUsPerRecord: (cpu.user + cpu.system) / o.records };
}

interface AppRun {
  rate: number;
  /** This process's CPU (the app's, with the bench's polling) per input record, start to commit. */
  cpuUsPerRecord: number;
  app: StreamsApp;
  tide: Tide;
}

/** Runs a workload's app until every input record is processed and committed (outputs acknowledged). */
async function runApp(
  bootstrap: string[],
  o: Options,
  w: Workload,
  appId: string,
  stateDir: string | undefined,
): Promise<AppRun> {
  const tide = new Tide({ bootstrap });
  const out = `${appId}-out`;
  await tide.admin().createTopic(out, { partitions: o.partitions, replicationFactor: 1 });
  const b = tide.streams({ applicationId: appId });
  w.build(b, out);
  const app = b.app(b.build(), { replicationFactor: 1, statusIntervalMs: 0, stateDir, caching: w.caching });
  const startCpu = process.cpuUsage();
  await app.start();
  const expected = w.inputs(o);
  let startNs = 0n;
  let last = { seen: -1, atMs: Date.now() };
  for (;;) {
    const seen = app.metrics().recordsIn;
    if (seen > 0 && startNs === 0n) startNs = process.hrtime.bigint();
    if (seen >= expected) break;
    const failure = app.error();
    if (failure) throw failure;
    if (seen !== last.seen) last = { seen, atMs: Date.now() };
    if (Date.now() - last.atMs > STALL_MS) {
      throw new Error(
        `${appId} stalled at ${seen} of ${expected} records: ${JSON.stringify(app.metrics().tasks)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  await app.commit(); // waits until every output and changelog record is acknowledged
  const seconds = Number(process.hrtime.bigint() - startNs) / 1e9;
  const cpu = process.cpuUsage(startCpu);
  return { rate: expected / seconds, cpuUsPerRecord: (cpu.user + cpu.system) / expected, app, tide };
}

/** A fresh instance of `appId` with no local state restores every changelog record. */
async function restore(
  bootstrap: string[],
  w: Workload,
  appId: string,
  stateDir: string | undefined,
  tasks: number,
): Promise<{ records: number; rate: number; restoreOnly: number; cpuUsPerRecord: number }> {
  const tide = new Tide({ bootstrap });
  const b = tide.streams({ applicationId: appId });
  w.build(b, `${appId}-out`);
  const done: RestoreProgress[] = [];
  let lastNs = 0n;
  let firstNs = 0n;
  const app = b.app(b.build(), {
    replicationFactor: 1,
    statusIntervalMs: 0,
    stateDir,
    onRestore: (p) => {
      if (firstNs === 0n) firstNs = process.hrtime.bigint();
      if (!p.done) return;
      done.push(p);
      lastNs = process.hrtime.bigint();
    },
  });
  const startNs = process.hrtime.bigint();
  const startCpu = process.cpuUsage();
  await app.start();
  // One task (and store) per input partition; each reports once it has restored.
  while (done.length < tasks) {
    const failure = app.error();
    if (failure) throw failure;
    await new Promise((r) => setTimeout(r, 5));
  }
  const cpu = process.cpuUsage(startCpu);
  const records = done.reduce((n, p) => n + p.restored, 0);
  await app.close();
  await tide.close();
  return {
    records,
    rate: records / (Number(lastNs - startNs) / 1e9),
    restoreOnly: records / (Number(lastNs - firstNs) / 1e9),
    cpuUsPerRecord: (cpu.user + cpu.system) / records,
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

async function startProfile(): Promise<Session> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return session;
}

async function stopProfile(session: Session, file: string): Promise<void> {
  const { profile } = await session.post('Profiler.stop');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(profile));
  session.disconnect();
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  setInterval(() => {
    if (Date.now() - step.sinceMs <= STEP_MAX_MS) return;
    console.error(`stalled: "${step.name}" has taken over ${STEP_MAX_MS / 1000} s`);
    process.exit(1);
  }, 5_000).unref();
  const dir = makeTempDir('tide-bench-streams-');
  const node = await startTide(['dev', '--data', path.join(dir, 'data'), '--port', '0']);
  const bootstrap = [node.address];
  try {
    const admin = new Tide({ bootstrap });
    await admin.admin().createTopic('in', { partitions: o.partitions, replicationFactor: 1 });
    await admin.admin().createTopic('users', { partitions: o.partitions, replicationFactor: 1 });
    enter('filling the input');
    await fill(admin, o);
    await admin.close();
    console.log(
      `streams end to end on one tide dev: ${fmt(o.records)} records, ${fmt(o.keys)} keys, ` +
        `${o.partitions} partitions, app in the bench process`,
    );
    // Warm-up (JIT, connections, the broker's caches); not reported.
    enter('warm-up');
    await ceiling(bootstrap, o, 'warm-up');
    await runApp(bootstrap, o, WORKLOADS[0], 'bench-warm-up', undefined).then(async (r) => {
      await r.app.close();
      await r.tide.close();
    });
    const results = new Map<
      string,
      {
        rate: number[];
        ceiling: number[];
        ratio: number[];
        cpu: number[];
        ceilingCpu: number[];
        restore: number[];
        restoreOnly: number[];
        restoreCpu: number[];
      }
    >();
    for (let round = 0; round < o.rounds; round++) {
      for (const [i, w] of WORKLOADS.entries()) {
        if (!w.name.includes(o.only)) continue;
        // A/B: the ceiling right before each workload, on the same input.
        enter(`ceiling before ${w.name}, round ${round}`);
        const top = await ceiling(bootstrap, o, `${round}-${i}`);
        const appId = `bench-${round}-${i}`;
        const stateDir = w.stateDir ? path.join(dir, appId) : undefined;
        const profiler = o.profileDir ? await startProfile() : undefined;
        enter(`${w.name}, round ${round}`);
        const run = await runApp(bootstrap, o, w, appId, stateDir);
        if (profiler) await stopProfile(profiler, path.join(o.profileDir, `${appId}.cpuprofile`));
        enter(`closing ${w.name}, round ${round}`);
        await run.app.close();
        await run.tide.close();
        const result = results.get(w.name) ?? {
          rate: [],
          ceiling: [],
          ratio: [],
          cpu: [],
          ceilingCpu: [],
          restore: [],
          restoreOnly: [],
          restoreCpu: [],
        };
        results.set(w.name, result);
        result.rate.push(run.rate);
        result.ceiling.push(top.rate);
        result.ratio.push(run.rate / top.rate);
        result.cpu.push(run.cpuUsPerRecord);
        result.ceilingCpu.push(top.cpuUsPerRecord);
        console.log(
          `${w.name.padEnd(34)} ${fmt(run.rate).padStart(9)} records/s  ceiling ${fmt(top.rate).padStart(9)}  ` +
            `${((100 * run.rate) / top.rate).toFixed(0).padStart(3)} %  ` +
            `(CPU µs/record: app ${run.cpuUsPerRecord.toFixed(2)}, ceiling ${top.cpuUsPerRecord.toFixed(2)})`,
        );
        if (w.restore) {
          // No local state: everything comes back from the changelog.
          const fresh = w.stateDir ? path.join(dir, `${appId}-restore`) : undefined;
          for (let n = 1; n <= o.restores; n++) {
            const target = fresh && `${fresh}-${n}`;
            const restoreProfiler = o.profileDir ? await startProfile() : undefined;
            enter(`restore ${n} of ${w.name}, round ${round}`);
            const r = await restore(bootstrap, w, appId, target, o.partitions);
            if (restoreProfiler)
              await stopProfile(restoreProfiler, path.join(o.profileDir, `${appId}-restore-${n}.cpuprofile`));
            if (target) fs.rmSync(target, { recursive: true, force: true });
            result.restore.push(r.rate);
            result.restoreOnly.push(r.restoreOnly);
            result.restoreCpu.push(r.cpuUsPerRecord);
            console.log(
              `${`  restore (${w.stateDir ? 'LMDB' : 'in memory'})`.padEnd(34)} ${fmt(r.rate).padStart(9)} changelog records/s (${fmt(r.records)} records; ` +
                `${fmt(r.restoreOnly)}/s without the group join; app CPU ${r.cpuUsPerRecord.toFixed(2)} µs/record)`,
            );
          }
        }
      }
    }
    if (o.rounds > 1 || o.restores > 1) {
      console.log(
        `\nmedians of ${o.rounds} rounds (ratio: the median of each run's ratio to its own ceiling)`,
      );
      for (const [name, r] of results) {
        console.log(
          `${name.padEnd(34)} ${fmt(median(r.rate)).padStart(9)} records/s  ceiling ${fmt(median(r.ceiling)).padStart(9)}  ` +
            `${(100 * median(r.ratio)).toFixed(0).padStart(3)} %  ` +
            `(CPU µs/record: app ${median(r.cpu).toFixed(2)}, ceiling ${median(r.ceilingCpu).toFixed(2)})` +
            (r.restore.length > 0
              ? `  restore ${fmt(median(r.restore))} records/s (${fmt(median(r.restoreOnly))} without the join, ` +
                `${median(r.restoreCpu).toFixed(2)} µs CPU/record)`
              : ''),
        );
      }
    }
  } finally {
    enter('stopping tide dev');
    await node.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
