/**
 * The transactional anomaly checker (test/harness/txn-checker.ts) against real processes: real
 * etcd, a controller, 3 brokers, a topic of 4 partitions at RF=3, two transaction coordinators.
 * Three transactional producers run random multi-partition transactions (a fifth aborted on
 * purpose) while a read_committed reader tails every partition; meanwhile:
 *
 * - coordinator SIGKILL mid-commit: the coordinator owning a producer's transactional id is
 *   killed right as that producer's EndTxn(commit) goes out (the other coordinator takes over);
 * - partition leader SIGKILL: the leader of partition 0 is killed, then restarted;
 * - a zombie: a producer in a child process sends, is SIGSTOPped past its transaction timeout
 *   (the coordinator aborts and bumps the epoch), then resumed: its late sends and its commit
 *   must be refused, and none of its records may reach read_committed;
 * - a replayed EndTxn: raw EndTxn calls with an older epoch, sent while the next transaction is
 *   open and after it ended, must be refused and change nothing.
 *
 * At the end a fresh read_committed and a read_uncommitted reader read every partition to its
 * end; the checker must find zero anomalies.
 */
import * as grpc from '@grpc/grpc-js';
import { Tide } from '../../client';
import { fromGrpcError } from '../../services/common/grpc/status';
import { transactionsProto } from '../../services/common/grpc/transactions-proto';
import type { TransactionDescription } from '../../services/common/grpc/generated/tide/v1/TransactionDescription';
import { TestCluster } from '../harness/cluster';
import { waitFor } from '../harness/processes';
import { seededRandom } from '../harness/random';
import {
  anomalyCounts,
  checkTransactions,
  summarizeTxnReport,
  type TxnHistoryEntry,
} from '../harness/txn-checker';
import { ChildTxnProducer, readToEnd, runTxnProducer, TailReader } from '../harness/txn-workload';

jest.setTimeout(180_000);

