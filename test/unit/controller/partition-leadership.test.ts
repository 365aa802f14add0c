import type { PartitionState } from '../../../services/common/metadata/keys';
import {
  controlledShutdownPartition,
  preferredLeaderElection,
  reconcilePartition,
  validateAlterPartition,
  type BrokerLiveness,
  type LeadershipChange,
} from '../../../services/controller/partition-leadership';

/** A state from a compact spelling: leader, epochs, replicas, isr. */
function st(
  leader: number,
  leaderEpoch: number,
  partitionEpoch: number,
  replicas: number[],
  isr: number[],
): PartitionState {
  return { leader, leaderEpoch, partitionEpoch, replicas, isr };
}

function live(ids: number[], shuttingDown: number[] = []): BrokerLiveness {
  return { live: new Set(ids), shuttingDown: new Set(shuttingDown) };
}

describe('reconcilePartition', () => {
  const cases: {
    name: string;
    state: PartitionState;
    live: number[];
    shuttingDown?: number[];
    unclean?: boolean;
    change: LeadershipChange;
    next?: PartitionState;
  }[] = [
    {
      name: 'every replica live: nothing to do',
      state: st(1, 4, 9, [1, 2, 3], [1, 2, 3]),
      live: [1, 2, 3],
      change: 'unchanged',
    },
    {
      name: 'a follower dies: it leaves the ISR, partitionEpoch+1, leaderEpoch kept',
      state: st(1, 4, 9, [1, 2, 3], [1, 2, 3]),
      live: [1, 3],
      change: 'isr-shrink',
      next: st(1, 4, 10, [1, 2, 3], [1, 3]),
    },
    {
      name: 'a dead out-of-sync follower: nothing to do',
      state: st(1, 4, 9, [1, 2, 3], [1, 3]),
      live: [1, 3],
      change: 'unchanged',
    },
    {
      name: 'the leader dies: first live ISR member in replica order leads, both epochs+1',
      state: st(1, 4, 9, [1, 2, 3], [3, 1, 2]),
      live: [2, 3],
      change: 'leader-elected',
      next: st(2, 5, 10, [1, 2, 3], [3, 2]),
    },
    {
      name: 'the leader dies: an out-of-sync live replica is not chosen',
      state: st(1, 4, 9, [1, 2, 3], [1, 3]),
      live: [2, 3],
      change: 'leader-elected',
      next: st(3, 5, 10, [1, 2, 3], [3]),
    },
    {
      name: 'leader and a follower die together: the survivor leads alone',
      state: st(1, 0, 0, [1, 2, 3], [1, 2, 3]),
      live: [3],
      change: 'leader-elected',
      next: st(3, 1, 1, [1, 2, 3], [3]),
    },
    {
      name: 'a shutting-down ISR member is passed over when another can lead',
      state: st(1, 4, 9, [1, 2, 3], [1, 2, 3]),
      live: [2, 3],
      shuttingDown: [2],
      change: 'leader-elected',
      next: st(3, 5, 10, [1, 2, 3], [2, 3]),
    },
    {
      name: 'a shutting-down ISR member still leads when it is the only one',
      state: st(1, 4, 9, [1, 2, 3], [1, 2]),
      live: [2, 3],
      shuttingDown: [2],
      change: 'leader-elected',
      next: st(2, 5, 10, [1, 2, 3], [2]),
    },
    {
      name: 'the last ISR member (the leader) dies: offline, ISR keeps it (KIP-704)',
      state: st(3, 5, 10, [1, 2, 3], [3]),
      live: [1, 2],
      change: 'offline',
      next: st(-1, 6, 11, [1, 2, 3], [3]),
    },
    {
      name: 'every ISR member dies at once: offline, ISR keeps the last leader',
      state: st(2, 5, 10, [1, 2, 3], [1, 2]),
      live: [3],
      change: 'offline',
      next: st(-1, 6, 11, [1, 2, 3], [2]),
    },
    {
      name: 'offline and still no live ISR member: nothing to do',
      state: st(-1, 6, 11, [1, 2, 3], [3]),
      live: [1, 2],
      change: 'unchanged',
    },
    {
      name: 'offline, the ISR member returns: it leads, both epochs+1',
      state: st(-1, 6, 11, [1, 2, 3], [3]),
      live: [1, 2, 3],
      change: 'leader-elected',
      next: st(3, 7, 12, [1, 2, 3], [3]),
    },
    {
      name: 'offline with unclean election: first live replica leads with ISR = [it]',
      state: st(-1, 6, 11, [1, 2, 3], [3]),
      live: [2, 1],
      unclean: true,
      change: 'unclean-leader-elected',
      next: st(1, 7, 12, [1, 2, 3], [1]),
    },
    {
      name: 'the last ISR member dies with unclean election: a live OSR replica leads at once',
      state: st(3, 5, 10, [1, 2, 3], [3]),
      live: [2],
      unclean: true,
      change: 'unclean-leader-elected',
      next: st(2, 6, 11, [1, 2, 3], [2]),
    },
    {
      name: 'unclean election allowed but a clean one possible: the ISR member leads',
      state: st(1, 5, 10, [1, 2, 3], [1, 3]),
      live: [2, 3],
      unclean: true,
      change: 'leader-elected',
      next: st(3, 6, 11, [1, 2, 3], [3]),
    },
    {
      name: 'unclean election allowed but no replica live: offline',
      state: st(1, 5, 10, [1, 2], [1, 2]),
      live: [3],
      unclean: true,
      change: 'offline',
      next: st(-1, 6, 11, [1, 2], [1]),
    },
    {
      name: 'single replica dies: offline, ISR keeps it',
      state: st(1, 0, 0, [1], [1]),
      live: [],
      change: 'offline',
      next: st(-1, 1, 1, [1], [1]),
    },
  ];

  it.each(cases)('$name', ({ state, live: ids, shuttingDown, unclean, change, next }) => {
    const before = structuredClone(state);
    const decision = reconcilePartition(state, live(ids, shuttingDown), {
      uncleanLeaderElectionEnable: !!unclean,
    });
    expect(decision.change).toBe(change);
    expect(decision.state).toEqual(next ?? state);
    if (change === 'unchanged') expect(decision.state).toBe(state);
    expect(state).toEqual(before); // never mutates its input
    // Invariants of every result.
    const out = decision.state;
    expect(out.isr.length).toBeGreaterThan(0);
    expect(out.isr.every((id) => out.replicas.includes(id))).toBe(true);
    if (out.leader !== -1) expect(out.isr).toContain(out.leader);
  });
});

