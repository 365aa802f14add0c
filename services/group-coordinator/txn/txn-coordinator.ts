/**
 * The transaction coordinator: the transactional ids of the shards this instance owns (the same
 * etcd-leased shards as consumer groups, shard-ownership.ts; an id hashes to a shard like a group
 * id), their state (txn-state.ts) and its durable copy in `__transaction_state`.
 *
 * Durability. Every new state is appended to the shard's partition of `__transaction_state`
 * (acks=all, idempotent producer) before it is applied in memory and answered, behind the same
 * lease-time fence as group writes (coordinator.ts's header): nothing is sent unless the shard is
 * certainly still held, and nothing is acknowledged if that stopped holding while the append ran.
 * The one state applied before it is written is Complete* (writeCompleteLater says why that is
 * safe): the next state of the id usually stands for it.
 *
 * Ends. EndTxn is answered once the Prepare state is durable (the outcome is decided); the markers
 * and group offsets are written after it (completion()), as Kafka's coordinator does. A call of
 * the id's next transaction waits for that completion (whenCompleted), so no partition gets the
 * next transaction's records before the previous one's marker.
 *
 * Takeover (shard-loading.ts, as for groups). Loading a shard writes a shard marker (keyed by
 * shard and epoch) and replays the partition through it; records older than the newest marker of
 * their shard are a deposed owner's and are skipped. A transaction found in PrepareCommit/PrepareAbort is completed again
 * (markers are idempotent at the leaders); an Ongoing one keeps its start time, so its timeout
 * still applies. Until a shard is loaded its ids answer COORDINATOR_NOT_AVAILABLE (retriable).
 *
 * Calls of one transactional id run one at a time (a promise chain per id). Writing markers runs
 * outside that chain (it can take long), and ends with the Complete state applied through it.
 */
