/**
 * Partition leadership decisions: pure functions from a partition's state and the brokers' liveness
 * to its next state. The reconciler, ControlledShutdown and AlterPartition call these and write the
 * result; nothing here touches the store, the clock or the network. See docs/controller.md for the
 * table of situations and decisions.
 *
 * Epoch rules (every function here keeps them):
 * - any change of the state bumps partitionEpoch by one;
 * - a change of leader (including to and from -1, offline) also bumps leaderEpoch by one;
 * - the leader is -1 or a member of the ISR, and the ISR is a non-empty subset of the replicas.
 */
import { TideError } from '../common/errors';
import type { PartitionState } from '../common/metadata/keys';

/** What the controller knows about brokers when it decides. */
export interface BrokerLiveness {
  /** Registered brokers (their lease is alive). */
  live: ReadonlySet<number>;
  /**
   * Live brokers that asked for a controlled shutdown: they keep what they lead until asked to
   * move it, but are chosen as a new leader only when no other ISR member is live, and never as a
   * preferred leader or an ISR addition.
   */
  shuttingDown?: ReadonlySet<number>;
  /**
   * Leader broker id → the live brokers that currently report they cannot reach it
   * (ReportLeaderUnreachable). See leaderCutOff.
   */
  unreachable?: ReadonlyMap<number, ReadonlySet<number>>;
}

/**
 * True when the partition's leader is live (lease alive) but a strict majority of the other live
 * ISR members report they cannot reach it: it is cut off from its followers (and, likely, its
 * clients) but not from etcd. The reconciler then moves leadership as if the leader had died.
 * A single isolated follower is a minority of a 3-replica ISR and moves nothing; with an ISR of
 * two the one follower decides (which side of a cut is isolated cannot be told apart there).
 */
export function leaderCutOff(state: PartitionState, liveness: BrokerLiveness): boolean {
  if (state.leader < 0) return false;
  const reporters = liveness.unreachable?.get(state.leader);
  if (!reporters || reporters.size === 0) return false;
  const others = state.isr.filter((id) => id !== state.leader && liveness.live.has(id));
  const reporting = others.filter((id) => reporters.has(id)).length;
  return others.length > 0 && reporting * 2 > others.length;
}

/** Why a partition's state changes. */
export type LeadershipChange =
  /** Nothing to do. */
  | 'unchanged'
  /** Dead brokers left the ISR; the leader stays. */
  | 'isr-shrink'
  /** A live ISR member became leader (the old one died, or the partition was offline). */
  | 'leader-elected'
  /** No live ISR member: the partition is offline (leader -1), its ISR keeps the last member. */
  | 'offline'
  /** No live ISR member, unclean election allowed: a live out-of-sync replica leads (data may be lost). */
  | 'unclean-leader-elected'
  /** The preferred replica (replicas[0]) took leadership back. */
  | 'preferred-leader'
  /** The live leader was cut off from its followers (leaderCutOff): another ISR member leads. */
  | 'leader-unreachable'
  /** A broker's log of the partition failed: it left the ISR (and leadership, if it led). */
  | 'replica-offline'
  /** Leadership or ISR membership moved away from a broker that is shutting down. */
  | 'controlled-shutdown'
  /** An internal topic's partition gained replicas up to its replication factor (internal-replicas.ts). */
  | 'replicas-grown';

export interface LeadershipDecision {
  change: LeadershipChange;
  /** The next state; the input state (same object) when `change` is 'unchanged'. */
  state: PartitionState;
}

export interface ReconcileOptions {
  /** The topic's unclean.leader.election.enable. */
  uncleanLeaderElectionEnable: boolean;
}

/**
 * Brings a partition in line with broker liveness:
 * - a live leader keeps leading; dead brokers leave the ISR (but the ISR never becomes empty);
 * - a dead leader (or none) is replaced by the first live ISR member in replica order;
 * - with no live ISR member the partition goes offline (leader -1) and its ISR keeps one member,
 *   the last leader when it was in the ISR (KIP-704: only a clean replica may lead later);
 * - unless unclean election is enabled: then the first live replica leads with ISR = [it].
 */
