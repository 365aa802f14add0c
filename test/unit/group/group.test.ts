/**
 * The consumer group model (pure, driven by explicit times): the state transition table,
 * incremental cooperative reconciliation (revoke first, assign after the ack, untouched members
 * get nothing), generation fencing of commits and heartbeats, static membership, session and
 * rebalance timeouts, rejoin after a coordinator move, and the snapshot round trip.
 */
import { AssertionError } from '../../../services/common/assert';
import { TideError } from '../../../services/common/errors';
import { ConsumerGroup, type GroupEffect, type JoinRequest } from '../../../services/group-coordinator/group';
import {
  GROUP_STATES,
  GROUP_TRANSITIONS,
  nextGroupState,
  type GroupFacts,
} from '../../../services/group-coordinator/group-state';
import { parseTpKey, tpKey } from '../../../services/group-coordinator/partitions';
import { decodeOffsetsRecord, groupKey, groupValue } from '../../../services/group-coordinator/offsets-codec';

const T0 = 1_000_000;

function newGroup(counts: Record<string, number> = { t: 6 }): ConsumerGroup {
  let next = 0;
  return new ConsumerGroup('g', {
    newMemberId: () => `m${++next}`,
    partitionCount: (topic) => counts[topic],
  });
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
    assignor: '',
    owned: [],
    ...overrides,
  };
}

const p = (n: number, topic = 't') => tpKey(topic, n);
const names = (keys: string[]) => keys.map((k) => parseTpKey(k).partition).join(',');

function of(effects: GroupEffect[], kind: GroupEffect['kind'], memberId: string): GroupEffect[] {
  return effects.filter((e) => e.kind === kind && e.memberId === memberId);
}

function partitionsOf(
  effects: GroupEffect[],
  kind: 'assignment' | 'revoke',
  memberId: string,
): string | undefined {
  const found = of(effects, kind, memberId).pop();
  return found && 'partitions' in found ? names(found.partitions) : undefined;
}

function owned(group: ConsumerGroup): Record<string, string> {
  return Object.fromEntries(group.describeMembers().map((m) => [m.memberId, names(m.owned)]));
}

