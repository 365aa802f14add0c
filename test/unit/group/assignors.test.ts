/**
 * Assignors, table-driven: every partition to exactly one subscribed member, balance, determinism,
 * and for the sticky `uniform` assignor, that a membership change moves only the partitions that
 * must move.
 */
import {
  rangeAssignor,
  roundRobinAssignor,
  uniformAssignor,
  type AssignorInput,
  type AssignorMember,
  type TargetAssignment,
} from '../../../services/group-coordinator/assignors';
import { parseTpKey, tpKey } from '../../../services/group-coordinator/partitions';

function members(spec: Record<string, string[]>): AssignorMember[] {
  return Object.entries(spec).map(([memberId, topics]) => ({ memberId, topics }));
}

function input(
  spec: Record<string, string[]>,
  counts: Record<string, number>,
  previous: TargetAssignment = new Map(),
): AssignorInput {
  return { members: members(spec), partitionCounts: new Map(Object.entries(counts)), previous };
}

/** member -> "t/0,t/1" for readable expectations. */
function show(target: TargetAssignment): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [m, keys] of [...target].sort(([a], [b]) => (a < b ? -1 : 1))) {
    out[m] = [...keys]
      .map(parseTpKey)
      .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1))
      .map((k) => `${k.topic}/${k.partition}`)
      .join(',');
  }
  return out;
}

function checkValid(assignment: AssignorInput, target: TargetAssignment): void {
  const owner = new Map<string, string>();
  for (const [memberId, keys] of target) {
    const m = assignment.members.find((x) => x.memberId === memberId)!;
    for (const key of keys) {
      expect(owner.has(key)).toBe(false);
      owner.set(key, memberId);
      expect(m.topics).toContain(parseTpKey(key).topic);
    }
  }
  for (const [topic, count] of assignment.partitionCounts) {
    const subscribed = assignment.members.some((m) => m.topics.includes(topic));
    for (let p = 0; p < count; p++) expect(owner.has(tpKey(topic, p))).toBe(subscribed);
  }
  expect([...target.keys()].sort()).toEqual(assignment.members.map((m) => m.memberId).sort());
}

function moves(before: TargetAssignment, after: TargetAssignment): number {
  let moved = 0;
  for (const [m, keys] of after) for (const key of keys) if (!before.get(m)?.has(key)) moved++;
  return moved;
}

describe.each([
  ['uniform', uniformAssignor],
  ['range', rangeAssignor],
  ['roundrobin', roundRobinAssignor],
])('%s assignor', (_name, assignor) => {
  it.each([
    ['no members', {}, { t: 3 }],
    ['one member', { a: ['t'] }, { t: 3 }],
    ['3 members, 6 partitions', { a: ['t'], b: ['t'], c: ['t'] }, { t: 6 }],
    ['more members than partitions', { a: ['t'], b: ['t'], c: ['t'] }, { t: 2 }],
    ['two topics', { a: ['t', 'u'], b: ['t', 'u'] }, { t: 3, u: 5 }],
    ['mixed subscriptions', { a: ['t'], b: ['t', 'u'], c: ['u'] }, { t: 4, u: 4 }],
    ['a topic not created yet', { a: ['t', 'missing'], b: ['t'] }, { t: 2 }],
  ])('%s: every partition exactly once, to a subscriber', (_case, spec, counts) => {
    const i = input(spec, counts);
    const target = assignor(i);
    checkValid(i, target);
    expect(show(assignor(i))).toEqual(show(target)); // deterministic
  });

  it('balances equal subscriptions within one partition', () => {
    for (const [m, n] of [
      [3, 6],
      [4, 6],
      [5, 17],
      [7, 3],
    ]) {
      const spec = Object.fromEntries(Array.from({ length: m }, (_, i) => [`m${i}`, ['t']]));
      const sizes = [...assignor(input(spec, { t: n })).values()].map((s) => s.size);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(n);
    }
  });
});

describe('range and round-robin layouts (as Kafka)', () => {
  it('range: contiguous ranges, the first members take the remainder', () => {
    expect(show(rangeAssignor(input({ a: ['t'], b: ['t'], c: ['t'] }, { t: 7 })))).toEqual({
      a: 't/0,t/1,t/2',
      b: 't/3,t/4',
      c: 't/5,t/6',
    });
  });

  it('roundrobin: dealt in turn over topics and partitions', () => {
    expect(show(roundRobinAssignor(input({ a: ['t', 'u'], b: ['t', 'u'] }, { t: 3, u: 2 })))).toEqual({
      a: 't/0,t/2,u/1',
      b: 't/1,u/0',
    });
  });

  it('orders static members by instance id, so a restarted member keeps its place', () => {
    const i: AssignorInput = {
      members: [
        { memberId: 'zz-new-id', instanceId: 'pod-0', topics: ['t'] },
        { memberId: 'aa', instanceId: 'pod-1', topics: ['t'] },
      ],
      partitionCounts: new Map([['t', 4]]),
      previous: new Map(),
    };
    expect(show(rangeAssignor(i))).toEqual({ aa: 't/2,t/3', 'zz-new-id': 't/0,t/1' });
  });
});

describe('uniform assignor: incremental moves are minimal', () => {
  it.each([
    // [case, before members, after members, partitions, max moved partitions]
    ['a member dies: only its partitions move', ['a', 'b', 'c'], ['a', 'b'], 6, 2],
    ['a member joins: it takes its share, nobody else moves', ['a', 'b', 'c'], ['a', 'b', 'c', 'd'], 6, 1],
    ['a member joins a larger group', ['a', 'b', 'c'], ['a', 'b', 'c', 'd'], 12, 3],
    ['nothing changes: nothing moves', ['a', 'b', 'c'], ['a', 'b', 'c'], 6, 0],
    ['two members die', ['a', 'b', 'c', 'd'], ['a', 'b'], 8, 4],
  ])('%s', (_case, before, after, n, maxMoved) => {
    const spec = (ids: string[]) => Object.fromEntries(ids.map((id) => [id, ['t']]));
    const first = uniformAssignor(input(spec(before), { t: n }));
    const previous = new Map([...first].filter(([m]) => after.includes(m)));
    const i = input(spec(after), { t: n }, previous);
    const second = uniformAssignor(i);
    checkValid(i, second);
    expect(moves(previous, second)).toBeLessThanOrEqual(maxMoved);
    // Members that stay keep everything they may keep: nothing is taken from a member at or below its share.
    const share = Math.floor(n / after.length);
    for (const m of after) {
      const kept = [...(previous.get(m) ?? [])].filter((k) => second.get(m)!.has(k)).length;
      expect(kept).toBeGreaterThanOrEqual(Math.min(share, previous.get(m)?.size ?? 0));
    }
    const sizes = [...second.values()].map((s) => s.size);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
  });

  it('drops partitions of topics a member unsubscribed from, keeps the rest', () => {
    const first = uniformAssignor(input({ a: ['t', 'u'], b: ['t', 'u'] }, { t: 2, u: 2 }));
    const second = uniformAssignor(input({ a: ['t'], b: ['t', 'u'] }, { t: 2, u: 2 }, first));
    expect([...second.get('a')!].every((k) => parseTpKey(k).topic === 't')).toBe(true);
    expect([...second.get('b')!].filter((k) => parseTpKey(k).topic === 'u')).toHaveLength(2);
  });
});