import type { Clock, Timer } from '../../common/clock';
import { TideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { partitionOfShard, shardOf, type CoordinatorRecord } from '../../common/cluster/coordinator-shards';
import type { OffsetsLog, OffsetsLogRecord } from '../offsets-log';
import type { AcquiredShard } from '../shard-ownership';
import {
  acquiredShard,
  appendFenced,
  mayWrite,
  notOwnedError,
  ShardLoader,
  type FenceCheck,
  type OwnedShard,
  type ReplayFence,
} from '../shard-loading';
import { parseTpKey } from '../partitions';
import { TRANSACTION_STATE_TOPIC, decodeTxnStateRecord, txnKey, txnValue } from './txn-codec';
import type { TxnCompletion, TxnEnding } from './txn-completion';
import {
  add,
  alreadyAdded,
  complete,
  coveredByReservation,
  end,
  expired,
  init,
  isPrepare,
  DEFAULT_TRANSACTIONAL_ID_EXPIRATION_MS,
  MAX_PRODUCER_EPOCH,
  openReservation,
  prepare,
  rotateIfExhausted,
  timedOut,
  transactionTimeout,
  type TxnMetadata,
} from './txn-state';

export const DEFAULT_TXN_TICK_MS = 1_000;
/** How long an applied Complete state waits for the next transaction's record to stand for it. */
export const COMPLETE_WRITE_DELAY_MS = 500;
/** Marker coordinator epochs are int32 on the wire; shard epochs are etcd revisions. */
const MAX_INT32 = 0x7fff_ffff;

export interface TxnCoordinatorOptions {
  selfId: string;
  clock: Clock;
  logger: Logger;
  /** `__transaction_state` (the OffsetsLog interface over another topic). */
  log: OffsetsLog;
  /**
   * Partition count of `__transaction_state`; undefined while it is being created (the node creates
   * it in the background and calls setStatePartitions, so groups work before it exists).
   */
  statePartitions?: number;
  shardCount: () => number;
  ownerOf?: (shard: number) => CoordinatorRecord | undefined;
  /** Partition count of a data topic; undefined when it does not exist. */
  partitionCount: (topic: string) => number | undefined;
  /**
   * The `__consumer_offsets` partition (a partition key) that holds a group's offsets; undefined
   * when not known yet. AddOffsetsToTxn adds it to the transaction, as Kafka's does, so its marker
   * is written there (the leader's join would add it with the first TxnOffsetCommit otherwise).
   */
  offsetsPartitionOf?: (groupId: string) => string | undefined;
  completion: TxnCompletion;
  newProducerId: () => Promise<number>;
  maxTimeoutMs: number;
  /** Idle ids are forgotten after this long (default DEFAULT_TRANSACTIONAL_ID_EXPIRATION_MS). */
  idExpirationMs?: number;
  tickMs?: number;
  /** Told of transaction ends (metrics); absent: nobody is. */
  observer?: TxnObserver;
}

/** What the coordinator tells its metrics (metrics.ts). */
export interface TxnObserver {
  /** An idle transactional id was forgotten (transactionalIdExpirationMs). */
  expired(): void;
  /** A transaction's end is decided: its Prepare state is durable. */
  prepared(result: 'commit' | 'abort', reason: 'client' | 'timeout' | 'fenced'): void;
  /** An EndTxn call was answered, `ms` after it arrived. */
  endTxnAnswered(ms: number): void;
  /** A transaction's markers and group outcomes are all written, `ms` after its completion started. */
  completed(ms: number): void;
}

const NO_OBSERVER: TxnObserver = { expired() {}, prepared() {}, endTxnAnswered() {}, completed() {} };

interface TxnShard extends OwnedShard {
  txns: Map<string, TxnMetadata>;
  /**
   * Ids whose Complete state is applied but not written yet: `__transaction_state` still ends
   * with their Prepare state (see completion()).
   */
  unwritten: Map<string, number>;
}

export interface Identity {
  producerId: number;
  producerEpoch: number;
}

export class TransactionCoordinator {
  private readonly shards = new Map<number, TxnShard>();
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly completing = new Map<string, Promise<void>>();
  /** Ids whose Complete state is being written (writeCompleteLater). */
  private readonly writingComplete = new Set<string>();
  /** Ids whose expiry tombstone is being written. */
  private readonly expiring = new Set<string>();
  /** Ids replayed in a Prepare state with a reservation: it opens once they complete (activate). */
  private readonly replayedReservations = new Set<string>();
  private readonly logger: Logger;
  private readonly loader: ShardLoader<Map<string, TxnMetadata>>;
  private timer?: Timer;
  private stopped = false;
  private statePartitions: number | undefined;
  /** Shards acquired before `__transaction_state` existed: loaded by setStatePartitions. */
  private deferred: AcquiredShard[] = [];
  private readonly observer: TxnObserver;

  constructor(private readonly options: TxnCoordinatorOptions) {
    this.logger = options.logger.child({ component: 'txn-coordinator' });
    this.observer = options.observer ?? NO_OBSERVER;
    this.statePartitions = options.statePartitions;
    this.loader = new ShardLoader({
      clock: options.clock,
      logger: this.logger,
      what: 'transaction shards',
      partitionOf: (shard) => partitionOfShard(shard, this.partitions()),
      stillOwned: (a) => this.stillOwned(a),
      append: (shards, partition, records) =>
        this.appendFenced(
          shards.map((a) => this.shards.get(a.shard)!),
          partition,
          records,
        ),
      replay: (partition, through, fence) =>
        replayTxnState(this.options.log, partition, through, fence, this.options.shardCount(), this.logger),
      activate: (shards, txns) => this.activate(shards, txns),
    });
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** `__transaction_state` exists with this many partitions: the shards owned so far load now. */
  setStatePartitions(partitions: number): void {
    if (this.statePartitions !== undefined) return;
    this.statePartitions = partitions;
    const deferred = this.deferred.filter((a) => this.stillOwned(a));
    this.deferred = [];
    this.loader.load(deferred);
  }

  start(): void {
    this.timer = this.options.clock.setInterval(
      () => this.tick(),
      this.options.tickMs ?? DEFAULT_TXN_TICK_MS,
    );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    for (const shard of [...this.shards.keys()]) this.release(shard);
    await Promise.allSettled([...this.chains.values()]);
  }

  /** Transactions by state, for metrics and tests. */
  loadedShards(): { shard: number; epoch: number; status: string; transactions: number }[] {
    return [...this.shards.values()].map((s) => ({
      shard: s.shard,
      epoch: s.epoch,
      status: s.status,
      transactions: s.txns.size,
    }));
  }

  // ---------------------------------------------------------------- shard ownership

  acquire(acquired: AcquiredShard[]): void {
    for (const a of acquired)
      this.shards.set(a.shard, { ...acquiredShard(a), txns: new Map(), unwritten: new Map() });
    if (this.statePartitions === undefined) this.deferred.push(...acquired);
    else this.loader.load(acquired);
  }

  /** Stops serving a shard; completions in flight stop at their next retry (the new owner resumes). */
  release(shard: number): void {
    const state = this.shards.get(shard);
    if (!state) return;
    this.shards.delete(shard);
    state.writable = false;
    this.logger.info({ shard, transactions: state.txns.size }, 'stopped serving transactions of a shard');
  }

  // ---------------------------------------------------------------- the calls

  async initTransactions(transactionalId: string, requestedTimeoutMs: number): Promise<Identity> {
    const timeoutMs = transactionTimeout(requestedTimeoutMs, this.options.maxTimeoutMs);
    for (;;) {
      const shard = this.shardOf(transactionalId);
      const m = shard.txns.get(transactionalId);
      if (m && (m.state === 'Ongoing' || isPrepare(m.state))) {
        // The previous producer's transaction is aborted (fencing it), then this one starts.
        await this.serial(transactionalId, async (s) => {
          const current = s.txns.get(transactionalId);
          if (current?.state !== 'Ongoing') return;
          await this.persist(s, prepare(current, 'PrepareAbort', this.options.clock.nowMs()));
          this.observer.prepared('abort', 'fenced');
        });
        await this.completion(transactionalId);
        continue;
      }
      return this.serial(transactionalId, async (s) => {
        const current = s.txns.get(transactionalId);
        if (current && !(current.state === 'Empty' || current.state.startsWith('Complete')))
          throw new TideError(
            'CONCURRENT_TRANSACTIONS',
            `transactional id ${transactionalId} is in ${current.state}; retry`,
          );
        const next = await init(current, transactionalId, {
          timeoutMs,
          nowMs: this.options.clock.nowMs(),
          newProducerId: this.options.newProducerId,
        });
        await this.persist(s, next);
        this.logger.debug(
          { transactionalId, producerId: next.producerId, epoch: next.producerEpoch },
          'transactional producer initialised',
        );
        return { producerId: next.producerId, producerEpoch: next.producerEpoch };
      });
    }
  }

  async addPartitions(
    transactionalId: string,
    producerId: number,
    epoch: number,
    keys: string[],
  ): Promise<void> {
    for (const key of keys) {
      const { topic, partition } = parseTpKey(key);
      const count = this.options.partitionCount(topic);
      if (count === undefined)
        throw new TideError('UNKNOWN_TOPIC', `topic ${topic} does not exist`, { context: { topic } });
      if (partition >= count)
        throw new TideError('UNKNOWN_PARTITION', `topic ${topic} has ${count} partitions`, {
          context: { topic, partition },
        });
    }
    return this.addToTxn(transactionalId, producerId, epoch, { partitions: keys });
  }

  addOffsets(transactionalId: string, producerId: number, epoch: number, groupId: string): Promise<void> {
    const partition = this.options.offsetsPartitionOf?.(groupId);
    return this.addToTxn(transactionalId, producerId, epoch, {
      groups: [groupId],
      ...(partition !== undefined ? { partitions: [partition] } : {}),
    });
  }

  /**
   * Ends the open transaction. Resolves with the identity of the next transaction once the
   * Prepare state is durable: from then on the outcome is decided, and this instance (or the next
   * owner of the shard, on takeover) writes the markers and completes it in the background, as
   * Kafka's coordinator does. Calls of the next transaction wait for that completion
   * (whenCompleted). Only when the bumped epoch exhausts the producer id does it wait for the
   * completion itself (the next identity is a new producer id, chosen at completion).
   *
   * `reserve`: the Prepare record also reserves this transaction's partitions for the next one
   * (txn-state.ts reserve), whose joins there then need no write; the answer is then the reserved
   * epoch (Prepare epoch + 1).
   */
  async endTxn(
    transactionalId: string,
    producerId: number,
    epoch: number,
    commit: boolean,
    reserve = false,
  ): Promise<Identity> {
    const startedMs = this.options.clock.nowMs();
    const decision = await this.whenCompleted(transactionalId, producerId, epoch, () =>
      this.serial(transactionalId, async (s) => {
        const m = this.known(s, transactionalId);
        const d = end(m, producerId, epoch, commit, this.options.clock.nowMs(), reserve);
        if (d.kind === 'prepare') await this.persist(s, d.next);
        return d;
      }),
    );
    if (decision.kind === 'prepare') this.observer.prepared(commit ? 'commit' : 'abort', 'client');
    const completing = this.completion(transactionalId);
    // Handed over (shard lost): the next owner completes it; the caller already has its answer.
    completing.catch(() => undefined);
    const m = this.known(this.shardOf(transactionalId), transactionalId);
    if (m.producerEpoch >= MAX_PRODUCER_EPOCH && isPrepare(m.state)) await completing;
    const next = this.known(this.shardOf(transactionalId), transactionalId);
    this.observer.endTxnAnswered(this.options.clock.nowMs() - startedMs);
    const producerEpoch =
      isPrepare(next.state) && next.reserved ? next.reserved.producerEpoch : next.producerEpoch;
    return { producerId: next.producerId, producerEpoch };
  }

  describe(transactionalId: string): TxnMetadata {
    return this.known(this.shardOf(transactionalId), transactionalId);
  }

  list(states: readonly string[]): TxnMetadata[] {
    const out: TxnMetadata[] = [];
    for (const s of this.shards.values()) {
      if (s.status !== 'active') continue;
      for (const m of s.txns.values()) if (states.length === 0 || states.includes(m.state)) out.push(m);
    }
    return out.sort((a, b) => (a.transactionalId < b.transactionalId ? -1 : 1));
  }

  // ---------------------------------------------------------------- internals

  private async addToTxn(
    transactionalId: string,
    producerId: number,
    epoch: number,
    what: { partitions?: string[]; groups?: string[] },
  ): Promise<void> {
    await this.whenCompleted(transactionalId, producerId, epoch, () =>
      this.serial(transactionalId, async (s) => {
        const m = this.known(s, transactionalId);
        const next = add(m, producerId, epoch, what, this.options.clock.nowMs());
        // A retried add changes nothing: answered without a write (the checks above still ran).
        if (alreadyAdded(m, what)) return;
        // Reserved by the previous transaction's Prepare record: durable already.
        if (coveredByReservation(m, what)) {
          s.txns.set(transactionalId, next);
          return;
        }
        await this.persist(s, next);
      }),
    );
  }

  /**
   * Runs `call`; while it fails with CONCURRENT_TRANSACTIONS because the previous transaction of
   * this producer (the one whose end bumped the epoch to `epoch`) is still writing its markers,
   * waits for that completion and runs it again. So the next transaction's first call is answered
   * as soon as the previous one is complete, instead of the caller polling (KIP-890's producer
   * retries CONCURRENT_TRANSACTIONS the same way, only from afar). Every partition and group of
   * the previous transaction has its marker or outcome before the next can add anything: a
   * partition never sees the next transaction's records before the previous one's marker.
   */
  private async whenCompleted<T>(
    transactionalId: string,
    producerId: number,
    epoch: number,
    call: () => Promise<T>,
  ): Promise<T> {
    for (;;) {
      try {
        return await call();
      } catch (err) {
        const m = this.shardOf(transactionalId).txns.get(transactionalId);
        const waiting =
          (err as TideError).code === 'CONCURRENT_TRANSACTIONS' &&
          m !== undefined &&
          isPrepare(m.state) &&
          m.producerId === producerId &&
          (m.producerEpoch === epoch || m.reserved?.producerEpoch === epoch);
        if (!waiting) throw err;
        await this.completion(transactionalId);
      }
    }
  }

  /** The shard of an id, if this instance serves it now (else the retriable error saying why). */
  private shardOf(transactionalId: string): TxnShard {
    const shardCount = this.options.shardCount();
    if (shardCount === 0)
      throw new TideError('COORDINATOR_NOT_AVAILABLE', 'this coordinator is still starting');
    const shard = shardOf(transactionalId, shardCount);
    const state = this.shards.get(shard);
    if (!state)
      throw notOwnedError(
        this.options.selfId,
        shard,
        `transactional id ${transactionalId}`,
        this.options.ownerOf?.(shard),
      );
    const fenced = this.fenceError(state, 'before');
    if (fenced) throw fenced;
    if (state.status === 'loading')
      throw new TideError(
        'COORDINATOR_NOT_AVAILABLE',
        this.statePartitions === undefined
          ? `${TRANSACTION_STATE_TOPIC} does not exist yet (the coordinator creates it once enough brokers are registered)`
          : `shard ${shard} of transactional id ${transactionalId} is still loading`,
      );
    return state;
  }

  private known(s: TxnShard, transactionalId: string): TxnMetadata {
    const m = s.txns.get(transactionalId);
    if (!m)
      throw new TideError(
        'TRANSACTIONAL_ID_NOT_FOUND',
        `transactional id ${transactionalId} is unknown: call initTransactions first`,
      );
    return m;
  }

  /** Runs `fn` after every earlier call of the same id (on the shard as it is then). */
  private serial<T>(transactionalId: string, fn: (s: TxnShard) => Promise<T>): Promise<T> {
    const previous = this.chains.get(transactionalId) ?? Promise.resolve();
    const run = previous.then(() => fn(this.shardOf(transactionalId)));
    const tail = run.catch(() => undefined);
    this.chains.set(transactionalId, tail);
    void tail.then(() => {
      if (this.chains.get(transactionalId) === tail) this.chains.delete(transactionalId);
    });
    return run;
  }

  /** Appends the new state (fenced), then applies it. */
  private async persist(s: TxnShard, next: TxnMetadata): Promise<void> {
    await this.appendFenced([s], partitionOfShard(s.shard, this.partitions()), [
      { key: txnKey(next.transactionalId), value: txnValue(s.epoch, next) },
    ]);
    s.txns.set(next.transactionalId, next);
    s.unwritten.delete(next.transactionalId);
  }

  /** The running completion of the id's Prepare state (started when none runs); resolved when not in one. */
  private completion(transactionalId: string): Promise<void> {
    const running = this.completing.get(transactionalId);
    if (running) return running;
    const s = this.shardOf(transactionalId);
    const m = s.txns.get(transactionalId);
    if (!m || !isPrepare(m.state)) return Promise.resolve();
    const ending: TxnEnding = {
      transactionalId,
      producerId: m.producerId,
      producerEpoch: m.producerEpoch,
      coordinatorEpoch: Math.min(s.epoch, MAX_INT32),
      commit: m.state === 'PrepareCommit',
      partitions: m.partitions,
      groups: m.groups,
    };
    const cancelled = () => this.stopped || this.shards.get(s.shard) !== s || !s.writable;
    const startedMs = this.options.clock.nowMs();
    const done = this.options.completion
      .complete(ending, cancelled)
      .then(() =>
        this.serial(transactionalId, async (current) => {
          const now = current.txns.get(transactionalId);
          if (!now || now.state !== m.state || now.producerEpoch !== m.producerEpoch) return;
          let completed = complete(now, this.options.clock.nowMs());
          if (this.replayedReservations.delete(transactionalId))
            completed = openReservation(completed, this.options.clock.nowMs());
          const next = await rotateIfExhausted(completed, this.options.newProducerId);
          // A new producer id must be durable before anyone is told it.
          if (next !== completed) await this.persist(current, next);
          else {
            current.txns.set(transactionalId, next);
            current.unwritten.set(transactionalId, this.options.clock.nowMs());
          }
          this.observer.completed(this.options.clock.nowMs() - startedMs);
          this.logger.debug(
            { transactionalId, state: m.state, partitions: m.partitions.length, groups: m.groups.length },
            'transaction completed',
          );
        }),
      )
      .finally(() => this.completing.delete(transactionalId));
    this.completing.set(transactionalId, done);
    return done;
  }

  /**
   * Writes an applied Complete state unless a newer state of the id is written first. Left to the
   * tick, and only once the completion is at least COMPLETE_WRITE_DELAY_MS old, so that the next
   * transaction's first call (a producer running transactions back to back makes it within
   * milliseconds) writes its own state first: that record (Ongoing, Empty) then stands for the
   * completion, and the next transaction pays one `__transaction_state` write, not two, with none
   * of them queued behind a Complete write.
   *
   * Why a completion may go unwritten: the log holding the Prepare state instead only means that
   * a new owner of the shard writes the markers again and completes it. Markers are idempotent,
   * and they cannot touch the next transaction: its records reach a partition only once its own
   * state is durable after this Prepare (txn-join.ts), and then replay finds that state, not
   * the Prepare.
   */
  private writeCompleteLater(s: TxnShard, nowMs: number): void {
    for (const [transactionalId, completedMs] of s.unwritten) {
      if (nowMs - completedMs < COMPLETE_WRITE_DELAY_MS || this.writingComplete.has(transactionalId))
        continue;
      this.writingComplete.add(transactionalId);
      void this.serial(transactionalId, async (current) => {
        const m = current.txns.get(transactionalId);
        if (m && current.unwritten.has(transactionalId)) await this.persist(current, m);
      })
        .catch((err: unknown) =>
          this.logger.debug(
            { err, transactionalId },
            'writing a completed state failed; the next tick retries',
          ),
        )
        .finally(() => this.writingComplete.delete(transactionalId));
    }
  }

  private tick(): void {
    const nowMs = this.options.clock.nowMs();
    for (const s of this.shards.values()) {
      // A paused instance waking past its lease aborts nobody: the transactions are not its to judge.
      if (s.status !== 'active' || !s.fence.mayAct()) continue;
      this.writeCompleteLater(s, nowMs);
      this.expireIdle(s, nowMs);
      for (const m of s.txns.values()) {
        if (!timedOut(m, nowMs)) continue;
        const id = m.transactionalId;
        void this.serial(id, async (current) => {
          const now = current.txns.get(id);
          if (!now || !timedOut(now, this.options.clock.nowMs())) return;
          this.logger.info(
            {
              transactionalId: id,
              producerId: now.producerId,
              epoch: now.producerEpoch,
              timeoutMs: now.timeoutMs,
            },
            'aborting a transaction open past its timeout',
          );
          await this.persist(current, prepare(now, 'PrepareAbort', this.options.clock.nowMs()));
          this.observer.prepared('abort', 'timeout');
        })
          .then(() => this.completion(id))
          .catch((err: unknown) =>
            this.logger.warn({ err, transactionalId: id }, 'timeout abort failed; retrying'),
          );
      }
    }
  }

  /**
   * Forgets the shard's ids idle past transactionalIdExpirationMs: a tombstone in
   * `__transaction_state` (replay then drops the id; compaction drops both), then the memory. A
   * producer that uses the id again gets a new producer id; one still using the old identity is
   * refused (TRANSACTIONAL_ID_NOT_FOUND, or fenced by the new producer id).
   */
  private expireIdle(s: TxnShard, nowMs: number): void {
    const expirationMs = this.options.idExpirationMs ?? DEFAULT_TRANSACTIONAL_ID_EXPIRATION_MS;
    for (const m of s.txns.values()) {
      if (!expired(m, nowMs, expirationMs) || this.expiring.has(m.transactionalId)) continue;
      const id = m.transactionalId;
      this.expiring.add(id);
      void this.serial(id, async (current) => {
        const now = current.txns.get(id);
        if (!now || !expired(now, this.options.clock.nowMs(), expirationMs)) return;
        await this.appendFenced([current], partitionOfShard(current.shard, this.partitions()), [
          { key: txnKey(id), value: null },
        ]);
        current.txns.delete(id);
        current.unwritten.delete(id);
        this.observer.expired();
        this.logger.info(
          {
            transactionalId: id,
            producerId: now.producerId,
            idleMs: this.options.clock.nowMs() - now.lastUpdateMs,
          },
          'transactional id expired',
        );
      })
        .catch((err: unknown) =>
          this.logger.warn({ err, transactionalId: id }, 'expiring a transactional id failed; retrying'),
        )
        .finally(() => this.expiring.delete(id));
    }
  }

  private appendFenced(
    states: readonly TxnShard[],
    partition: number,
    records: OffsetsLogRecord[],
  ): Promise<number> {
    return appendFenced(this.options.log, states, partition, records, (s, when) => this.fenceError(s, when));
  }

  private fenceError(s: TxnShard, when: FenceCheck): TideError | undefined {
    if (mayWrite(s)) return undefined;
    const what =
      when === 'before'
        ? `shard ${s.shard} may already belong to another coordinator`
        : `a write of shard ${s.shard} completed after that, so it is not acknowledged`;
    return new TideError(
      'NOT_COORDINATOR',
      `coordinator ${this.options.selfId} no longer certainly holds its lease or gave shard ${s.shard} up: ${what}; find the transaction coordinator again and retry`,
    );
  }

  private partitions(): number {
    if (this.statePartitions === undefined)
      throw new TideError('COORDINATOR_NOT_AVAILABLE', `${TRANSACTION_STATE_TOPIC} does not exist yet`);
    return this.statePartitions;
  }

  private stillOwned(a: AcquiredShard): boolean {
    const s = this.shards.get(a.shard);
    return s !== undefined && s.epoch === a.epoch && !this.stopped;
  }

  private activate(shards: AcquiredShard[], txns: Map<string, TxnMetadata>): void {
    const shardCount = this.options.shardCount();
    const resumed: string[] = [];
    for (const a of shards) {
      if (!this.stillOwned(a)) continue;
      const s = this.shards.get(a.shard)!;
      for (const [id, m] of txns) {
        if (shardOf(id, shardCount) !== a.shard) continue;
        // A reservation may already hold records of the next transaction: it is open from now on.
        s.txns.set(id, openReservation(m, this.options.clock.nowMs()));
        if (isPrepare(m.state)) resumed.push(id);
        if (isPrepare(m.state) && m.reserved) this.replayedReservations.add(id);
      }
      s.status = 'active';
    }
    this.logger.info(
      { shards: shards.map((a) => a.shard), transactions: txns.size, resumed: resumed.length },
      'transaction shards loaded',
    );
    for (const id of resumed)
      void this.completion(id).catch((err: unknown) =>
        this.logger.warn({ err, transactionalId: id }, 'resuming a transaction end stopped'),
      );
  }
}

/**
 * The transactions of the fence's shards in `partition` of `__transaction_state`, through `through`: the
 * last record per id, skipping records of a deposed owner (older than its shard's newest marker).
 */
export async function replayTxnState(
  log: OffsetsLog,
  partition: number,
  through: number,
  fence: ReplayFence,
  shardCount: number,
  logger: Logger,
): Promise<Map<string, TxnMetadata>> {
  const txns = new Map<string, TxnMetadata>();
  await log.replay(partition, through, (key, value, offset) => {
    let record;
    try {
      record = decodeTxnStateRecord(key, value);
    } catch (err) {
      logger.error({ err, partition, offset }, 'skipping a malformed transaction state record');
      return;
    }
    if (record.type === 'unknown') return;
    if (record.type === 'marker') {
      if (record.value) fence.marker(record.shard, record.value.coordinatorEpoch);
      return;
    }
    const shard = shardOf(record.transactionalId, shardCount);
    if (!fence.wants(shard)) return;
    if (!record.value) {
      txns.delete(record.transactionalId);
      return;
    }
    if (fence.stale(shard, record.value.coordinatorEpoch)) return;
    txns.set(record.transactionalId, record.value.metadata);
  });
  fence.reportSkipped(
    logger,
    partition,
    "ignored transaction records of a deposed coordinator (after its successor's marker)",
  );
  return txns;
}
