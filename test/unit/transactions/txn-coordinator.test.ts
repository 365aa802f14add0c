/**
 * The transaction coordinator over an in-memory `__transaction_state`, a manual clock and a
 * recording completion (the markers): commit and abort with the epoch bump, every state written
 * before it is answered, fencing by a second InitTransactions (the open transaction aborted
 * first), the timeout abort, rebuild by a new owner that resumes a PrepareCommit, and the group
 * coordinator's pending transactional offsets (invisible until the commit, rebuilt on replay).
 */
import { ManualClock } from '../../../services/common/clock';
import type { TideError } from '../../../services/common/errors';
import { silentLogger } from '../../../services/common/logger';
import { shardOf } from '../../../services/common/cluster/coordinator-shards';
import { Coordinator } from '../../../services/group-coordinator/coordinator';
import type {
  OffsetsLog,
  OffsetsLogRecord,
  ReplayBatch,
} from '../../../services/group-coordinator/offsets-log';
import { tpKey } from '../../../services/group-coordinator/partitions';
import type { AcquiredShard } from '../../../services/group-coordinator/shard-ownership';
import { decodeTxnStateRecord } from '../../../services/group-coordinator/txn/txn-codec';
import type { TxnCompletion, TxnEnding } from '../../../services/group-coordinator/txn/txn-completion';
import {
  COMPLETE_WRITE_DELAY_MS,
  TransactionCoordinator,
  type TxnObserver,
} from '../../../services/group-coordinator/txn/txn-coordinator';
import { MAX_PRODUCER_EPOCH } from '../../../services/group-coordinator/txn/txn-state';
import { TestLease } from '../group/test-lease';

const SHARDS = 4;
const TX = 'payments-writer';
const SHARD = shardOf(TX, SHARDS);

/** A record of the in-memory log, with the batch it came in (undefined: a plain record). */
type MemoryRecord = OffsetsLogRecord & { batch?: ReplayBatch };

/**
 * `__transaction_state` and `__consumer_offsets` in memory. Transactional appends keep the
 * producer's id and epoch, `marker()` appends a control batch as a leader would for the
 * transaction coordinator, and a transactional append after the producer's marker of a newer
 * epoch is refused as a leader refuses it (INVALID_PRODUCER_EPOCH).
 */
class MemoryLog implements OffsetsLog {
  readonly partitions = new Map<number, MemoryRecord[]>();

  private list(partition: number): MemoryRecord[] {
    let list = this.partitions.get(partition);
    if (!list) this.partitions.set(partition, (list = []));
    return list;
  }

  async append(partition: number, records: OffsetsLogRecord[]): Promise<number> {
    const list = this.list(partition);
    list.push(...records);
    return list.length - 1;
  }

  async appendTransactional(
    partition: number,
    producer: { producerId: number; producerEpoch: number },
    records: OffsetsLogRecord[],
  ): Promise<number> {
    const list = this.list(partition);
    const newest = list
      .filter((r) => r.batch?.producerId === producer.producerId)
      .reduce((max, r) => Math.max(max, r.batch!.producerEpoch), -1);
    if (producer.producerEpoch < newest)
      throw Object.assign(new Error(`fenced by epoch ${newest}`), { code: 'INVALID_PRODUCER_EPOCH' });
    const batch: ReplayBatch = {
      producerId: producer.producerId,
      producerEpoch: producer.producerEpoch,
      transactional: true,
    };
    list.push(...records.map((r) => ({ ...r, batch })));
    return list.length - 1;
  }

  /** A COMMIT or ABORT marker of `producerId` with (bumped) epoch `producerEpoch`. */
  marker(partition: number, producerId: number, producerEpoch: number, commit: boolean): void {
    this.list(partition).push({
      key: Buffer.from([0, 0, 0, commit ? 1 : 0]),
      value: null,
      batch: { producerId, producerEpoch, transactional: true, control: commit ? 'COMMIT' : 'ABORT' },
    });
  }

