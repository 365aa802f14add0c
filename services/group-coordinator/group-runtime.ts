/**
 * A loaded group at work: the pure ConsumerGroup, the streams of its connected members, and one
 * serialized queue of durable writes per group.
 *
 * Ordering rules that keep the protocol safe:
 * - Membership changes apply in memory at once; the messages they produce (assignments,
 *   revocations, fences) are sent only after the group's metadata record reached
 *   `__consumer_offsets` with acks=all. So any partition a member was ever told it owns is in the
 *   durable snapshot, and a coordinator taking the shard over never hands it to someone else
 *   while that member may still consume it.
 * - Commits and resets go through the same queue: a commit is validated (member, epoch, ownership)
 *   when its turn comes, immediately before its write, so a commit queued behind a reset is checked
 *   against the reset's fence and rejected if stale, and can never overwrite the reset offsets.
 * - A snapshot write that fails is retried until it succeeds or the shard is released (members
 *   wait; their heartbeats still work); a failed offset write fails the commit (the client retries).
 */
import type { Clock } from '../common/clock';
import { TideError } from '../common/errors';
import type { Logger } from '../common/logger';
import type { MemberResponse__Input } from '../common/grpc/generated/tide/v1/MemberResponse';
import {
  ConsumerGroup,
  type CommittedOffset,
  type GroupEffect,
  type ComputeResult,
  type GroupSnapshot,
  type JoinRequest,
} from './group';
import { parseTpKey, toWire } from './partitions';

/** The server side of one member's stream. */
export interface MemberChannel {
  send(message: MemberResponse__Input): void;
  /** Ends the stream with an error status. */
  fail(error: TideError): void;
}

/** Durable writes of one group (to its partition of `__consumer_offsets`). */
export interface GroupStorage {
  writeGroup(snapshot: GroupSnapshot): Promise<void>;
  writeOffsets(entries: readonly { key: string; offset: CommittedOffset }[]): Promise<void>;
  /** Tombstones for these committed offsets and for the group's record. */
  deleteGroup(offsetKeys: readonly string[]): Promise<void>;
  /** Tombstones for these committed offsets only. */
  deleteOffsets(offsetKeys: readonly string[]): Promise<void>;
}

export interface ResetEntry {
  key: string;
  offset: number;
}

const PERSIST_BACKOFF_MAX_MS = 2_000;

export class GroupRuntime {
  private readonly channels = new Map<string, MemberChannel>();
  private chain: Promise<void> = Promise.resolve();
  private queued = 0;
  private closed = false;

  /**
   * True while `__consumer_offsets` holds a record of the group (a snapshot written, or loaded,
   * and no tombstone since): a group that dies is forgotten only once that record is deleted.
   */
  private recorded: boolean;

  constructor(
    readonly group: ConsumerGroup,
    private readonly storage: GroupStorage,
    private readonly clock: Clock,
    private readonly logger: Logger,
    options: { recorded?: boolean } = {},
  ) {
    this.recorded = options.recorded ?? false;
  }

  get hasRecord(): boolean {
    return this.recorded;
  }

  get groupId(): string {
    return this.group.groupId;
  }

  /** Members with an open stream. */
  connectedMembers(): number {
    return this.channels.size;
  }

  /**
   * A member's Join on `channel`: answers Joined at once, the rest after the change is durable.
   * Throws the group's typed errors (UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH, INVALID_REQUEST).
   */
  join(request: JoinRequest, channel: MemberChannel): string {
    this.ensureOpen();
    const joined = this.group.join(request, this.clock.nowMs());
    const previous = this.channels.get(joined.memberId);
    if (previous && previous !== channel)
      previous.fail(
        new TideError('UNKNOWN_MEMBER_ID', `member ${joined.memberId} reconnected on another stream`),
      );
    this.channels.set(joined.memberId, channel);
    channel.send({
      joined: {
        member_id: joined.memberId,
        member_epoch: joined.memberEpoch,
        heartbeat_interval_ms: joined.heartbeatIntervalMs,
        generation: this.group.generation,
      },
    });
    this.afterChange(joined.effects);
    return joined.memberId;
  }

  heartbeat(memberId: string, memberEpoch: number, channel: MemberChannel): void {
    this.ensureOpen();
    this.group.heartbeat(memberId, memberEpoch, this.clock.nowMs());
    channel.send({ heartbeat: { member_epoch: memberEpoch } });
  }

  revoked(memberId: string, partitions: string[]): void {
    this.ensureOpen();
    this.afterChange(this.group.revoked(memberId, partitions, this.clock.nowMs()));
  }

  /** The member's user data changed (a client-side assignor computes the target again). */
  userData(memberId: string, userData: Buffer): void {
    this.ensureOpen();
    this.afterChange(this.group.updateUserData(memberId, userData, this.clock.nowMs()));
  }

  /** The leader's client-side assignment. Throws INVALID_REQUEST for a malformed one. */
  assignmentComputed(memberId: string, result: ComputeResult): void {
    this.ensureOpen();
    const effects = this.group.assignmentComputed(memberId, result, this.clock.nowMs());
    if (effects.length > 0) this.afterChange(effects);
  }

