/**
 * A consumer in a group: `subscribe(topics)`, then iterate; the group coordinator decides which
 * partitions this member reads, moving them incrementally (docs/consumer-groups.md).
 *
 * It drives an ordinary `Consumer` (assign/seek/pause) from the membership session:
 * - Assignment: new partitions start at the group's committed offset, else per `autoOffsetReset`
 *   (`none`: the iterator throws). `onAssigned` runs once their positions are set.
 * - Revoke: the partitions stop being delivered at once; the member waits until the record being
 *   processed (if it is one of them) is done, runs `onRevoked`, commits what was processed (auto
 *   commit), then confirms. Partitions that are not revoked keep flowing throughout.
 * - Lost (fenced, expired, coordinator silent for the session timeout): dropped at once without a
 *   commit; `onLost` runs; the member rejoins.
 * - Offsets reset by an operator (Assignment with refetch): the partitions pause, fetch their
 *   committed offsets again, seek there and continue.
 *
 * "Processed" (what commits carry): a record counts as processed once the application asks for the
 * next one, or leaves the loop (break/return/throw, as Kafka's close-time commit of positions).
 * A record still held when its partition is lost is not committed: another member reads it again
 * (at-least-once).
 *
 * Commits: `commit()` (awaits durability), `commitAsync()`, and auto commit every
 * `autoCommitIntervalMs` (default 5 s, as Kafka) plus on revocation and close. Commits are sent one
 * at a time, in order. A commit rejected because an offsets reset fenced the member is dropped
 * (its positions were superseded).
 *
 * Max processing interval: holding one record longer than `maxProcessingIntervalMs` makes the
 * member leave the group (its partitions move), as Kafka's max.poll.interval.ms; it joins again
 * when the application asks for the next record.
 */
import type { Clock, Timer } from '../../services/common/clock';
import { TideError } from '../../services/common/errors';
import type { Logger } from '../../services/common/logger';
import type { AssignorName } from '../../services/common/assignor-names';
import type { Cluster } from '../cluster';
import { Consumer, type ConsumerOptions } from '../consumer';
import { tpKey, type ConsumerBatch, type ConsumerRecord, type TopicPartition } from '../types';
import type { CoordinatorClient } from './coordinator-client';
import { GroupAdmin, type CommittedOffset } from './group-admin';
import {
  MemberSession,
  type ClientAssignment,
  type ClientAssignorInput,
  type MemberAssignment,
} from './membership';
import { within } from './within';

export const DEFAULT_SESSION_TIMEOUT_MS = 45_000;
export const DEFAULT_MAX_PROCESSING_INTERVAL_MS = 300_000;
export const DEFAULT_AUTO_COMMIT_INTERVAL_MS = 5_000;
/** How long close() waits for the application to finish the record it holds. */
const CLOSE_PROCESSING_WAIT_MS = 3_000;

export type RebalanceListener = (partitions: TopicPartition[]) => void | Promise<void>;

/** A group member's identity for transactional offset commits (GroupConsumer.groupMetadata()). */
export interface GroupMetadata {
  groupId: string;
  /** '' with memberEpoch -1: a group without live members (offsets of manually assigned partitions). */
  memberId: string;
  memberEpoch: number;
}

