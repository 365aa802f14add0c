/**
 * One partition replica hosted by this broker: its log plus what the storage engine does not know
 * about — the role (leader or follower) at a leader epoch, the high watermark, the ISR as this
 * replica last learned it, and, as leader, the followers' progress and the requests waiting on it.
 * Rules and worked examples: docs/replication.md.
 *
 * Roles (ReplicaManager moves a partition between them as metadata changes):
 *
 *   offline  --makeLeader(E)-->  leader at E      (assigns epoch E at the LEO, then serves)
 *   offline  --makeFollower-->   follower at E    (fetches from the leader; never serves clients)
 *   leader   --makeFollower-->   follower         (pending acks=all fail with NOT_LEADER)
 *   follower --makeLeader(E)-->  leader at E      (no truncation: a new leader keeps its log)
 *   any      --close()------->   closed           (topic deleted or replica moved away)
 *
 * As leader: HW = min LEO over the maximal ISR (isr.ts), never backwards; producer requests with
 * acks=all need |ISR| >= min.insync.replicas before the append and complete once HW passes their
 * last offset; followers lagging more than replica.lag.time.max.ms are proposed out of the ISR,
 * caught-up ones back in (AlterPartition through the IsrProposer). A broker whose registration
 * lapsed (mayLead() false) refuses produce requests: a zombie leader acknowledges nothing.
 * As follower: appends what the leader sends (appendAsFollower), HW = min(leader HW, own LEO),
 * truncates only by leader epoch (truncation.ts).
 */
