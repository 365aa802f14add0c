/**
 * The groups this coordinator instance serves: the shards it owns (loaded by replaying their
 * partition of `__consumer_offsets`), the group runtimes inside them, the timer that expires
 * sessions, and the read-side views (list, describe with lag, offsets).
 *
 * Loading a shard: write a shard marker (the new shard epoch) to the shard's partition, then
 * replay the partition from its start through that marker, keeping for each group of the shard the
 * last metadata snapshot and the last committed offset per partition. Records older than the
 * newest marker of their shard seen so far are a deposed owner's late writes and are skipped.
 * Markers are keyed by shard and epoch, so compaction keeps every one and a late write stays
 * behind the marker that fences it (offsets-codec.ts says why).
 * Until a shard is loaded its groups answer COORDINATOR_NOT_AVAILABLE (retriable).
 *
 * Lease-time fence (zombie writes). Replay fencing cannot undo a deposed owner's record that is the
 * last of its key: the cleaner keeps only that one, replay ignores it, and the valid value is gone.
 * So this instance also refuses to write while it may no longer own a shard: every request that
 * looks up a group of the shard (runtime()), and every append to `__consumer_offsets` for it
 * (commits, group records, resets, markers), first checks that the shard is still held under the
 * lease it was taken with and that the lease is certainly alive (`now <= validUntilMs`,
 * services/common/lease-fence.ts); if not it fails with NOT_COORDINATOR (retriable: the client
 * finds the coordinator again) and nothing is sent. When the lease is then found lost,
 * ShardOwnership drops every shard (release(shard, false)).
 *
 * What an acknowledgement guarantees. A write is acknowledged (a commit answered, an assignment
 * sent) only if the append completed AND the check still holds when it completes. Then the record
 * was in the log while the lease was alive in etcd, so before any successor could take the shard
 * and write its marker: the successor's replay reads it. An acknowledged commit is never lost to a
 * takeover (given the clock assumption of lease-fence.ts).
 * The remaining window: a write sent while the lease was alive but delayed in flight (producer
 * retries, a slow broker) longer than the takeover takes lands after the successor's marker. Its
 * sender was answered NOT_COORDINATOR, and replay ignores the record; but if it is the last record
 * for its key (the successor committed that partition before it landed and never after), the
 * cleaner drops the successor's value and the partition has no committed offset after the next
 * load. Closing that needs the brokers to refuse a deposed owner's appends (an epoch per shard
 * checked at append), not only the coordinator to refuse to send them.
 */
import { randomUUID } from 'crypto';
import type { Clock, Timer } from '../common/clock';
import { AssertionError } from '../common/assert';
import { TideError } from '../common/errors';
import { echo } from '../common/echo';
import type { Logger } from '../common/logger';
import type { ResetTarget } from '../common/reset-target';
import { DEFAULT_OFFSETS_RETENTION_CHECK_INTERVAL_MS, DEFAULT_OFFSETS_RETENTION_MS } from './config';
import { ConsumerGroup, type CommittedOffset, type GroupSnapshot } from './group';
import { GroupRuntime, type GroupStorage, type ResetEntry } from './group-runtime';
import { decodeOffsetsRecord, groupKey, groupValue, offsetKey, offsetValue } from './offsets-codec';
import type { OffsetsLog, OffsetsLogRecord, PartitionOffsets, ReplayBatch } from './offsets-log';
import { parseTpKey, sortedKeys, tpKey } from './partitions';
import type { AcquiredShard } from './shard-ownership';
import {
  acquiredShard,
  appendFenced,
  mayWrite,
  notOwnedError,
  ShardLoader,
  type FenceCheck,
  type OwnedShard,
  type ReplayFence,
} from './shard-loading';
import { partitionOfShard, shardOf, type CoordinatorRecord } from '../common/cluster/coordinator-shards';

/** A transactional offset written but not decided yet: its transaction has no marker here yet. */
export interface PendingTxnOffset {
  /** The epoch of the producer that wrote it (its transaction's; the marker carries epoch + 1). */
  producerEpoch: number;
  offset: number;
  metadata: string;
  commitTimestampMs: number;
}

/** A group's pending transactional offsets: producer id → partition key → offset. */
export type PendingTxnOffsets = Map<number, Map<string, PendingTxnOffset>>;

/**
 * Per group, per producer id: the last transaction marker applied to the group's offsets (its
 * epoch, KIP-890's bumped one, and whether it committed). A TxnOffsetCommit of an older epoch is a
 * fenced zombie's (its transaction ended): refused here before anything is sent, as the producer
 * state of the `__consumer_offsets` partition would refuse it at the leader.
 */