export function reconcilePartition(
  state: PartitionState,
  liveness: BrokerLiveness,
  options: ReconcileOptions,
): LeadershipDecision {
  const { live } = liveness;
  const liveIsr = state.isr.filter((id) => live.has(id));
  if (state.leader !== -1 && live.has(state.leader) && leaderCutOff(state, liveness)) {
    // Like a dead leader, but only to a member that is not cut off itself; it leaves the ISR (it
    // has nothing acknowledged that the others lack: the HW needed them) and rejoins by catching up.
    const others = liveIsr.filter((id) => id !== state.leader);
    const candidate = electFrom(state, others, liveness);
    if (candidate !== undefined)
      return change('leader-unreachable', state, { leader: candidate, isr: others });
  }
  if (state.leader !== -1 && live.has(state.leader)) {
    // An ISR that would lose every member keeps the leader (it is live, so liveIsr is empty only
    // when the leader is outside the ISR, which only a corrupt state has).
    if (liveIsr.length === state.isr.length || liveIsr.length === 0) return unchanged(state);
    return change('isr-shrink', state, { isr: liveIsr });
  }
  const candidate = electFrom(state, liveIsr, liveness);
  if (candidate !== undefined) {
    return change('leader-elected', state, { leader: candidate, isr: liveIsr });
  }
  if (options.uncleanLeaderElectionEnable) {
    const outOfSync = electFrom(
      state,
      state.replicas.filter((id) => live.has(id)),
      liveness,
    );
    if (outOfSync !== undefined) {
      return change('unclean-leader-elected', state, { leader: outOfSync, isr: [outOfSync] });
    }
  }
  const lastMember = lastIsrMember(state);
  if (state.leader === -1 && sameIds(state.isr, lastMember)) return unchanged(state);
  return change('offline', state, { leader: -1, isr: lastMember });
}

/**
 * Moves leadership to the preferred replica (replicas[0]) when it is live, not shutting down, in
 * the ISR, and not already the leader.
 */
export function preferredLeaderElection(state: PartitionState, liveness: BrokerLiveness): LeadershipDecision {
  const preferred = state.replicas[0];
  if (
    state.leader === preferred ||
    !liveness.live.has(preferred) ||
    liveness.shuttingDown?.has(preferred) ||
    (liveness.unreachable?.get(preferred)?.size ?? 0) > 0 ||
    !state.isr.includes(preferred)
  ) {
    return unchanged(state);
  }
  return change('preferred-leader', state, { leader: preferred });
}

/**
 * What a controlled shutdown of `broker` does to one partition: if it leads, leadership moves to
 * the first other live ISR member (in replica order) and it leaves the ISR; if it only follows,
 * it leaves the ISR when the ISR has another member. A leader with no other live ISR member keeps
 * leading (the partition would otherwise go offline) and is reported by `stillLeads`.
 */
export function controlledShutdownPartition(
  state: PartitionState,
  broker: number,
  liveness: BrokerLiveness,
): LeadershipDecision & { stillLeads: boolean } {
  const others = state.isr.filter((id) => id !== broker);
  if (state.leader === broker) {
    const liveOthers = others.filter((id) => liveness.live.has(id) && !liveness.shuttingDown?.has(id));
    const next = liveOthers.length > 0 ? inReplicaOrder(state, liveOthers)[0] : undefined;
    if (next === undefined) return { ...unchanged(state), stillLeads: true };
    return { ...change('controlled-shutdown', state, { leader: next, isr: others }), stillLeads: false };
  }
  if (state.isr.includes(broker) && others.length > 0) {
    return { ...change('controlled-shutdown', state, { isr: others }), stillLeads: false };
  }
  return { ...unchanged(state), stillLeads: false };
}

/**
 * What the failure of `broker`'s log of this partition does (ReportReplicaOffline): if it leads,
 * the first other live ISR member (replica order) leads and the broker leaves the ISR; if it only
 * follows, it leaves the ISR. With no other live ISR member nothing changes (no clean leader
 * exists; the partition waits for the broker to restart and recover its log).
 */
export function replicaOfflinePartition(
  state: PartitionState,
  broker: number,
  liveness: BrokerLiveness,
): LeadershipDecision {
  const others = state.isr.filter((id) => id !== broker);
  if (state.leader === broker) {
    const next = electFrom(
      state,
      others.filter((id) => liveness.live.has(id)),
      liveness,
    );
    if (next === undefined) return unchanged(state);
    return change('replica-offline', state, { leader: next, isr: others });
  }
  if (state.isr.includes(broker) && others.length > 0)
    return change('replica-offline', state, { isr: others });
  return unchanged(state);
}

/** An ISR change a partition leader proposes (the AlterPartition RPC). */
export interface AlterPartitionProposal {
  brokerId: number;
  leaderEpoch: number;
  partitionEpoch: number;
  newIsr: readonly number[];
}

/**
 * Validates a leader's ISR proposal against the current state and returns the next state (the
 * current one when the ISR is unchanged). Throws:
 * - FENCED_EPOCH when leader_epoch or partition_epoch differ from the current ones (the sender
 *   acted on stale metadata; it refreshes and proposes again);
 * - NOT_LEADER when the epochs match but the sender does not lead the partition;
 * - INVALID_REQUEST when the ISR is empty, has duplicates, is not a subset of the replicas, lacks
 *   the leader, or adds a broker that is not live (or is shutting down).
 */