async function expectCode(fn: () => unknown, code: string): Promise<TideError> {
  let caught: unknown;
  try {
    fn();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(TideError);
  expect((caught as TideError).code).toBe(code);
  return caught as TideError;
}

/** Where threeMembers() leaves the partitions. */
const LAYOUT = { m1: '0,1', m2: '3,4', m3: '2,5' };

/** Three members owning two partitions each, stable. */
function threeMembers(): ConsumerGroup {
  const g = newGroup();
  g.join(join(), T0);
  const second = g.join(join(), T0);
  // m1 had everything; m2's share is revoked from m1 first.
  g.revoked(
    'm1',
    second.effects.flatMap((e) => (e.kind === 'revoke' ? e.partitions : [])),
    T0,
  );
  const third = g.join(join(), T0);
  for (const e of third.effects) if (e.kind === 'revoke') g.revoked(e.memberId, e.partitions, T0);
  expect(g.state).toBe('STABLE');
  return g;
}

describe('group state transition table', () => {
  const facts = (f: Partial<GroupFacts>): GroupFacts => ({
    members: 1,
    converged: false,
    offsets: 0,
    ...f,
  });

  it.each([
    ['EMPTY', 'MEMBERSHIP_CHANGED', { members: 1 }, 'RECONCILING'],
    ['EMPTY', 'MEMBERSHIP_CHANGED', { members: 1, converged: true }, 'STABLE'],
    ['RECONCILING', 'RECONCILED', { converged: true }, 'STABLE'],
    ['RECONCILING', 'RECONCILED', {}, 'RECONCILING'],
    ['STABLE', 'MEMBERSHIP_CHANGED', {}, 'RECONCILING'],
    ['STABLE', 'MEMBERSHIP_CHANGED', { members: 0 }, 'EMPTY'],
    ['RECONCILING', 'MEMBERSHIP_CHANGED', { members: 0 }, 'EMPTY'],
    ['EMPTY', 'DELETE', { members: 0, offsets: 0 }, 'DEAD'],
  ] as const)('%s --%s--> %s', (from, event, f, to) => {
    expect(nextGroupState(from, event, facts(f))).toBe(to);
  });

  it.each([
    ['DEAD', 'MEMBERSHIP_CHANGED', {}],
    ['EMPTY', 'DELETE', { members: 0, offsets: 3 }],
  ] as const)('rejects %s on %s (guards)', (from, event, f) => {
    expect(() => nextGroupState(from, event, facts(f))).toThrow(AssertionError);
  });

  it('every row leads to a state of the table', () => {
    for (const row of GROUP_TRANSITIONS) expect(GROUP_STATES).toContain(row.to);
  });
});

describe('incremental cooperative reconciliation', () => {
  it('first member gets every partition', () => {
    const g = newGroup();
    const r = g.join(join(), T0);
    expect(r.memberId).toBe('m1');
    expect(partitionsOf(r.effects, 'assignment', 'm1')).toBe('0,1,2,3,4,5');
    expect(g.state).toBe('STABLE');
  });

  it('a joining member: revoke first, assign only after the ack; nobody else is told anything', () => {
    const g = threeMembers();
    expect(owned(g)).toEqual(LAYOUT);
    const r = g.join(join(), T0);
    // The new member gets nothing yet: its partition is still owned by someone revoking it.
    expect(of(r.effects, 'assignment', 'm4')).toEqual([]);
    const revokes = r.effects.filter((e) => e.kind === 'revoke');
    expect(revokes).toHaveLength(1);
    const from = revokes[0].memberId;
    const moved = (revokes[0] as { partitions: string[] }).partitions;
    expect(moved).toHaveLength(1);
    // Members that keep their partitions get no message at all.
    expect(r.effects.filter((e) => e.memberId !== from && e.memberId !== 'm4')).toEqual([]);
    expect(g.state).toBe('RECONCILING');
    // Until the ack the partition is owned by the revoking member only.
    expect(g.ownerOf(moved[0])).toBe(from);
    const after = g.revoked(from, moved, T0);
    expect(partitionsOf(after, 'assignment', 'm4')).toBe(names(moved));
    expect(g.ownerOf(moved[0])).toBe('m4');
    expect(g.state).toBe('STABLE');
  });

  it('a leaving member: its partitions go to the others at once, the others keep theirs', () => {
    const g = threeMembers();
    const effects = g.leave('m2', false, T0);
    expect(effects.filter((e) => e.kind === 'revoke')).toEqual([]);
    const m1 = partitionsOf(effects, 'assignment', 'm1')!;
    const m3 = partitionsOf(effects, 'assignment', 'm3')!;
    expect(m1.split(',').length + m3.split(',').length).toBe(6);
    for (const n of LAYOUT.m1.split(',')) expect(m1.split(',')).toContain(n);
    for (const n of LAYOUT.m3.split(',')) expect(m3.split(',')).toContain(n);
  });

  it('never two owners, whatever the order of joins, leaves and acks', () => {
    // A seeded random walk over join / leave / ack / expire; the model asserts single ownership
    // after every step (checkOwnership), and the test re-checks from the outside.
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
    const g = newGroup({ t: 7 });
    let now = T0;
    const pending: { memberId: string; partitions: string[] }[] = [];
    for (let step = 0; step < 400; step++) {
      now += 10;
      const ids = g.memberIds();
      const roll = random();
      let effects: GroupEffect[] = [];
      if (roll < 0.3 || ids.length === 0) effects = g.join(join(), now).effects;
      else if (roll < 0.45) effects = g.leave(ids[Math.floor(random() * ids.length)], false, now);
      else if (pending.length > 0) {
        const ack = pending.splice(Math.floor(random() * pending.length), 1)[0];
        if (g.hasMember(ack.memberId)) effects = g.revoked(ack.memberId, ack.partitions, now);
      }
      for (const e of effects)
        if (e.kind === 'revoke') pending.push({ memberId: e.memberId, partitions: e.partitions });
      const seen = new Set<string>();
      for (const m of g.describeMembers()) {
        for (const key of m.owned) {
          expect(seen.has(key)).toBe(false);
          seen.add(key);
        }
      }
    }
  });
});

describe('fencing', () => {
  it('commits: member, epoch range and ownership are checked', async () => {
    const g = threeMembers();
    const epoch = g.describeMembers().find((m) => m.memberId === 'm1')!.epoch;
    expect(() => g.validateCommit('m1', epoch, [p(0), p(1)])).not.toThrow();
    await expectCode(() => g.validateCommit('m1', epoch, [p(4)]), 'ILLEGAL_GENERATION');
    await expectCode(() => g.validateCommit('nobody', epoch, [p(0)]), 'UNKNOWN_MEMBER_ID');
    await expectCode(() => g.validateCommit('m1', epoch + 1, [p(0)]), 'FENCED_MEMBER_EPOCH');
    await expectCode(() => g.validateCommit('', 0, [p(0)]), 'UNKNOWN_MEMBER_ID');
  });

  it('an offsets reset fences every member: older epochs are rejected, members refetch', async () => {
    const g = threeMembers();
    const before = g.describeMembers().find((m) => m.memberId === 'm1')!.epoch;
    const generation = g.generation;
    const effects = g.fence(T0);
    expect(g.generation).toBe(generation + 1);
    for (const id of ['m1', 'm2', 'm3']) {
      const a = of(effects, 'assignment', id)[0] as Extract<GroupEffect, { kind: 'assignment' }>;
      expect(a.refetchOffsets).toBe(true);
      expect(a.memberEpoch).toBe(g.generation);
    }
    const err = await expectCode(() => g.validateCommit('m1', before, [p(0)]), 'FENCED_MEMBER_EPOCH');
    expect(err.message).toMatch(/accepted epochs/);
    expect(() => g.validateCommit('m1', g.generation, [p(0)])).not.toThrow();
    // Ownership did not move.
    expect(owned(g)).toEqual(LAYOUT);
  });

  it('heartbeats: unknown members and epochs never given out are rejected', async () => {
    const g = threeMembers();
    await expectCode(() => g.heartbeat('ghost', 1, T0), 'UNKNOWN_MEMBER_ID');
    await expectCode(() => g.heartbeat('m1', 999, T0), 'FENCED_MEMBER_EPOCH');
    expect(() => g.heartbeat('m1', 1, T0)).not.toThrow();
  });

  it('an expired member is removed; its late commit and rejoin are rejected', async () => {
    const g = threeMembers();
    for (const id of ['m1', 'm3']) g.heartbeat(id, 1, T0 + 2_000);
    const effects = g.expire(T0 + 3_000);
    const fence = of(effects, 'fence', 'm2')[0] as Extract<GroupEffect, { kind: 'fence' }>;
    expect(fence.error.code).toBe('UNKNOWN_MEMBER_ID');
    expect(fence.error.message).toMatch(/session timeout/);
    expect(g.hasMember('m2')).toBe(false);
    // Its partitions moved to the survivors without revoking anything from them.
    expect(effects.filter((e) => e.kind === 'revoke')).toEqual([]);
    expect(Object.values(owned(g)).join(',').split(',').sort()).toEqual(['0', '1', '2', '3', '4', '5']);
    await expectCode(() => g.validateCommit('m2', 1, [p(4)]), 'UNKNOWN_MEMBER_ID');
    await expectCode(
      () => g.join(join({ memberId: 'm2', memberEpoch: 1, owned: [p(4)] }), T0),
      'UNKNOWN_MEMBER_ID',
    );
  });

  it('a member that does not confirm a revocation within its rebalance timeout is removed', () => {
    const g = threeMembers();
    const r = g.join(join(), T0);
    const revoke = r.effects.find((e) => e.kind === 'revoke')!;
    for (const id of g.memberIds()) g.heartbeat(id, 0, T0 + 4_900);
    expect(g.expire(T0 + 4_999)).toEqual([]);
    for (const id of g.memberIds()) g.heartbeat(id, 0, T0 + 5_000);
    const effects = g.expire(T0 + 5_000);
    const fence = of(effects, 'fence', revoke.memberId)[0] as Extract<GroupEffect, { kind: 'fence' }>;
    expect(fence.error.message).toMatch(/rebalance timeout/);
    expect(partitionsOf(effects, 'assignment', 'm4')).toBeDefined();
  });
});

describe('static membership', () => {
  it('a restart within the session timeout gets the same partitions and causes no rebalance', () => {
    const g = newGroup();
    const a = g.join(join({ instanceId: 'pod-0' }), T0);
    const b = g.join(join({ instanceId: 'pod-1' }), T0);
    for (const e of b.effects) if (e.kind === 'revoke') g.revoked(e.memberId, e.partitions, T0);
    const before = owned(g);
    const generation = g.generation;
    expect(g.leave(a.memberId, true, T0 + 100)).toEqual([]); // temporary leave: keeps its partitions
    const again = g.join(join({ instanceId: 'pod-0' }), T0 + 1_000);
    expect(again.memberId).not.toBe(a.memberId);
    expect(g.generation).toBe(generation);
    // Only the new incarnation hears anything (its partitions); the old id is fenced.
    expect(partitionsOf(again.effects, 'assignment', again.memberId)).toBe(before[a.memberId]);
    expect(again.effects.filter((e) => e.memberId === b.memberId)).toEqual([]);
    expect((of(again.effects, 'fence', a.memberId)[0] as { error: TideError }).error.code).toBe(
      'UNKNOWN_MEMBER_ID',
    );
    expect(owned(g)[b.memberId]).toBe(before[b.memberId]);
  });

  it('a static member that stays away longer than its session timeout loses its partitions', () => {
    const g = newGroup();
    const a = g.join(join({ instanceId: 'pod-0' }), T0);
    const b = g.join(join({ instanceId: 'pod-1' }), T0);
    for (const e of b.effects) if (e.kind === 'revoke') g.revoked(e.memberId, e.partitions, T0);
    g.leave(a.memberId, true, T0);
    g.heartbeat(b.memberId, 0, T0 + 2_999);
    const effects = g.expire(T0 + 3_000);
    expect(partitionsOf(effects, 'assignment', b.memberId)).toBe('0,1,2,3,4,5');
  });
});

describe('rejoin and restore (coordinator moved)', () => {
  it('restored members reconnect and continue without a rebalance', () => {
    const g = threeMembers();
    const snapshot = JSON.parse(JSON.stringify(g.snapshot()));
    const restored = newGroup();
    restored.restore(snapshot, T0 + 10);
    expect(owned(restored)).toEqual(owned(g));
    const m1 = g.describeMembers().find((m) => m.memberId === 'm1')!;
    const r = restored.join(join({ memberId: 'm1', memberEpoch: m1.epoch, owned: m1.owned }), T0 + 20);
    expect(r.memberId).toBe('m1');
    expect(partitionsOf(r.effects, 'assignment', 'm1')).toBe('0,1');
    expect(r.effects.filter((e) => e.memberId !== 'm1')).toEqual([]);
    expect(restored.generation).toBe(g.generation);
  });

  it("a restored group keeps each member's user data, the client assignor's input", () => {
    const g = newGroup();
    const a = g.join(join({ instanceId: 'pod-0', userData: Buffer.from('lags of pod-0') }), T0);
    g.join(join({ instanceId: 'pod-1' }), T0);
    const snapshot = decodeOffsetsRecord(groupKey('g'), groupValue(1, g.snapshot()));
    if (snapshot.type !== 'group' || !snapshot.value) throw new Error('not a group record');
    const restored = newGroup();
    restored.restore(snapshot.value.snapshot, T0 + 10);
    const described = restored.describeMembers();
    expect(described.find((m) => m.memberId === a.memberId)!.userData).toEqual(Buffer.from('lags of pod-0'));
    expect(described.find((m) => m.memberId !== a.memberId)!.userData).toEqual(Buffer.alloc(0));
  });

  it('a rejoining member that lost a partition frees it; the assignment it gets is authoritative', () => {
    const g = threeMembers();
    const r = g.join(join({ memberId: 'm1', memberEpoch: 1, owned: [p(0), p(5)] }), T0);
    // p1 was not reported: freed and (target unchanged) given straight back; p5 is m3's.
    const sent = of(r.effects, 'assignment', 'm1').map((e) =>
      names((e as { partitions: string[] }).partitions),
    );
    expect(sent[0]).toBe('0');
    expect(sent[sent.length - 1]).toBe('0,1');
    expect(g.ownerOf(p(5))).toBe('m3');
  });

  it('a malformed assignor is a clear error', async () => {
    const err = await expectCode(
      () => newGroup().join(join({ assignor: 'sticky-ish' }), T0),
      'INVALID_REQUEST',
    );
    expect(err.message).toMatch(/uniform, range, roundrobin/);
  });
});

describe('topic metadata', () => {
  it('partitions added to a subscribed topic are assigned without moving the others', () => {
    const counts: Record<string, number> = { t: 2 };
    let next = 0;
    const g = new ConsumerGroup('g', { newMemberId: () => `m${++next}`, partitionCount: (t) => counts[t] });
    g.join(join(), T0);
    const b = g.join(join(), T0);
    for (const e of b.effects) if (e.kind === 'revoke') g.revoked(e.memberId, e.partitions, T0);
    counts.t = 4;
    const effects = g.metadataChanged(T0);
    expect(effects.filter((e) => e.kind === 'revoke')).toEqual([]);
    expect(Object.values(owned(g)).join(',').split(',').sort()).toEqual(['0', '1', '2', '3']);
  });
});
