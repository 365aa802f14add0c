/**
 * One consumer group on the consumer (incremental) protocol: members, the target assignment, what
 * each member owns, and the committed offsets. Pure logic: time comes in as `nowMs`, and every
 * change returns the messages to push to members (`GroupEffect`s); group-runtime.ts makes the
 * change durable before it sends them.
 *
 * Ownership invariant (checked by assertions): a partition is owned by at most one member. A
 * partition moves in three steps, each its own message:
 *   1. the target moves it away from A: A gets Revoke{p} and keeps owning p meanwhile;
 *   2. A stops consuming p, commits, and acks (RevocationAck): p is now owned by nobody;
 *   3. the reconcile gives p to B (Assignment{member_epoch, partitions incl. p}).
 * Members whose partitions do not move get no message at all: they never stop.
 *
 * Epochs: `generation` (the group epoch) is bumped by every change of membership, subscriptions,
 * topic metadata, or by a fence. A member's `epoch` is set to the generation when it is given
 * partitions or fenced; `fenceEpoch` is the lowest epoch its commits may still carry (raised by an
 * offsets reset, so commits of positions from before the reset are rejected).
 */
import { AssertionError } from '../common/assert';
import { TideError } from '../common/errors';
import { assignorFor } from './assignors';
import { DEFAULT_ASSIGNOR } from '../common/assignor-names';
import { nextGroupState, type GroupEvent, type GroupProtocol, type GroupState } from './group-state';
import { describeKeys, parseTpKey, sortedKeys } from './partitions';

export const DEFAULT_SESSION_TIMEOUT_MS = 45_000;
export const DEFAULT_REBALANCE_TIMEOUT_MS = 300_000;
export const MIN_SESSION_TIMEOUT_MS = 500;
export const MAX_SESSION_TIMEOUT_MS = 30 * 60_000;
export const MAX_REBALANCE_TIMEOUT_MS = 60 * 60_000;
/** Members heartbeat every session timeout / 3, at most this often apart. */
export const MAX_HEARTBEAT_INTERVAL_MS = 5_000;

export interface JoinRequest {
  /** Empty for a new member. */
  memberId: string;
  memberEpoch: number;
  /** Empty for a dynamic member. */
  instanceId: string;
  clientId: string;
  clientHost: string;
  topics: string[];
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  /** Empty = the group's current one (or the default). */
  assignor: string;
  /** Partition keys the member holds now (a rejoin). */
  owned: string[];
  /** Opaque data for a client-side assignor and DescribeGroup (not persisted: sent with every join). */
  userData?: Buffer;
}

export type GroupEffect =
  | {
      kind: 'assignment';
      memberId: string;
      generation: number;
      memberEpoch: number;
      /** Every partition the member owns, revoking ones included. */
      partitions: string[];
      refetchOffsets: boolean;
      /** The client-side assignor's data for this member (empty otherwise). */
      userData: Buffer;
    }
  | { kind: 'revoke'; memberId: string; partitions: string[]; timeoutMs: number }
  /** Client-side assignment: ask the leader for this generation's target. */
  | { kind: 'compute'; memberId: string; request: ComputeRequest }
  /** The member is out of the group: end its stream with this error. */
  | { kind: 'fence'; memberId: string; error: TideError };

/** What a client-side assignor's leader is asked to assign. */
export interface ComputeRequest {
  generation: number;
  members: {
    memberId: string;
    instanceId: string;
    topics: string[];
    userData: Buffer;
    owned: string[];
    previousTarget: string[];
  }[];
  partitionCounts: Map<string, number>;
}

/** The leader's answer: per member, its target partitions and its assignment data. */
export interface ComputeResult {
  generation: number;
  targets: { memberId: string; partitions: string[]; userData: Buffer }[];
}

export interface CommittedOffset {
  offset: number;
  metadata: string;
  commitTimestampMs: number;
}

/** What is persisted of a member (group metadata record). */
export interface MemberSnapshot {
  memberId: string;
  instanceId: string;
  clientId: string;
  clientHost: string;
  topics: string[];
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  epoch: number;
  fenceEpoch: number;
  owned: string[];
  revoking: string[];
  /**
   * The member's last user data (the client assignor's input, e.g. a streams instance's task
   * lags), kept so a coordinator that takes the group over computes sticky assignments before
   * the members report again. Absent when empty.
   */
  userData?: Buffer;
}