export interface GroupConsumerOptions extends ConsumerOptions {
  /** The consumer group to join. */
  groupId: string;
  /**
   * Static membership: a restart with the same id within the session timeout gets the same
   * partitions and causes no rebalance. The Tide facade defaults it to the pod name (HOSTNAME)
   * when running on Kubernetes.
   */
  instanceId?: string;
  /** No heartbeat for this long: the member is gone and its partitions move. Default 45 s. */
  sessionTimeoutMs?: number;
  /** Holding one record (or confirming a revocation) longer than this leaves the group. Default 5 min. */
  maxProcessingIntervalMs?: number;
  /**
   * Assignor of the group: server-side 'uniform' (default, sticky), 'range', 'roundrobin'; or
   * 'client': the group's leader member computes the target with `clientAssignor` (every member of
   * such a group should give one, as any may lead).
   */
  assignor?: AssignorName;
  /** With assignor 'client': computes each member's partitions (and data) from all members' user data. */
  clientAssignor?: (input: ClientAssignorInput) => ClientAssignment | Promise<ClientAssignment>;
  /** Data about this member for the client-side assignor and DescribeGroup (at most 64 KiB); setUserData() changes it. */
  userData?: Buffer;
  /** The client-side assignor's data for this member changed (delivered after onAssigned of the same assignment). */
  onAssignmentData?: (data: Buffer) => void | Promise<void>;
  /** Commit processed offsets every autoCommitIntervalMs, on revocation and on close. Default true. */
  autoCommit?: boolean;
  autoCommitIntervalMs?: number;
  /** Partitions given to this member (their positions are set; seek here to override). */
  onAssigned?: RebalanceListener;
  /** Partitions about to be given up (no more records of them are delivered); commit here when not auto. */
  onRevoked?: RebalanceListener;
  /** Partitions taken away without a revocation (fenced or expired); do not commit them. */
  onLost?: RebalanceListener;
  clientId?: string;
}

interface Owned {
  tp: TopicPartition;
  state: 'initializing' | 'active' | 'revoking';
  /** Next offset to commit (last processed + 1). */
  processed?: number;
  /** Last offset known committed. */
  committed?: number;
  /** Bumped per (re)initialization; a stale one does nothing. */
  initSeq: number;
}

export class GroupConsumer implements AsyncIterable<ConsumerRecord> {
  readonly groupId: string;
  /** The underlying consumer (driven by the group; do not assign() it yourself). */
  readonly consumer: Consumer;
  private readonly admin: GroupAdmin;
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly autoCommit: boolean;
  private readonly autoOffsetReset: 'earliest' | 'latest' | 'none';
  private readonly sessionTimeoutMs: number;
  private readonly maxProcessingIntervalMs: number;
  private session?: MemberSession;
  private readonly owned = new Map<string, Owned>();
  private events: Promise<void> = Promise.resolve();
  private commitChain: Promise<void> = Promise.resolve();
  private commitsInFlight = 0;
  private inFlight?: { key: string; offset: number; sinceMs: number; sought?: boolean };
  private inFlightWaiters: (() => void)[] = [];
  private failure?: TideError;
  private failureSignal: Promise<never>;
  private signalFailure!: (err: TideError) => void;
  private timers: Timer[] = [];
  private initSeq = 0;
  private rejoinWhenPolled = false;
  private stalled = false;
  private closed = false;
  private closing?: Promise<void>;
  /** Start positions being decided while onAssigned runs (seek() there changes them). */
  private pendingStart?: Map<string, number | undefined>;
  private lastAssignmentData: Buffer = Buffer.alloc(0);
  /**
   * Partitions this member gave up, with its member epoch when it confirmed: an Assignment sent
   * before the coordinator saw the confirmation still lists them (it lists revoking partitions)
   * and must not bring them back; only a later grant (a higher epoch) does.
   */
  private readonly revokedAt = new Map<string, number>();
  private userData: Buffer | undefined;

  constructor(
    cluster: Cluster,
    private readonly coordinators: CoordinatorClient,
    private readonly options: GroupConsumerOptions,
    private readonly ownsCoordinators = false,
  ) {
    if (!options.groupId) throw new TideError('INVALID_REQUEST', 'groupId is required for a group consumer');
    this.groupId = options.groupId;
    this.consumer = new Consumer(cluster, options);
    this.admin = new GroupAdmin(coordinators);
    this.clock = options.clock ?? cluster.clock;
    this.logger = (options.logger ?? cluster.logger).child({
      component: 'group-consumer',
      group: options.groupId,
    });
    this.autoCommit = options.autoCommit ?? true;
    this.autoOffsetReset = options.autoOffsetReset ?? 'latest';
    this.sessionTimeoutMs = options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
    this.maxProcessingIntervalMs = options.maxProcessingIntervalMs ?? DEFAULT_MAX_PROCESSING_INTERVAL_MS;
    if (options.assignor === 'client' && !options.clientAssignor)
      throw new TideError('INVALID_REQUEST', "assignor 'client' needs a clientAssignor function");
    this.failureSignal = new Promise<never>((_, reject) => (this.signalFailure = reject));
    this.failureSignal.catch(() => undefined);
  }

