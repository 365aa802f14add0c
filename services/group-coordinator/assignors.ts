/**
 * Server-side assignors: pure functions from the group's members, their subscriptions and the
 * topics' partition counts to a target assignment (member id -> partition keys). Every member
 * appears in the result, every existing partition of a subscribed topic goes to exactly one member
 * subscribed to it, and the result is deterministic for a given input.
 *
 * - `uniform` (default): sticky and balanced. Keeps every partition of the previous target that is
 *   still valid, gives unowned partitions to the least-loaded eligible member, then moves single
 *   partitions from the most- to the least-loaded member until no eligible move improves balance.
 *   With equal subscriptions the counts end within one of each other, and only the partitions that
 *   must move do.
 * - `range`: per topic, contiguous ranges to members in order (Kafka's RangeAssignor).
 * - `roundrobin`: every partition in (topic, partition) order, dealt to the members in turn,
 *   skipping members not subscribed to its topic (Kafka's RoundRobinAssignor).
 *
 * Members are ordered by instance id when they have one, else member id, so static members keep
 * their place across restarts (range and round-robin then give them the same partitions).
 *
 * The coordinator reconciles towards the target incrementally: only partitions whose owner changes
 * are revoked (see group.ts), whichever assignor computed it.
 */
import { TideError } from '../common/errors';
import { ASSIGNOR_NAMES } from '../common/assignor-names';
import { compareTpKeys, parseTpKey, tpKey } from './partitions';

export interface AssignorMember {
  memberId: string;
  instanceId?: string;
  /** Subscribed topic names. */
  topics: readonly string[];
}

export interface AssignorInput {
  members: readonly AssignorMember[];
  /** Partition count per topic; topics absent here have no partitions (yet). */
  partitionCounts: ReadonlyMap<string, number>;
  /** The previous target, per member id (sticky assignors keep what they can). */
  previous: ReadonlyMap<string, ReadonlySet<string>>;
}

export type TargetAssignment = Map<string, Set<string>>;

export type Assignor = (input: AssignorInput) => TargetAssignment;

/** The assignor of a name; INVALID_REQUEST for an unknown one. */
export function assignorFor(name: string): Assignor {
  switch (name) {
    case 'uniform':
      return uniformAssignor;
    case 'range':
      return rangeAssignor;
    case 'roundrobin':
      return roundRobinAssignor;
    default:
      throw new TideError(
        'INVALID_REQUEST',
        `unknown assignor ${JSON.stringify(name)}; use one of ${ASSIGNOR_NAMES.join(', ')}`,
      );
  }
}

function orderKey(m: AssignorMember): string {
  return m.instanceId ? `0${m.instanceId}` : `1${m.memberId}`;
}

function ordered(members: readonly AssignorMember[]): AssignorMember[] {
  return [...members].sort((a, b) => (orderKey(a) < orderKey(b) ? -1 : orderKey(a) > orderKey(b) ? 1 : 0));
}

function emptyTarget(members: readonly AssignorMember[]): TargetAssignment {
  return new Map(members.map((m) => [m.memberId, new Set<string>()]));
}

/** Every partition some member subscribes to, sorted. */
function subscribedPartitions(input: AssignorInput): string[] {
  const topics = new Set(input.members.flatMap((m) => m.topics));
  const keys: string[] = [];
  for (const topic of [...topics].sort()) {
    const count = input.partitionCounts.get(topic) ?? 0;
    for (let p = 0; p < count; p++) keys.push(tpKey(topic, p));
  }
  return keys;
}

export const rangeAssignor: Assignor = (input) => {
  const target = emptyTarget(input.members);
  const members = ordered(input.members);
  const topics = [...new Set(members.flatMap((m) => m.topics))].sort();
  for (const topic of topics) {
    const count = input.partitionCounts.get(topic) ?? 0;
    const subscribers = members.filter((m) => m.topics.includes(topic));
    if (subscribers.length === 0) continue;
    const base = Math.floor(count / subscribers.length);
    const extra = count % subscribers.length;
    let next = 0;
    subscribers.forEach((m, i) => {
      const size = base + (i < extra ? 1 : 0);
      for (let k = 0; k < size; k++) target.get(m.memberId)!.add(tpKey(topic, next++));
    });
  }
  return target;
};

export const roundRobinAssignor: Assignor = (input) => {
  const target = emptyTarget(input.members);
  const members = ordered(input.members);
  if (members.length === 0) return target;
  let turn = 0;
  for (const key of subscribedPartitions(input)) {
    const { topic } = parseTpKey(key);
    for (let tried = 0; tried < members.length; tried++) {
      const m = members[(turn + tried) % members.length];
      if (m.topics.includes(topic)) {
        target.get(m.memberId)!.add(key);
        turn = (turn + tried + 1) % members.length;
        break;
      }
    }
  }
  return target;
};

export const uniformAssignor: Assignor = (input) => {
  const target = emptyTarget(input.members);
  const members = ordered(input.members);
  const eligible = (m: AssignorMember, key: string) => m.topics.includes(parseTpKey(key).topic);
  const all = subscribedPartitions(input);
  const valid = new Set(all);
  const owner = new Map<string, string>();

  // 1. Keep what the previous target gave each member, when still valid and subscribed.
  for (const m of members) {
    const previous = [...(input.previous.get(m.memberId) ?? [])].sort(compareTpKeys);
    for (const key of previous) {
      if (!valid.has(key) || owner.has(key) || !eligible(m, key)) continue;
      owner.set(key, m.memberId);
      target.get(m.memberId)!.add(key);
    }
  }
  const load = (m: AssignorMember) => target.get(m.memberId)!.size;

  // 2. Unowned partitions go to the least-loaded eligible member (first in order on ties).
  for (const key of all) {
    if (owner.has(key)) continue;
    let best: AssignorMember | undefined;
    for (const m of members) if (eligible(m, key) && (!best || load(m) < load(best))) best = m;
    if (!best) continue;
    owner.set(key, best.memberId);
    target.get(best.memberId)!.add(key);
  }

  // 3. Balance: move one partition at a time from a member with more than one partition above
  // another eligible member, the most loaded first, until no such move exists.
  for (let moves = 0; moves <= all.length * members.length; moves++) {
    const move = bestMove(members, target, eligible);
    if (!move) break;
    target.get(move.from)!.delete(move.key);
    target.get(move.to)!.add(move.key);
  }
  return target;
};

function bestMove(
  members: AssignorMember[],
  target: TargetAssignment,
  eligible: (m: AssignorMember, key: string) => boolean,
): { from: string; to: string; key: string } | undefined {
  const byLoadDesc = [...members].sort((a, b) => target.get(b.memberId)!.size - target.get(a.memberId)!.size);
  const byLoadAsc = [...byLoadDesc].reverse();
  for (const from of byLoadDesc) {
    const fromSet = target.get(from.memberId)!;
    for (const to of byLoadAsc) {
      if (fromSet.size <= target.get(to.memberId)!.size + 1) break;
      // The highest partition `to` may take: deterministic, and leaves low partitions in place.
      const candidates = [...fromSet].filter((key) => eligible(to, key)).sort(compareTpKeys);
      const key = candidates[candidates.length - 1];
      if (key !== undefined) return { from: from.memberId, to: to.memberId, key };
    }
  }
  return undefined;
}