export interface GroupSnapshot {
  groupId: string;
  protocol: GroupProtocol;
  generation: number;
  assignor: string;
  members: MemberSnapshot[];
  /**
   * When the group's last member left (Kafka's current-state timestamp for an empty group): its
   * committed offsets expire offsetsRetentionMs later. Absent while it has members, and in
   * snapshots written before it was kept (offsets then expire by their commit times).
   */
  emptySinceMs?: number;
}

export interface MemberDescription extends MemberSnapshot {
  target: string[];
  connected: boolean;
  userData: Buffer;
}

export interface GroupOptions {
  /** New member ids (random UUIDs in production; a counter in tests). */
  newMemberId: () => string;
  /** Partition count of a topic; undefined while the topic does not exist. */
  partitionCount: (topic: string) => number | undefined;
}

class Member {
  connected = true;
  sessionDeadlineMs: number;
  revokeDeadlineMs: number | undefined;
  readonly owned = new Set<string>();
  readonly revoking = new Set<string>();
  userData: Buffer = EMPTY;

  constructor(
    public memberId: string,
    readonly instanceId: string,
    public clientId: string,
    public clientHost: string,
    public topics: string[],
    public sessionTimeoutMs: number,
    public rebalanceTimeoutMs: number,
    public epoch: number,
    public fenceEpoch: number,
    nowMs: number,
  ) {
    this.sessionDeadlineMs = nowMs + sessionTimeoutMs;
  }

  touch(nowMs: number): void {
    this.sessionDeadlineMs = nowMs + this.sessionTimeoutMs;
  }

  snapshot(): MemberSnapshot {
    return {
      memberId: this.memberId,
      instanceId: this.instanceId,
      clientId: this.clientId,
      clientHost: this.clientHost,
      topics: [...this.topics],
      sessionTimeoutMs: this.sessionTimeoutMs,
      rebalanceTimeoutMs: this.rebalanceTimeoutMs,
      epoch: this.epoch,
      fenceEpoch: this.fenceEpoch,
      owned: sortedKeys(this.owned),
      revoking: sortedKeys(this.revoking),
      ...(this.userData.length > 0 ? { userData: this.userData } : {}),
    };
  }
}

/** The heartbeat interval a member with this session timeout is told to use. */
export function heartbeatIntervalFor(sessionTimeoutMs: number): number {
  return Math.max(50, Math.min(MAX_HEARTBEAT_INTERVAL_MS, Math.floor(sessionTimeoutMs / 3)));
}

const EMPTY = Buffer.alloc(0);
/** The assignor name under which the leader member computes the target (ComputeAssignment). */
export const CLIENT_ASSIGNOR = 'client';
export const MAX_USER_DATA_BYTES = 65_536;

function sameTopics(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\u0000') === [...b].sort().join('\u0000');
}

export class ConsumerGroup {
  readonly protocol: GroupProtocol = 'consumer';
  private currentState: GroupState = 'EMPTY';
  private gen = 0;
  private assignorName: string = DEFAULT_ASSIGNOR;
  private readonly members = new Map<string, Member>();
  private readonly instances = new Map<string, string>();
  private target = new Map<string, Set<string>>();
  private targetGeneration = -1;
  /** Partition counts the current target was computed with. */
  private targetCounts = new Map<string, number>();
  /** Client-side assignor: each member's assignment data, from the leader's last accepted result. */
  private targetData = new Map<string, Buffer>();
  /** Client-side assignor: the request the leader has not answered yet. */
  private pending: { generation: number; leader: string; deadlineMs: number } | undefined;
  readonly offsets = new Map<string, CommittedOffset>();
  /** When the last member left; undefined while there are members or when it is not known. */
  private emptySince: number | undefined;

  constructor(
    readonly groupId: string,
    private readonly options: GroupOptions,
  ) {}

  get state(): GroupState {
    return this.currentState;
  }

  get generation(): number {
    return this.gen;
  }

  get assignor(): string {
    return this.assignorName;
  }

  get memberCount(): number {
    return this.members.size;
  }

  memberIds(): string[] {
    return [...this.members.keys()];
  }

  hasMember(memberId: string): boolean {
    return this.members.has(memberId);
  }

  /** Topics some member subscribes to. */
  subscribedTopics(): Set<string> {
    return new Set([...this.members.values()].flatMap((m) => m.topics));
  }

