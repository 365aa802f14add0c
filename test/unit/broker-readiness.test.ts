import { ManualClock } from '../../services/common/clock';
import { silentLogger } from '../../services/common/logger';
import type { PartitionStatus } from '../../services/broker/partition/partition';
import { reportReadyWhenCaughtUp } from '../../services/broker/readiness';

function follower(isr: number[], leader = 0): PartitionStatus {
  return {
    topic: 't',
    partition: 0,
    role: 'follower',
    leader,
    leaderEpoch: 1,
    partitionEpoch: 1,
    replicas: [0, 1, 2],
    isr,
    highWatermark: 0,
    lastStableOffset: 0,
    logStartOffset: 0,
    logEndOffset: 0,
    followers: [],
  };
}

function setup(statuses: PartitionStatus[], readyCatchUpMaxMs = 10_000) {
  const clock = new ManualClock();
  const health: string[] = [];
  const server = {
    health: { setStatus: (service: string, status: string) => health.push(`${service}=${status}`) },
  };
  reportReadyWhenCaughtUp(
    server,
    { status: () => statuses },
    { brokerId: 2, readyCatchUpMaxMs },
    clock,
    silentLogger(),
  );
  return { clock, health };
}

test('a broker with nothing to catch up is ready at once', () => {
  expect(setup([follower([0, 1, 2])]).health).toEqual(['tide.v1.Broker=SERVING']);
});

test('a restarted follower is ready only once it is back in the ISR', () => {
  const statuses = [follower([0, 1])];
  const { clock, health } = setup(statuses);
  clock.advance(2_000);
  expect(health).toEqual([]);
  statuses[0] = follower([0, 1, 2]);
  clock.advance(500);
  expect(health).toEqual(['tide.v1.Broker=SERVING']);
});

test('an offline partition (no leader) does not hold readiness back', () => {
  expect(setup([follower([0], -1)]).health).toEqual(['tide.v1.Broker=SERVING']);
});

test('after readyCatchUpMaxMs the broker is ready even if still behind', () => {
  const { clock, health } = setup([follower([0, 1])], 3_000);
  clock.advance(2_999);
  expect(health).toEqual([]);
  clock.advance(501);
  expect(health).toEqual(['tide.v1.Broker=SERVING']);
});