  async replay(
    partition: number,
    through: number,
    onRecord: (k: Buffer, v: Buffer | null, o: number, b?: ReplayBatch) => void,
  ) {
    (this.partitions.get(partition) ?? [])
      .slice(0, through + 1)
      .forEach((r, i) => onRecord(r.key, r.value, i, r.batch));
  }

  /** The states written for `id`, in order. */
  states(id: string): string[] {
    const out: string[] = [];
    for (const list of this.partitions.values())
      for (const r of list) {
        const d = decodeTxnStateRecord(r.key, r.value);
        if (d.type === 'txn' && d.transactionalId === id && d.value) out.push(d.value.metadata.state);
      }
    return out;
  }
}

/** Records every ending; `hold()` keeps the next ones pending until `release()`. */
class RecordingCompletion implements TxnCompletion {
  readonly endings: TxnEnding[] = [];
  private held?: (() => void)[];

  hold(): void {
    this.held = [];
  }

  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const go of held) go();
  }

  async complete(ending: TxnEnding, cancelled: () => boolean): Promise<void> {
    this.endings.push(ending);
    if (this.held) await new Promise<void>((resolve) => this.held!.push(resolve));
    if (cancelled()) throw new Error('cancelled');
  }
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

let clock: ManualClock;
let log: MemoryLog;
let completion: RecordingCompletion;
let producerIds = 1000;

function held(shard: number, epoch: number): AcquiredShard {
  return { shard, epoch, fence: new TestLease(clock, 60_000).fence };
}

function coordinator(
  selfId: string,
  statePartitions: number | 'missing' = 2,
  observer?: TxnObserver,
): TransactionCoordinator {
  const c = new TransactionCoordinator({
    selfId,
    clock,
    logger: silentLogger(),
    log,
    statePartitions: statePartitions === 'missing' ? undefined : statePartitions,
    shardCount: () => SHARDS,
    partitionCount: (topic) => (topic === 'out' ? 3 : undefined),
    completion,
    newProducerId: async () => producerIds++,
    maxTimeoutMs: 900_000,
    idExpirationMs: 5_000,
    tickMs: 100,
    observer,
  });
  c.start();
  return c;
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return (err as TideError).code;
  }
  return 'none';
}

beforeEach(() => {
  clock = new ManualClock();
  log = new MemoryLog();
  completion = new RecordingCompletion();
});

async function loaded(selfId: string, epoch = 5, observer?: TxnObserver): Promise<TransactionCoordinator> {
  const c = coordinator(selfId, 2, observer);
  c.acquire([held(SHARD, epoch)]);
  await flush();
  return c;
}

it('commit: markers carry the bumped epoch; each state is durable; the next transaction uses the new epoch', async () => {
  const c = await loaded('a');
  const id = await c.initTransactions(TX, 0);
  expect(id.producerEpoch).toBe(0);
  await c.addPartitions(TX, id.producerId, 0, [tpKey('out', 0), tpKey('out', 2)]);
  await c.addOffsets(TX, id.producerId, 0, 'billing');
  expect(c.describe(TX)).toMatchObject({ state: 'Ongoing', groups: ['billing'] });
  const next = await c.endTxn(TX, id.producerId, 0, true);
  expect(next).toEqual({ producerId: id.producerId, producerEpoch: 1 });
  expect(completion.endings).toEqual([
    {
      transactionalId: TX,
      producerId: id.producerId,
      producerEpoch: 1,
      coordinatorEpoch: 5,
      commit: true,
      partitions: [tpKey('out', 0), tpKey('out', 2)],
      groups: ['billing'],
    },
  ]);
  // Answered once PrepareCommit is durable; the completion applies CompleteCommit after the
  // markers, and writes it when no newer state of the id came first (COMPLETE_WRITE_DELAY_MS).
  await flush();
  expect(c.describe(TX).state).toBe('CompleteCommit');
  expect(log.states(TX)).toEqual(['Empty', 'Ongoing', 'Ongoing', 'PrepareCommit']);
  clock.advance(COMPLETE_WRITE_DELAY_MS + 100);
  await flush();
  expect(log.states(TX)).toEqual(['Empty', 'Ongoing', 'Ongoing', 'PrepareCommit', 'CompleteCommit']);
  // A retried EndTxn of the finished transaction gets the same answer; the old epoch cannot add.
  expect(await c.endTxn(TX, id.producerId, 0, true)).toEqual(next);
  expect(await codeOf(c.addPartitions(TX, id.producerId, 0, [tpKey('out', 1)]))).toBe('PRODUCER_FENCED');
  await c.addPartitions(TX, id.producerId, 1, [tpKey('out', 1)]);
  expect(await c.endTxn(TX, id.producerId, 1, false)).toEqual({
    producerId: id.producerId,
    producerEpoch: 2,
  });
  await flush();
  expect(c.describe(TX).state).toBe('CompleteAbort');
  expect(completion.endings[1]).toMatchObject({ commit: false, producerEpoch: 2 });
});