  /** The member id the coordinator gave this member ('' until joined). */
  get memberId(): string {
    return this.session?.memberId ?? '';
  }

  /** The member epoch commits carry (the latest assignment's). */
  get memberEpoch(): number {
    return this.session?.memberEpoch ?? 0;
  }

  /**
   * What a transactional producer's sendOffsets needs to commit this member's offsets inside a
   * transaction (KIP-447): the coordinator refuses them when this member's epoch is stale.
   */
  groupMetadata(): GroupMetadata {
    return { groupId: this.groupId, memberId: this.memberId, memberEpoch: this.memberEpoch };
  }

  /** Joins the group with this subscription. Call once, before iterating. */
  subscribe(topics: string[]): void {
    this.ensureOpen();
    if (this.session)
      throw new TideError('INVALID_REQUEST', `already subscribed to ${this.session ? 'topics' : ''}`);
    if (topics.length === 0) throw new TideError('INVALID_REQUEST', 'subscribe to at least one topic');
    const o = this.options;
    this.session = new MemberSession({
      coordinators: this.coordinators,
      groupId: this.groupId,
      topics: [...new Set(topics)],
      clientId: o.clientId ?? 'tide-client',
      instanceId: o.instanceId ?? '',
      sessionTimeoutMs: this.sessionTimeoutMs,
      rebalanceTimeoutMs: this.maxProcessingIntervalMs,
      assignor: o.assignor ?? '',
      userData: this.userData ?? o.userData,
      clock: this.clock,
      logger: this.logger,
      handler: {
        owned: () => [...this.owned.values()].map((p) => p.tp),
        onAssignment: (a) => this.enqueue(() => this.onAssignment(a)),
        onRevoke: (partitions) => this.enqueue(() => this.onRevoke(partitions)),
        onLost: (error) => this.onLost(error),
        onFatal: (error) => this.fail(error),
        computeAssignment: o.clientAssignor
          ? async (input) => (this.closed ? undefined : o.clientAssignor!(input))
          : undefined,
      },
    });
    this.session.start();
    if (this.autoCommit) {
      this.timers.push(
        this.clock.setInterval(() => {
          if (this.commitsInFlight === 0) this.commitAsync();
        }, o.autoCommitIntervalMs ?? DEFAULT_AUTO_COMMIT_INTERVAL_MS),
      );
    }
    this.timers.push(
      this.clock.setInterval(
        () => this.checkProcessing(),
        Math.max(10, Math.min(1_000, this.maxProcessingIntervalMs / 4)),
      ),
    );
  }

  /** Replaces this member's user data (sent to the coordinator at once when joined). */
  setUserData(data: Buffer): void {
    if (data.length > 65_536)
      throw new TideError('INVALID_REQUEST', `user data has ${data.length} bytes; at most 65536 are allowed`);
    this.userData = Buffer.from(data);
    this.session?.updateUserData(this.userData);
  }

  /** The client-side assignor's data for this member in its latest assignment. */
  assignmentData(): Buffer {
    return this.lastAssignmentData;
  }

  /** Partitions this member reads now. */
  assignment(): TopicPartition[] {
    return [...this.owned.values()].filter((p) => p.state === 'active').map((p) => p.tp);
  }

  /**
   * The records of one fetched chunk of one partition at a time (Consumer.batches()), from the
   * partitions the group gives this member, until close(). A batch counts as processed — up to its
   * `nextOffset` — once the application asks for the next one or leaves the loop; revocation waits
   * for the batch held, as for a record. Without a promise and a generator step per record, this
   * is the fast path for applications that go through many records (Tide Streams reads with it).
   */
  batches(): AsyncGenerator<ConsumerBatch, void, undefined> {
    return this.deliver(
      () => this.consumer.batches(),
      (batch) => batch.nextOffset - 1,
    );
  }

