/**
 * A live leader that most of its other live ISR members report unreachable is moved like a dead
 * one (partition-leadership.ts leaderCutOff); a minority report moves nothing; while cut off its
 * own ISR proposals are refused so it cannot shrink the others out; reports expire.
 */
import { ManualClock } from '../../../services/common/clock';
import type { PartitionState } from '../../../services/common/metadata/keys';
import {
  leaderCutOff,
  preferredLeaderElection,
  reconcilePartition,
  validateAlterPartition,
  type BrokerLiveness,
} from '../../../services/controller/partition-leadership';
import { UnreachableReports } from '../../../services/controller/unreachable-reports';

const state: PartitionState = {
  leader: 1,
  leaderEpoch: 4,
  partitionEpoch: 7,
  replicas: [1, 2, 3],
  isr: [1, 2, 3],
};
const options = { uncleanLeaderElectionEnable: false };

function liveness(reports: [number, number[]][]): BrokerLiveness {
  return {
    live: new Set([1, 2, 3]),
    unreachable: new Map(reports.map(([leader, by]) => [leader, new Set(by)])),
  };
}

test.each([
  ['no reports', [], false],
  ['one of two followers (a minority is not enough)', [[1, [2]]], false],
  ['both followers', [[1, [2, 3]]], true],
  ['reports about another broker', [[2, [1, 3]]], false],
] as [string, [number, number[]][], boolean][])('leaderCutOff: %s', (_name, reports, expected) => {
  expect(leaderCutOff(state, liveness(reports))).toBe(expected);
});

test('a cut-off leader is replaced by an ISR member and leaves the ISR; epochs bump', () => {
  const decision = reconcilePartition(state, liveness([[1, [2, 3]]]), options);
  expect(decision.change).toBe('leader-unreachable');
  expect(decision.state).toEqual({
    leader: 2,
    leaderEpoch: 5,
    partitionEpoch: 8,
    replicas: [1, 2, 3],
    isr: [2, 3],
  });
});

test('with one follower left in the ISR its report alone decides', () => {
  const two = { ...state, isr: [1, 3] };
  const decision = reconcilePartition(two, liveness([[1, [3]]]), options);
  expect(decision.state).toMatchObject({ leader: 3, isr: [3] });
});

test('a minority report changes nothing', () => {
  expect(reconcilePartition(state, liveness([[1, [3]]]), options).change).toBe('unchanged');
});

test('the cut-off leader cannot shrink the ISR meanwhile', () => {
  expect(() =>
    validateAlterPartition(
      state,
      { brokerId: 1, leaderEpoch: 4, partitionEpoch: 7, newIsr: [1] },
      liveness([[1, [2, 3]]]),
      {
        topic: 't',
        partition: 0,
      },
    ),
  ).toThrow(expect.objectContaining({ code: 'NOT_LEADER' }));
});

test('a reported broker is not made preferred leader', () => {
  const led = { ...state, leader: 2 };
  expect(preferredLeaderElection(led, liveness([[1, [3]]])).change).toBe('unchanged');
  expect(preferredLeaderElection(led, liveness([])).change).toBe('preferred-leader');
});

test('reports count for their TTL only', () => {
  const clock = new ManualClock();
  const reports = new UnreachableReports(clock, 3_000);
  expect(reports.report(2, 1)).toBe(true);
  expect(reports.report(2, 1)).toBe(false);
  clock.advance(2_999);
  expect([...(reports.current().get(1) ?? [])]).toEqual([2]);
  clock.advance(1);
  expect(reports.current().size).toBe(0);
});