  /** The member owning a partition (revoking included), if any. */
  ownerOf(key: string): string | undefined {
    for (const m of this.members.values()) if (m.owned.has(key)) return m.memberId;
    return undefined;
  }

  /** When the group's last member left (undefined with members, or when not known). */
  get emptySinceMs(): number | undefined {
    return this.emptySince;
  }

  /** Empty with nothing committed: the group can be forgotten. */
  get isDead(): boolean {
    return this.members.size === 0 && this.offsets.size === 0;
  }

  // ---------------------------------------------------------------- membership

  /**
   * A member joins or rejoins. Returns the member's id, epoch and heartbeat interval and the
   * effects (its assignment, revocations, other members' changes). Throws UNKNOWN_MEMBER_ID for
   * a member id the group does not know (expired or replaced: join again as a new member),
   * FENCED_MEMBER_EPOCH for an epoch from the future, INVALID_REQUEST for a bad assignor.
   */
  join(
    request: JoinRequest,
    nowMs: number,
  ): { memberId: string; memberEpoch: number; heartbeatIntervalMs: number; effects: GroupEffect[] } {
    // INVALID_REQUEST for an unknown name
    if (request.assignor && request.assignor !== CLIENT_ASSIGNOR) assignorFor(request.assignor);
    if (this.members.size === 0) this.assignorName = request.assignor || this.assignorName;

    let member: Member | undefined;
    let effects: GroupEffect[];
    if (request.memberId && this.members.has(request.memberId)) {
      member = this.members.get(request.memberId)!;
      effects = this.rejoin(member, request, nowMs);
      effects.push(...this.setUserData(member, request.userData ?? EMPTY, nowMs));
    } else if (request.instanceId && this.instances.has(request.instanceId)) {
      ({ member, effects } = this.replaceStatic(request, nowMs));
    } else if (request.memberId) {
      throw new TideError(
        'UNKNOWN_MEMBER_ID',
        `group ${this.groupId} has no member ${request.memberId} (its session expired or it was replaced); join as a new member`,
      );
    } else {
      member = this.addMember(request, nowMs);
      member.userData = request.userData ?? EMPTY;
      effects = this.reconcile(nowMs, 'MEMBERSHIP_CHANGED');
    }
    effects.push(...this.askAgainIfLeaderGone(nowMs));
    return {
      memberId: member.memberId,
      memberEpoch: member.epoch,
      heartbeatIntervalMs: heartbeatIntervalFor(member.sessionTimeoutMs),
      effects,
    };
  }

  /** Keeps the member's session alive. Throws UNKNOWN_MEMBER_ID, or FENCED_MEMBER_EPOCH for an epoch never given out. */
  heartbeat(memberId: string, memberEpoch: number, nowMs: number): void {
    const member = this.requireMember(memberId);
    if (memberEpoch > member.epoch) {
      throw new TideError(
        'FENCED_MEMBER_EPOCH',
        `member ${memberId} of group ${this.groupId} sent epoch ${memberEpoch}, but its epoch is ${member.epoch}`,
      );
    }
    member.connected = true;
    member.touch(nowMs);
  }

  /** The member stopped consuming `partitions`: they are free, and may go to their new owners. */
  revoked(memberId: string, partitions: string[], nowMs: number): GroupEffect[] {
    const member = this.requireMember(memberId);
    member.touch(nowMs);
    for (const key of partitions) {
      member.revoking.delete(key);
      member.owned.delete(key);
    }
    if (member.revoking.size === 0) member.revokeDeadlineMs = undefined;
    return this.reconcile(nowMs, 'RECONCILED');
  }

  /**
   * The member leaves. A static member's temporary leave (a restart) keeps its partitions and its
   * place until its session times out; any other leave frees its partitions at once.
   */
  leave(memberId: string, temporary: boolean, nowMs: number): GroupEffect[] {
    const member = this.requireMember(memberId);
    if (temporary && member.instanceId) {
      member.connected = false;
      return [];
    }
    this.remove(member);
    this.gen++;
    return this.reconcile(nowMs, 'MEMBERSHIP_CHANGED');
  }

  /** The member's stream closed without a leave: it stays in the group until its session times out. */
  disconnected(memberId: string): void {
    const member = this.members.get(memberId);
    if (member) member.connected = false;
  }

