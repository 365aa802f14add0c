/**
 * The `client` assignor in the group model: the leader member is asked for the target
 * (a `compute` effect), members keep what they own until it answers, its answer is validated and
 * adopted (assignment data delivered per member), stale answers are ignored, a user-data change
 * asks again, and an overdue or gone leader is replaced.
 */
import { TideError } from '../../../services/common/errors';
import {
  ConsumerGroup,
  type ComputeRequest,
  type GroupEffect,
  type JoinRequest,
} from '../../../services/group-coordinator/group';
import { parseTpKey, tpKey } from '../../../services/group-coordinator/partitions';

const T0 = 1_000_000;

function newGroup(): ConsumerGroup {
  let next = 0;
  return new ConsumerGroup('g', { newMemberId: () => `m${++next}`, partitionCount: () => 4 });
}

function join(overrides: Partial<JoinRequest> = {}): JoinRequest {
  return {
    memberId: '',
    memberEpoch: 0,
    instanceId: '',
    clientId: 'c',
    clientHost: 'h',
    topics: ['t'],
    sessionTimeoutMs: 3_000,
    rebalanceTimeoutMs: 5_000,
    assignor: 'client',
    owned: [],
    ...overrides,
  };
}

const p = (n: number) => tpKey('t', n);
const names = (keys: string[]) => keys.map((k) => parseTpKey(k).partition).join(',');

function compute(effects: GroupEffect[]): { memberId: string; request: ComputeRequest } | undefined {
  const e = effects.filter((x) => x.kind === 'compute').pop();
  return e && e.kind === 'compute' ? { memberId: e.memberId, request: e.request } : undefined;
}

function assignment(effects: GroupEffect[], memberId: string) {
  const e = effects.filter((x) => x.kind === 'assignment' && x.memberId === memberId).pop();
  return e && e.kind === 'assignment' ? e : undefined;
}

function owned(group: ConsumerGroup): Record<string, string> {
  return Object.fromEntries(group.describeMembers().map((m) => [m.memberId, names(m.owned)]));
}

describe('client-side assignor', () => {
  it('asks the first member, gives nothing until it answers, then adopts its target and data', () => {
    const g = newGroup();
    const first = g.join(join({ userData: Buffer.from('a') }), T0);
    const ask = compute(first.effects)!;
    expect(ask.memberId).toBe('m1');
    expect(ask.request.members.map((m) => m.userData.toString())).toEqual(['a']);
    expect(ask.request.partitionCounts.get('t')).toBe(4);
    expect(owned(g)).toEqual({ m1: '' });
    const effects = g.assignmentComputed(
      'm1',
      {
        generation: ask.request.generation,
        targets: [{ memberId: 'm1', partitions: [p(0), p(1), p(2), p(3)], userData: Buffer.from('x') }],
      },
      T0,
    );
    const a = assignment(effects, 'm1')!;
    expect(names(a.partitions)).toBe('0,1,2,3');
    expect(a.userData.toString()).toBe('x');
  });

  it('a second member: the leader is asked again, nothing moves before its answer, then moves incrementally', () => {
    const g = newGroup();
    const ask1 = compute(g.join(join(), T0).effects)!;
    g.assignmentComputed(
      'm1',
      {
        generation: ask1.request.generation,
        targets: [{ memberId: 'm1', partitions: [p(0), p(1), p(2), p(3)], userData: Buffer.alloc(0) }],
      },
      T0,
    );
    const second = g.join(join({ userData: Buffer.from('b') }), T0);
    const ask2 = compute(second.effects)!;
    expect(ask2.memberId).toBe('m1');
    expect(second.effects.some((e) => e.kind === 'revoke')).toBe(false);
    expect(ask2.request.members.find((m) => m.memberId === 'm1')!.previousTarget.length).toBe(4);
    // A stale answer (the first generation) is ignored.
    expect(g.assignmentComputed('m1', { generation: ask1.request.generation, targets: [] }, T0)).toEqual([]);
    const effects = g.assignmentComputed(
      'm1',
      {
        generation: ask2.request.generation,
        targets: [
          { memberId: 'm1', partitions: [p(0), p(1)], userData: Buffer.from('s1') },
          { memberId: 'm2', partitions: [p(2), p(3)], userData: Buffer.from('s2') },
        ],
      },
      T0,
    );
    const revoke = effects.find((e) => e.kind === 'revoke' && e.memberId === 'm1');
    expect(revoke && 'partitions' in revoke ? names(revoke.partitions) : '').toBe('2,3');
    // m1's data changed: it hears it in an assignment even though it gains nothing.
    expect(assignment(effects, 'm1')!.userData.toString()).toBe('s1');
    const after = g.revoked('m1', [p(2), p(3)], T0);
    expect(names(assignment(after, 'm2')!.partitions)).toBe('2,3');
    expect(assignment(after, 'm2')!.userData.toString()).toBe('s2');
  });

  it('rejects a result that gives a partition twice or names an unknown member', () => {
    const g = newGroup();
    const ask = compute(g.join(join(), T0).effects)!;
    const bad = (targets: { memberId: string; partitions: string[] }[]) => {
      try {
        g.assignmentComputed(
          'm1',
          {
            generation: ask.request.generation,
            targets: targets.map((t) => ({ ...t, userData: Buffer.alloc(0) })),
          },
          T0,
        );
      } catch (err) {
        return (err as TideError).code;
      }
      return 'accepted';
    };
    expect(bad([{ memberId: 'zz', partitions: [p(0)] }])).toBe('INVALID_REQUEST');
    expect(
      bad([
        { memberId: 'm1', partitions: [p(0)] },
        { memberId: 'm1', partitions: [p(0)] },
      ]),
    ).toBe('INVALID_REQUEST');
    expect(bad([{ memberId: 'm1', partitions: [p(9)] }])).toBe('INVALID_REQUEST');
    expect(bad([{ memberId: 'm1', partitions: [p(0)] }])).toBe('accepted');
  });

  it('a user-data change asks again; the same data does not', () => {
    const g = newGroup();
    const ask = compute(g.join(join({ userData: Buffer.from('a') }), T0).effects)!;
    g.assignmentComputed('m1', { generation: ask.request.generation, targets: [] }, T0);
    expect(g.updateUserData('m1', Buffer.from('a'), T0)).toEqual([]);
    const again = compute(g.updateUserData('m1', Buffer.from('b'), T0))!;
    expect(again.request.generation).toBeGreaterThan(ask.request.generation);
    expect(again.request.members[0].userData.toString()).toBe('b');
  });

  it('an overdue leader is replaced by the next connected member; a gone one at once', () => {
    const g = newGroup();
    const ask1 = compute(g.join(join(), T0).effects)!;
    g.assignmentComputed('m1', { generation: ask1.request.generation, targets: [] }, T0);
    const ask2 = compute(g.join(join(), T0).effects)!;
    expect(ask2.memberId).toBe('m1');
    expect(g.expire(T0 + 100)).toEqual([]);
    g.heartbeat('m2', 0, T0 + 2_900);
    const overdue = compute(g.expire(T0 + 3_000 - 1).concat(g.expire(T0 + 3_000)));
    // m1's session ran out too at T0 + 3000: it is removed, and m2 is asked.
    expect(overdue?.memberId).toBe('m2');
    g.disconnected('m2');
    const third = g.join(join(), T0 + 3_100);
    expect(compute(third.effects)?.memberId).toBe('m3');
  });
});