  /** Records, one at a time, from the partitions the group gives this member, until close(). */
  [Symbol.asyncIterator](): AsyncGenerator<ConsumerRecord, void, undefined> {
    return this.deliver(
      () => this.consumer[Symbol.asyncIterator](),
      (record) => record.offset,
    );
  }

  /**
   * Hands the consumer's items (records or batches) of active partitions to the application, one
   * held at a time: asking for the next marks the held one processed up to `lastOffset` of it.
   */
  private async *deliver<T extends TopicPartition>(
    open: () => AsyncIterator<T>,
    lastOffset: (item: T) => number,
  ): AsyncGenerator<T, void, undefined> {
    if (!this.session) throw new TideError('INVALID_REQUEST', 'call subscribe(topics) before iterating');
    const items = open();
    try {
      for (;;) {
        this.markProcessed();
        if (this.failure) throw this.failure;
        const result = await Promise.race([items.next(), this.failureSignal]);
        if (result.done) return;
        const item = result.value;
        const key = tpKey(item.topic, item.partition);
        if (this.owned.get(key)?.state !== 'active') continue;
        this.inFlight = { key, offset: lastOffset(item), sinceMs: this.clock.nowMs() };
        yield item;
      }
    } finally {
      this.markProcessed();
    }
  }

  /** Commits processed offsets (or the given ones) and resolves once they are durable. */
  commit(offsets?: (TopicPartition & { offset: number })[]): Promise<void> {
    const run = this.commitChain.then(() => this.commitNow(offsets));
    this.commitChain = run.catch(() => undefined);
    return run;
  }

  /** Commits processed offsets in the background; failures are logged. */
  commitAsync(): void {
    this.commit().catch((err: unknown) => this.logger.warn({ err }, 'async commit failed'));
  }

  /** The group's committed offsets of these partitions (-1: none). */
  committed(partitions: TopicPartition[]): Promise<CommittedOffset[]> {
    return this.admin.fetchOffsets(this.groupId, partitions);
  }

  /** Continues an owned partition from `offset` (what was processed before it is kept committed). */
  seek(tp: TopicPartition, offset: number): void {
    const p = this.requireOwned(tp);
    const key = tpKey(tp.topic, tp.partition);
    p.processed = undefined;
    // What the application holds of this partition no longer counts as processed once it is done.
    if (this.inFlight?.key === key) this.inFlight.sought = true;
    if (p.state === 'initializing' && this.pendingStart?.has(key)) this.pendingStart.set(key, offset);
    else this.consumer.seek(tp, offset);
  }

  position(tp: TopicPartition): number | undefined {
    this.requireOwned(tp);
    return this.consumer.position(tp);
  }

  pause(tps: TopicPartition[]): void {
    this.consumer.pause(
      tps.filter((tp) => this.owned.get(tpKey(tp.topic, tp.partition))?.state === 'active'),
    );
  }

  resume(tps: TopicPartition[]): void {
    this.consumer.resume(
      tps.filter((tp) => this.owned.get(tpKey(tp.topic, tp.partition))?.state === 'active'),
    );
  }