  /** Removes members whose session or revocation deadline passed; their partitions move. */
  expire(nowMs: number): GroupEffect[] {
    const fenced: GroupEffect[] = [];
    for (const member of [...this.members.values()]) {
      let why: string | undefined;
      if (nowMs >= member.sessionDeadlineMs)
        why = `no heartbeat for its session timeout (${member.sessionTimeoutMs} ms)`;
      else if (member.revokeDeadlineMs !== undefined && nowMs >= member.revokeDeadlineMs)
        why = `it did not confirm the revocation of ${describeKeys(member.revoking)} within its rebalance timeout (${member.rebalanceTimeoutMs} ms)`;
      if (!why) continue;
      this.remove(member);
      fenced.push({
        kind: 'fence',
        memberId: member.memberId,
        error: new TideError(
          'UNKNOWN_MEMBER_ID',
          `member ${member.memberId} was removed from group ${this.groupId}: ${why}; its partitions moved`,
        ),
      });
    }
    if (fenced.length === 0) return this.askAgainIfOverdue(nowMs);
    this.gen++;
    return [...fenced, ...this.reconcile(nowMs, 'MEMBERSHIP_CHANGED')];
  }

  /**
   * A member's user data changed. Under the client assignor the target is computed again (a new
   * generation), as the data is what the leader's assignor decides on.
   */
  updateUserData(memberId: string, userData: Buffer, nowMs: number): GroupEffect[] {
    const member = this.requireMember(memberId);
    member.touch(nowMs);
    return this.setUserData(member, userData, nowMs);
  }

  /**
   * The leader's answer to a ComputeAssignment. An answer for another generation, or from a member
   * that is not the one asked, is ignored (a newer request is out). Throws INVALID_REQUEST for a
   * result that names an unknown member, a partition twice, or a partition the member may not own.
   */
  assignmentComputed(memberId: string, result: ComputeResult, nowMs: number): GroupEffect[] {
    const pending = this.pending;
    if (!pending || pending.generation !== result.generation || pending.generation !== this.gen) return [];
    if (pending.leader !== memberId) return [];
    const target = new Map<string, Set<string>>();
    const data = new Map<string, Buffer>();
    for (const m of this.members.values()) target.set(m.memberId, new Set());
    const taken = new Set<string>();
    for (const t of result.targets) {
      const m = this.members.get(t.memberId);
      if (!m)
        throw new TideError(
          'INVALID_REQUEST',
          `assignment_result names member ${t.memberId}, which is not in group ${this.groupId}`,
        );
      for (const key of t.partitions) {
        const { topic, partition } = parseTpKey(key);
        if (taken.has(key))
          throw new TideError('INVALID_REQUEST', `assignment_result gives ${describeKeys([key])} twice`);
        if (!m.topics.includes(topic) || partition >= (this.targetCounts.get(topic) ?? 0)) {
          throw new TideError(
            'INVALID_REQUEST',
            `assignment_result gives ${describeKeys([key])} to member ${t.memberId}, which does not subscribe to it or it does not exist`,
          );
        }
        taken.add(key);
        target.get(t.memberId)!.add(key);
      }
      if (t.userData.length > 0) data.set(t.memberId, t.userData);
    }
    this.pending = undefined;
    const before = this.targetData;
    this.target = target;
    this.targetData = data;
    const effects = this.reconcile(nowMs, 'RECONCILED');
    const told = new Set(effects.filter((e) => e.kind === 'assignment').map((e) => e.memberId));
    for (const m of this.members.values()) {
      if (told.has(m.memberId) || !m.connected) continue;
      if (!(before.get(m.memberId) ?? EMPTY).equals(data.get(m.memberId) ?? EMPTY))
        effects.push(this.assignmentOf(m, false));
    }
    return effects;
  }

  /** Topic metadata changed: when a subscribed topic's partition count changed, the target moves. */
  metadataChanged(nowMs: number): GroupEffect[] {
    if (this.members.size === 0) return [];
    const topics = this.subscribedTopics();
    const changed = [...topics].some(
      (t) => (this.options.partitionCount(t) ?? 0) !== (this.targetCounts.get(t) ?? 0),
    );
    if (!changed) return [];
    this.gen++;
    return this.reconcile(nowMs, 'MEMBERSHIP_CHANGED');
  }

  /**
   * Fences every member to a new generation after an offsets reset: commits with older epochs are
   * rejected, and every connected member is told to fetch its committed offsets again.
   */
  fence(nowMs: number): GroupEffect[] {
    this.gen++;
    const effects: GroupEffect[] = [];
    for (const member of this.members.values()) {
      member.epoch = this.gen;
      member.fenceEpoch = this.gen;
      if (member.connected) effects.push(this.assignmentOf(member, true));
    }
    return [...effects, ...this.reconcile(nowMs, 'MEMBERSHIP_CHANGED')];
  }