describe('preferredLeaderElection', () => {
  const cases: {
    name: string;
    state: PartitionState;
    liveness: BrokerLiveness;
    change: LeadershipChange;
    next?: PartitionState;
  }[] = [
    {
      name: 'preferred replica live and in sync: it leads again, both epochs+1',
      state: st(2, 3, 7, [1, 2, 3], [2, 3, 1]),
      liveness: live([1, 2, 3]),
      change: 'preferred-leader',
      next: st(1, 4, 8, [1, 2, 3], [2, 3, 1]),
    },
    {
      name: 'already the leader',
      state: st(1, 3, 7, [1, 2], [1, 2]),
      liveness: live([1, 2]),
      change: 'unchanged',
    },
    {
      name: 'preferred not in the ISR yet',
      state: st(2, 3, 7, [1, 2], [2]),
      liveness: live([1, 2]),
      change: 'unchanged',
    },
    {
      name: 'preferred not live',
      state: st(2, 3, 7, [1, 2], [2, 1]),
      liveness: live([2]),
      change: 'unchanged',
    },
    {
      name: 'preferred shutting down',
      state: st(2, 3, 7, [1, 2], [2, 1]),
      liveness: live([1, 2], [1]),
      change: 'unchanged',
    },
  ];
  it.each(cases)('$name', ({ state, liveness, change, next }) => {
    const decision = preferredLeaderElection(state, liveness);
    expect(decision.change).toBe(change);
    expect(decision.state).toEqual(next ?? state);
  });
});

describe('controlledShutdownPartition', () => {
  const cases: {
    name: string;
    state: PartitionState;
    broker: number;
    liveness: BrokerLiveness;
    next?: PartitionState;
    stillLeads: boolean;
  }[] = [
    {
      name: 'leader: leadership moves to the next live ISR member in replica order, it leaves the ISR',
      state: st(1, 3, 7, [1, 2, 3], [1, 3, 2]),
      broker: 1,
      liveness: live([1, 2, 3], [1]),
      next: st(2, 4, 8, [1, 2, 3], [3, 2]),
      stillLeads: false,
    },
    {
      name: 'leader whose other ISR members are dead: keeps leading, reported',
      state: st(1, 3, 7, [1, 2], [1, 2]),
      broker: 1,
      liveness: live([1], [1]),
      stillLeads: true,
    },
    {
      name: 'sole ISR member: keeps leading, reported',
      state: st(1, 3, 7, [1, 2], [1]),
      broker: 1,
      liveness: live([1, 2], [1]),
      stillLeads: true,
    },
    {
      name: 'leader: another shutting-down broker is not chosen',
      state: st(1, 3, 7, [1, 2, 3], [1, 2, 3]),
      broker: 1,
      liveness: live([1, 2, 3], [1, 2]),
      next: st(3, 4, 8, [1, 2, 3], [2, 3]),
      stillLeads: false,
    },
    {
      name: 'follower in the ISR: leaves it, partitionEpoch+1',
      state: st(2, 3, 7, [1, 2, 3], [1, 2, 3]),
      broker: 1,
      liveness: live([1, 2, 3], [1]),
      next: st(2, 3, 8, [1, 2, 3], [2, 3]),
      stillLeads: false,
    },
    {
      name: 'follower outside the ISR: nothing to do',
      state: st(2, 3, 7, [1, 2, 3], [2, 3]),
      broker: 1,
      liveness: live([1, 2, 3], [1]),
      stillLeads: false,
    },
    {
      name: 'not a replica: nothing to do',
      state: st(2, 3, 7, [2, 3], [2, 3]),
      broker: 1,
      liveness: live([1, 2, 3], [1]),
      stillLeads: false,
    },
  ];
  it.each(cases)('$name', ({ state, broker, liveness, next, stillLeads }) => {
    const decision = controlledShutdownPartition(state, broker, liveness);
    expect(decision.state).toEqual(next ?? state);
    expect(decision.change).toBe(next ? 'controlled-shutdown' : 'unchanged');
    expect(decision.stillLeads).toBe(stillLeads);
  });
});