  /**
   * Leaves the group gracefully: `onRevoked` for every partition, a final commit (auto commit),
   * then a leave (a static member's leave keeps its partitions for its session timeout, so a quick
   * restart gets them back without a rebalance), then closes the consumer.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) timer.cancel();
    await within(this.events, 5_000, this.clock);
    const keys = [...this.owned.keys()].filter((k) => this.owned.get(k)!.state !== 'initializing');
    const partitions = keys.map((k) => this.owned.get(k)!.tp);
    if (this.session && partitions.length > 0) {
      // Stop delivering first; the record being processed finishes; then onRevoked and the commit.
      for (const key of keys) this.owned.get(key)!.state = 'revoking';
      this.consumer.assign([]);
      // Bounded: close() may be called from inside the loop, holding the record itself (it is then
      // not committed, and re-read by the next owner).
      await this.untilNotProcessing(keys, CLOSE_PROCESSING_WAIT_MS);
      await this.runListener('onRevoked', partitions);
      if (this.autoCommit)
        await this.commit().catch((err: unknown) => this.logger.warn({ err }, 'final commit failed'));
    }
    this.owned.clear();
    if (this.session) {
      await this.session.leave(!!this.options.instanceId).catch(() => undefined);
      this.session.close();
    }
    await this.consumer.close();
    if (this.ownsCoordinators) this.coordinators.close();
  }

  // ---------------------------------------------------------------- membership events

  private enqueue(fn: () => Promise<void>): void {
    this.events = this.events.then(fn).catch((err: unknown) => {
      this.logger.error({ err }, 'handling a group event failed');
      this.fail(err instanceof TideError ? err : new TideError('UNKNOWN', String(err), { cause: err }));
    });
  }

  private async onAssignment(a: MemberAssignment): Promise<void> {
    if (this.closed) return;
    const next = new Map(a.partitions.map((tp) => [tpKey(tp.topic, tp.partition), tp]));
    for (const [key, epoch] of [...this.revokedAt]) {
      if (!next.has(key) || a.memberEpoch > epoch) this.revokedAt.delete(key);
      else next.delete(key);
    }
    const lost = [...this.owned.entries()].filter(([key]) => !next.has(key));
    if (lost.length > 0) {
      for (const [key] of lost) this.owned.delete(key);
      this.assignInner();
      await this.runListener(
        'onLost',
        lost.map(([, p]) => p.tp),
      );
    }
    const added: string[] = [];
    for (const [key, tp] of next) {
      if (this.owned.has(key)) continue;
      this.owned.set(key, { tp, state: 'initializing', initSeq: 0 });
      added.push(key);
    }
    const refetch = a.refetchOffsets ? [...this.owned.keys()].filter((k) => !added.includes(k)) : [];
    if (refetch.length > 0)
      this.logger.info({ partitions: refetch.length }, 'group offsets were reset: fetching them again');
    if (added.length > 0 || refetch.length > 0) await this.initialize(added, refetch);
    this.session?.setHoldsPartitions(this.owned.size > 0);
    if (!a.userData.equals(this.lastAssignmentData)) {
      this.lastAssignmentData = a.userData;
      const listener = this.options.onAssignmentData;
      if (listener) {
        try {
          await listener(a.userData);
        } catch (err) {
          this.logger.error({ err }, 'onAssignmentData listener failed');
        }
      }
    }
  }

  /**
   * Sets the positions of new partitions and of partitions whose offsets were reset: they leave
   * the consumer (no fetching, buffered data dropped), their committed offsets are fetched, and
   * they come back at those offsets (or per autoOffsetReset when the group has none).
   */
  private async initialize(added: string[], refetch: string[]): Promise<void> {
    const seq = ++this.initSeq;
    const keys = [...added, ...refetch];
    for (const key of keys) {
      const p = this.owned.get(key)!;
      p.state = 'initializing';
      p.initSeq = seq;
    }
    if (refetch.length > 0) this.assignInner();
    // read_committed: offsets a transaction committed count once it completed (KIP-447), so a
    // partition taken over from a transactional pipeline does not start before its last commit.
    const committed = await this.admin.fetchOffsets(
      this.groupId,
      keys.map((k) => this.owned.get(k)!.tp),
      { requireStable: this.consumer.isolation === 'read_committed' },
    );
    const offsets = new Map(committed.map((c) => [tpKey(c.topic, c.partition), c.offset]));
    const start = new Map<string, number | undefined>();
    for (const key of keys) {
      const p = this.owned.get(key);
      if (!p || p.initSeq !== seq) continue;
      const offset = offsets.get(key) ?? -1;
      p.processed = undefined;
      p.committed = offset >= 0 ? offset : undefined;
      if (offset < 0 && this.autoOffsetReset === 'none') {
        this.owned.delete(key);
        this.fail(
          new TideError(
            'OFFSET_OUT_OF_RANGE',
            `group ${this.groupId} has no committed offset for ${p.tp.topic}/${p.tp.partition} and autoOffsetReset is 'none'`,
            { context: p.tp },
          ),
        );
        continue;
      }
      start.set(key, offset >= 0 ? offset : undefined);
    }
    // onAssigned runs before any record of the new partitions can be delivered; a seek() in it
    // changes where they start.
    const fresh = added.filter((k) => start.has(k));
    if (fresh.length > 0) {
      this.pendingStart = start;
      try {
        await this.runListener(
          'onAssigned',
          fresh.map((k) => this.owned.get(k)!.tp),
        );
      } finally {
        this.pendingStart = undefined;
      }
    }
    const current = [...start.keys()].filter((k) => this.owned.get(k)?.initSeq === seq);
    this.assignInner(new Map(current.map((k) => [k, start.get(k)])));
    for (const key of current) this.owned.get(key)!.state = 'active';
  }