  // ---------------------------------------------------------------- offsets

  /**
   * Checks a commit: a member commits only partitions it owns, with an epoch between its fence
   * epoch and its current epoch; a commit without a member id is allowed only for a group without
   * members. Throws UNKNOWN_MEMBER_ID, FENCED_MEMBER_EPOCH or ILLEGAL_GENERATION.
   */
  validateCommit(memberId: string, memberEpoch: number, partitions: readonly string[]): void {
    if (!memberId) {
      if (this.members.size > 0) {
        throw new TideError(
          'UNKNOWN_MEMBER_ID',
          `group ${this.groupId} has ${this.members.size} member(s): commit as a member, or use reset-offsets to move a live group`,
        );
      }
      return;
    }
    const member = this.requireMember(memberId);
    if (memberEpoch < member.fenceEpoch || memberEpoch > member.epoch) {
      throw new TideError(
        'FENCED_MEMBER_EPOCH',
        `commit of member ${memberId} to group ${this.groupId} carries epoch ${memberEpoch}; accepted epochs are ${member.fenceEpoch}..${member.epoch} (the group was fenced, e.g. by an offsets reset)`,
      );
    }
    const foreign = partitions.filter((key) => !member.owned.has(key));
    if (foreign.length > 0) {
      throw new TideError(
        'ILLEGAL_GENERATION',
        `member ${memberId} of group ${this.groupId} does not own ${describeKeys(foreign)} in generation ${this.gen}`,
      );
    }
  }

  applyCommit(entries: readonly { key: string; offset: CommittedOffset }[]): void {
    for (const { key, offset } of entries) this.offsets.set(key, offset);
  }

  /** Removes the group's committed offsets of these partitions (a tombstone was replayed). */
  forgetOffsets(keys: readonly string[]): void {
    for (const key of keys) this.offsets.delete(key);
  }

  // ---------------------------------------------------------------- views and persistence

  snapshot(): GroupSnapshot {
    return {
      groupId: this.groupId,
      protocol: this.protocol,
      generation: this.gen,
      assignor: this.assignorName,
      members: [...this.members.values()].map((m) => m.snapshot()),
      ...(this.emptySince !== undefined ? { emptySinceMs: this.emptySince } : {}),
    };
  }

  /**
   * Rebuilds membership from a persisted snapshot (a coordinator took the shard over). Members
   * start disconnected with a full session timeout to reconnect; what they own is kept, so members
   * that reconnect in time continue without a rebalance.
   */
  restore(snapshot: GroupSnapshot, nowMs: number): void {
    this.members.clear();
    this.instances.clear();
    this.gen = snapshot.generation;
    this.assignorName = snapshot.assignor || DEFAULT_ASSIGNOR;
    for (const s of snapshot.members) {
      const member = new Member(
        s.memberId,
        s.instanceId,
        s.clientId,
        s.clientHost,
        [...s.topics],
        s.sessionTimeoutMs,
        s.rebalanceTimeoutMs,
        s.epoch,
        s.fenceEpoch,
        nowMs,
      );
      member.connected = false;
      if (s.userData) member.userData = s.userData;
      for (const key of s.owned) member.owned.add(key);
      for (const key of s.revoking) if (member.owned.has(key)) member.revoking.add(key);
      if (member.revoking.size > 0) member.revokeDeadlineMs = nowMs + member.rebalanceTimeoutMs;
      this.members.set(member.memberId, member);
      if (member.instanceId) this.instances.set(member.instanceId, member.memberId);
    }
    this.checkOwnership();
    this.targetGeneration = -1;
    this.currentState = this.members.size === 0 ? 'EMPTY' : 'RECONCILING';
    this.emptySince = this.members.size === 0 ? snapshot.emptySinceMs : undefined;
    if (this.members.size > 0) this.reconcile(nowMs, 'RECONCILED');
  }

  describeMembers(): MemberDescription[] {
    return [...this.members.values()].map((m) => ({
      ...m.snapshot(),
      target: sortedKeys(this.target.get(m.memberId) ?? []),
      connected: m.connected,
      userData: m.userData,
    }));
  }

