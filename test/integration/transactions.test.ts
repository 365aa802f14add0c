/**
 * Transactions on a real multi-process cluster: real etcd, a controller, two brokers and two
 * coordinators (transactional ids sharded over them like groups). The client reaches everything
 * through the brokers (bootstrap routing), so the TransactionCoordinator relay is exercised too.
 *
 * - commit and abort: the data batches carry the transactional bit and are followed by a COMMIT /
 *   ABORT control batch (read raw, read_uncommitted); read_committed reads the committed records
 *   only; offsets sent in the transaction become the group's committed offsets with the commit
 *   only, and never with an abort;
 * - fencing: a second producer with the same transactional id aborts the first's open
 *   transaction, and the first gets PRODUCER_FENCED on its next call;
 * - the coordinator aborts a transaction open past its timeout (epoch bumped);
 * - coordinator SIGKILL mid-commit (the markers held up by a paused partition leader): the other
 *   coordinator takes the shard over, finds PrepareCommit in __transaction_state, and completes the
 *   commit (commitTransaction resolved already: EndTxn answers once PrepareCommit is durable).
 *
 * Needs the broker side of WriteTxnMarkers (services/broker/api/txn-markers.ts) and the consumer's
 * isolation option; without them the coordinator cannot write markers and the ends never complete.
 */
import * as grpc from '@grpc/grpc-js';
import { Tide, type TransactionalProducer } from '../../client';
import { controlTypeOf, isControl, isTransactional } from '../../services/common/records/control';
import { iterateBatches } from '../../services/common/records';
import { fromGrpcError } from '../../services/common/grpc/status';
import { transactionsProto, txnInternalProto } from '../../services/common/grpc/transactions-proto';
import type { TransactionDescription } from '../../services/common/grpc/generated/tide/v1/TransactionDescription';
import type { FetchResponse } from '../../services/common/grpc/generated/tide/v1/FetchResponse';
import { shardOf } from '../../services/common/cluster/coordinator-shards';
import { TestCluster } from '../harness/cluster';
import { runCli, waitFor } from '../harness/processes';

jest.setTimeout(120_000);

const LEASE_TTL_MS = 2_000;
const TOPIC = 'txn-out';
const INPUT = 'txn-in';

let cluster: TestCluster;
let tide: Tide;
const producers: TransactionalProducer[] = [];

function coordinatorArgs(): string[] {
  return ['--shards', '4', '--offsets-partitions', '2', '--metrics-port', '0'];
}