  leave(memberId: string, temporary: boolean): void {
    this.ensureOpen();
    this.channels.delete(memberId);
    this.afterChange(this.group.leave(memberId, temporary, this.clock.nowMs()));
  }

  /** The stream of `memberId` ended without a leave (the member keeps its session). */
  streamClosed(memberId: string, channel: MemberChannel): void {
    if (this.channels.get(memberId) !== channel) return;
    this.channels.delete(memberId);
    this.group.disconnected(memberId);
  }

  /** Session and revocation deadlines. */
  expire(): void {
    if (this.closed) return;
    const effects = this.group.expire(this.clock.nowMs());
    if (effects.length > 0) this.afterChange(effects);
  }

  /** Topic metadata changed (a topic created, partitions added). */
  metadataChanged(): void {
    if (this.closed) return;
    const effects = this.group.metadataChanged(this.clock.nowMs());
    if (effects.length > 0) this.afterChange(effects);
  }

  /** Validates, writes durably, then applies a commit. */
  commit(
    memberId: string,
    memberEpoch: number,
    entries: readonly { key: string; offset: number; metadata: string }[],
  ): Promise<void> {
    this.ensureOpen();
    const keys = entries.map((e) => e.key);
    this.group.validateCommit(memberId, memberEpoch, keys);
    return this.enqueue(async () => {
      this.group.validateCommit(memberId, memberEpoch, keys);
      const nowMs = this.clock.nowMs();
      const committed = entries.map((e) => ({
        key: e.key,
        offset: { offset: e.offset, metadata: e.metadata, commitTimestampMs: nowMs },
      }));
      await this.storage.writeOffsets(committed);
      this.group.applyCommit(committed);
    });
  }

  /**
   * Resets committed offsets. `plan` gets the current offsets and answers the new ones (run in
   * turn with commits, so `current` is exact). Unless `dryRun`, the new offsets are written, the
   * group is fenced (every member epoch moves to a new generation; older commits are rejected)
   * and every connected member is told to fetch its offsets again.
   */
  reset(
    plan: (current: ReadonlyMap<string, CommittedOffset>) => ResetEntry[],
    dryRun: boolean,
  ): Promise<{ entries: ResetEntry[]; previous: Map<string, number>; generation: number }> {
    this.ensureOpen();
    return this.enqueue(async () => {
      const entries = plan(this.group.offsets);
      const previous = new Map(entries.map((e) => [e.key, this.group.offsets.get(e.key)?.offset ?? -1]));
      if (dryRun || entries.length === 0) return { entries, previous, generation: this.group.generation };
      const nowMs = this.clock.nowMs();
      const committed = entries.map((e) => ({
        key: e.key,
        offset: { offset: e.offset, metadata: '', commitTimestampMs: nowMs },
      }));
      await this.storage.writeOffsets(committed);
      this.group.applyCommit(committed);
      const effects = this.group.fence(nowMs);
      await this.persist(this.group.snapshot());
      this.dispatch(effects);
      this.logger.info(
        { group: this.groupId, partitions: entries.length, generation: this.group.generation },
        'offsets reset; members fenced to the new generation',
      );
      return { entries, previous, generation: this.group.generation };
    });
  }

  /**
   * Deletes the group's committed offsets and record; answers how many offsets it removed.
   * NON_EMPTY_GROUP while the group has members.
   */
  delete(): Promise<number> {
    this.ensureOpen();
    return this.enqueue(async () => {
      const members = this.group.memberCount;
      if (members > 0)
        throw new TideError(
          'NON_EMPTY_GROUP',
          `consumer group ${this.groupId} has ${members} member(s); only a group without members can be deleted`,
        );
      const keys = [...this.group.offsets.keys()];
      await this.storage.deleteGroup(keys);
      this.recorded = false;
      this.group.forgetOffsets(keys);
      this.logger.info({ group: this.groupId, offsets: keys.length }, 'group deleted');
      return keys.length;
    });
  }

  /**
   * Offsets retention (Kafka's offsets.retention.minutes, KIP-211 and KIP-496): while the group has
   * no members, a committed offset expires `retentionMs` after the later of its commit and the
   * moment the last member left; while it has members, only offsets of topics no member
   * subscribes to expire, `retentionMs` after their commit. Their tombstones are written, and when
   * no offset is left the group's record goes too (the group is deleted). Answers how many offsets
   * expired.
   */
  expireOffsets(retentionMs: number): Promise<number> {
    this.ensureOpen();
    return this.enqueue(async () => {
      const nowMs = this.clock.nowMs();
      const expired: string[] = [];
      if (this.group.memberCount > 0) {
        const subscribed = this.group.subscribedTopics();
        for (const [key, o] of this.group.offsets)
          if (!subscribed.has(parseTpKey(key).topic) && o.commitTimestampMs + retentionMs <= nowMs)
            expired.push(key);
      } else {
        const emptySinceMs = this.group.emptySinceMs ?? 0;
        for (const [key, o] of this.group.offsets)
          if (Math.max(emptySinceMs, o.commitTimestampMs) + retentionMs <= nowMs) expired.push(key);
      }
      if (expired.length === 0) return 0;
      const deleted = expired.length === this.group.offsets.size && this.group.memberCount === 0;
      if (deleted) {
        await this.storage.deleteGroup(expired);
        this.recorded = false;
      } else await this.storage.deleteOffsets(expired);
      this.group.forgetOffsets(expired);
      this.logger.info(
        { group: this.groupId, offsets: expired.length, groupDeleted: deleted },
        'committed offsets expired (offsetsRetentionMs)',
      );
      return expired.length;
    });
  }