  /** The current assignment message of a member (for a reconnect). */
  assignmentFor(memberId: string, refetchOffsets = false): GroupEffect {
    return this.assignmentOf(this.requireMember(memberId), refetchOffsets);
  }

  // ---------------------------------------------------------------- internals

  private rejoin(member: Member, request: JoinRequest, nowMs: number): GroupEffect[] {
    if (request.memberEpoch > member.epoch) {
      throw new TideError(
        'FENCED_MEMBER_EPOCH',
        `member ${member.memberId} of group ${this.groupId} rejoined with epoch ${request.memberEpoch}, but its epoch is ${member.epoch}`,
      );
    }
    if (request.instanceId !== member.instanceId) {
      throw new TideError(
        'INVALID_REQUEST',
        `member ${member.memberId} rejoined with instance id ${JSON.stringify(request.instanceId)}, not ${JSON.stringify(member.instanceId)}`,
      );
    }
    member.connected = true;
    member.touch(nowMs);
    member.clientId = request.clientId;
    member.clientHost = request.clientHost;
    member.sessionTimeoutMs = request.sessionTimeoutMs;
    member.rebalanceTimeoutMs = request.rebalanceTimeoutMs;
    // What the member no longer holds is free (it lost it, e.g. an assignment that never arrived);
    // the assignment sent below is authoritative for what it must stop.
    const reported = new Set(request.owned);
    for (const key of [...member.owned]) {
      if (reported.has(key)) continue;
      member.owned.delete(key);
      member.revoking.delete(key);
    }
    if (member.revoking.size === 0) member.revokeDeadlineMs = undefined;
    const effects: GroupEffect[] = [this.assignmentOf(member, request.memberEpoch < member.fenceEpoch)];
    if (member.revoking.size > 0) effects.push(this.revokeOf(member, nowMs));
    let event: GroupEvent = 'RECONCILED';
    if (!sameTopics(member.topics, request.topics)) {
      member.topics = [...request.topics];
      this.gen++;
      event = 'MEMBERSHIP_CHANGED';
    }
    return [...effects, ...this.reconcile(nowMs, event)];
  }

  /** A static member's new incarnation takes the old one's place, partitions and target: no rebalance. */
  private replaceStatic(request: JoinRequest, nowMs: number): { member: Member; effects: GroupEffect[] } {
    const old = this.members.get(this.instances.get(request.instanceId)!)!;
    const member = new Member(
      this.options.newMemberId(),
      request.instanceId,
      request.clientId,
      request.clientHost,
      [...request.topics],
      request.sessionTimeoutMs,
      request.rebalanceTimeoutMs,
      old.epoch,
      old.fenceEpoch,
      nowMs,
    );
    member.userData = request.userData ?? EMPTY;
    for (const key of old.owned) member.owned.add(key);
    for (const key of old.revoking) member.revoking.add(key);
    member.revokeDeadlineMs = member.revoking.size > 0 ? nowMs + member.rebalanceTimeoutMs : undefined;
    this.members.delete(old.memberId);
    this.members.set(member.memberId, member);
    this.instances.set(request.instanceId, member.memberId);
    const oldTarget = this.target.get(old.memberId);
    this.target.delete(old.memberId);
    if (oldTarget) this.target.set(member.memberId, oldTarget);
    const oldData = this.targetData.get(old.memberId);
    this.targetData.delete(old.memberId);
    if (oldData) this.targetData.set(member.memberId, oldData);
    if (this.pending?.leader === old.memberId) this.pending.leader = member.memberId;
    const effects: GroupEffect[] = [
      {
        kind: 'fence',
        memberId: old.memberId,
        error: new TideError(
          'UNKNOWN_MEMBER_ID',
          `member ${old.memberId} of group ${this.groupId} was replaced by a new member with the same instance id ${request.instanceId}`,
        ),
      },
      this.assignmentOf(member, false),
    ];
    if (member.revoking.size > 0) effects.push(this.revokeOf(member, nowMs));
    let event: GroupEvent = 'RECONCILED';
    if (!sameTopics(old.topics, request.topics)) {
      this.gen++;
      event = 'MEMBERSHIP_CHANGED';
    }
    return { member, effects: [...effects, ...this.reconcile(nowMs, event)] };
  }