export function validateAlterPartition(
  state: PartitionState,
  proposal: AlterPartitionProposal,
  liveness: BrokerLiveness,
  context: { topic: string; partition: number },
): PartitionState {
  const errorContext = { ...context, broker: proposal.brokerId };
  if (proposal.leaderEpoch !== state.leaderEpoch || proposal.partitionEpoch !== state.partitionEpoch) {
    throw new TideError(
      'FENCED_EPOCH',
      `AlterPartition for ${context.topic}-${context.partition} carries leader epoch ${proposal.leaderEpoch} and ` +
        `partition epoch ${proposal.partitionEpoch}, but the partition is at ${state.leaderEpoch} and ${state.partitionEpoch}`,
      { context: errorContext },
    );
  }
  if (proposal.brokerId === state.leader && leaderCutOff(state, liveness)) {
    // Its followers cannot reach it: a shrink now would leave no one else eligible to lead.
    throw new TideError(
      'NOT_LEADER',
      `broker ${proposal.brokerId} is reported unreachable by the in-sync replicas of ${context.topic}-${context.partition}; leadership is moving`,
      { context: errorContext },
    );
  }
  if (proposal.brokerId !== state.leader) {
    throw new TideError(
      'NOT_LEADER',
      `broker ${proposal.brokerId} proposed an ISR for ${context.topic}-${context.partition}, whose leader is ${state.leader}`,
      { context: errorContext },
    );
  }
  const isr = [...proposal.newIsr];
  const invalid = (why: string): TideError =>
    new TideError(
      'INVALID_REQUEST',
      `new ISR ${JSON.stringify(isr)} for ${context.topic}-${context.partition} ${why}`,
      { context: errorContext },
    );
  if (isr.length === 0) throw invalid('is empty');
  if (new Set(isr).size !== isr.length) throw invalid('lists a broker twice');
  const outside = isr.filter((id) => !state.replicas.includes(id));
  if (outside.length > 0)
    throw invalid(`names ${outside.join(', ')}, not among the replicas ${JSON.stringify(state.replicas)}`);
  if (!isr.includes(state.leader)) throw invalid(`leaves out the leader ${state.leader}`);
  const ineligible = isr.filter(
    (id) => !state.isr.includes(id) && (!liveness.live.has(id) || liveness.shuttingDown?.has(id)),
  );
  if (ineligible.length > 0) throw invalid(`adds ${ineligible.join(', ')}, not live or shutting down`);
  if (isr.length === state.isr.length && isr.every((id) => state.isr.includes(id))) return state;
  return { ...state, replicas: [...state.replicas], isr, partitionEpoch: state.partitionEpoch + 1 };
}

// ---- helpers ----

function unchanged(state: PartitionState): LeadershipDecision {
  return { change: 'unchanged', state };
}

function change(
  kind: Exclude<LeadershipChange, 'unchanged'>,
  state: PartitionState,
  next: { leader?: number; isr?: number[] },
): LeadershipDecision {
  const leader = next.leader ?? state.leader;
  return {
    change: kind,
    state: {
      leader,
      leaderEpoch: leader === state.leader ? state.leaderEpoch : state.leaderEpoch + 1,
      partitionEpoch: state.partitionEpoch + 1,
      replicas: [...state.replicas],
      isr: next.isr ? [...next.isr] : [...state.isr],
    },
  };
}

/** `ids` sorted by their position in the replica list. */
function inReplicaOrder(state: PartitionState, ids: readonly number[]): number[] {
  return [...ids].sort((a, b) => state.replicas.indexOf(a) - state.replicas.indexOf(b));
}

/** The first of `candidates` in replica order, preferring brokers that are not shutting down. */
function electFrom(
  state: PartitionState,
  candidates: readonly number[],
  liveness: BrokerLiveness,
): number | undefined {
  const ordered = inReplicaOrder(state, candidates);
  const reported = (id: number) => (liveness.unreachable?.get(id)?.size ?? 0) > 0;
  return (
    ordered.find((id) => !liveness.shuttingDown?.has(id) && !reported(id)) ??
    ordered.find((id) => !liveness.shuttingDown?.has(id)) ??
    ordered[0]
  );
}

/** The one ISR member an offline partition keeps: the last leader if it was in the ISR. */
function lastIsrMember(state: PartitionState): number[] {
  if (state.isr.length <= 1) return [...state.isr];
  if (state.isr.includes(state.leader)) return [state.leader];
  return [inReplicaOrder(state, state.isr)[0]];
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}