  /**
   * Deletes the record of a group that died (no members, no offsets: its members came and went
   * without committing, or its offsets were deleted one by one), so it does not come back, empty,
   * at every load of its shard. Runs in the group's queue: a member that joins meanwhile is
   * written after it, and the group is alive again and keeps its record.
   */
  deleteRecord(): Promise<void> {
    this.ensureOpen();
    return this.enqueue(async () => {
      if (!this.recorded || !this.group.isDead) return;
      await this.storage.deleteGroup([]);
      this.recorded = false;
    });
  }

  /**
   * Stops serving: every member stream ends with `error` (NOT_COORDINATOR: they find the new
   * coordinator), queued writes finish (graceful) or are abandoned.
   */
  async close(error: TideError, graceful: boolean, graceMs = 5_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const channel of this.channels.values()) channel.fail(error);
    this.channels.clear();
    if (!graceful) return;
    await Promise.race([this.chain, new Promise<void>((resolve) => this.clock.setTimeout(resolve, graceMs))]);
  }

  // ---------------------------------------------------------------- internals

  private afterChange(effects: GroupEffect[]): void {
    const snapshot = this.group.snapshot();
    void this.enqueue(async () => {
      await this.persist(snapshot);
      this.dispatch(effects);
    }).catch((err: unknown) => {
      if (!this.closed) this.logger.error({ err, group: this.groupId }, 'group change was not applied');
    });
  }

  private async persist(snapshot: GroupSnapshot): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (this.closed)
        throw new TideError('NOT_COORDINATOR', `group ${this.groupId} moved to another coordinator`);
      try {
        await this.storage.writeGroup(snapshot);
        this.recorded = true;
        return;
      } catch (err) {
        const delayMs = Math.min(PERSIST_BACKOFF_MAX_MS, 50 * 2 ** attempt);
        this.logger.warn(
          { err, group: this.groupId, attempt, delayMs },
          'writing group metadata failed; retrying',
        );
        await new Promise<void>((resolve) => this.clock.setTimeout(resolve, delayMs));
      }
    }
  }

  private dispatch(effects: GroupEffect[]): void {
    if (this.closed) return;
    for (const effect of effects) {
      const channel = this.channels.get(effect.memberId);
      if (!channel) continue;
      switch (effect.kind) {
        case 'assignment':
          channel.send({
            assignment: {
              generation: effect.generation,
              member_epoch: effect.memberEpoch,
              partitions: toWire(effect.partitions),
              refetch_offsets: effect.refetchOffsets,
              user_data: effect.userData,
            },
          });
          break;
        case 'compute': {
          const r = effect.request;
          channel.send({
            compute_assignment: {
              generation: r.generation,
              members: r.members.map((m) => ({
                member_id: m.memberId,
                instance_id: m.instanceId,
                topics: m.topics,
                user_data: m.userData,
                owned: toWire(m.owned),
                previous_target: toWire(m.previousTarget),
              })),
              partition_counts: [...r.partitionCounts].map(([topic, partitions]) => ({ topic, partitions })),
            },
          });
          break;
        }
        case 'revoke':
          channel.send({ revoke: { partitions: toWire(effect.partitions), timeout_ms: effect.timeoutMs } });
          break;
        case 'fence':
          this.channels.delete(effect.memberId);
          channel.fail(effect.error);
          break;
      }
    }
  }

  /**
   * Runs `fn` in turn with commits, resets and membership writes (transactional offsets,
   * coordinator.ts): it sees the group as those leave it. NOT_COORDINATOR once the group moved.
   */
  serialized<T>(fn: () => Promise<T>): Promise<T> {
    this.ensureOpen();
    return this.enqueue(fn);
  }

  /**
   * True while a durable write (commit, reset, membership change) is queued or running: a group
   * that looks dead (no members, nothing committed yet) must not be forgotten then, or the write
   * would land in a runtime nobody serves and the next request would see no offsets.
   */
  get busy(): boolean {
    return this.queued > 0;
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    this.queued++;
    const run = this.chain.then(fn).finally(() => this.queued--);
    this.chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private ensureOpen(): void {
    if (this.closed)
      throw new TideError(
        'NOT_COORDINATOR',
        `group ${this.groupId} is moving to another coordinator; find it again`,
      );
  }
}
