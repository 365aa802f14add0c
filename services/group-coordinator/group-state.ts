/**
 * The group state machine as an explicit transition table with guards.
 *
 * One table hosts both group protocols, so Kafka's classic protocol (JoinGroup/SyncGroup with
 * client-side assignment, for the Kafka wire listener to come) can live beside Tide's incremental
 * one: each row names the protocol it applies to. A group's protocol may change only while it is
 * EMPTY.
 *
 *   consumer protocol (incremental, server-side assignment):
 *     EMPTY ──member joined──▶ RECONCILING ──every member holds its target──▶ STABLE
 *     STABLE ──membership / subscription / metadata / offsets reset──▶ RECONCILING (or STABLE when
 *       the target did not change for anyone)
 *     any ──last member gone──▶ EMPTY ──deleted (no offsets left)──▶ DEAD
 *
 *   classic protocol (reserved: rows present, not served yet):
 *     EMPTY|STABLE|COMPLETING_REBALANCE ──join──▶ PREPARING_REBALANCE ──all joined──▶
 *     COMPLETING_REBALANCE ──leader's sync──▶ STABLE; ──last member gone──▶ EMPTY
 *
 * The first row whose `from`, `event`, `protocols` and `guard` match decides the next state; no
 * matching row is a bug (AssertionError), never a silent no-op.
 */
import { AssertionError } from '../common/assert';

export const GROUP_STATES = [
  'EMPTY',
  'RECONCILING',
  'STABLE',
  'DEAD',
  'PREPARING_REBALANCE',
  'COMPLETING_REBALANCE',
] as const;
export type GroupState = (typeof GROUP_STATES)[number];

export type GroupProtocol = 'consumer' | 'classic';

export type GroupEvent =
  /** Members, subscriptions, topic metadata or the fence changed; the target was recomputed. */
  | 'MEMBERSHIP_CHANGED'
  /** A member confirmed a revocation or received partitions. */
  | 'RECONCILED'
  /** The group has neither members nor offsets and is removed. */
  | 'DELETE'
  /** Classic protocol: a member sent JoinGroup. */
  | 'CLASSIC_JOIN'
  /** Classic protocol: every member rejoined (or the rebalance timeout passed). */
  | 'CLASSIC_JOIN_COMPLETE'
  /** Classic protocol: the leader sent the assignment in SyncGroup. */
  | 'CLASSIC_SYNC_COMPLETE'
  /** Classic protocol: a member left or expired. */
  | 'CLASSIC_MEMBER_LEFT';

/** What the guards look at. */
export interface GroupFacts {
  protocol: GroupProtocol;
  members: number;
  /** Every member owns exactly its target and revokes nothing. */
  converged: boolean;
  /** Committed offsets the group still has. */
  offsets: number;
}

export interface Transition {
  from: readonly GroupState[];
  event: GroupEvent;
  protocols: readonly GroupProtocol[];
  /** When absent the row always applies. */
  guard?: (facts: GroupFacts) => boolean;
  to: GroupState;
}

const LIVE: readonly GroupState[] = ['EMPTY', 'RECONCILING', 'STABLE'];
const noMembers = (f: GroupFacts) => f.members === 0;
const converged = (f: GroupFacts) => f.members > 0 && f.converged;

export const GROUP_TRANSITIONS: readonly Transition[] = [
  // ---- consumer protocol ----
  { from: LIVE, event: 'MEMBERSHIP_CHANGED', protocols: ['consumer'], guard: noMembers, to: 'EMPTY' },
  { from: LIVE, event: 'MEMBERSHIP_CHANGED', protocols: ['consumer'], guard: converged, to: 'STABLE' },
  { from: LIVE, event: 'MEMBERSHIP_CHANGED', protocols: ['consumer'], to: 'RECONCILING' },
  {
    from: ['RECONCILING', 'STABLE'],
    event: 'RECONCILED',
    protocols: ['consumer'],
    guard: converged,
    to: 'STABLE',
  },
  {
    from: ['RECONCILING', 'STABLE'],
    event: 'RECONCILED',
    protocols: ['consumer'],
    guard: noMembers,
    to: 'EMPTY',
  },
  { from: ['RECONCILING', 'STABLE'], event: 'RECONCILED', protocols: ['consumer'], to: 'RECONCILING' },
  { from: ['EMPTY'], event: 'RECONCILED', protocols: ['consumer'], guard: noMembers, to: 'EMPTY' },
  // ---- both protocols ----
  {
    from: ['EMPTY'],
    event: 'DELETE',
    protocols: ['consumer', 'classic'],
    guard: (f) => f.members === 0 && f.offsets === 0,
    to: 'DEAD',
  },
  // ---- classic protocol (reserved for the Kafka wire listener) ----
  {
    from: ['EMPTY', 'STABLE', 'COMPLETING_REBALANCE', 'PREPARING_REBALANCE'],
    event: 'CLASSIC_JOIN',
    protocols: ['classic'],
    to: 'PREPARING_REBALANCE',
  },
  {
    from: ['PREPARING_REBALANCE'],
    event: 'CLASSIC_JOIN_COMPLETE',
    protocols: ['classic'],
    guard: noMembers,
    to: 'EMPTY',
  },
  {
    from: ['PREPARING_REBALANCE'],
    event: 'CLASSIC_JOIN_COMPLETE',
    protocols: ['classic'],
    to: 'COMPLETING_REBALANCE',
  },
  { from: ['COMPLETING_REBALANCE'], event: 'CLASSIC_SYNC_COMPLETE', protocols: ['classic'], to: 'STABLE' },
  {
    from: ['PREPARING_REBALANCE', 'COMPLETING_REBALANCE', 'STABLE'],
    event: 'CLASSIC_MEMBER_LEFT',
    protocols: ['classic'],
    guard: noMembers,
    to: 'EMPTY',
  },
  {
    from: ['COMPLETING_REBALANCE', 'STABLE', 'PREPARING_REBALANCE'],
    event: 'CLASSIC_MEMBER_LEFT',
    protocols: ['classic'],
    to: 'PREPARING_REBALANCE',
  },
];

/** The state after `event`; throws AssertionError when no row allows it (a bug in the caller). */
export function nextGroupState(state: GroupState, event: GroupEvent, facts: GroupFacts): GroupState {
  for (const row of GROUP_TRANSITIONS) {
    if (row.event !== event || !row.from.includes(state) || !row.protocols.includes(facts.protocol)) continue;
    if (row.guard && !row.guard(facts)) continue;
    return row.to;
  }
  throw new AssertionError(
    `no group transition from ${state} on ${event} (${facts.protocol} protocol, ${facts.members} members, converged ${facts.converged})`,
  );
}

/** Whether a group may switch to `protocol`: only while empty (or already on it). */
export function mayUseProtocol(current: GroupProtocol, members: number, protocol: GroupProtocol): boolean {
  return current === protocol || members === 0;
}
