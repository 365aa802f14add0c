/**
 * The group state machine as an explicit transition table with guards, for the consumer
 * (incremental, server-side assignment) protocol, the only one Tide serves:
 *
 *     EMPTY ──member joined──▶ RECONCILING ──every member holds its target──▶ STABLE
 *     STABLE ──membership / subscription / metadata / offsets reset──▶ RECONCILING (or STABLE when
 *       the target did not change for anyone)
 *     any ──last member gone──▶ EMPTY ──deleted (no offsets left)──▶ DEAD
 *
 * Kafka's classic protocol (JoinGroup/SyncGroup), when the Kafka wire listener comes, adds its
 * states, events and rows here.
 *
 * The first row whose `from`, `event` and `guard` match decides the next state; no matching row is
 * a bug (AssertionError), never a silent no-op.
 */
import { AssertionError } from '../common/assert';

export const GROUP_STATES = ['EMPTY', 'RECONCILING', 'STABLE', 'DEAD'] as const;
export type GroupState = (typeof GROUP_STATES)[number];

/** The group protocol, as groups are described and stored: Tide serves the consumer protocol only. */
export type GroupProtocol = 'consumer' | 'classic';

export type GroupEvent =
  /** Members, subscriptions, topic metadata or the fence changed; the target was recomputed. */
  | 'MEMBERSHIP_CHANGED'
  /** A member confirmed a revocation or received partitions. */
  | 'RECONCILED'
  /** The group has neither members nor offsets and is removed. */
  | 'DELETE';

/** What the guards look at. */
export interface GroupFacts {
  members: number;
  /** Every member owns exactly its target and revokes nothing. */
  converged: boolean;
  /** Committed offsets the group still has. */
  offsets: number;
}

export interface Transition {
  from: readonly GroupState[];
  event: GroupEvent;
  /** When absent the row always applies. */
  guard?: (facts: GroupFacts) => boolean;
  to: GroupState;
}

const LIVE: readonly GroupState[] = ['EMPTY', 'RECONCILING', 'STABLE'];
const noMembers = (f: GroupFacts) => f.members === 0;
const converged = (f: GroupFacts) => f.members > 0 && f.converged;

export const GROUP_TRANSITIONS: readonly Transition[] = [
  { from: LIVE, event: 'MEMBERSHIP_CHANGED', guard: noMembers, to: 'EMPTY' },
  { from: LIVE, event: 'MEMBERSHIP_CHANGED', guard: converged, to: 'STABLE' },
  { from: LIVE, event: 'MEMBERSHIP_CHANGED', to: 'RECONCILING' },
  { from: ['RECONCILING', 'STABLE'], event: 'RECONCILED', guard: converged, to: 'STABLE' },
  { from: ['RECONCILING', 'STABLE'], event: 'RECONCILED', guard: noMembers, to: 'EMPTY' },
  { from: ['RECONCILING', 'STABLE'], event: 'RECONCILED', to: 'RECONCILING' },
  { from: ['EMPTY'], event: 'RECONCILED', guard: noMembers, to: 'EMPTY' },
  { from: ['EMPTY'], event: 'DELETE', guard: (f) => f.members === 0 && f.offsets === 0, to: 'DEAD' },
];

/** The state after `event`; throws AssertionError when no row allows it (a bug in the caller). */
export function nextGroupState(state: GroupState, event: GroupEvent, facts: GroupFacts): GroupState {
  for (const row of GROUP_TRANSITIONS) {
    if (row.event !== event || !row.from.includes(state)) continue;
    if (row.guard && !row.guard(facts)) continue;
    return row.to;
  }
  throw new AssertionError(
    `no group transition from ${state} on ${event} (${facts.members} members, converged ${facts.converged})`,
  );
}