it('EndTxn is answered once Prepare is durable; the next transaction waits for the markers before it adds', async () => {
  const c = await loaded('a');
  const id = await c.initTransactions(TX, 0);
  await c.addPartitions(TX, id.producerId, 0, [tpKey('out', 0)]);
  completion.hold();
  const next = await c.endTxn(TX, id.producerId, 0, true);
  expect(next).toEqual({ producerId: id.producerId, producerEpoch: 1 });
  expect(c.describe(TX).state).toBe('PrepareCommit');
  // A retried EndTxn (its answer lost) is answered at once too.
  expect(await c.endTxn(TX, id.producerId, 0, true)).toEqual(next);
  // The next transaction's first add waits for the completion instead of failing.
  let added = false;
  const adding = c.addPartitions(TX, id.producerId, 1, [tpKey('out', 0)]).then(() => (added = true));
  await flush();
  expect(added).toBe(false);
  expect(log.states(TX)).toEqual(['Empty', 'Ongoing', 'PrepareCommit']);
  completion.release();
  await adding;
  // The next transaction's Ongoing record stands for the completion: no CompleteCommit write first.
  expect(log.states(TX)).toEqual(['Empty', 'Ongoing', 'PrepareCommit', 'Ongoing']);
  expect(c.describe(TX)).toMatchObject({ state: 'Ongoing', producerEpoch: 1, partitions: [tpKey('out', 0)] });
  // A fenced caller is not made to wait: the older epoch is refused at once.
  completion.hold();
  await c.endTxn(TX, id.producerId, 1, false);
  expect(await codeOf(c.addPartitions(TX, id.producerId, 0, [tpKey('out', 1)]))).toBe('PRODUCER_FENCED');
  completion.release();
  await flush();
});

it('an id idle past transactionalIdExpirationMs is forgotten (a tombstone); an open transaction is not', async () => {
  const events: string[] = [];
  const observer: TxnObserver = {
    expired: () => events.push('expired'),
    prepared: (result, reason) => events.push(`${result}/${reason}`),
    endTxnAnswered: () => events.push('answered'),
    completed: () => events.push('completed'),
  };
  const c = await loaded('a', 5, observer);
  const id = await c.initTransactions(TX, 900_000);
  await c.addPartitions(TX, id.producerId, 0, [tpKey('out', 0)]);
  clock.advance(5_001);
  await flush();
  expect(c.describe(TX).state).toBe('Ongoing'); // open: never expired (its timeout ends it)
  await c.endTxn(TX, id.producerId, 0, true);
  await flush();
  expect(events).toEqual(['commit/client', 'answered', 'completed']);
  clock.advance(4_900);
  await flush();
  expect(c.describe(TX).state).toBe('CompleteCommit');
  clock.advance(200);
  await flush();
  expect(() => c.describe(TX)).toThrow(expect.objectContaining({ code: 'TRANSACTIONAL_ID_NOT_FOUND' }));
  expect(events).toContain('expired');
  // The log ends with a tombstone: a new owner does not know the id either.
  const records = [...log.partitions.values()].flat().map((r) => decodeTxnStateRecord(r.key, r.value));
  expect(records[records.length - 1]).toMatchObject({ type: 'txn', transactionalId: TX, value: null });
  // The old producer is refused; a new one starts with a new producer id.
  expect(await codeOf(c.endTxn(TX, id.producerId, 1, true))).toBe('TRANSACTIONAL_ID_NOT_FOUND');
  const again = await c.initTransactions(TX, 0);
  expect(again.producerId).not.toBe(id.producerId);
  expect(again.producerEpoch).toBe(0);
});