const TOPIC = 'txn-checked';
const PARTITIONS = 4;
const SEED = Number(process.env.TXN_CHECK_SEED ?? Date.now() % 100_000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let cluster: TestCluster;
let tide: Tide;
let zombie: ChildTxnProducer | undefined;
const coordinatorEnv = { TIDE_TRANSACTION_STATE_PARTITIONS: '2' };
const coordinatorArgs = ['--shards', '4', '--offsets-partitions', '2'];

beforeAll(async () => {
  cluster = await TestCluster.start({ brokers: 3, controllers: 1, leaseTtlMs: 2_000 });
  await Promise.all(
    ['c1', 'c2'].map((id) => cluster.startCoordinator(id, { args: coordinatorArgs, env: coordinatorEnv })),
  );
  tide = new Tide({ bootstrap: [0, 1, 2].map((id) => cluster.broker(id).address) });
  await tide.admin().createTopic(TOPIC, { partitions: PARTITIONS, replicationFactor: 3 });
});

afterAll(async () => {
  await zombie?.kill();
  await tide?.close();
  await cluster?.stop();
});

function coordinatorClient(): InstanceType<ReturnType<typeof transactionsProto>['TransactionCoordinator']> {
  // Any live broker relays to the owning coordinator.
  const live = [...cluster.brokers.values()].find(
    (b) => b.child.exitCode === null && b.child.signalCode === null,
  )!;
  return new (transactionsProto().TransactionCoordinator)(live.address, grpc.credentials.createInsecure());
}

async function describe(transactionalId: string): Promise<TransactionDescription> {
  const client = coordinatorClient();
  try {
    return await new Promise((resolve, reject) =>
      client.DescribeTransaction(
        { transactional_id: transactionalId },
        { deadline: Date.now() + 5_000 },
        (err, res) => (err ? reject(fromGrpcError(err)) : resolve(res!.transaction!)),
      ),
    );
  } finally {
    client.close();
  }
}

/** A raw EndTxn, as a delayed duplicate would arrive. Resolves to the error code, or 'OK'. */
async function rawEndTxn(
  transactionalId: string,
  producerId: number,
  producerEpoch: number,
  commit: boolean,
) {
  const client = coordinatorClient();
  try {
    return await new Promise<string>((resolve) =>
      client.EndTxn(
        { transactional_id: transactionalId, producer_id: producerId, producer_epoch: producerEpoch, commit },
        { deadline: Date.now() + 10_000 },
        (err) => resolve(err ? fromGrpcError(err).code : 'OK'),
      ),
    );
  } finally {
    client.close();
  }
}

/** The coordinators' warnings and errors, for failure messages. */
function coordinatorLogs(): string {
  return [...cluster.coordinators]
    .map(
      ([id, c]) =>
        `--- ${id}\n${c
          .output()
          .split('\n')
          .filter((l) => /"level":(40|50)|zombie/.test(l))
          .slice(-15)
          .join('\n')}`,
    )
    .join('\n');
}

/** Each broker's view of the topic's leaders (a stale view keeps markers from their partitions). */
async function leaderViews(): Promise<string> {
  const views = await Promise.all(
    [...cluster.brokers].map(async ([id, b]) => {
      const m = await tide.cluster.calls.metadata(b.address, [TOPIC], 5_000).catch((e: Error) => e.message);
      const leaders =
        typeof m === 'string'
          ? m
          : JSON.stringify(m.topics?.[0]?.partitions?.map((p) => [p.partition, p.leader, p.leader_epoch]));
      return `broker ${id} sees leaders ${leaders}`;
    }),
  );
  return views.join('\n');
}

/** Fails after `ms` saying what hung, with each broker's leader view and the coordinators' warnings. */
async function bounded<T>(what: string, promise: Promise<T>, ms = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void leaderViews().then((views) =>
        reject(new Error(`${what} did not finish in ${ms} ms\n${views}\n${coordinatorLogs()}`)),
      );
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const settled = (s: string) => s === 'Empty' || s === 'CompleteCommit' || s === 'CompleteAbort';

it('zero anomalies under coordinator and leader SIGKILL, a zombie producer and replayed EndTxn', async () => {
  const random = seededRandom(SEED);
  const history: TxnHistoryEntry[] = [];
  const errors = new Map<string, number>();
  const faults: string[] = [];
  let stop = false;
  const started = Date.now();
  const step = (what: string) => {
    faults.push(what);
    process.stderr.write(
      `[${((Date.now() - started) / 1000).toFixed(1)} s] ${what} (${history.length} txns)\n`,
    );
  };
  const tail = new TailReader(tide, TOPIC, PARTITIONS, 'tail-rc');

  // Coordinator SIGKILL right as a commit goes out (armed by the fault schedule below).
  let killOnCommit: ((id: string) => Promise<() => void>) | undefined;
  const producerIds = ['w1', 'w2', 'w3'];
  const workers = producerIds.map((transactionalId) =>
    runTxnProducer({
      tide,
      topic: TOPIC,
      partitions: PARTITIONS,
      transactionalId,
      history,
      random,
      abortRatio: 0.2,
      shouldStop: () => stop,
      errors,
      transactionTimeoutMs: 30_000,
      beforeCommit: async (id) => {
        const arm = killOnCommit;
        killOnCommit = undefined;
        return arm ? arm(id) : undefined;
      },
    }),
  );

  const zombieTxn: TxnHistoryEntry = {
    id: 'zombie/0',
    producer: 'zombie',
    seq: 0,
    writes: [],
    outcome: 'unknown',
  };
  try {
    await sleep(3_000);
    // 1. Coordinator SIGKILL mid-commit, restarted once the other one took the shards.
    const killed = new Promise<string>((resolve) => {
      killOnCommit = async (id) => {
        const owner = (await describe(id)).coordinator_id;
        return () => {
          step(`SIGKILL coordinator ${owner} as ${id} commits`);
          cluster.coordinator(owner).child.kill('SIGKILL');
          resolve(owner);
        };
      };
    });
    const owner = await killed;
    await sleep(3_000);

    // 2. Partition leader SIGKILL; the killed coordinator restarts while that broker is down
    // (regression: its cluster client then switched to proxy routing for good and sent every
    // transaction marker to one broker), then the broker restarts on its data dir.
    const leader = (await tide.cluster.topicMetadata(TOPIC, true)).partitions.find(
      (p) => p.partition === 0,
    )!.leader;
    step(`SIGKILL broker ${leader} (leader of ${TOPIC}/0)`);
    await cluster.broker(leader).stop('SIGKILL');
    await cluster.startCoordinator(owner, { args: coordinatorArgs, env: coordinatorEnv });
    step(`coordinator ${owner} restarted while broker ${leader} is down`);
    await sleep(3_000);
    await cluster.startBroker(leader);
    step(`broker ${leader} restarted`);

    // 3. A zombie: paused past its transaction timeout, then resumed.
    const alive = [0, 1, 2].map((id) => cluster.broker(id).address).join(',');
    zombie = new ChildTxnProducer(alive, TOPIC, 'zombie', 2_000);
    expect(await zombie.call({ op: 'init' })).toMatchObject({ ok: true });
    expect(await zombie.call({ op: 'begin' })).toMatchObject({ ok: true });
    history.push(zombieTxn);
    for (const [partition, value] of [
      [0, 'zombie/0/0'],
      [1, 'zombie/0/1'],
    ] as const) {
      zombieTxn.writes.push({ partition, value });
      expect(await zombie.call({ op: 'send', partition, value })).toMatchObject({ ok: true });
    }
    zombie.pause();
    step('SIGSTOP the zombie producer past its 2 s transaction timeout');
    await waitFor(async () => (await describe('zombie').catch(() => undefined))?.state === 'CompleteAbort', {
      timeoutMs: 20_000,
      what: "the coordinator's timeout abort of the zombie's transaction",
    }).catch(async (err: Error) => {
      throw new Error(
        `${err.message}: ${JSON.stringify(await describe('zombie').catch(String))}\n${coordinatorLogs()}`,
      );
    });
    zombie.resume();
    step('SIGCONT the zombie');
    const late: Record<string, string | undefined> = {};
    for (const [partition, value] of [
      [0, 'zombie/0/late-0'],
      [2, 'zombie/0/late-2'],
    ] as const) {
      zombieTxn.writes.push({ partition, value });
      const reply = await zombie.call({ op: 'send', partition, value });
      late[value] = reply.ok ? 'OK' : reply.code;
    }
    const zombieCommit = await zombie.call({ op: 'commit' });
    zombieTxn.outcome = zombieCommit.ok ? 'committed' : 'aborted';
    step(`zombie late sends ${JSON.stringify(late)}, commit ${zombieCommit.code ?? 'OK'}`);
    expect(Object.values(late)).not.toContain('OK');
    expect(zombieCommit.ok).toBe(false);
    await zombie.kill();

    // 4. Replayed EndTxn with older epochs, while the next transaction is open and after it ended.
    const replayer = tide.producer({ transactionalId: 'replay', lingerMs: 0 });
    await bounded('the replay producer initTransactions', replayer.initTransactions());
    const first = { ...replayer.producerIdentity! };
    const committed: TxnHistoryEntry = {
      id: 'replay/0',
      producer: 'replay',
      seq: 0,
      outcome: 'unknown',
      writes: [
        { partition: 1, value: 'replay/0/0' },
        { partition: 3, value: 'replay/0/1' },
      ],
    };
    history.push(committed);
    await bounded(
      'the replay producer first transaction',
      replayer.transaction(async (tx) => {
        for (const w of committed.writes)
          await tx.send(TOPIC, { value: w.value }, { partition: w.partition });
      }),
    );
    committed.outcome = 'committed';
    const open: TxnHistoryEntry = {
      id: 'replay/1',
      producer: 'replay',
      seq: 1,
      outcome: 'unknown',
      writes: [
        { partition: 2, value: 'replay/1/0' },
        { partition: 3, value: 'replay/1/1' },
      ],
    };
    history.push(open);
    replayer.beginTransaction();
    await bounded(
      'the replay producer second transaction sends',
      Promise.all(
        open.writes.map((w) => replayer.send(TOPIC, { value: w.value }, { partition: w.partition })),
      ),
    );
    const replays = {
      commitOldEpochWhileOpen: await rawEndTxn('replay', first.producerId, first.producerEpoch, true),
      abortOldEpochWhileOpen: await rawEndTxn('replay', first.producerId, first.producerEpoch, false),
    };
    expect((await describe('replay')).state).toBe('Ongoing');
    await bounded('the replay producer abort', replayer.abortTransaction());
    open.outcome = 'aborted';
    const afterAbort = { ...replayer.producerIdentity! };
    Object.assign(replays, {
      commitTwoEpochsOld: await rawEndTxn('replay', first.producerId, first.producerEpoch, true),
      commitOfTheAbortedOne: await rawEndTxn(
        'replay',
        afterAbort.producerId,
        afterAbort.producerEpoch - 1,
        true,
      ),
    });
    step(`replayed EndTxn: ${JSON.stringify(replays)}`);
    for (const code of Object.values(replays)) expect(code).not.toBe('OK');
    // EndTxn answered once PrepareAbort was durable; the markers follow.
    await waitFor(async () => (await describe('replay')).state === 'CompleteAbort', {
      timeoutMs: 20_000,
      what: 'the abort of the replay producer to complete',
    });
    await replayer.close();

    await sleep(2_000);
  } catch (err) {
    await tail.stop();
    throw err;
  } finally {
    stop = true;
    // Bounded, and the timer cleared (a pending one keeps jest from exiting).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(workers),
      new Promise((resolve) => (timer = setTimeout(resolve, 30_000))),
    ]);
    clearTimeout(timer);
  }
  step('workers stopped');
  let states: Record<string, string | undefined> = {};

  // Every transaction ended (the coordinators complete or abort whatever was left), then the ends.
  await waitFor(
    async () => {
      const ids = [...producerIds, 'zombie', 'replay'];
      const described = await Promise.all(ids.map((id) => describe(id).catch(() => undefined)));
      states = Object.fromEntries(ids.map((id, i) => [id, described[i]?.state]));
      return Object.values(states).every((s) => settled(s ?? ''));
    },
    { timeoutMs: 40_000, what: 'every transaction to end' },
  ).catch(async (err: Error) => {
    await tail.stop();
    throw new Error(
      `${err.message}: ${JSON.stringify(states)}; faults: ${faults.join('; ')}\n${await leaderViews()}\n${coordinatorLogs()}`,
    );
  });
  const ends = await Promise.all(
    [...Array(PARTITIONS).keys()].map(async (partition) => {
      const c = tide.consumer({ isolation: 'read_uncommitted' });
      try {
        return (await c.listOffset({ topic: TOPIC, partition }, 'latest')).offset;
      } finally {
        await c.close();
      }
    }),
  );
  const readers = [
    await tail.finish(ends),
    await readToEnd(tide, TOPIC, ends, 'read_committed', 'final-rc'),
    await readToEnd(tide, TOPIC, ends, 'read_uncommitted', 'final-ru'),
  ];
  const report = checkTransactions(history, readers);
  process.stdout.write(
    `txn checker seed ${SEED}: ${JSON.stringify(report.transactions)} reads ${report.reads} ` +
      `anomalies ${JSON.stringify(anomalyCounts(report))}\nfaults: ${faults.join('; ')}\n` +
      `producer errors: ${JSON.stringify([...errors])}\n`,
  );
  expect(report.ok ? 'no anomaly' : summarizeTxnReport(report)).toBe('no anomaly');
  expect(report.transactions.committed).toBeGreaterThan(20);
  expect(report.transactions.aborted).toBeGreaterThan(3);
  // The zombie's records never reached read_committed.
  const committedValues = new Set(
    readers.filter((r) => r.isolation === 'read_committed').flatMap((r) => r.reads.map((x) => x.value)),
  );
  expect(zombieTxn.writes.filter((w) => committedValues.has(w.value))).toEqual([]);
});