  private addMember(request: JoinRequest, nowMs: number): Member {
    this.gen++;
    const member = new Member(
      this.options.newMemberId(),
      request.instanceId,
      request.clientId,
      request.clientHost,
      [...request.topics],
      request.sessionTimeoutMs,
      request.rebalanceTimeoutMs,
      this.gen,
      this.gen,
      nowMs,
    );
    if (this.members.has(member.memberId)) throw new AssertionError(`member id ${member.memberId} reused`);
    this.members.set(member.memberId, member);
    if (member.instanceId) this.instances.set(member.instanceId, member.memberId);
    return member;
  }

  private remove(member: Member): void {
    this.members.delete(member.memberId);
    this.target.delete(member.memberId);
    this.targetData.delete(member.memberId);
    if (member.instanceId && this.instances.get(member.instanceId) === member.memberId)
      this.instances.delete(member.instanceId);
  }

  private requireMember(memberId: string): Member {
    const member = this.members.get(memberId);
    if (!member) {
      throw new TideError(
        'UNKNOWN_MEMBER_ID',
        `group ${this.groupId} has no member ${JSON.stringify(memberId)} (its session expired, it left, or it was replaced)`,
      );
    }
    return member;
  }

  private computeTarget(nowMs: number): GroupEffect[] {
    const counts = new Map<string, number>();
    for (const topic of this.subscribedTopics()) {
      const count = this.options.partitionCount(topic);
      if (count !== undefined) counts.set(topic, count);
    }
    if (this.assignorName === CLIENT_ASSIGNOR) return this.askLeader(counts, nowMs);
    // Sticky basis: the previous target, else what members own (after a takeover).
    const previous = new Map<string, Set<string>>();
    for (const m of this.members.values())
      previous.set(m.memberId, this.target.get(m.memberId) ?? new Set(m.owned));
    this.target = assignorFor(this.assignorName)({
      members: [...this.members.values()].map((m) => ({
        memberId: m.memberId,
        instanceId: m.instanceId || undefined,
        topics: m.topics,
      })),
      partitionCounts: counts,
      previous,
    });
    this.targetCounts = counts;
    this.targetGeneration = this.gen;
    return [];
  }

  /**
   * Client-side assignment: until the leader answers, the target is the previous one kept to the
   * members and partitions that still exist (a new member gets nothing yet, a gone member's
   * partitions wait), so nothing moves that the leader may want to keep.
   */
  private askLeader(counts: Map<string, number>, nowMs: number): GroupEffect[] {
    const interim = new Map<string, Set<string>>();
    for (const m of this.members.values()) {
      const kept = [...(this.target.get(m.memberId) ?? m.owned)].filter((key) => {
        const { topic, partition } = parseTpKey(key);
        return m.topics.includes(topic) && partition < (counts.get(topic) ?? 0);
      });
      interim.set(m.memberId, new Set(kept));
    }
    const previous = this.target;
    this.target = interim;
    this.targetCounts = counts;
    this.targetGeneration = this.gen;
    const leader = this.leaderCandidates()[0];
    if (!leader) {
      this.pending = { generation: this.gen, leader: '', deadlineMs: nowMs };
      return [];
    }
    return [this.computeEffect(leader, previous, nowMs)];
  }

  /** Connected members in assignor order (instance id, else member id): the first one leads. */
  private leaderCandidates(): Member[] {
    const key = (m: Member) => (m.instanceId ? `0${m.instanceId}` : `1${m.memberId}`);
    return [...this.members.values()]
      .filter((m) => m.connected)
      .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }

  private computeEffect(leader: Member, previous: Map<string, Set<string>>, nowMs: number): GroupEffect {
    this.pending = {
      generation: this.gen,
      leader: leader.memberId,
      deadlineMs: nowMs + leader.sessionTimeoutMs,
    };
    return {
      kind: 'compute',
      memberId: leader.memberId,
      request: {
        generation: this.gen,
        members: [...this.members.values()].map((m) => ({
          memberId: m.memberId,
          instanceId: m.instanceId,
          topics: [...m.topics],
          userData: m.userData,
          owned: sortedKeys(m.owned),
          previousTarget: sortedKeys(previous.get(m.memberId) ?? []),
        })),
        partitionCounts: new Map(this.targetCounts),
      },
    };
  }

  /** The leader asked is gone or disconnected: ask the first connected member instead. */
  private askAgainIfLeaderGone(nowMs: number): GroupEffect[] {
    const pending = this.pending;
    if (!pending || pending.generation !== this.gen) return [];
    const leader = this.members.get(pending.leader);
    if (leader?.connected) return [];
    const next = this.leaderCandidates()[0];
    return next ? [this.computeEffect(next, this.target, nowMs)] : [];
  }