export type TxnMarkers = Map<number, { epoch: number; commit: boolean }>;

interface LoadedGroup {
  shard: number;
  snapshot?: GroupSnapshot;
  offsets: Map<string, CommittedOffset>;
  pending: PendingTxnOffsets;
  markers: TxnMarkers;
}

export const DEFAULT_TICK_MS = 100;

export interface CoordinatorOptions {
  selfId: string;
  clock: Clock;
  logger: Logger;
  log: OffsetsLog;
  offsets: PartitionOffsets;
  /** Partition count of `__consumer_offsets`. */
  offsetsPartitions: number;
  shardCount: () => number;
  /** Partition count of a data topic; undefined when it does not exist. */
  partitionCount: (topic: string) => number | undefined;
  /** The current owner of a shard as the metadata store says (for NOT_COORDINATOR messages). */
  ownerOf?: (shard: number) => CoordinatorRecord | undefined;
  newMemberId?: () => string;
  tickMs?: number;
  /**
   * Committed offsets of a group without members expire this long after the later of their
   * commit and the moment the group became empty (GroupRuntime.expireOffsets); -1 = never.
   * Default 7 days, Kafka's offsets.retention.minutes.
   */
  offsetsRetentionMs?: number;
  /** How often expired offsets are looked for; default 10 minutes, as Kafka. */
  offsetsRetentionCheckIntervalMs?: number;
}

interface ShardState extends OwnedShard {
  groups: Map<string, GroupRuntime>;
  /**
   * Transactional offsets written but not decided yet, per group (kept apart from the runtimes: a
   * group may have nothing else, and its pending offsets must outlive an idle runtime).
   */
  pendingTxn: Map<string, PendingTxnOffsets>;
  /** Per group: the last transaction marker applied, per producer. */
  txnMarkers: Map<string, TxnMarkers>;
  // writable (OwnedShard) turns false once the shard is dropped, or handed over after its queued
  // writes drained: its key may be someone else's by then, so nothing more of it may be written.
}

export interface PartitionLagView {
  topic: string;
  partition: number;
  committedOffset: number;
  endOffset: number;
  lag: number;
  memberId: string;
}

export interface GroupListingView {
  groupId: string;
  state: string;
  members: number;
  protocol: string;
}

export interface ResetPlanView {
  topic: string;
  partition: number;
  currentOffset: number;
  newOffset: number;
}

export class Coordinator {
  private readonly shards = new Map<number, ShardState>();
  private readonly logger: Logger;
  private readonly newMemberId: () => string;
  private readonly loader: ShardLoader<Map<string, LoadedGroup>>;
  private timer?: Timer;
  private retentionTimer?: Timer;
  private stopped = false;

  constructor(private readonly options: CoordinatorOptions) {
    this.logger = options.logger.child({ component: 'coordinator', coordinator: options.selfId });
    this.newMemberId = options.newMemberId ?? randomUUID;
    this.loader = new ShardLoader({
      clock: options.clock,
      logger: this.logger,
      what: 'shards',
      partitionOf: (shard) => partitionOfShard(shard, options.offsetsPartitions),
      stillOwned: (a) => this.stillOwned(a),
      append: (shards, partition, records) =>
        this.appendFenced(
          shards.map((a) => this.shards.get(a.shard)!),
          partition,
          records,
        ),
      replay: (partition, through, fence) => this.replay(partition, through, fence),
      activate: (shards, groups, { partition, ms }) => {
        this.activate(shards, groups);
        this.logger.info(
          { partition, shards: shards.map((a) => a.shard), groups: groups.size, ms },
          'shards loaded',
        );
      },
    });
  }