it('an end that reaches the largest epoch moves the id to a new producer id at epoch 0', async () => {
  const c = await loaded('a');
  const id = await c.initTransactions(TX, 0);
  // Far along: as if 32765 transactions had ended (the state is what the log holds).
  const far = { ...c.describe(TX), producerEpoch: MAX_PRODUCER_EPOCH - 1 };
  (c as unknown as { shards: Map<number, { txns: Map<string, unknown> }> }).shards
    .get(SHARD)!
    .txns.set(TX, far);
  await c.addPartitions(TX, id.producerId, MAX_PRODUCER_EPOCH - 1, [tpKey('out', 0)]);
  const next = await c.endTxn(TX, id.producerId, MAX_PRODUCER_EPOCH - 1, true);
  expect(completion.endings[0]).toMatchObject({
    producerId: id.producerId,
    producerEpoch: MAX_PRODUCER_EPOCH,
  });
  expect(next.producerId).not.toBe(id.producerId);
  expect(next.producerEpoch).toBe(0);
  await c.addPartitions(TX, next.producerId, 0, [tpKey('out', 1)]);
});

it('unknown topics and partitions are refused before anything is written', async () => {
  const c = await loaded('a');
  const id = await c.initTransactions(TX, 0);
  await expect(c.addPartitions(TX, id.producerId, 0, [tpKey('nope', 0)])).rejects.toMatchObject({
    code: 'UNKNOWN_TOPIC',
  });
  await expect(c.addPartitions(TX, id.producerId, 0, [tpKey('out', 3)])).rejects.toMatchObject({
    code: 'UNKNOWN_PARTITION',
  });
  expect(log.states(TX)).toEqual(['Empty']);
});

it('a second InitTransactions aborts the open transaction and fences the first producer', async () => {
  const c = await loaded('a');
  const first = await c.initTransactions(TX, 0);
  await c.addPartitions(TX, first.producerId, 0, [tpKey('out', 0)]);
  const second = await c.initTransactions(TX, 0);
  expect(second).toEqual({ producerId: first.producerId, producerEpoch: 2 });
  expect(completion.endings).toHaveLength(1);
  expect(completion.endings[0]).toMatchObject({
    commit: false,
    producerEpoch: 1,
    partitions: [tpKey('out', 0)],
  });
  expect(await codeOf(c.endTxn(TX, first.producerId, 0, true))).toBe('PRODUCER_FENCED');
  expect(await codeOf(c.addPartitions(TX, first.producerId, 0, [tpKey('out', 0)]))).toBe('PRODUCER_FENCED');
  await c.addPartitions(TX, second.producerId, 2, [tpKey('out', 1)]);
});

it('a transaction open past its timeout is aborted with an epoch bump', async () => {
  const c = await loaded('a');
  const id = await c.initTransactions(TX, 1_000);
  await c.addPartitions(TX, id.producerId, 0, [tpKey('out', 0)]);
  clock.advance(900);
  await flush();
  expect(c.describe(TX).state).toBe('Ongoing');
  clock.advance(200);
  await flush();
  expect(c.describe(TX)).toMatchObject({ state: 'CompleteAbort', producerEpoch: 1 });
  expect(completion.endings[0]).toMatchObject({ commit: false, producerEpoch: 1 });
  // The producer learns its transaction was aborted; its own abort then succeeds.
  expect(await codeOf(c.endTxn(TX, id.producerId, 0, true))).toBe('TRANSACTION_ABORTED');
  expect(await c.endTxn(TX, id.producerId, 0, false)).toEqual({
    producerId: id.producerId,
    producerEpoch: 1,
  });
});