  private async onRevoke(partitions: TopicPartition[]): Promise<void> {
    const keys = partitions.map((tp) => tpKey(tp.topic, tp.partition)).filter((k) => this.owned.has(k));
    const tps = keys.map((k) => this.owned.get(k)!.tp);
    for (const key of keys) this.owned.get(key)!.state = 'revoking';
    if (tps.length > 0) {
      this.assignInner(); // no more fetching or delivery of the revoked partitions
      await this.untilNotProcessing(keys);
      await this.runListener('onRevoked', tps);
      if (this.autoCommit) {
        await this.commit(this.pending(keys)).catch((err: unknown) =>
          this.logger.warn(
            { err },
            'commit before revocation failed; the next owner re-reads from the last commit',
          ),
        );
      }
      for (const key of keys) {
        this.owned.delete(key);
        this.revokedAt.set(key, this.session?.memberEpoch ?? 0);
      }
      this.assignInner();
    }
    this.session?.ackRevoked(partitions);
    this.session?.setHoldsPartitions(this.owned.size > 0);
  }

  private onLost(error: TideError): void {
    this.initSeq++;
    const lost = [...this.owned.values()].map((p) => p.tp);
    this.owned.clear();
    this.session?.setHoldsPartitions(false);
    if (lost.length === 0) return;
    this.logger.warn({ code: error.code, msg: error.message, partitions: lost.length }, 'partitions lost');
    this.assignInner();
    void this.runListener('onLost', lost);
  }

  // ---------------------------------------------------------------- helpers

  /**
   * Makes the consumer's assignment the active partitions (they keep their positions), plus `start`: partitions joining at an offset, or (undefined) per
   * autoOffsetReset.
   */
  private assignInner(start: Map<string, number | undefined> = new Map()): void {
    if (this.closed) return;
    const list: (TopicPartition & { offset?: number })[] = [];
    for (const [key, p] of this.owned) {
      if (start.has(key)) {
        const offset = start.get(key);
        list.push(offset === undefined ? p.tp : { ...p.tp, offset });
      } else if (p.state === 'active') {
        list.push(p.tp);
      }
    }
    this.consumer.assign(list);
  }

  private pending(keys?: string[]): (TopicPartition & { offset: number })[] {
    const out: (TopicPartition & { offset: number })[] = [];
    for (const key of keys ?? this.owned.keys()) {
      const p = this.owned.get(key);
      if (!p || p.state === 'initializing' || p.processed === undefined || p.processed === p.committed)
        continue;
      out.push({ ...p.tp, offset: p.processed });
    }
    return out;
  }