  start(): void {
    this.timer = this.options.clock.setInterval(() => this.tick(), this.options.tickMs ?? DEFAULT_TICK_MS);
    if ((this.options.offsetsRetentionMs ?? DEFAULT_OFFSETS_RETENTION_MS) >= 0) {
      this.retentionTimer = this.options.clock.setInterval(
        () => void this.expireOffsets(),
        this.options.offsetsRetentionCheckIntervalMs ?? DEFAULT_OFFSETS_RETENTION_CHECK_INTERVAL_MS,
      );
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.retentionTimer?.cancel();
    await Promise.all([...this.shards.keys()].map((shard) => this.release(shard, true)));
  }

  /** Shards with their state, for metrics and DescribeCoordinators. */
  loadedShards(): { shard: number; epoch: number; status: string; groups: number }[] {
    return [...this.shards.values()].map((s) => ({
      shard: s.shard,
      epoch: s.epoch,
      status: s.status,
      groups: s.groups.size,
    }));
  }

  // ---------------------------------------------------------------- shard ownership

  /** Starts loading newly owned shards (grouped per offsets partition: one replay each). */
  acquire(acquired: AcquiredShard[]): void {
    for (const a of acquired)
      this.shards.set(a.shard, {
        ...acquiredShard(a),
        groups: new Map(),
        pendingTxn: new Map(),
        txnMarkers: new Map(),
      });
    this.loader.load(acquired);
  }

  /** Stops serving a shard: its members are told NOT_COORDINATOR; graceful waits for queued writes. */
  async release(shard: number, graceful: boolean): Promise<void> {
    const state = this.shards.get(shard);
    if (!state) return;
    this.shards.delete(shard);
    // Dropped (lease lost): the successor may be writing already. Handed over: queued writes drain
    // first, the shard key goes only after this resolves.
    if (!graceful) state.writable = false;
    const error = new TideError(
      'NOT_COORDINATOR',
      `this coordinator gave up shard ${shard}; find the group's coordinator again`,
    );
    await Promise.all([...state.groups.values()].map((rt) => rt.close(error, graceful)));
    state.writable = false;
    this.logger.info({ shard, graceful, groups: state.groups.size }, 'stopped serving a shard');
  }

  // ---------------------------------------------------------------- groups

  /**
   * The runtime of a group this instance coordinates. Throws NOT_COORDINATOR (another instance
   * owns the shard, named when known), COORDINATOR_NOT_AVAILABLE (loading), GROUP_ID_NOT_FOUND
   * (unknown group and `create` false).
   */
  runtime(groupId: string, create: boolean): GroupRuntime {
    const shardCount = this.options.shardCount();
    if (shardCount === 0)
      throw new TideError('COORDINATOR_NOT_AVAILABLE', 'this coordinator is still starting');
    const shard = shardOf(groupId, shardCount);
    const state = this.shards.get(shard);
    if (!state)
      throw notOwnedError(this.options.selfId, shard, `group ${groupId}`, this.options.ownerOf?.(shard));
    const fenced = this.fenceError(state, 'before');
    if (fenced) throw fenced;
    if (state.status === 'loading')
      throw new TideError('COORDINATOR_NOT_AVAILABLE', `shard ${shard} of group ${groupId} is still loading`);
    let rt = state.groups.get(groupId);
    if (!rt) {
      if (!create)
        throw new TideError(
          'GROUP_ID_NOT_FOUND',
          `consumer group ${groupId} does not exist (no members, no committed offsets)`,
        );
      rt = this.newRuntime(state, new ConsumerGroup(groupId, this.groupOptions()));
      state.groups.set(groupId, rt);
    }
    return rt;
  }

  /** A topic's partition count changed somewhere: groups subscribed to it re-target. */
  topicsChanged(): void {
    for (const state of this.shards.values()) for (const rt of state.groups.values()) rt.metadataChanged();
  }

  listGroups(): GroupListingView[] {
    const out: GroupListingView[] = [];
    for (const state of this.shards.values()) {
      if (state.status !== 'active') continue;
      for (const rt of state.groups.values()) {
        if (rt.group.isDead) continue;
        out.push({
          groupId: rt.groupId,
          state: rt.group.state,
          members: rt.group.memberCount,
          protocol: rt.group.protocol,
        });
      }
    }
    return out.sort((a, b) => (a.groupId < b.groupId ? -1 : 1));
  }

  /**
   * Committed offsets of `keys` (every committed partition when empty); -1 for none. With
   * `requireStable`, UNSTABLE_OFFSET_COMMIT (retriable) while one of those partitions has a
   * pending transactional offset: its transaction may have committed already (the transaction
   * coordinator answers EndTxn before it completes the groups), and a consumer starting from the
   * older offset would process those records again (KIP-447).
   */
  fetchOffsets(
    groupId: string,
    keys: string[],
    requireStable = false,
  ): { key: string; committed?: CommittedOffset }[] {
    if (requireStable) {
      const pending = this.unstablePartition(groupId, keys);
      if (pending)
        throw new TideError(
          'UNSTABLE_OFFSET_COMMIT',
          `group ${groupId}: a transaction of producer ${pending.producerId} committed an offset for ${pending.key.replace('\u0000', '/')} and has not completed yet`,
        );
    }
    let rt: GroupRuntime;
    try {
      rt = this.runtime(groupId, false);
    } catch (err) {
      if ((err as TideError).code !== 'GROUP_ID_NOT_FOUND') throw err;
      return keys.map((key) => ({ key }));
    }
    const wanted = keys.length > 0 ? keys : sortedKeys(rt.group.offsets.keys());
    return wanted.map((key) => ({ key, committed: rt.group.offsets.get(key) }));
  }

  /**
   * Per partition of the group (every partition of its subscribed topics, and every partition it
   * has an offset for): committed offset, high watermark and lag. A partition whose leader cannot
   * be asked has end offset and lag -1.
   */
  async lag(groupId: string): Promise<PartitionLagView[]> {
    const rt = this.runtime(groupId, false);
    const keys = new Set<string>(rt.group.offsets.keys());
    for (const topic of rt.group.subscribedTopics()) {
      const count = this.options.partitionCount(topic) ?? 0;
      for (let p = 0; p < count; p++) keys.add(tpKey(topic, p));
    }
    return Promise.all(
      sortedKeys(keys).map(async (key) => {
        const { topic, partition } = parseTpKey(key);
        const committed = rt.group.offsets.get(key)?.offset ?? -1;
        const bounds = await this.options.offsets.bounds(topic, partition).catch(() => undefined);
        const endOffset = bounds?.highWatermark ?? -1;
        let lag = -1;
        if (bounds)
          lag = Math.max(0, committed >= 0 ? endOffset - committed : endOffset - bounds.logStartOffset);
        return {
          topic,
          partition,
          committedOffset: committed,
          endOffset,
          lag,
          memberId: rt.group.ownerOf(key) ?? '',
        };
      }),
    );
  }

  /** Every active group's lag (for the metrics exporter). */
  async allLag(): Promise<{ groupId: string; partitions: PartitionLagView[] }[]> {
    const groups = this.listGroups();
    return Promise.all(
      groups.map(async (g) => ({
        groupId: g.groupId,
        partitions: await this.lag(g.groupId).catch(() => []),
      })),
    );
  }

  /**
   * Computes (and unless dryRun applies) new committed offsets for `keys`. UNKNOWN_TOPIC when a
   * topic does not exist.
   */
  async resetOffsets(
    groupId: string,
    keys: string[],
    spec: ResetTarget,
    dryRun: boolean,
  ): Promise<{ plan: ResetPlanView[]; applied: boolean; generation: number }> {
    for (const key of keys) {
      const { topic, partition } = parseTpKey(key);
      const count = this.options.partitionCount(topic);
      if (count === undefined)
        throw new TideError('UNKNOWN_TOPIC', `topic ${echo(topic)} does not exist`, { context: { topic } });
      if (partition >= count)
        throw new TideError('UNKNOWN_PARTITION', `topic ${topic} has ${count} partitions`, {
          context: { topic, partition },
        });
    }
    const targets = new Map<string, number>();
    const bounds = new Map<string, { logStartOffset: number; highWatermark: number }>();
    await Promise.all(
      keys.map(async (key) => {
        const { topic, partition } = parseTpKey(key);
        if (spec.to === 'shift') bounds.set(key, await this.options.offsets.bounds(topic, partition));
        else targets.set(key, await this.resetTarget(topic, partition, spec));
      }),
    );
    // A shift starts from the committed offset as of the reset itself (run in turn with commits).
    const target = (key: string, current: ReadonlyMap<string, CommittedOffset>): number => {
      if (spec.to !== 'shift') return targets.get(key)!;
      const b = bounds.get(key)!;
      const from = current.get(key)?.offset ?? b.logStartOffset;
      return Math.min(b.highWatermark, Math.max(b.logStartOffset, from + spec.shiftBy));
    };
    const existed = this.hasGroup(groupId);
    const rt = this.runtime(groupId, true);
    const result = await rt.reset(
      (current) => sortedKeys(keys).map((key): ResetEntry => ({ key, offset: target(key, current) })),
      dryRun,
    );
    if (!existed && rt.group.isDead) this.forget(groupId);
    return {
      plan: result.entries.map((e) => {
        const { topic, partition } = parseTpKey(e.key);
        return { topic, partition, currentOffset: result.previous.get(e.key) ?? -1, newOffset: e.offset };
      }),
      applied: !dryRun,
      generation: result.generation,
    };
  }

  /**
   * Deletes a group that has no members: its committed offsets and its record. Throws
   * GROUP_ID_NOT_FOUND (no such group), NON_EMPTY_GROUP (members, also ones whose session has not
   * expired yet).
   */
  async deleteGroup(groupId: string): Promise<{ offsetsDeleted: number }> {
    const rt = this.runtime(groupId, false);
    const offsetsDeleted = await rt.delete();
    if (rt.group.isDead) this.forget(groupId);
    return { offsetsDeleted };
  }

  // ---------------------------------------------------------------- transactional offsets

  /**
   * TxnOffsetCommit: the member's epoch and partitions are checked as for a commit (KIP-447: a
   * zombie of an older generation is refused), then the offsets are appended to the group's
   * partition of `__consumer_offsets` as one transactional batch of the producer (its id and
   * epoch; the leader joins the partition to the producer's transaction first, so the transaction
   * coordinator writes its marker there). They stay pending, invisible to FetchOffsets, until the
   * transaction's marker is applied (completeTxnOffsets, or a replay that meets the marker).
   */
  async txnOffsetCommit(
    groupId: string,
    producer: { transactionalId: string; producerId: number; producerEpoch: number },
    member: { memberId: string; memberEpoch: number },
    entries: readonly { key: string; offset: number; metadata: string }[],
  ): Promise<void> {
    const rt = this.runtime(groupId, true);
    const state = this.shards.get(shardOf(groupId, this.options.shardCount()))!;
    const keys = entries.map((e) => e.key);
    const { producerId, producerEpoch } = producer;
    rt.group.validateCommit(member.memberId, member.memberEpoch, keys);
    await rt.serialized(async () => {
      rt.group.validateCommit(member.memberId, member.memberEpoch, keys);
      const current = state.pendingTxn.get(groupId)?.get(producerId);
      const newer = [...(current?.values() ?? [])].find((p) => p.producerEpoch > producerEpoch);
      if (newer)
        throw new TideError(
          'PRODUCER_FENCED',
          `producer ${producerId} epoch ${producerEpoch} is fenced: group ${groupId} holds its offsets of epoch ${newer.producerEpoch}`,
        );
      const marker = state.txnMarkers.get(groupId)?.get(producerId);
      if (marker !== undefined && producerEpoch < marker.epoch)
        throw new TideError(
          'PRODUCER_FENCED',
          `producer ${producerId} epoch ${producerEpoch} is fenced: its transaction ended (group ${groupId} has its marker of epoch ${marker.epoch})`,
        );
      const nowMs = this.options.clock.nowMs();
      const written = entries.map((e): [string, PendingTxnOffset] => [
        e.key,
        { producerEpoch, offset: e.offset, metadata: e.metadata, commitTimestampMs: nowMs },
      ]);
      await this.appendTransactionalFenced(
        state,
        producer,
        written.map(([key, p]) => {
          const { topic, partition: tp } = parseTpKey(key);
          return {
            key: offsetKey(groupId, topic, tp),
            value: offsetValue({ coordinatorEpoch: state.epoch, ...p }),
          };
        }),
      );
      // The append landed before the marker (a leader refuses the epoch after it), but the marker
      // may have been applied while this answer was on its way (a timeout abort): apply it now.
      const ended = state.txnMarkers.get(groupId)?.get(producerId);
      if (ended !== undefined && ended.epoch > producerEpoch) {
        if (ended.commit && ended.epoch === producerEpoch + 1)
          rt.group.applyCommit(written.map(([key, p]) => ({ key, offset: committedOf(p) })));
        return;
      }
      let byProducer = state.pendingTxn.get(groupId);
      if (!byProducer) state.pendingTxn.set(groupId, (byProducer = new Map()));
      let offsets = byProducer.get(producerId);
      if (!offsets) byProducer.set(producerId, (offsets = new Map()));
      for (const [key, p] of written) offsets.set(key, p);
    });
  }

  /**
   * The marker of the transaction of `producerId` that ended with epoch `producerEpoch` (KIP-890's
   * bump) is written in the group's partition of `__consumer_offsets`: the transaction
   * coordinator calls this once it is (TxnOffsets.CompleteTxnOffsets, retried until done). Its
   * pending offsets (written with older epochs) become the group's committed offsets on COMMIT, and
   * are dropped on ABORT, as a replay does when it meets the marker; nothing is written (the
   * marker is the durable record). A marker applied already, or of an older epoch, changes
   * nothing. Resolves with how many offsets it decided.
   */
  async completeTxnOffsets(
    groupId: string,
    producerId: number,
    producerEpoch: number,
    commit: boolean,
  ): Promise<number> {
    const rt = this.runtime(groupId, true);
    const state = this.shards.get(shardOf(groupId, this.options.shardCount()))!;
    let markers = state.txnMarkers.get(groupId);
    if (!markers) state.txnMarkers.set(groupId, (markers = new Map()));
    const before = markers.get(producerId);
    if (!before || before.epoch < producerEpoch) markers.set(producerId, { epoch: producerEpoch, commit });
    const offsets = state.pendingTxn.get(groupId)?.get(producerId);
    const resolved = [...(offsets ?? [])].filter(([, p]) => p.producerEpoch < producerEpoch);
    if (resolved.length === 0) return 0;
    if (commit) rt.group.applyCommit(resolved.map(([key, p]) => ({ key, offset: committedOf(p) })));
    for (const [key] of resolved) offsets!.delete(key);
    if (offsets!.size === 0) state.pendingTxn.get(groupId)?.delete(producerId);
    if (state.pendingTxn.get(groupId)?.size === 0) state.pendingTxn.delete(groupId);
    return resolved.length;
  }

  /** A partition of `keys` (any when empty) with a pending transactional offset of the group. */
  private unstablePartition(
    groupId: string,
    keys: string[],
  ): { key: string; producerId: number } | undefined {
    const wanted = keys.length > 0 ? new Set(keys) : undefined;
    for (const [producerId, offsets] of this.pendingTxnOffsets(groupId))
      for (const key of offsets.keys()) if (!wanted || wanted.has(key)) return { key, producerId };
    return undefined;
  }

  /** The group's pending transactional offsets (DescribeGroup, tests). */
  pendingTxnOffsets(groupId: string): PendingTxnOffsets {
    return this.shards.get(shardOf(groupId, this.options.shardCount()))?.pendingTxn.get(groupId) ?? new Map();
  }

  /** Whether this instance serves the group's shard now (loaded or loading). */
  ownsGroup(groupId: string): boolean {
    const shardCount = this.options.shardCount();
    return shardCount > 0 && this.shards.has(shardOf(groupId, shardCount));
  }

  // ---------------------------------------------------------------- internals

  private async resetTarget(
    topic: string,
    partition: number,
    spec: Exclude<ResetTarget, { to: 'shift' }>,
  ): Promise<number> {
    const bounds = await this.options.offsets.bounds(topic, partition);
    switch (spec.to) {
      case 'earliest':
        return bounds.logStartOffset;
      case 'latest':
        return bounds.highWatermark;
      case 'timestamp':
        return this.options.offsets.offsetForTime(topic, partition, spec.timestampMs);
      case 'offset':
        return Math.min(bounds.highWatermark, Math.max(bounds.logStartOffset, spec.offset));
    }
  }

  private hasGroup(groupId: string): boolean {
    const state = this.shards.get(shardOf(groupId, this.options.shardCount()));
    return state?.groups.has(groupId) ?? false;
  }

  private forget(groupId: string): void {
    this.shards.get(shardOf(groupId, this.options.shardCount()))?.groups.delete(groupId);
  }

  private groupOptions() {
    return { newMemberId: this.newMemberId, partitionCount: this.options.partitionCount };
  }

  /**
   * Appends records of `states`' shards to their offsets partition behind the lease-time fence (see
   * the file header): NOT_COORDINATOR and nothing sent unless every shard may still be written;
   * NOT_COORDINATOR (not acknowledged) when that no longer holds once the append completes.
   */
  private appendFenced(
    states: readonly ShardState[],
    partition: number,
    records: OffsetsLogRecord[],
  ): Promise<number> {
    return appendFenced(this.options.log, states, partition, records, (state, when) =>
      this.fenceError(state, when),
    );
  }

  /**
   * appendFenced for a transactional producer's offsets: one transactional batch of `producer` in
   * the shard's partition, behind the same lease-time fence.
   */
  private async appendTransactionalFenced(
    state: ShardState,
    producer: { transactionalId: string; producerId: number; producerEpoch: number },
    records: OffsetsLogRecord[],
  ): Promise<number> {
    const log = this.options.log;
    if (!log.appendTransactional) throw new AssertionError('the offsets log takes no transactional appends');
    const before = this.fenceError(state, 'before');
    if (before) throw before;
    const offset = await log.appendTransactional(
      partitionOfShard(state.shard, this.options.offsetsPartitions),
      producer,
      records,
    );
    const after = this.fenceError(state, 'after');
    if (after) throw after;
    return offset;
  }

  /** Why `state`'s shard may not be written now (undefined: it may). */
  private fenceError(state: ShardState, when: FenceCheck): TideError | undefined {
    if (mayWrite(state)) return undefined;
    const until = state.fence.validUntilMs();
    const deadline =
      until !== undefined && Number.isFinite(until) && until < this.options.clock.nowMs()
        ? ` (certainly alive only until ${new Date(until).toISOString()})`
        : '';
    const why = state.writable
      ? `the lease of coordinator ${this.options.selfId} is lost or may have expired${deadline}`
      : `coordinator ${this.options.selfId} gave shard ${state.shard} up`;
    const what =
      when === 'before'
        ? `shard ${state.shard} may already belong to another coordinator`
        : `a write of shard ${state.shard} completed after that, possibly behind its new owner's marker, so it is not acknowledged`;
    return new TideError('NOT_COORDINATOR', `${why}: ${what}; find the group's coordinator again and retry`);
  }

  private newRuntime(state: ShardState, group: ConsumerGroup, recorded = false): GroupRuntime {
    const partition = partitionOfShard(state.shard, this.options.offsetsPartitions);
    const epoch = state.epoch;
    const storage: GroupStorage = {
      writeGroup: async (snapshot) => {
        await this.appendFenced([state], partition, [
          { key: groupKey(snapshot.groupId), value: groupValue(epoch, snapshot) },
        ]);
      },
      writeOffsets: async (entries) => {
        await this.appendFenced(
          [state],
          partition,
          entries.map((e) => {
            const { topic, partition: p } = parseTpKey(e.key);
            return {
              key: offsetKey(group.groupId, topic, p),
              value: offsetValue({ coordinatorEpoch: epoch, ...e.offset }),
            };
          }),
        );
      },
      deleteGroup: async (offsetKeys) => {
        await this.appendFenced([state], partition, [
          ...offsetTombstones(group.groupId, offsetKeys),
          { key: groupKey(group.groupId), value: null },
        ]);
      },
      deleteOffsets: async (offsetKeys) => {
        await this.appendFenced([state], partition, offsetTombstones(group.groupId, offsetKeys));
      },
    };
    return new GroupRuntime(group, storage, this.options.clock, this.logger.child({ group: group.groupId }), {
      recorded,
    });
  }

  private tick(): void {
    for (const state of this.shards.values()) {
      // A paused instance waking past its lease expires nobody: the sessions are not its to judge.
      if (state.status !== 'active' || !state.fence.mayAct()) continue;
      for (const [groupId, rt] of state.groups) {
        rt.expire();
        if (!rt.group.isDead || rt.connectedMembers() > 0 || rt.busy) continue;
        if (!rt.hasRecord) {
          state.groups.delete(groupId);
          continue;
        }
        // Its record goes first; a later tick forgets it (or it lives again meanwhile).
        rt.deleteRecord().catch((err: unknown) =>
          this.logger.warn({ err, group: groupId }, 'could not delete the record of a dead group'),
        );
      }
    }
  }

  /**
   * One offsets-retention pass over the groups of the shards this instance may act for. A group
   * with transactional offsets still undecided is left for a later pass: their marker decides
   * which offsets it has. Answers how many offsets expired.
   */
  async expireOffsets(): Promise<number> {
    const retentionMs = this.options.offsetsRetentionMs ?? DEFAULT_OFFSETS_RETENTION_MS;
    if (retentionMs < 0) return 0;
    let expired = 0;
    for (const state of this.shards.values()) {
      if (state.status !== 'active' || !state.fence.mayAct()) continue;
      for (const [groupId, rt] of state.groups) {
        if ((state.pendingTxn.get(groupId)?.size ?? 0) > 0) continue;
        try {
          expired += await rt.expireOffsets(retentionMs);
        } catch (err) {
          // Moved or fenced meanwhile (NOT_COORDINATOR), or a failed write: the next pass retries.
          this.logger.warn({ err, group: groupId }, 'offsets retention pass failed for the group');
        }
      }
    }
    return expired;
  }

  private stillOwned(a: AcquiredShard): boolean {
    const state = this.shards.get(a.shard);
    return state !== undefined && state.epoch === a.epoch && !this.stopped;
  }

  /**
   * The groups of the fence's shards in `partition` of `__consumer_offsets`, through `through`:
   * each group's last snapshot and committed offsets, and its pending transactional offsets.
   * Offset records in a transactional batch are held per producer until the producer's marker:
   * a COMMIT makes them committed offsets at the marker's place in the log, an ABORT drops them,
   * and those still without a marker at `through` (an open transaction) stay pending.
   */
  private async replay(
    partition: number,
    through: number,
    fence: ReplayFence,
  ): Promise<Map<string, LoadedGroup>> {
    const shardCount = this.options.shardCount();
    const groups = new Map<string, LoadedGroup>();
    const entry = (group: string, shard: number) => {
      let e = groups.get(group);
      if (!e) groups.set(group, (e = { shard, offsets: new Map(), pending: new Map(), markers: new Map() }));
      return e;
    };
    /** Per producer id: its transactional offsets not closed by a marker yet, in log order. */
    const open = new Map<number, { group: string; shard: number; key: string; p: PendingTxnOffset }[]>();
    const applyMarker = (batch: ReplayBatch) => {
      const records = open.get(batch.producerId) ?? [];
      open.delete(batch.producerId);
      const commit = batch.control === 'COMMIT';
      const touched = new Set<string>();
      for (const r of records) {
        const e = entry(r.group, r.shard);
        touched.add(r.group);
        if (commit) e.offsets.set(r.key, committedOf(r.p));
      }
      for (const group of touched)
        entry(group, shardOf(group, shardCount)).markers.set(batch.producerId, {
          epoch: batch.producerEpoch,
          commit,
        });
    };
    await this.options.log.replay(partition, through, (key, value, offset, batch) => {
      if (batch?.control) {
        applyMarker(batch);
        return;
      }
      let record;
      try {
        record = decodeOffsetsRecord(key, value);
      } catch (err) {
        this.logger.error({ err, partition, offset }, 'skipping a malformed offsets record');
        return;
      }
      if (record.type === 'unknown') return;
      if (record.type === 'marker') {
        if (record.value) fence.marker(record.shard, record.value.coordinatorEpoch);
        return;
      }
      const shard = shardOf(record.group, shardCount);
      if (!fence.wants(shard)) return;
      if (record.value && fence.stale(shard, record.value.coordinatorEpoch)) return;
      if (batch?.transactional) {
        // A transactional offset commit: pending until its producer's marker.
        if (record.type !== 'offset' || !record.value) return;
        let list = open.get(batch.producerId);
        if (!list) open.set(batch.producerId, (list = []));
        list.push({
          group: record.group,
          shard,
          key: tpKey(record.topic, record.partition),
          p: {
            producerEpoch: batch.producerEpoch,
            offset: record.value.offset,
            metadata: record.value.metadata,
            commitTimestampMs: record.value.commitTimestampMs,
          },
        });
        return;
      }
      const e = entry(record.group, shard);
      if (record.type === 'group') {
        e.snapshot = record.value?.snapshot;
      } else {
        const k = tpKey(record.topic, record.partition);
        if (record.value)
          e.offsets.set(k, {
            offset: record.value.offset,
            metadata: record.value.metadata,
            commitTimestampMs: record.value.commitTimestampMs,
          });
        else e.offsets.delete(k);
      }
    });
    for (const [producerId, records] of open)
      for (const r of records) {
        const pending = entry(r.group, r.shard).pending;
        let offsets = pending.get(producerId);
        if (!offsets) pending.set(producerId, (offsets = new Map()));
        offsets.set(r.key, r.p);
      }
    fence.reportSkipped(
      this.logger,
      partition,
      "ignored records of a deposed coordinator (written after its successor's marker)",
    );
    return groups;
  }

  private activate(shards: AcquiredShard[], groups: Map<string, LoadedGroup>): void {
    const nowMs = this.options.clock.nowMs();
    for (const a of shards) {
      if (!this.stillOwned(a)) continue;
      const state = this.shards.get(a.shard)!;
      for (const [groupId, loaded] of groups) {
        if (loaded.shard !== a.shard) continue;
        if (loaded.pending.size > 0) state.pendingTxn.set(groupId, loaded.pending);
        if (loaded.markers.size > 0) state.txnMarkers.set(groupId, loaded.markers);
        const group = new ConsumerGroup(groupId, this.groupOptions());
        if (loaded.snapshot) group.restore(loaded.snapshot, nowMs);
        group.applyCommit([...loaded.offsets].map(([key, offset]) => ({ key, offset })));
        // A dead group with a record stays until the tick has deleted that record.
        if (group.isDead && !loaded.snapshot) continue;
        state.groups.set(groupId, this.newRuntime(state, group, loaded.snapshot !== undefined));
      }
      state.status = 'active';
    }
  }
}

/** A decided transactional offset as a committed offset. */
function committedOf(p: PendingTxnOffset): CommittedOffset {
  return { offset: p.offset, metadata: p.metadata, commitTimestampMs: p.commitTimestampMs };
}

/** Tombstones for a group's committed offsets of these partitions. */
function offsetTombstones(groupId: string, offsetKeys: readonly string[]): { key: Buffer; value: null }[] {
  return offsetKeys.map((k) => {
    const { topic, partition } = parseTpKey(k);
    return { key: offsetKey(groupId, topic, partition), value: null };
  });
}