  /** The leader did not answer within its session timeout: ask the next connected member. */
  private askAgainIfOverdue(nowMs: number): GroupEffect[] {
    const pending = this.pending;
    if (!pending || pending.generation !== this.gen) return [];
    if (nowMs < pending.deadlineMs && this.members.get(pending.leader)?.connected) return [];
    const candidates = this.leaderCandidates();
    if (candidates.length === 0) return [];
    const at = candidates.findIndex((m) => m.memberId === pending.leader);
    const next = candidates[(at + 1) % candidates.length];
    return [this.computeEffect(next, this.target, nowMs)];
  }

  private setUserData(member: Member, userData: Buffer, nowMs: number): GroupEffect[] {
    if (member.userData.equals(userData)) return [];
    member.userData = userData;
    if (this.assignorName !== CLIENT_ASSIGNOR) return [];
    this.gen++;
    return this.reconcile(nowMs, 'MEMBERSHIP_CHANGED');
  }

  /** Moves ownership one safe step towards the target; returns the messages to send. */
  private reconcile(nowMs: number, event: GroupEvent): GroupEffect[] {
    const effects: GroupEffect[] = [];
    if (this.targetGeneration !== this.gen) effects.push(...this.computeTarget(nowMs));
    const owners = new Map<string, string>();
    for (const m of this.members.values()) for (const key of m.owned) owners.set(key, m.memberId);

    for (const m of this.members.values()) {
      const target = this.target.get(m.memberId) ?? new Set<string>();
      const revoke = [...m.owned].filter((key) => !target.has(key) && !m.revoking.has(key));
      if (revoke.length === 0) continue;
      for (const key of revoke) m.revoking.add(key);
      m.revokeDeadlineMs = nowMs + m.rebalanceTimeoutMs;
      if (m.connected) effects.push(this.revokeOf(m, nowMs));
    }
    for (const m of this.members.values()) {
      if (!m.connected) continue;
      const grants = [...(this.target.get(m.memberId) ?? [])].filter((key) => !owners.has(key));
      if (grants.length === 0) continue;
      for (const key of grants) {
        m.owned.add(key);
        owners.set(key, m.memberId);
      }
      m.epoch = this.gen;
      effects.push(this.assignmentOf(m, false));
    }
    this.checkOwnership();
    const before = this.currentState;
    this.currentState = nextGroupState(this.currentState, event, {
      members: this.members.size,
      converged: this.converged(),
      offsets: this.offsets.size,
    });
    if (this.members.size > 0) this.emptySince = undefined;
    else if (before !== 'EMPTY') this.emptySince = nowMs;
    return effects;
  }

  private converged(): boolean {
    for (const m of this.members.values()) {
      const target = this.target.get(m.memberId) ?? new Set<string>();
      if (m.revoking.size > 0 || m.owned.size !== target.size) return false;
      for (const key of target) if (!m.owned.has(key)) return false;
    }
    return true;
  }

  private assignmentOf(member: Member, refetchOffsets: boolean): GroupEffect {
    return {
      kind: 'assignment',
      memberId: member.memberId,
      generation: this.gen,
      memberEpoch: member.epoch,
      partitions: sortedKeys(member.owned),
      refetchOffsets,
      userData: this.targetData.get(member.memberId) ?? EMPTY,
    };
  }

  private revokeOf(member: Member, nowMs: number): GroupEffect {
    return {
      kind: 'revoke',
      memberId: member.memberId,
      partitions: sortedKeys(member.revoking),
      timeoutMs: Math.max(0, (member.revokeDeadlineMs ?? nowMs) - nowMs),
    };
  }

  /** No partition has two owners: the invariant everything else relies on. */
  private checkOwnership(): void {
    const seen = new Map<string, string>();
    for (const m of this.members.values()) {
      for (const key of m.owned) {
        const other = seen.get(key);
        if (other !== undefined)
          throw new AssertionError(
            `group ${this.groupId}: ${describeKeys([key])} owned by ${other} and ${m.memberId}`,
          );
        seen.set(key, m.memberId);
      }
      for (const key of m.revoking)
        if (!m.owned.has(key))
          throw new AssertionError(`group ${this.groupId}: revoking a partition not owned`);
    }
  }
}