describe('validateAlterPartition', () => {
  const state = st(1, 5, 12, [1, 2, 3], [1, 2]);
  const where = { topic: 'orders', partition: 0 };
  const ok = { brokerId: 1, leaderEpoch: 5, partitionEpoch: 12 };

  const accepted: {
    name: string;
    newIsr: number[];
    liveness?: BrokerLiveness;
    isr: number[];
    partitionEpoch: number;
  }[] = [
    { name: 'shrink to the leader alone', newIsr: [1], isr: [1], partitionEpoch: 13 },
    { name: 'expand with a live replica', newIsr: [1, 2, 3], isr: [1, 2, 3], partitionEpoch: 13 },
    { name: 'same ISR: no change, no epoch bump', newIsr: [1, 2], isr: [1, 2], partitionEpoch: 12 },
    { name: 'same ISR in another order: no change', newIsr: [2, 1], isr: [1, 2], partitionEpoch: 12 },
    {
      name: 'keeping a member that is dead is allowed (only additions must be live)',
      newIsr: [1, 2],
      liveness: live([1]),
      isr: [1, 2],
      partitionEpoch: 12,
    },
  ];
  it.each(accepted)('accepts: $name', ({ newIsr, liveness, isr, partitionEpoch }) => {
    const next = validateAlterPartition(state, { ...ok, newIsr }, liveness ?? live([1, 2, 3]), where);
    expect(next).toEqual({ ...state, isr, partitionEpoch });
  });

  const rejected: {
    name: string;
    proposal: Partial<typeof ok> & { newIsr: number[] };
    liveness?: BrokerLiveness;
    code: string;
    message: RegExp;
  }[] = [
    {
      name: 'stale leader epoch',
      proposal: { leaderEpoch: 4, newIsr: [1] },
      code: 'FENCED_EPOCH',
      message: /leader epoch 4/,
    },
    {
      name: 'future leader epoch',
      proposal: { leaderEpoch: 6, newIsr: [1] },
      code: 'FENCED_EPOCH',
      message: /at 5 and 12/,
    },
    {
      name: 'stale partition epoch',
      proposal: { partitionEpoch: 11, newIsr: [1] },
      code: 'FENCED_EPOCH',
      message: /partition epoch 11/,
    },
    {
      name: 'not the leader',
      proposal: { brokerId: 2, newIsr: [1, 2] },
      code: 'NOT_LEADER',
      message: /whose leader is 1/,
    },
    { name: 'empty ISR', proposal: { newIsr: [] }, code: 'INVALID_REQUEST', message: /is empty/ },
    { name: 'duplicates', proposal: { newIsr: [1, 1] }, code: 'INVALID_REQUEST', message: /twice/ },
    {
      name: 'not a subset of the replicas',
      proposal: { newIsr: [1, 4] },
      code: 'INVALID_REQUEST',
      message: /not among the replicas/,
    },
    {
      name: 'leader left out',
      proposal: { newIsr: [2] },
      code: 'INVALID_REQUEST',
      message: /leaves out the leader 1/,
    },
    {
      name: 'adds a dead broker',
      proposal: { newIsr: [1, 2, 3] },
      liveness: live([1, 2]),
      code: 'INVALID_REQUEST',
      message: /adds 3, not live/,
    },
    {
      name: 'adds a shutting-down broker',
      proposal: { newIsr: [1, 2, 3] },
      liveness: live([1, 2, 3], [3]),
      code: 'INVALID_REQUEST',
      message: /adds 3/,
    },
  ];
  it.each(rejected)('rejects: $name', ({ proposal, liveness, code, message }) => {
    let thrown: unknown;
    try {
      validateAlterPartition(state, { ...ok, ...proposal }, liveness ?? live([1, 2, 3]), where);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toMatchObject({ code, context: { topic: 'orders', partition: 0 } });
    expect((thrown as Error).message).toMatch(message);
  });
});