/** The sum over both coordinators of one Prometheus series (GET /metrics; ports in their ready lines). */
async function metricSum(series: RegExp): Promise<number> {
  let sum = 0;
  for (const id of ['c1', 'c2']) {
    const port = /metrics on port (\d+)/.exec(cluster.coordinator(id).output())?.[1];
    if (!port) continue;
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    for (const line of text.split('\n')) {
      const m = series.exec(line);
      if (m) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return sum;
}

beforeAll(async () => {
  cluster = await TestCluster.start({ brokers: 2, controllers: 1, leaseTtlMs: LEASE_TTL_MS });
  const env = { TIDE_TRANSACTION_STATE_PARTITIONS: '2', TIDE_TRANSACTION_MAX_TIMEOUT_MS: '120000' };
  await Promise.all(['c1', 'c2'].map((id) => cluster.startCoordinator(id, { args: coordinatorArgs(), env })));
  // Everything through broker 0 (the mid-commit test pauses broker 1).
  tide = new Tide({ bootstrap: [cluster.broker(0).address], routing: 'bootstrap' });
  await requireMarkerService();
  await tide.admin().createTopic(TOPIC, { partitions: 3, replicationFactor: 2 });
  await tide.admin().createTopic(INPUT, { partitions: 1, replicationFactor: 2 });
});

afterAll(async () => {
  for (const p of producers) await p.close().catch(() => undefined);
  await tide?.close();
  await cluster?.stop();
});

/** Fails fast, saying why, when the brokers do not serve TxnMarkers (nothing could ever end). */
async function requireMarkerService(): Promise<void> {
  const client = new (txnInternalProto().TxnMarkers)(
    cluster.broker(0).address,
    grpc.credentials.createInsecure(),
  );
  try {
    const code = await new Promise<grpc.status | undefined>((resolve) =>
      client.WriteTxnMarkers({ markers: [] }, { deadline: Date.now() + 10_000 }, (err) => resolve(err?.code)),
    );
    if (code === grpc.status.UNIMPLEMENTED)
      throw new Error(
        'the brokers do not serve tide.v1.internal.TxnMarkers (the broker side of transactions): no transaction can end',
      );
  } finally {
    client.close();
  }
}

function transactional(transactionalId: string, transactionTimeoutMs?: number): TransactionalProducer {
  const p = tide.producer({ transactionalId, transactionTimeoutMs, lingerMs: 0 });
  producers.push(p);
  return p;
}

/** DescribeTransaction through broker 0's relay. */
async function describe(transactionalId: string): Promise<TransactionDescription> {
  const client = new (transactionsProto().TransactionCoordinator)(
    cluster.broker(0).address,
    grpc.credentials.createInsecure(),
  );
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

/**
 * Waits until the id's last transaction has its markers everywhere (Complete*): EndTxn answers once
 * the end is decided (the Prepare state durable), and the coordinator writes the markers after.
 */
async function completed(
  transactionalId: string,
  done = /^(Complete|Empty)/,
): Promise<TransactionDescription> {
  let last: TransactionDescription | undefined;
  await waitFor(async () => done.test((last = await describe(transactionalId)).state), {
    what: `the markers of ${transactionalId}`,
    timeoutMs: 30_000,
    intervalMs: 50,
  });
  return last!;
}

/** Every batch of a partition as stored (read_uncommitted, raw): data and control batches. */
async function rawBatches(
  topic: string,
  partition: number,
): Promise<{ producerId: number; transactional: boolean; control?: string; records: number }[]> {
  const leader = await tide.cluster.leaderAddress(topic, partition);
  const response = await tide.cluster.calls.broker<FetchResponse>(leader, (c, o, cb) =>
    c.Fetch({ topic, partition, offset: 0, max_bytes: 1 << 20, format: 'RECORD_FORMAT_BATCHES' }, o, cb),
  );
  const buf = response.record_batches;
  return [...iterateBatches(buf)].map(({ at, header }) => ({
    producerId: header.producerId,
    transactional: isTransactional(header.attributes),
    ...(isControl(header.attributes) ? { control: controlTypeOf(buf, at) } : {}),
    records: header.lastOffsetDelta + 1,
  }));
}

/** The partition of __consumer_offsets that holds a group's records (4 shards, 2 partitions). */
function offsetsPartitionOf(groupId: string): number {
  return shardOf(groupId, 4) % 2;
}

/** A group's committed offset of INPUT/0 (-1: none). */
async function committedInput(groupId: string): Promise<number> {
  return (
    (await tide.groups().fetchOffsets(groupId)).find((o) => o.topic === INPUT && o.partition === 0)?.offset ??
    -1
  );
}

/** Values read_committed hands out from the start of the partition up to its last stable offset. */
async function readCommitted(topic: string, partition: number): Promise<string[]> {
  const consumer = tide.consumer({ ...({ isolation: 'read_committed' } as object) });
  try {
    const tp = { topic, partition };
    const end = (await consumer.listOffset(tp, 'latest')).offset;
    const values: string[] = [];
    // Fetch by fetch: a range of aborted records yields no record at all, yet moves the offset on.
    for (let offset = 0; offset < end;) {
      const result = await consumer.fetch(tp, offset);
      for (const r of result.records) if (r.offset < end) values.push(String(r.value));
      if (result.nextOffset <= offset)
        throw new Error(`read_committed fetch of ${topic}/${partition} made no progress at ${offset}`);
      offset = result.nextOffset;
    }
    return values;
  } finally {
    await consumer.close();
  }
}

it('commit: transactional batches, a COMMIT marker on every partition, read_committed sees them, offsets commit with it', async () => {
  const p = transactional('tx-commit');
  await p.initTransactions();
  const { producerId } = p.producerIdentity!;
  await p.transaction(async (tx) => {
    await tx.send(TOPIC, { value: 'c-0' }, { partition: 0 });
    await tx.send(TOPIC, { value: 'c-1' }, { partition: 1 });
    const during = await describe('tx-commit');
    expect(during).toMatchObject({ state: 'Ongoing', producer_id: producerId, producer_epoch: 0 });
    expect(during.partitions).toEqual([{ topic: TOPIC, partitions: [0, 1] }]);
    expect(Number(during.start_time_ms)).toBeGreaterThan(0);
    await tx.sendOffsets({ groupId: 'g-commit', memberId: '', memberEpoch: -1 }, [
      { topic: INPUT, partition: 0, offset: 17 },
    ]);
    // Pending until the commit: the group has no committed offset yet.
    expect((await tide.groups().fetchOffsets('g-commit')).find((o) => o.partition === 0)?.offset ?? -1).toBe(
      -1,
    );
  });
  // The markers carry epoch 1; the client reserved its partitions for the next transaction, which
  // gets epoch 2 (docs/transactions.md, reserved partitions).
  expect(p.producerIdentity).toEqual({ producerId, producerEpoch: 2 });
  expect(await completed('tx-commit')).toMatchObject({ state: 'CompleteCommit', producer_epoch: 2 });
  for (const partition of [0, 1]) {
    const batches = (await rawBatches(TOPIC, partition)).filter((b) => b.producerId === producerId);
    expect(batches).toEqual([
      { producerId, transactional: true, records: 1 },
      { producerId, transactional: true, control: 'COMMIT', records: 1 },
    ]);
  }
  expect(await readCommitted(TOPIC, 0)).toContain('c-0');
  const offsets = await tide.groups().fetchOffsets('g-commit');
  expect(offsets.find((o) => o.topic === INPUT && o.partition === 0)?.offset).toBe(17);
  // The offsets went to the group's partition of __consumer_offsets as a transactional batch of
  // the producer, closed by the transaction's COMMIT marker like any partition of it.
  const offsetsBatches = await rawBatches('__consumer_offsets', offsetsPartitionOf('g-commit'));
  expect(offsetsBatches.filter((b) => b.producerId === producerId)).toEqual([
    { producerId, transactional: true, records: 1 },
    { producerId, transactional: true, control: 'COMMIT', records: 1 },
  ]);
  // The coordinators' metrics counted the end, its EndTxn and its completion.
  expect(
    await metricSum(/^tide_transactions_ended_total\{(?=[^}]*result="commit")(?=[^}]*reason="client")/),
  ).toBeGreaterThanOrEqual(1);
  expect(await metricSum(/^tide_transaction_end_txn_duration_seconds_count/)).toBeGreaterThanOrEqual(1);
  expect(await metricSum(/^tide_transaction_completion_duration_seconds_count/)).toBeGreaterThanOrEqual(1);
  expect(await metricSum(/^tide_transactions\{[^}]*state="CompleteCommit"/)).toBeGreaterThanOrEqual(1);
  // The CLI shows it, through any broker.
  const bootstrap = cluster.broker(1).address;
  const described = await runCli(['transactions', 'describe', 'tx-commit', '--bootstrap', bootstrap]);
  expect(described.stderr).toBe('');
  expect(described.stdout).toContain(`state CompleteCommit  producer ${producerId} epoch 2`);
  const listed = await runCli([
    'transactions',
    'list',
    '--state',
    'CompleteCommit',
    '--json',
    '--bootstrap',
    bootstrap,
  ]);
  expect(JSON.parse(listed.stdout)).toContainEqual(
    expect.objectContaining({ transactionalId: 'tx-commit', state: 'CompleteCommit', producerEpoch: 2 }),
  );
});

it('abort: an ABORT marker follows the records, read_committed skips them, the offsets never become visible', async () => {
  const p = transactional('tx-abort');
  await p.initTransactions();
  const { producerId } = p.producerIdentity!;
  const failure = new Error('business rule said no');
  await expect(
    p.transaction(async (tx) => {
      await tx.send(TOPIC, { value: 'a-2' }, { partition: 2 });
      await tx.sendOffsets({ groupId: 'g-abort', memberId: '', memberEpoch: -1 }, [
        { topic: INPUT, partition: 0, offset: 5 },
      ]);
      throw failure;
    }),
  ).rejects.toBe(failure);
  expect(await completed('tx-abort')).toMatchObject({ state: 'CompleteAbort', producer_epoch: 2 });
  const batches = (await rawBatches(TOPIC, 2)).filter((b) => b.producerId === producerId);
  expect(batches.map((b) => b.control ?? 'data')).toEqual(['data', 'ABORT']);
  expect(await readCommitted(TOPIC, 2)).not.toContain('a-2');
  expect((await tide.groups().fetchOffsets('g-abort')).find((o) => o.partition === 0)?.offset ?? -1).toBe(-1);
  const offsetsBatches = await rawBatches('__consumer_offsets', offsetsPartitionOf('g-abort'));
  expect(offsetsBatches.filter((b) => b.producerId === producerId).map((b) => b.control ?? 'data')).toEqual([
    'data',
    'ABORT',
  ]);
  // The producer goes on with the next epoch.
  await p.transaction(async (tx) => {
    await tx.send(TOPIC, { value: 'a-after' }, { partition: 2 });
  });
  // Each end with a reservation moves two epochs: markers at 3, the next transaction at 4.
  expect(p.producerIdentity).toEqual({ producerId, producerEpoch: 4 });
  await completed('tx-abort');
  expect(await readCommitted(TOPIC, 2)).toContain('a-after');
});

it('a client that reaches the coordinator directly ends on EndTxnStream; leaders join on JoinStream', async () => {
  const count = (method: string) =>
    metricSum(new RegExp(`^tide_rpc_duration_seconds_count\\{(?=[^}]*method="${method}")(?=[^}]*code="OK")`));
  const [streamEndsBefore, joinsBefore] = [await count('EndTxnStream'), await count('JoinStream')];
  const direct = new Tide({ bootstrap: [cluster.broker(0).address] });
  const p = direct.producer({ transactionalId: 'tx-direct', lingerMs: 0 });
  try {
    await p.initTransactions();
    for (let i = 0; i < 3; i++)
      await p.transaction(async (tx) => {
        await tx.send(TOPIC, { value: `d-${i}` }, { partition: i });
      });
  } finally {
    await p.close();
    await direct.close();
  }
  expect((await count('EndTxnStream')) - streamEndsBefore).toBe(3);
  // Each transaction's first batch on each partition joined it at its leader.
  expect((await count('JoinStream')) - joinsBefore).toBeGreaterThanOrEqual(3);
  await completed('tx-direct');
  const values = [
    ...(await readCommitted(TOPIC, 0)),
    ...(await readCommitted(TOPIC, 1)),
    ...(await readCommitted(TOPIC, 2)),
  ];
  expect(values).toEqual(expect.arrayContaining(['d-0', 'd-1', 'd-2']));
});

it('a second producer with the same transactional id aborts the open transaction and fences the first', async () => {
  const first = transactional('tx-fence');
  await first.initTransactions();
  const { producerId } = first.producerIdentity!;
  first.beginTransaction();
  await first.send(TOPIC, { value: 'zombie' }, { partition: 0 });
  const second = transactional('tx-fence');
  await second.initTransactions();
  expect(second.producerIdentity).toEqual({ producerId, producerEpoch: 2 });
  const batches = (await rawBatches(TOPIC, 0)).filter((b) => b.producerId === producerId);
  expect(batches.map((b) => b.control ?? 'data')).toEqual(['data', 'ABORT']);
  await expect(first.commitTransaction()).rejects.toMatchObject({ code: 'PRODUCER_FENCED' });
  // Fatal: every later call of the first producer fails the same way.
  expect(() => first.beginTransaction()).toThrow(expect.objectContaining({ code: 'PRODUCER_FENCED' }));
  await second.transaction(async (tx) => {
    await tx.send(TOPIC, { value: 'successor' }, { partition: 0 });
  });
  await completed('tx-fence');
  const values = await readCommitted(TOPIC, 0);
  expect(values).toContain('successor');
  expect(values).not.toContain('zombie');
});

it('the coordinator aborts a transaction open past its timeout; the producer aborts and goes on', async () => {
  const p = transactional('tx-timeout', 1_500);
  await p.initTransactions();
  const { producerId } = p.producerIdentity!;
  p.beginTransaction();
  await p.send(TOPIC, { value: 'too-slow' }, { partition: 1 });
  await waitFor(async () => (await describe('tx-timeout')).state === 'CompleteAbort', {
    timeoutMs: 20_000,
    what: 'the timeout abort',
  });
  expect((await describe('tx-timeout')).producer_epoch).toBe(1);
  const batches = (await rawBatches(TOPIC, 1)).filter((b) => b.producerId === producerId);
  expect(batches.map((b) => b.control ?? 'data')).toEqual(['data', 'ABORT']);
  await expect(p.commitTransaction()).rejects.toMatchObject({ code: 'TRANSACTION_ABORTED' });
  await p.abortTransaction();
  expect(p.producerIdentity).toEqual({ producerId, producerEpoch: 1 });
  await p.transaction(async (tx) => {
    await tx.send(TOPIC, { value: 'in-time' }, { partition: 1 });
  });
  await completed('tx-timeout');
  const values = await readCommitted(TOPIC, 1);
  expect(values).toContain('in-time');
  expect(values).not.toContain('too-slow');
});

it('coordinator SIGKILL mid-commit: the new owner resumes PrepareCommit and completes the commit', async () => {
  // A one-replica partition led by broker 1 (the client and describe() go through broker 0),
  // which the test pauses: its marker cannot be written meanwhile.
  const STUCK = 'txn-stuck';
  await tide.admin().createTopic(STUCK, { partitions: 4, replicationFactor: 1 });
  const metadata = await tide.cluster.topicMetadata(STUCK, true);
  const stuck = metadata.partitions.find((m) => m.leader === 1)?.partition ?? -1;
  expect(stuck).toBeGreaterThanOrEqual(0);
  // A transactional id whose __transaction_state partition broker 0 leads: pausing broker 1 must
  // hold up the markers, not the coordinator's own PrepareCommit write.
  const state = await tide.cluster.topicMetadata('__transaction_state', true);
  const txnId = [...Array(64).keys()]
    .map((i) => `tx-kill-${i}`)
    .find((id) => state.partitions.find((m) => m.partition === shardOf(id, 4) % 2)?.leader === 0)!;
  expect(txnId).toBeDefined();
  const p = transactional(txnId);
  await p.initTransactions();
  const { producerId } = p.producerIdentity!;
  p.beginTransaction();
  await p.send(STUCK, { value: 'k-stuck' }, { partition: stuck });
  await p.send(TOPIC, { value: 'k-0' }, { partition: 0 });
  const paused = cluster.broker(1).child.pid!;
  process.kill(paused, 'SIGSTOP');
  let resumed = false;
  const resume = () => {
    if (!resumed) process.kill(paused, 'SIGCONT');
    resumed = true;
  };
  try {
    const commit = p.commitTransaction();
    commit.catch(() => undefined);
    await waitFor(async () => (await describe(txnId).catch(() => undefined))?.state === 'PrepareCommit', {
      timeoutMs: 30_000,
      what: 'PrepareCommit',
    });
    const owner = (await describe(txnId)).coordinator_id;
    await cluster.coordinator(owner).stop('SIGKILL');
    // The other coordinator takes the shard once the lease lapses and finds PrepareCommit.
    await waitFor(
      async () => {
        const d = await describe(txnId).catch(() => undefined);
        return d !== undefined && d.coordinator_id !== owner;
      },
      { timeoutMs: 30_000, what: 'the takeover' },
    );
    expect((await describe(txnId)).state).toMatch(/^(PrepareCommit|CompleteCommit)$/);
    resume();
    await commit;
    // The new owner replayed the PrepareCommit with the partitions reserved for the next
    // transaction: once the markers are written, it takes that reservation as open (the producer
    // may already have written there), at the epoch EndTxn answered.
    expect(await completed(txnId, /^(Complete|Empty|Ongoing)/)).toMatchObject({
      state: 'Ongoing',
      producer_epoch: 2,
    });
    expect(p.producerIdentity).toEqual({ producerId, producerEpoch: 2 });
    for (const [topic, partition] of [
      [STUCK, stuck],
      [TOPIC, 0],
    ] as const) {
      const batches = (await rawBatches(topic, partition)).filter((b) => b.producerId === producerId);
      expect(batches.map((b) => b.control ?? 'data')).toEqual(['data', 'COMMIT']);
    }
    expect(await readCommitted(STUCK, stuck)).toEqual(['k-stuck']);
    await cluster.startCoordinator(owner, {
      args: coordinatorArgs(),
      env: { TIDE_TRANSACTION_STATE_PARTITIONS: '2' },
    });
  } finally {
    resume();
  }
});

it('group coordinator SIGKILL between the offset commit and the marker: the new owner decides the offsets by the marker', async () => {
  // A group whose coordinator is not the transactional id's: killing it leaves the transaction
  // coordinator running, which writes the markers and then tells the group's new owner.
  // The coordinator killed in an earlier test hands its shards back after its restart: wait for
  // both instances to own shards again, or every id would share one owner.
  const shards = (await waitFor(
    async () => {
      const { shards } = await tide.coordinators().describeCoordinators();
      const owners = new Set(shards.map((s) => s.coordinator_id).filter((id) => id));
      return shards.length === 4 && owners.size >= 2 ? shards : undefined;
    },
    { what: 'the coordinator shards owned by two instances' },
  ))!;
  const ownerOf = (id: string) => shards.find((s) => s.shard === shardOf(id, 4))?.coordinator_id;
  const group = [...Array(64).keys()].map((i) => `g-gkill-${i}`).find((g) => ownerOf(g) !== undefined)!;
  const groupOwner = ownerOf(group)!;
  const txnId = [...Array(64).keys()]
    .map((i) => `tx-gkill-${i}`)
    .find((id) => ownerOf(id) !== undefined && ownerOf(id) !== groupOwner)!;
  expect(txnId).toBeDefined();
  const p = transactional(txnId);
  await p.initTransactions();
  const { producerId } = p.producerIdentity!;
  try {
    p.beginTransaction();
    await p.send(TOPIC, { value: 'gk-0' }, { partition: 0 });
    await p.sendOffsets({ groupId: group, memberId: '', memberEpoch: -1 }, [
      { topic: INPUT, partition: 0, offset: 42 },
    ]);
    expect(await committedInput(group)).toBe(-1);
    // The offsets are in the log, pending; their coordinator dies before the marker.
    await cluster.coordinator(groupOwner).stop('SIGKILL');
    await p.commitTransaction();
    // CompleteCommit: every marker written and the group's new owner told (it replayed the
    // transactional batch, and the marker too if it landed before its replay).
    await completed(txnId);
    await waitFor(async () => (await committedInput(group).catch(() => -1)) === 42, {
      what: `the committed offset of ${group} after the takeover`,
      timeoutMs: 30_000,
    });
    // The same across an abort: the offsets of the aborted transaction never show.
    p.beginTransaction();
    await p.sendOffsets({ groupId: group, memberId: '', memberEpoch: -1 }, [
      { topic: INPUT, partition: 0, offset: 99 },
    ]);
    await p.abortTransaction();
    await completed(txnId);
    expect(await committedInput(group)).toBe(42);
    const raw = await rawBatches('__consumer_offsets', offsetsPartitionOf(group));
    expect(raw.filter((b) => b.producerId === producerId).map((b) => b.control ?? 'data')).toEqual([
      'data',
      'COMMIT',
      'data',
      'ABORT',
    ]);
  } finally {
    await cluster.startCoordinator(groupOwner, {
      args: coordinatorArgs(),
      env: { TIDE_TRANSACTION_STATE_PARTITIONS: '2' },
    });
  }
  // The restarted coordinator may take the group back: its replay gives the same answer.
  expect(await committedInput(group)).toBe(42);
});
