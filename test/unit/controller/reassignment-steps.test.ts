import { cancelMove, nextMoveStep, startMove } from '../../../services/controller/reassignment-steps';
import { chooseReplacement } from '../../../services/controller/replica-choice';
import { imbalance } from '../../../services/controller/balancer';
import type { PartitionState } from '../../../services/common/metadata/keys';
import type { ReassignmentRecord } from '../../../services/controller/reassignment-store';

const live = { live: new Set([0, 1, 2, 3]) };
const record: ReassignmentRecord = {
  target: [1, 2, 3],
  original: [0, 1, 2],
  startedAtMs: 0,
  origin: 'admin',
};
const base: PartitionState = {
  leader: 0,
  leaderEpoch: 4,
  partitionEpoch: 9,
  replicas: [0, 1, 2],
  isr: [0, 1, 2],
};

test('a move adds, waits, hands over leadership, then drops the old replicas; the ISR never shrinks below the target', () => {
  const started = startMove(base, record.target);
  expect(started).toMatchObject({ leader: 0, leaderEpoch: 4, partitionEpoch: 10, replicas: [0, 1, 2, 3] });
  expect(nextMoveStep(started, record, live)).toMatchObject({ kind: 'wait' });
  const synced = { ...started, isr: [0, 1, 2, 3], partitionEpoch: 11 };
  const lead = nextMoveStep(synced, record, live);
  expect(lead).toMatchObject({ kind: 'lead', state: { leader: 1, leaderEpoch: 5, partitionEpoch: 12 } });
  if (lead.kind !== 'lead') throw new Error('expected lead');
  const finish = nextMoveStep(lead.state, record, live);
  expect(finish).toMatchObject({ kind: 'finish', state: { leader: 1, replicas: [1, 2, 3], isr: [1, 2, 3] } });
});

test('a leader that cannot hand over waits; a dead target broker holds the move', () => {
  const synced = { ...startMove(base, record.target), isr: [0, 1, 2, 3] };
  expect(nextMoveStep(synced, record, { live: new Set([0]) })).toMatchObject({ kind: 'wait' });
  const lagging = { ...startMove(base, record.target), isr: [0, 1] };
  expect(nextMoveStep(lagging, record, live)).toMatchObject({ kind: 'wait' });
});

test('cancel returns to the original replicas and refuses when none is in sync', () => {
  const moved = { ...startMove(base, record.target), leader: 3, leaderEpoch: 5, isr: [1, 3] };
  expect(cancelMove(moved, record, live, { topic: 't', partition: 0 })).toMatchObject({
    leader: 1,
    leaderEpoch: 6,
    replicas: [0, 1, 2],
    isr: [1],
  });
  expect(() => cancelMove({ ...moved, isr: [3] }, record, live, { topic: 't', partition: 0 })).toThrow(
    expect.objectContaining({ code: 'INVALID_REQUEST' }),
  );
});

test('a replacement keeps the rack, then spreads racks, then takes the least loaded', () => {
  const brokers = [
    { id: 0, rack: 'a' },
    { id: 1, rack: 'b' },
    { id: 2, rack: 'a' },
    { id: 3, rack: 'c' },
  ];
  expect(chooseReplacement([0, 1], 0, brokers, new Map(), new Set())).toBe(2);
  expect(chooseReplacement([0, 1], 0, brokers, new Map(), new Set([2]))).toBe(3);
  const plain = [{ id: 0 }, { id: 1 }, { id: 2 }, { id: 3 }];
  expect(
    chooseReplacement(
      [0, 1],
      0,
      plain,
      new Map([
        [2, 5],
        [3, 1],
      ]),
      new Set(),
    ),
  ).toBe(3);
});

test('imbalance: over the threshold and by more than one', () => {
  expect(
    imbalance(
      new Map([
        [0, 8],
        [1, 8],
        [2, 8],
        [3, 0],
      ]),
      [0, 1, 2, 3],
      10,
    ).over,
  ).toBe(true);
  expect(
    imbalance(
      new Map([
        [0, 6],
        [1, 6],
        [2, 6],
        [3, 5],
      ]),
      [0, 1, 2, 3],
      10,
    ).over,
  ).toBe(false);
});