it('a new owner rebuilds the state and completes a PrepareCommit the old owner left', async () => {
  const a = await loaded('a', 5);
  const id = await a.initTransactions(TX, 0);
  await a.addPartitions(TX, id.producerId, 0, [tpKey('out', 1)]);
  completion.hold();
  const ending = a.endTxn(TX, id.producerId, 0, true);
  ending.catch(() => undefined);
  await flush();
  expect(a.describe(TX).state).toBe('PrepareCommit');
  // The old owner loses the shard mid-commit (a SIGKILL as far as the log is concerned).
  a.release(SHARD);
  await a.stop();
  completion.release();
  // The client had its answer at PrepareCommit: the commit is decided, the next owner completes it.
  expect(await ending).toEqual({ producerId: id.producerId, producerEpoch: 1 });
  const b = await loaded('b', 9);
  await flush();
  expect(completion.endings).toHaveLength(2);
  expect(completion.endings[1]).toMatchObject({ commit: true, producerEpoch: 1, coordinatorEpoch: 9 });
  expect(b.describe(TX)).toMatchObject({ state: 'CompleteCommit', producerEpoch: 1 });
  // The client's retried EndTxn reaches the new owner and is answered.
  expect(await b.endTxn(TX, id.producerId, 0, true)).toEqual({ producerId: id.producerId, producerEpoch: 1 });
  await b.stop();
});

it('an Ongoing transaction keeps its start time across a takeover, so its timeout still applies', async () => {
  const a = await loaded('a', 5);
  const id = await a.initTransactions(TX, 2_000);
  const startedMs = clock.nowMs();
  await a.addPartitions(TX, id.producerId, 0, [tpKey('out', 0)]);
  a.release(SHARD);
  await a.stop();
  clock.advance(1_500);
  const b = await loaded('b', 9);
  expect(b.describe(TX)).toMatchObject({ state: 'Ongoing', startTimeMs: startedMs });
  clock.advance(600);
  await flush();
  expect(b.describe(TX).state).toBe('CompleteAbort');
  await b.stop();
});

it('calls for ids of shards it does not own are NOT_COORDINATOR; unknown ids need initTransactions', async () => {
  const c = await loaded('a');
  const other = [...Array(50).keys()].map((i) => `tx-${i}`).find((t) => shardOf(t, SHARDS) !== SHARD)!;
  expect(await codeOf(c.initTransactions(other, 0))).toBe('NOT_COORDINATOR');
  expect(await codeOf(c.endTxn(TX, 1, 0, true))).toBe('TRANSACTIONAL_ID_NOT_FOUND');
  expect(await codeOf(c.initTransactions(TX, 900_001))).toBe('INVALID_TRANSACTION_TIMEOUT');
});

it('shards owned before __transaction_state exists load once it does', async () => {
  const c = coordinator('a', 'missing');
  c.acquire([held(SHARD, 5)]);
  await flush();
  const refused = await c.initTransactions(TX, 0).catch((err: TideError) => err);
  expect(refused).toMatchObject({
    code: 'COORDINATOR_NOT_AVAILABLE',
    message: expect.stringMatching(/does not exist yet/),
  });
  expect(log.partitions.size).toBe(0);
  c.setStatePartitions(2);
  await flush();
  expect((await c.initTransactions(TX, 0)).producerEpoch).toBe(0);
  await c.stop();
});