import type { Clock, Timer } from '../../common/clock';
import { TideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import type { PartitionState } from '../../common/metadata/keys';
import type { IsrProposal } from '../../common/cluster/controller-client';
import type { AppendResult, EpochEndOffset, PartitionLog, ReadResult } from '../log';
import { encodeControlBatch, type ControlType } from '../../common/records';
import { AckWaiters } from './ack-waiters';
import {
  FollowerState,
  UNKNOWN_LEO,
  highWatermarkFor,
  lowWatermarkFor,
  mayJoinIsr,
  maximalIsr,
  outOfSyncReplicas,
} from './isr';
import { ReplicationTail } from './replication-tail';
import type { ReplicationSettings } from './replication-settings';
import { divergenceTruncationOffset } from './truncation';
import { TxnJoins, transactionalProducerOf, type TxnPartitionJoiner } from './txn-join';

export interface PartitionReadResult extends ReadResult {
  highWatermark: number;
  /** The last stable offset when the read was served (read_committed reads stop below it). */
  lastStableOffset: number;
}

/**
 * read_uncommitted (default, as Kafka): up to the high watermark. read_committed: up to the last
 * stable offset, with the aborted transactions of the read (the caller or client filters them).
 */
export type IsolationLevel = 'read_uncommitted' | 'read_committed';

/** A transaction marker the coordinator asks this leader to write (WriteTxnMarkers). */
export interface TxnMarkerInput {
  type: ControlType;
  producerId: number;
  producerEpoch: number;
  coordinatorEpoch: number;
  /** How long to wait for the marker to be replicated below the high watermark. */
  timeoutMs: number;
}

/** What writeTxnMarker did: appended a marker, or found nothing open (an idempotent retry). */
export type TxnMarkerOutcome = 'written' | 'no-open-transaction';

export type PartitionRole = 'leader' | 'follower' | 'offline' | 'closed';

/** How many replicas must have a produced batch before the producer hears back. */
export type ProduceAcks = 'none' | 'leader' | 'all';

export interface ProduceOptions {
  /** Default 'all' (as ProduceRequest's unset acks). */
  acks?: ProduceAcks;
  /** acks=all: how long to wait for the ISR; default settings.produceTimeoutDefaultMs. */
  timeoutMs?: number;
  /**
   * The transactional id of a transactional producer: its first batch here in a transaction joins
   * the partition to the transaction at the coordinator first (txn-join.ts).
   */
  transactionalId?: string;
  /**
   * 'group-coordinator' for a write to an internal topic by Tide's group coordinator: its
   * transactional offset commits come without sequence numbers (log AppendOptions.origin).
   */
  origin?: 'client' | 'group-coordinator';
}

/** An ISR change a leader proposes to the controller (one type with the controller client's). */
export type { IsrProposal };

/**
 * The controller's AlterPartition, as the partition layer needs it: resolves with the partition's
 * state after the change (its partition epoch bumped when the ISR changed), rejects with
 * FENCED_EPOCH when the proposal's epochs are stale. ControllerClient implements it.
 */
export interface IsrProposer {
  alterPartition(request: IsrProposal): Promise<PartitionState>;
}

export interface PartitionDeps {
  brokerId: number;
  clock: Clock;
  logger: Logger;
  settings: ReplicationSettings;
  /** Absent: ISR changes are never proposed (single-node setups). */
  isrProposer?: IsrProposer;
  /** False while this broker must not act as a leader (registration lost or stale). */
  mayLead?: () => boolean;
  /**
   * The transaction coordinator, for transactional batches sent with their transactional id
   * (txn-join.ts). Absent: such batches append without asking it (unit tests).
   */
  txnJoiner?: TxnPartitionJoiner;
}

/** A snapshot for `cluster describe` and tests. */
export interface PartitionStatus {
  topic: string;
  partition: number;
  role: PartitionRole;
  leader: number;
  leaderEpoch: number;
  partitionEpoch: number;
  replicas: number[];
  isr: number[];
  pendingIsr?: number[];
  highWatermark: number;
  lastStableOffset: number;
  logStartOffset: number;
  logEndOffset: number;
  followers: { brokerId: number; leo: number; lastCaughtUpTimeMs: number }[];
}

interface DataWaiter {
  offset: number;
  /** Waits for the last stable offset to pass `offset` rather than the high watermark. */
  committed: boolean;
  resolve: () => void;
  timer?: Timer;
}

export class Partition {
  readonly topic: string;
  readonly partition: number;
  private readonly logger: Logger;
  private currentRole: PartitionRole = 'offline';
  private leader = -1;
  private epoch = -1;
  private partitionEpochValue = -1;
  private replicaIds: number[] = [];
  private isrIds: number[] = [];
  private minIsr = 1;
  private hw: number;
  /** Transactional appends waiting for their partition to join the transaction (txn-join.ts). */
  private txnJoins?: TxnJoins;
  /** As leader: the offset after the last local append that completed (written, and synced under 'sync'). */
  private localLeo: number;
  private leaderEpochStartOffset = 0;
  private readonly followers = new Map<number, FollowerState>();
  /** Followers whose replication streams to this broker all broke (see followerStreamLost). */
  private readonly lostFollowers = new Set<number>();
  /** The log failed (disk error): offline for good in this process. */
  private logFailure: Error | undefined;
  private pendingIsr: number[] | undefined;
  private nextProposalMs = 0;
  private readonly acks: AckWaiters;
  /** DeleteRecords requests waiting for the low watermark to reach their offset. */
  private readonly deletions: AckWaiters;
  private readonly dataWaiters = new Set<DataWaiter>();
  private readonly listeners = new Set<() => void>();
  /** As leader with followers: the newest appends, served to followers from memory. */
  private readonly tail = new ReplicationTail();
  /**
   * The newest coordinator epoch that wrote a marker for each producer here (Kafka keeps it in the
   * producer state). In memory only: a new leader starts empty and learns from the next marker.
   */
  private readonly coordinatorEpochs = new Map<number, number>();

  constructor(
    readonly log: PartitionLog,
    private readonly deps: PartitionDeps,
  ) {
    this.topic = log.topic;
    this.partition = log.partition;
    this.logger = deps.logger.child({ component: 'partition', topic: this.topic, partition: this.partition });
    this.hw = log.logStartOffset;
    this.localLeo = log.logEndOffset;
    this.acks = new AckWaiters(deps.clock, {
      topic: this.topic,
      partition: this.partition,
      broker: deps.brokerId,
    });
    this.deletions = new AckWaiters(
      deps.clock,
      { topic: this.topic, partition: this.partition, broker: deps.brokerId },
      (offset, timeoutMs) =>
        `the in-sync followers did not move their log start to ${offset} within ${timeoutMs} ms (the leader did: records below it are gone)`,
    );
  }

  // ----------------------------------------------------------------------------------- state views

  get role(): PartitionRole {
    return this.currentRole;
  }
  get highWatermark(): number {
    return this.hw;
  }
  get leaderEpoch(): number {
    return this.epoch;
  }
  /** The leader's broker id as last learned (-1: none). */
  get leaderId(): number {
    return this.leader;
  }
  get partitionEpoch(): number {
    return this.partitionEpochValue;
  }
  get replicas(): readonly number[] {
    return this.replicaIds;
  }
  /** The committed ISR (as the controller last confirmed it). */
  get isr(): readonly number[] {
    return this.isrIds;
  }
  /** As leader: the LEO the HW and follower catch-up are measured against. */
  get leaderLogEndOffset(): number {
    return this.localLeo;
  }
  /**
   * The last stable offset: the first offset of the oldest transaction still open, or closed by a
   * marker not yet below the high watermark; the high watermark when there is none.
   */
  get lastStableOffset(): number {
    return this.log.lastStableOffset(this.hw);
  }

  status(): PartitionStatus {
    return {
      topic: this.topic,
      partition: this.partition,
      role: this.currentRole,
      leader: this.leader,
      leaderEpoch: this.epoch,
      partitionEpoch: this.partitionEpochValue,
      replicas: [...this.replicaIds],
      isr: [...this.isrIds],
      ...(this.pendingIsr ? { pendingIsr: [...this.pendingIsr] } : {}),
      highWatermark: this.hw,
      lastStableOffset: this.lastStableOffset,
      logStartOffset: this.log.logStartOffset,
      logEndOffset: this.log.logEndOffset,
      followers: [...this.followers.values()].map((f) => ({
        brokerId: f.brokerId,
        leo: f.leo,
        lastCaughtUpTimeMs: f.lastCaughtUpTimeMs,
      })),
    };
  }

  /** Calls `listener` after each change a replication long poll waits for; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---------------------------------------------------------------------------------- transitions

  /**
   * Becomes (or stays) leader at state.leaderEpoch. A new epoch is assigned at the log end first
   * (after every queued write), then the partition serves; the followers' LEOs are unknown until
   * they fetch, which holds the HW where it is. Same epoch: adopts the ISR and partition epoch.
   */
  async makeLeader(state: PartitionState, minInsyncReplicas: number): Promise<void> {
    if (this.currentRole === 'closed' || this.logFailure || state.leaderEpoch < this.epoch) return;
    if (this.currentRole === 'leader' && state.leaderEpoch === this.epoch) {
      this.adoptState(state, minInsyncReplicas);
      return;
    }
    const wasLeader = this.currentRole === 'leader';
    this.currentRole = 'offline';
    this.setMetadata(state, minInsyncReplicas);
    this.pendingIsr = undefined;
    await this.log.assignEpoch(state.leaderEpoch);
    if (this.currentRole !== 'offline' || this.epoch !== state.leaderEpoch) return;
    this.leaderEpochStartOffset = this.log.logEndOffset;
    this.localLeo = this.log.logEndOffset;
    this.followers.clear();
    this.tail.clear();
    this.lostFollowers.clear();
    const nowMs = this.deps.clock.nowMs();
    for (const id of this.replicaIds) {
      if (id !== this.deps.brokerId)
        this.followers.set(id, new FollowerState(id, nowMs, this.isrIds.includes(id)));
    }
    this.currentRole = 'leader';
    this.logger.info(
      {
        leaderEpoch: this.epoch,
        leaderEpochStartOffset: this.leaderEpochStartOffset,
        highWatermark: this.hw,
        isr: this.isrIds,
        wasLeader,
      },
      'became leader',
    );
    this.maybeAdvanceHighWatermark();
    this.notifyChange();
  }

  /**
   * Becomes (or stays) a follower of state.leader at state.leaderEpoch (leader -1: no leader, the
   * replica waits). Pending acks=all requests fail with NOT_LEADER; nothing is truncated here (the
   * fetcher does that by leader epoch).
   */
  makeFollower(state: PartitionState): void {
    if (this.currentRole === 'closed' || this.logFailure || state.leaderEpoch < this.epoch) return;
    if (this.currentRole === 'follower' && state.leaderEpoch === this.epoch && state.leader === this.leader) {
      this.adoptState(state, this.minIsr);
      return;
    }
    const wasLeader = this.currentRole === 'leader';
    this.currentRole = 'follower';
    this.setMetadata(state, this.minIsr);
    this.pendingIsr = undefined;
    this.followers.clear();
    this.tail.clear();
    this.lostFollowers.clear();
    this.acks.failAll(() => this.notLeaderError());
    this.deletions.failAll(() => this.notLeaderError());
    this.hw = Math.min(this.hw, this.log.logEndOffset);
    this.releaseDataWaiters(true);
    if (wasLeader || state.leader >= 0) {
      this.logger.info(
        { leader: state.leader, leaderEpoch: state.leaderEpoch, highWatermark: this.hw },
        'became follower',
      );
    }
    this.notifyChange();
  }

  /**
   * A newer partition state at the same leader epoch (ISR or replicas changed, e.g. the answer to
   * this leader's AlterPartition or the controller removing a dead broker). Older states are ignored.
   */
  adoptState(state: PartitionState, minInsyncReplicas: number): void {
    if (state.leaderEpoch !== this.epoch || state.partitionEpoch < this.partitionEpochValue) return;
    this.minIsr = minInsyncReplicas;
    if (state.partitionEpoch === this.partitionEpochValue) return;
    this.setMetadata(state, minInsyncReplicas);
    this.pendingIsr = undefined;
    if (this.currentRole !== 'leader') return;
    const nowMs = this.deps.clock.nowMs();
    for (const id of [...this.followers.keys()]) if (!this.replicaIds.includes(id)) this.followers.delete(id);
    for (const id of this.replicaIds) {
      if (id !== this.deps.brokerId && !this.followers.has(id)) {
        this.followers.set(id, new FollowerState(id, nowMs, this.isrIds.includes(id)));
      }
    }
    this.maybeAdvanceHighWatermark();
    this.completeAcks();
    this.completeDeletions();
    this.notifyChange();
  }

  /** True once the log failed (logFailed). */
  get isLogFailed(): boolean {
    return this.logFailure !== undefined;
  }

  /**
   * The log failed (a disk write or fsync error): the replica stops serving and stays offline
   * whatever the metadata says, until the process restarts and recovers the log. Pending acks=all
   * requests fail with NOT_LEADER (retriable: the producer re-sends to the next leader, and
   * idempotence keeps that exactly-once); nothing in the failed write round was acknowledged.
   */
  logFailed(error: Error): void {
    if (this.currentRole === 'closed' || this.logFailure) return;
    this.logFailure = error;
    this.currentRole = 'offline';
    this.pendingIsr = undefined;
    this.followers.clear();
    this.tail.clear();
    this.lostFollowers.clear();
    this.acks.failAll(() => this.notLeaderError());
    this.deletions.failAll(() => this.notLeaderError());
    this.releaseDataWaiters(true);
    this.notifyChange();
  }

  /** Stops serving for good (topic deleted, replica moved): everything waiting returns. */
  close(): void {
    this.currentRole = 'closed';
    this.tail.clear();
    this.acks.failAll(() => this.notLeaderError());
    this.deletions.failAll(() => this.notLeaderError());
    this.releaseDataWaiters(true);
    this.notifyChange();
  }

  private setMetadata(state: PartitionState, minInsyncReplicas: number): void {
    this.leader = state.leader;
    this.epoch = state.leaderEpoch;
    this.partitionEpochValue = state.partitionEpoch;
    this.replicaIds = [...state.replicas];
    this.isrIds = [...state.isr];
    this.minIsr = minInsyncReplicas;
  }

  // ------------------------------------------------------------------------------- leader: clients

  /**
   * Appends a producer's batches as leader. Throws NOT_LEADER (not the leader, or this broker's
   * registration lapsed), NOT_ENOUGH_REPLICAS (acks=all with |ISR| < min.insync.replicas, before
   * anything is appended), the log's errors; with acks=all then waits until the HW passes the last
   * offset: REQUEST_TIMED_OUT after the timeout, NOT_ENOUGH_REPLICAS when the ISR has shrunk below
   * min.insync.replicas by then, NOT_LEADER when leadership moved. The log's append is called
   * synchronously, so offsets follow call order.
   */
  append(batches: Buffer, options: ProduceOptions = {}): Promise<AppendResult> {
    try {
      const joiner = this.deps.txnJoiner;
      const producer = joiner ? transactionalProducerOf(batches) : undefined;
      if (!producer || !joiner) return this.appendAsLeader(batches, options);
      this.ensureLeader(true);
      if (!options.transactionalId)
        throw new TideError(
          'INVALID_REQUEST',
          `transactional batches of producer ${producer.producerId} epoch ${producer.producerEpoch} need the producer's transactional_id in the produce request: the leader adds ${this.topic}/${this.partition} to that transaction first (docs/transactions.md)`,
          { context: this.context() },
        );
      this.txnJoins ??= new TxnJoins(joiner, (id, epoch) => this.log.hasOpenTransaction(id, epoch), {
        topic: this.topic,
        partition: this.partition,
      });
      const timeoutMs = options.timeoutMs || this.deps.settings.produceTimeoutDefaultMs;
      return this.txnJoins.run(producer, options.transactionalId!, timeoutMs, () =>
        this.appendAsLeader(batches, options),
      );
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private async appendAsLeader(batches: Buffer, options: ProduceOptions): Promise<AppendResult> {
    this.ensureLeader(true);
    const acks = options.acks ?? 'all';
    if (acks === 'all' && this.isrIds.length < this.minIsr) throw this.notEnoughReplicas(false);
    let announced = false;
    const result = await this.log.append(batches, {
      leaderEpoch: this.epoch,
      origin: options.origin,
      onAssigned: (bytes, baseOffset, endOffset) => {
        announced = this.announceAppend(bytes, baseOffset, endOffset);
      },
    });
    this.onLocalAppend(result.lastOffset + 1, announced);
    if (acks !== 'all') return result;
    await this.awaitHighWatermark(result.lastOffset + 1, options.timeoutMs);
    return result;
  }

  /**
   * Resolves once the HW reaches `required` (acks=all): REQUEST_TIMED_OUT after the timeout,
   * NOT_ENOUGH_REPLICAS when the ISR is below min.insync.replicas, NOT_LEADER when leadership moved.
   */
  private async awaitHighWatermark(required: number, timeoutMs: number | undefined): Promise<void> {
    if (this.currentRole !== 'leader') throw this.notLeaderError();
    if (this.hw >= required) {
      if (this.isrIds.length < this.minIsr) throw this.notEnoughReplicas(true);
      return;
    }
    const waitMs = timeoutMs && timeoutMs > 0 ? timeoutMs : this.deps.settings.produceTimeoutDefaultMs;
    await this.acks.wait(required, waitMs);
  }

  /**
   * Ends producer `producerId`'s transaction here with a COMMIT or ABORT marker, for the
   * transaction coordinator (WriteTxnMarkers); resolves once the marker is below the HW.
   * Idempotent: with no transaction of the producer open, or only one whose batches carry the
   * marker's epoch or a newer one (the marker is an earlier transaction's, sent again), nothing is
   * written and it resolves once everything already in the log is below the HW (so a retried
   * marker is committed too).
   * Fencing: a producer epoch older than the partition's, or a coordinator epoch older than the
   * last marker's, fails with PRODUCER_FENCED.
   */
  async writeTxnMarker(marker: TxnMarkerInput): Promise<TxnMarkerOutcome> {
    this.ensureLeader(true);
    const fenced = (why: string) =>
      new TideError(
        'PRODUCER_FENCED',
        `${marker.type} marker for producer ${marker.producerId} epoch ${marker.producerEpoch} (coordinator epoch ${marker.coordinatorEpoch}) refused on ${this.topic}-${this.partition}: ${why}`,
        { context: this.context() },
      );
    const known = this.log.producerEpoch(marker.producerId);
    if (known !== undefined && marker.producerEpoch < known)
      throw fenced(`the partition knows producer epoch ${known}`);
    const lastCoordinatorEpoch = this.coordinatorEpochs.get(marker.producerId);
    if (lastCoordinatorEpoch !== undefined && marker.coordinatorEpoch < lastCoordinatorEpoch)
      throw fenced(`a marker of coordinator epoch ${lastCoordinatorEpoch} was written already`);
    // Every end bumps the epoch (KIP-890): a marker closes the open transaction whose batches
    // carry an older epoch. One no newer than them is an earlier transaction's, sent again (a new
    // coordinator resuming it): that transaction is closed here already, and the open one is not
    // its to end.
    const open = this.log
      .openTransactions()
      .some((t) => t.producerId === marker.producerId && t.epoch < marker.producerEpoch);
    if (!open) {
      await this.awaitHighWatermark(this.localLeo, marker.timeoutMs);
      return 'no-open-transaction';
    }
    if (this.isrIds.length < this.minIsr) throw this.notEnoughReplicas(false);
    const batch = encodeControlBatch({
      type: marker.type,
      producerId: marker.producerId,
      producerEpoch: marker.producerEpoch,
      coordinatorEpoch: marker.coordinatorEpoch,
      timestampMs: this.deps.clock.nowMs(),
    });
    let result: AppendResult;
    try {
      result = await this.log.append(batch, { leaderEpoch: this.epoch, origin: 'coordinator' });
    } catch (err) {
      if (err instanceof TideError && err.code === 'INVALID_PRODUCER_EPOCH') throw fenced(err.message);
      throw err;
    }
    this.coordinatorEpochs.set(
      marker.producerId,
      Math.max(marker.coordinatorEpoch, lastCoordinatorEpoch ?? -1),
    );
    this.onLocalAppend(result.lastOffset + 1);
    await this.awaitHighWatermark(result.lastOffset + 1, marker.timeoutMs);
    return 'written';
  }

  /**
   * DeleteRecords as leader (Kafka's deleteRecordsOnLeader and its delayed-delete purgatory):
   * `offset` -1 means the high watermark; one above the HW (or another negative one) fails with
   * OFFSET_OUT_OF_RANGE; one at or below the log start moves nothing. Moves this replica's log
   * start there (log.advanceLogStartOffset: reads below it fail from then on, segments wholly
   * below it are deleted, the start is checkpointed), wakes the followers' long polls (they follow
   * the log start the answer carries), then waits until the low watermark — the smallest log
   * start over this replica and the in-sync followers — reaches the offset. Resolves with the low
   * watermark; REQUEST_TIMED_OUT after timeoutMs (the leader's records are gone all the same),
   * NOT_LEADER when leadership moves meanwhile.
   */
  async deleteRecords(offset: number, timeoutMs: number): Promise<number> {
    this.ensureLeader(true);
    const target = offset === -1 ? this.hw : offset;
    if (!Number.isSafeInteger(target) || target < 0 || target > this.hw) {
      throw new TideError(
        'OFFSET_OUT_OF_RANGE',
        `cannot delete the records of ${this.topic}-${this.partition} before offset ${offset}: ` +
          `it must be between 0 and the high watermark ${this.hw} (or -1 for the high watermark)`,
        { context: { ...this.context(), offset } },
      );
    }
    await this.log.advanceLogStartOffset(target);
    if (this.currentRole !== 'leader') throw this.notLeaderError();
    this.notifyChange();
    if (this.lowWatermark() < target) {
      const waitMs = timeoutMs > 0 ? timeoutMs : this.deps.settings.produceTimeoutDefaultMs;
      await this.deletions.wait(target, waitMs);
    }
    return this.lowWatermark();
  }

  /** As leader: the smallest log start offset over this replica and the in-sync followers. */
  lowWatermark(): number {
    return lowWatermarkFor({
      leaderId: this.deps.brokerId,
      leaderLogStart: this.log.logStartOffset,
      isr: this.isrIds,
      followers: this.followers,
    });
  }

  /**
   * Reads replicated data only: nothing at or above the high watermark; with read_committed
   * nothing at or above the last stable offset either, plus the aborted transactions overlapping
   * what is returned (collected by the same log read). Leader only.
   */
  async read(
    offset: number,
    maxBytes: number,
    isolation: IsolationLevel = 'read_uncommitted',
  ): Promise<PartitionReadResult> {
    this.ensureLeader(false);
    const highWatermark = this.hw;
    const lastStableOffset = this.log.lastStableOffset(highWatermark);
    const committed = isolation === 'read_committed';
    const bound = committed ? lastStableOffset : highWatermark;
    if (offset > bound && offset <= this.log.logEndOffset) {
      // Written but not yet replicated (or not stable yet): the consumer waits, it is not out of range.
      return {
        batches: Buffer.alloc(0),
        nextOffset: offset,
        logStartOffset: this.log.logStartOffset,
        highWatermark,
        lastStableOffset,
        ...(committed ? { abortedTransactions: [] } : {}),
      };
    }
    const result = await this.log.read(offset, maxBytes, { maxOffset: bound, isolation });
    return { ...result, highWatermark, lastStableOffset };
  }

  /**
   * Resolves when data at or after `offset` is replicated (read_committed: stable), after maxWaitMs, or when the partition
   * stops leading, whichever comes first. Never rejects.
   */
  waitForData(
    offset: number,
    maxWaitMs: number,
    signal?: AbortSignal,
    isolation: IsolationLevel = 'read_uncommitted',
  ): Promise<void> {
    const committed = isolation === 'read_committed';
    if (this.currentRole !== 'leader' || maxWaitMs <= 0 || signal?.aborted) return Promise.resolve();
    if ((committed ? this.lastStableOffset : this.hw) > offset) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: DataWaiter = { offset, committed, resolve };
      if (Number.isFinite(maxWaitMs))
        waiter.timer = this.deps.clock.setTimeout(() => this.releaseDataWaiter(waiter), maxWaitMs);
      signal?.addEventListener('abort', () => this.releaseDataWaiter(waiter), { once: true });
      this.dataWaiters.add(waiter);
    });
  }

  /** Cancels every waitForData early. */
  wakeAll(): void {
    this.releaseDataWaiters(true);
  }

  // ----------------------------------------------------------------------------- leader: followers

  /**
   * Records a fetch from follower `replicaId` at `fetchOffset` (its LEO) with its log start
   * offset, after the replication layer checked epochs and divergence; may advance the HW (and
   * the low watermark DeleteRecords waits on) and propose an ISR expansion.
   */
  recordFollowerFetch(
    replicaId: number,
    brokerEpoch: number,
    fetchOffset: number,
    logStartOffset = -1,
  ): void {
    if (this.currentRole !== 'leader' || replicaId === this.deps.brokerId) return;
    const nowMs = this.deps.clock.nowMs();
    let follower = this.followers.get(replicaId);
    if (!follower) {
      if (!this.replicaIds.includes(replicaId)) return;
      follower = new FollowerState(replicaId, nowMs, this.isrIds.includes(replicaId));
      this.followers.set(replicaId, follower);
    }
    if (follower.brokerEpoch !== brokerEpoch) {
      // A restarted follower: its previous incarnation's fetches say nothing about this one.
      follower.lastFetchLeaderLeo = -1;
      follower.brokerEpoch = brokerEpoch;
    }
    this.lostFollowers.delete(replicaId);
    follower.onFetch(fetchOffset, nowMs, this.localLeo);
    follower.logStartOffset = logStartOffset;
    this.releaseTail();
    this.maybeAdvanceHighWatermark();
    this.completeDeletions();
    if (!this.isrIds.includes(replicaId)) this.maybeExpandIsr(follower, nowMs);
  }

  /** Proposes removing ISR members that lag more than replica.lag.time.max.ms (the periodic check). */
  maybeShrinkIsr(): void {
    if (this.currentRole !== 'leader' || this.pendingIsr || !this.deps.isrProposer) return;
    const nowMs = this.deps.clock.nowMs();
    if (nowMs < this.nextProposalMs) return;
    const lagging = outOfSyncReplicas({
      leaderId: this.deps.brokerId,
      isr: this.isrIds,
      followers: this.followers,
      nowMs,
      lagTimeMaxMs: this.deps.settings.replicaLagTimeMaxMs,
    });
    // Followers whose streams broke go at once, as long as min.insync.replicas members remain.
    const room = this.isrIds.length - lagging.length - this.minIsr;
    const lost = this.isrIds
      .filter((id) => this.lostFollowers.has(id) && !lagging.includes(id))
      .slice(0, Math.max(0, room));
    if (lost.length > 0) {
      this.logger.warn(
        { lost, isr: this.isrIds, minInsyncReplicas: this.minIsr },
        'shrinking the ISR: replication streams of followers broke and did not come back',
      );
      lagging.push(...lost);
    }
    if (lagging.length === 0) return;
    const details = lagging.map((id) => ({
      brokerId: id,
      leo: this.followers.get(id)?.leo,
      lastCaughtUpAgoMs: nowMs - (this.followers.get(id)?.lastCaughtUpTimeMs ?? 0),
    }));
    this.logger.warn(
      { lagging: details, leaderLeo: this.localLeo, highWatermark: this.hw },
      'shrinking the ISR',
    );
    this.proposeIsr(this.isrIds.filter((id) => !lagging.includes(id)));
  }

  /**
   * Every replication stream of follower `replicaId` to this broker broke and none came back
   * within replicaStreamLossIsrShrinkMs (the follower died or cannot reach this broker): it leaves
   * the ISR now rather than after the lag time, but only while min.insync.replicas members remain.
   * Its next fetch clears the mark.
   */
  followerStreamLost(replicaId: number): void {
    if (this.currentRole !== 'leader' || !this.isrIds.includes(replicaId)) return;
    this.lostFollowers.add(replicaId);
    this.maybeShrinkIsr();
  }

  private maybeExpandIsr(follower: FollowerState, nowMs: number): void {
    if (this.pendingIsr || !this.deps.isrProposer || nowMs < this.nextProposalMs) return;
    const ok = mayJoinIsr({
      follower,
      highWatermark: this.hw,
      leaderEpochStartOffset: this.leaderEpochStartOffset,
      nowMs,
      lagTimeMaxMs: this.deps.settings.replicaLagTimeMaxMs,
    });
    if (!ok) return;
    this.logger.info(
      { brokerId: follower.brokerId, leo: follower.leo, highWatermark: this.hw },
      'expanding the ISR',
    );
    this.proposeIsr([...this.isrIds, follower.brokerId]);
  }

  private proposeIsr(newIsr: number[]): void {
    const proposer = this.deps.isrProposer;
    if (!proposer) return;
    const proposal: IsrProposal = {
      brokerId: this.deps.brokerId,
      topic: this.topic,
      partition: this.partition,
      leaderEpoch: this.epoch,
      partitionEpoch: this.partitionEpochValue,
      newIsr,
    };
    this.pendingIsr = newIsr;
    const stillCurrent = () =>
      this.pendingIsr === newIsr && this.currentRole === 'leader' && this.epoch === proposal.leaderEpoch;
    proposer.alterPartition(proposal).then(
      (state) => {
        if (!stillCurrent()) return;
        this.pendingIsr = undefined;
        this.adoptState(state, this.minIsr);
        this.afterProposal();
      },
      (err: unknown) => {
        if (!stillCurrent()) return;
        this.pendingIsr = undefined;
        this.nextProposalMs = this.deps.clock.nowMs() + this.deps.settings.isrProposalRetryMs;
        this.logger.warn({ err, proposal }, 'AlterPartition failed; will propose again');
        this.afterProposal();
      },
    );
  }

  /** With no pending proposal the HW is computed over the committed ISR again. */
  private afterProposal(): void {
    this.maybeAdvanceHighWatermark();
    this.completeAcks();
    // A lost follower must not wait for the periodic lag check (replica.lag.time.max.ms / 2).
    if (this.lostFollowers.size > 0 && this.currentRole === 'leader') {
      const waitMs = Math.max(0, this.nextProposalMs - this.deps.clock.nowMs());
      this.deps.clock.setTimeout(() => this.maybeShrinkIsr(), waitMs);
    }
  }

  // ------------------------------------------------------------------------------------ follower

  /** True while this replica follows at exactly `leaderEpoch` (the fetcher checks before acting). */
  isFollowing(leaderEpoch: number): boolean {
    return this.currentRole === 'follower' && this.epoch === leaderEpoch;
  }

  /**
   * Appends batches fetched from the leader at `leaderEpoch`, moves the follower HW to
   * min(leader HW, own LEO), then the log start up to the leader's (never past the HW: Kafka's
   * follower does the same with the fetch response's log start offset, which is how DeleteRecords
   * reaches followers). Returns false (doing nothing) if the replica no longer follows at that
   * epoch. Throws the log's errors (INVALID_RECORD when the batches do not start at the LEO...).
   */
  async appendFromLeader(
    leaderEpoch: number,
    batches: Buffer,
    leaderHw: number,
    leaderLogStartOffset = -1,
  ): Promise<boolean> {
    if (!this.isFollowing(leaderEpoch)) return false;
    if (batches.length > 0) await this.log.appendAsFollower(batches);
    if (!this.isFollowing(leaderEpoch)) return false;
    this.updateFollowerHighWatermark(leaderHw);
    const start = Math.min(leaderLogStartOffset, this.hw);
    if (start > this.log.logStartOffset) {
      await this.log.advanceLogStartOffset(start);
      if (!this.isFollowing(leaderEpoch)) return false;
    }
    return true;
  }

  /**
   * Follower HW = min(leader HW, own LEO); it only grows (truncation aside). Computing the LSO
   * lets the log forget the closed transactions whose markers are now below the HW, as on a leader
   * (else a follower's list of them grows until it leads).
   */
  updateFollowerHighWatermark(leaderHw: number): void {
    if (this.currentRole !== 'follower') return;
    const hw = Math.min(leaderHw, this.log.logEndOffset);
    if (hw > this.hw) {
      this.hw = hw;
      this.log.lastStableOffset(hw);
    }
  }

  /**
   * Truncates after the leader answered with a diverging epoch (truncation.ts); returns the new
   * LEO, or undefined if the replica no longer follows at `leaderEpoch`.
   */
  async truncateOnDivergence(leaderEpoch: number, diverging: EpochEndOffset): Promise<number | undefined> {
    if (!this.isFollowing(leaderEpoch)) return undefined;
    const offset = divergenceTruncationOffset({
      diverging,
      logEndOffset: this.log.logEndOffset,
      endOffsetForEpoch: (epoch) => this.log.endOffsetForEpoch(epoch),
    });
    const before = this.log.logEndOffset;
    await this.truncateTo(leaderEpoch, offset);
    this.logger.info(
      { diverging, truncatedTo: offset, logEndOffset: this.log.logEndOffset, previousLogEndOffset: before },
      'truncated by leader epoch',
    );
    return this.log.logEndOffset;
  }

  /** Truncates the follower's log to `offset` (the HW follows); false if no longer following. */
  async truncateTo(leaderEpoch: number, offset: number): Promise<boolean> {
    if (!this.isFollowing(leaderEpoch)) return false;
    await this.log.truncateTo(offset);
    this.hw = Math.min(this.hw, this.log.logEndOffset);
    return true;
  }

  /**
   * Out-of-range answer of the leader (Kafka's handleOutOfRangeError): when this log is ahead of
   * the leader's end (possible only after an unclean election) it is cut to the leader's end; when
   * it is behind the leader's log start it is emptied and restarts there.
   */
  async resetToLeaderRange(
    leaderEpoch: number,
    leaderLogStartOffset: number,
    leaderLogEndOffset: number,
  ): Promise<boolean> {
    if (!this.isFollowing(leaderEpoch)) return false;
    const leo = this.log.logEndOffset;
    if (leo > leaderLogEndOffset) {
      this.logger.warn(
        { logEndOffset: leo, leaderLogEndOffset },
        'follower ahead of its leader: truncating to the leader end',
      );
      await this.log.truncateTo(leaderLogEndOffset);
    } else if (leo < leaderLogStartOffset) {
      this.logger.warn(
        { logEndOffset: leo, leaderLogStartOffset },
        'follower behind the leader log start: restarting there',
      );
      await this.log.truncateFully(leaderLogStartOffset);
    } else {
      return false;
    }
    this.hw = Math.min(Math.max(this.hw, this.log.logStartOffset), this.log.logEndOffset);
    return true;
  }

  // ------------------------------------------------------------------------------------- internal

  /**
   * The log assigned offsets to a leader append (before writing it): with followers, the bytes go
   * to the replication tail and the followers' long polls wake now, so they fetch, write and fsync
   * while this replica writes and fsyncs. Safe because the HW counts this replica's LEO only once
   * its own append completed (onLocalAppend). Returns whether the followers were told.
   */
  private announceAppend(bytes: Buffer, baseOffset: number, endOffset: number): boolean {
    if (this.currentRole !== 'leader' || this.followers.size === 0) return false;
    this.tail.add(bytes, baseOffset, endOffset);
    this.notifyChange();
    return true;
  }

  /**
   * As leader, the records a follower fetch at `offset` gets from memory (ReplicationTail), or
   * undefined: then they come from the log.
   */
  replicationTail(offset: number, maxBytes: number): Buffer | undefined {
    if (this.currentRole !== 'leader') return undefined;
    return this.tail.read(offset, maxBytes);
  }

  /** `announced`: the followers were woken when the offsets were assigned (announceAppend). */
  private onLocalAppend(endOffset: number, announced = false): void {
    if (endOffset > this.localLeo) this.localLeo = endOffset;
    if (this.currentRole !== 'leader') return;
    const hw = this.hw;
    this.maybeAdvanceHighWatermark();
    // An HW move has told the long polls already; an announced append needs no second wake-up.
    if (!announced && this.hw === hw) this.notifyChange();
  }

  /** Drops tail entries that every in-sync follower has fetched. */
  private releaseTail(): void {
    if (this.tail.entryCount === 0) return;
    let min = Number.POSITIVE_INFINITY;
    for (const id of this.isrIds) {
      if (id === this.deps.brokerId) continue;
      const leo = this.followers.get(id)?.leo ?? UNKNOWN_LEO;
      if (leo < min) min = leo;
    }
    if (min === Number.POSITIVE_INFINITY) this.tail.clear();
    else if (min !== UNKNOWN_LEO) this.tail.release(min);
  }

  private maybeAdvanceHighWatermark(): void {
    if (this.currentRole !== 'leader') return;
    const hw = highWatermarkFor({
      leaderId: this.deps.brokerId,
      leaderLeo: this.localLeo,
      isr: maximalIsr(this.isrIds, this.pendingIsr),
      followers: this.followers,
      currentHw: this.hw,
    });
    if (hw <= this.hw) return;
    this.hw = hw;
    this.completeAcks();
    this.releaseDataWaiters(false);
    this.notifyChange();
  }

  private completeDeletions(): void {
    if (this.deletions.size === 0 || this.currentRole !== 'leader') return;
    this.deletions.complete(this.lowWatermark());
  }

  private completeAcks(): void {
    if (this.acks.size === 0) return;
    const short = this.isrIds.length < this.minIsr;
    this.acks.complete(this.hw, short ? () => this.notEnoughReplicas(true) : undefined);
  }

  private releaseDataWaiters(all: boolean): void {
    if (this.dataWaiters.size === 0) return;
    // The LSO moves only when the HW does (a marker counts once it is below the HW).
    let lso: number | undefined;
    for (const waiter of [...this.dataWaiters]) {
      if (!all && waiter.committed) lso ??= this.lastStableOffset;
      const bound = waiter.committed ? (lso ?? this.hw) : this.hw;
      if (all || waiter.offset < bound) this.releaseDataWaiter(waiter);
    }
  }

  private releaseDataWaiter(waiter: DataWaiter): void {
    if (!this.dataWaiters.delete(waiter)) return;
    waiter.timer?.cancel();
    waiter.resolve();
  }

  private notifyChange(): void {
    for (const listener of [...this.listeners]) listener();
  }

  private ensureLeader(producing: boolean): void {
    if (this.currentRole !== 'leader') throw this.notLeaderError();
    if (producing && this.deps.mayLead && !this.deps.mayLead()) {
      throw new TideError(
        'NOT_LEADER',
        `broker ${this.deps.brokerId} lost its cluster registration and no longer acts as leader of ${this.topic}-${this.partition}`,
        { context: this.context() },
      );
    }
  }

  private notLeaderError(): TideError {
    const where =
      this.currentRole === 'closed'
        ? 'is no longer hosted here'
        : this.logFailure
          ? `is offline here: its log failed (${this.logFailure.message})`
          : this.leader >= 0 && this.leader !== this.deps.brokerId
            ? `is led by broker ${this.leader}`
            : 'has no leader on this broker right now';
    return new TideError(
      'NOT_LEADER',
      `broker ${this.deps.brokerId} does not lead ${this.topic}-${this.partition}: it ${where}`,
      {
        context: this.context(),
      },
    );
  }

  private notEnoughReplicas(afterAppend: boolean): TideError {
    const when = afterAppend
      ? 'after the append (the records are in the log but not acknowledged)'
      : 'nothing was appended';
    return new TideError(
      'NOT_ENOUGH_REPLICAS',
      `${this.topic}-${this.partition} has ${this.isrIds.length} in-sync replicas ${JSON.stringify(this.isrIds)}, below min.insync.replicas ${this.minIsr}; ${when}`,
      { context: this.context() },
    );
  }

  private context(): { topic: string; partition: number; broker: number } {
    return { topic: this.topic, partition: this.partition, broker: this.deps.brokerId };
  }
}
