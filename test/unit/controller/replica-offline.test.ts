/** replicaOfflinePartition: a broker whose log of the partition failed leaves leadership and the ISR. */
import type { PartitionState } from '../../../services/common/metadata/keys';
import { replicaOfflinePartition } from '../../../services/controller/partition-leadership';

const state: PartitionState = {
  leader: 1,
  leaderEpoch: 4,
  partitionEpoch: 7,
  replicas: [1, 2, 3],
  isr: [1, 2, 3],
};
const live = { live: new Set([1, 2, 3]) };

test('the leader: the next live ISR member leads, the broker leaves the ISR, epochs bump', () => {
  const d = replicaOfflinePartition(state, 1, live);
  expect(d.change).toBe('replica-offline');
  expect(d.state).toEqual({ leader: 2, leaderEpoch: 5, partitionEpoch: 8, replicas: [1, 2, 3], isr: [2, 3] });
});

test('a follower leaves the ISR; the leader stays', () => {
  expect(replicaOfflinePartition(state, 3, live).state).toMatchObject({
    leader: 1,
    leaderEpoch: 4,
    isr: [1, 2],
  });
});

test('no other live ISR member: unchanged (no clean leader exists)', () => {
  expect(replicaOfflinePartition({ ...state, isr: [1] }, 1, live).change).toBe('unchanged');
  expect(replicaOfflinePartition(state, 1, { live: new Set([1]) }).change).toBe('unchanged');
});

test('a broker outside the ISR: unchanged', () => {
  expect(replicaOfflinePartition({ ...state, isr: [1, 2] }, 3, live).change).toBe('unchanged');
});