describe('transactional offsets in the group coordinator', () => {
  const GROUP = 'billing';
  const GSHARD = shardOf(GROUP, SHARDS);

  function groups(selfId: string): Coordinator {
    return new Coordinator({
      selfId,
      clock,
      logger: silentLogger(),
      log,
      offsets: {
        bounds: async () => ({ logStartOffset: 0, highWatermark: 100 }),
        offsetForTime: async () => 0,
      },
      offsetsPartitions: 2,
      shardCount: () => SHARDS,
      partitionCount: (topic) => (topic === 'in' ? 2 : undefined),
    });
  }

  async function loadedGroups(selfId: string, epoch: number): Promise<Coordinator> {
    const g = groups(selfId);
    g.acquire([held(GSHARD, epoch)]);
    await flush();
    return g;
  }

  const offsetOf = (g: Coordinator, partition: number) =>
    g.fetchOffsets(GROUP, [tpKey('in', partition)])[0].committed?.offset ?? -1;

  const GPART = GSHARD % 2;
  const producer = (epoch: number) => ({ transactionalId: 'tx', producerId: 7, producerEpoch: epoch });
  const noMember = { memberId: '', memberEpoch: -1 };

  it('are a transactional batch, invisible until the COMMIT marker, kept across a takeover while open, dropped by an ABORT', async () => {
    const a = await loadedGroups('a', 3);
    await a.txnOffsetCommit(GROUP, producer(0), noMember, [
      { key: tpKey('in', 0), offset: 10, metadata: '' },
    ]);
    expect(offsetOf(a, 0)).toBe(-1);
    expect(a.pendingTxnOffsets(GROUP).get(7)?.get(tpKey('in', 0))).toMatchObject({ offset: 10 });
    // In the log: an ordinary offset record, in a transactional batch of the producer.
    const written = log.partitions.get(GPART)!.at(-1)!;
    expect(written.batch).toEqual({ producerId: 7, producerEpoch: 0, transactional: true });

    // Another instance takes the group over before the transaction ends: the offsets stay pending.
    const b = await loadedGroups('b', 4);
    expect(offsetOf(b, 0)).toBe(-1);
    expect(b.pendingTxnOffsets(GROUP).get(7)?.size).toBe(1);
    expect(() => b.fetchOffsets(GROUP, [tpKey('in', 0)], true)).toThrow(
      expect.objectContaining({ code: 'UNSTABLE_OFFSET_COMMIT', retriable: true }),
    );
    // The COMMIT marker lands in the partition, then the transaction coordinator says so.
    log.marker(GPART, 7, 1, true);
    // A marker of an older epoch (not this transaction's) decides nothing.
    expect(await b.completeTxnOffsets(GROUP, 7, 0, true)).toBe(0);
    expect(await b.completeTxnOffsets(GROUP, 7, 1, true)).toBe(1);
    expect(offsetOf(b, 0)).toBe(10);
    // Retried completion: nothing pending, no-op.
    expect(await b.completeTxnOffsets(GROUP, 7, 1, true)).toBe(0);

    await b.txnOffsetCommit(GROUP, producer(1), noMember, [
      { key: tpKey('in', 0), offset: 20, metadata: '' },
    ]);
    // A zombie of the older epoch is fenced once the newer one has offsets pending.
    await expect(
      b.txnOffsetCommit(GROUP, producer(0), noMember, [{ key: tpKey('in', 1), offset: 5, metadata: '' }]),
    ).rejects.toMatchObject({ code: 'PRODUCER_FENCED' });
    log.marker(GPART, 7, 2, false);
    expect(await b.completeTxnOffsets(GROUP, 7, 2, false)).toBe(1);
    expect(offsetOf(b, 0)).toBe(10);

    // A zombie of epoch 0 writing after its transactions ended (the last marker is of epoch 2) is
    // fenced, also with nothing pending.
    await expect(
      b.txnOffsetCommit(GROUP, producer(0), noMember, [{ key: tpKey('in', 1), offset: 999, metadata: '' }]),
    ).rejects.toMatchObject({ code: 'PRODUCER_FENCED' });
    await b.txnOffsetCommit(GROUP, producer(2), noMember, [
      { key: tpKey('in', 0), offset: 30, metadata: '' },
    ]);
    // While pending, a require_stable fetch (read_committed consumers) waits rather than read 10.
    expect(() => b.fetchOffsets(GROUP, [tpKey('in', 0)], true)).toThrow(
      expect.objectContaining({ code: 'UNSTABLE_OFFSET_COMMIT', retriable: true }),
    );
    expect(b.fetchOffsets(GROUP, [tpKey('in', 1)], true)[0].committed).toBeUndefined();
    log.marker(GPART, 7, 3, true);
    expect(await b.completeTxnOffsets(GROUP, 7, 3, true)).toBe(1);
    expect(b.fetchOffsets(GROUP, [tpKey('in', 0)], true)[0].committed?.offset).toBe(30);
    expect(offsetOf(b, 0)).toBe(30);
    expect(offsetOf(b, 1)).toBe(-1);

    // A third owner replays the batches and markers: 30 committed (10 by the first COMMIT, 20
    // aborted), nothing pending.
    const c = await loadedGroups('c', 5);
    expect(offsetOf(c, 0)).toBe(30);
    expect(offsetOf(c, 1)).toBe(-1);
    expect(c.pendingTxnOffsets(GROUP).size).toBe(0);
    // The replay fences the ended epochs too.
    await expect(
      c.txnOffsetCommit(GROUP, producer(2), noMember, [{ key: tpKey('in', 1), offset: 999, metadata: '' }]),
    ).rejects.toMatchObject({ code: 'PRODUCER_FENCED' });
  });

  it("a marker that lands after a takeover's replay is applied when the coordinator is told, and found by the next replay", async () => {
    const a = await loadedGroups('a', 3);
    await a.txnOffsetCommit(GROUP, producer(0), noMember, [
      { key: tpKey('in', 0), offset: 10, metadata: 'm' },
      { key: tpKey('in', 1), offset: 11, metadata: '' },
    ]);
    // The shard moves while the transaction is open; the marker lands after the new owner's
    // replay: the new owner holds the offsets pending and applies them when told.
    const b = await loadedGroups('b', 4);
    log.marker(GPART, 7, 1, true);
    expect(offsetOf(b, 0)).toBe(-1);
    expect(await b.completeTxnOffsets(GROUP, 7, 1, true)).toBe(2);
    expect(b.fetchOffsets(GROUP, [tpKey('in', 0)])[0].committed).toMatchObject({ offset: 10, metadata: 'm' });
    // A coordinator that crashed before being told finds the marker in its replay.
    const c = await loadedGroups('c', 5);
    expect(offsetOf(c, 0)).toBe(10);
    expect(offsetOf(c, 1)).toBe(11);
    expect(c.pendingTxnOffsets(GROUP).size).toBe(0);
  });

  it('the marker applied while the append was being answered decides the appended offsets', async () => {
    const a = await loadedGroups('a', 3);
    // The append is written, its answer held back.
    const append = log.appendTransactional.bind(log);
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    log.appendTransactional = async (...args) => {
      const offset = await append(...args);
      await answered;
      return offset;
    };
    const appending = a.txnOffsetCommit(GROUP, producer(0), noMember, [
      { key: tpKey('in', 0), offset: 10, metadata: '' },
    ]);
    await flush();
    // The timeout abort's marker and completion overtake the append's answer.
    log.marker(GPART, 7, 1, false);
    expect(await a.completeTxnOffsets(GROUP, 7, 1, false)).toBe(0);
    answer();
    await appending;
    expect(a.pendingTxnOffsets(GROUP).size).toBe(0);
    expect(offsetOf(a, 0)).toBe(-1);
  });

  it('refuses a member that is not in the group (KIP-447 fencing through group metadata)', async () => {
    const a = await loadedGroups('a', 3);
    await expect(
      a.txnOffsetCommit(GROUP, producer(0), { memberId: 'ghost', memberEpoch: 3 }, [
        { key: tpKey('in', 0), offset: 10, metadata: '' },
      ]),
    ).rejects.toMatchObject({ code: 'UNKNOWN_MEMBER_ID' });
    expect(a.pendingTxnOffsets(GROUP).size).toBe(0);
  });
});