  private async commitNow(offsets?: (TopicPartition & { offset: number })[]): Promise<void> {
    const entries = offsets ?? this.pending();
    if (entries.length === 0) return;
    const session = this.session;
    if (!session || !session.memberId) {
      if (offsets)
        throw new TideError(
          'UNKNOWN_MEMBER_ID',
          `not a member of group ${this.groupId} (yet): nothing to commit as`,
        );
      return;
    }
    const epoch = session.memberEpoch;
    this.commitsInFlight++;
    try {
      await this.admin.commitOffsets(this.groupId, entries, {
        memberId: session.memberId,
        memberEpoch: epoch,
      });
      for (const e of entries) {
        const p = this.owned.get(tpKey(e.topic, e.partition));
        if (p && p.state !== 'initializing') p.committed = e.offset;
      }
    } catch (err) {
      if ((err as TideError).code === 'FENCED_MEMBER_EPOCH' && session.memberEpoch > epoch) {
        this.logger.info(
          { epoch, now: session.memberEpoch },
          'dropped a commit from before the group was fenced',
        );
        return;
      }
      throw err;
    } finally {
      this.commitsInFlight--;
    }
  }

  /** Marks the record the application held as processed (it asked for the next one). */
  private markProcessed(): void {
    const f = this.inFlight;
    if (!f) return;
    this.inFlight = undefined;
    const p = this.owned.get(f.key);
    if (p && p.state !== 'initializing' && !f.sought) p.processed = f.offset + 1;
    const waiters = this.inFlightWaiters;
    this.inFlightWaiters = [];
    for (const wake of waiters) wake();
    if (this.rejoinWhenPolled) this.rejoin();
  }

  /** Resolves when the application no longer holds a record of `keys` (bounded by the max processing interval). */
  private async untilNotProcessing(keys: string[], maxWaitMs = this.maxProcessingIntervalMs): Promise<void> {
    const deadline = this.clock.nowMs() + Math.min(maxWaitMs, this.maxProcessingIntervalMs);
    while (this.inFlight && keys.includes(this.inFlight.key) && this.clock.nowMs() < deadline) {
      await within(new Promise<void>((resolve) => this.inFlightWaiters.push(resolve)), 100, this.clock);
    }
  }

  /** Leaves the group when the application holds one record for longer than the max processing interval. */
  private checkProcessing(): void {
    const f = this.inFlight;
    if (!f || this.stalled || this.closed || !this.session) return;
    const heldMs = this.clock.nowMs() - f.sinceMs;
    if (heldMs <= this.maxProcessingIntervalMs) return;
    this.stalled = true;
    this.logger.warn(
      { heldMs, maxProcessingIntervalMs: this.maxProcessingIntervalMs },
      'processing one record took longer than maxProcessingIntervalMs: leaving the group (its partitions move); rejoining on the next record',
    );
    this.onLost(new TideError('UNKNOWN_MEMBER_ID', 'left the group: max processing interval exceeded'));
    void this.session.leave(false).then(() => {
      this.rejoinWhenPolled = true;
      if (!this.inFlight) this.rejoin();
    });
  }

  private rejoin(): void {
    this.rejoinWhenPolled = false;
    this.stalled = false;
    if (this.closed || !this.session || this.session.state !== 'idle') return;
    this.logger.info('rejoining the group');
    this.session.start();
  }

  private async runListener(
    name: 'onAssigned' | 'onRevoked' | 'onLost',
    partitions: TopicPartition[],
  ): Promise<void> {
    const listener = this.options[name];
    if (!listener || partitions.length === 0) return;
    try {
      await listener(partitions);
    } catch (err) {
      this.logger.error({ err, listener: name }, 'rebalance listener failed');
    }
  }

  private fail(error: TideError): void {
    if (this.failure) return;
    this.failure = error;
    this.signalFailure(error);
  }

  private requireOwned(tp: TopicPartition): Owned {
    const p = this.owned.get(tpKey(tp.topic, tp.partition));
    if (!p)
      throw new TideError('INVALID_REQUEST', `${tp.topic}/${tp.partition} is not assigned to this member`, {
        context: tp,
      });
    return p;
  }

  private ensureOpen(): void {
    if (this.closed) throw new TideError('INVALID_REQUEST', 'the consumer is closed');
  }
}
