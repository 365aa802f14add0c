/**
 * A follower whose replication streams broke (Partition.followerStreamLost) leaves the ISR at once,
 * without waiting for replica.lag.time.max.ms, but never below min.insync.replicas; a fetch clears
 * the mark. The leader's ReplicationService decides when a stream loss counts (stream-loss timer).
 */
import { buildBatch } from '../log/batches';
import { TempDirs } from '../log/helpers';
import { partitionOn, state, track, until, type PartitionFixture } from './helpers';

const dirs = new TempDirs();
let fixture: PartitionFixture | undefined;
const EPOCH = 9_000;

afterEach(async () => {
  fixture?.partition.close();
  await fixture?.log.close();
  fixture = undefined;
  await dirs.cleanup();
});

async function leader(minIsr: number): Promise<PartitionFixture> {
  fixture = await partitionOn(dirs);
  await fixture.partition.makeLeader(state(), minIsr);
  return fixture;
}

test('a lost follower is proposed out of the ISR at once and acks=all completes without it', async () => {
  const { partition, proposer } = await leader(2);
  partition.recordFollowerFetch(2, EPOCH, 0);
  partition.recordFollowerFetch(3, EPOCH, 0);
  const produced = track(partition.append(buildBatch(), { acks: 'all', timeoutMs: 60_000 }));
  await until(() => partition.leaderLogEndOffset === 1);
  partition.recordFollowerFetch(2, EPOCH, 1);
  expect(produced.outcome).toBe('pending'); // broker 3 holds the HW
  partition.followerStreamLost(3); // no clock advance: well within the lag time
  expect(proposer.calls.map((c) => c.proposal.newIsr)).toEqual([[1, 2]]);
  proposer.accept(0, [1, 2, 3]);
  await until(() => produced.outcome !== 'pending');
  expect(produced.outcome).toBe('resolved');
  expect(partition.isr).toEqual([1, 2]);
});

test('never below min.insync.replicas: with min 2, losing both followers removes only one', async () => {
  const { partition, proposer } = await leader(2);
  partition.followerStreamLost(2);
  partition.followerStreamLost(3); // proposal pending: nothing more
  expect(proposer.calls.map((c) => c.proposal.newIsr)).toEqual([[1, 3]]);
  proposer.accept(0, [1, 2, 3]);
  await until(() => partition.isr.length === 2);
  // Broker 3 stays: removing it would leave 1 < min.insync.replicas.
  partition.maybeShrinkIsr();
  expect(proposer.calls.length).toBe(1);
});

test('with min 3 nothing is removed; a fetch clears the mark', async () => {
  const first = await leader(3);
  first.partition.followerStreamLost(3);
  expect(first.proposer.calls.length).toBe(0);
  first.partition.close();
  await first.log.close();
  fixture = await partitionOn(dirs);
  await fixture.partition.makeLeader(state(), 1);
  fixture.partition.followerStreamLost(3);
  expect(fixture.proposer.calls.map((c) => c.proposal.newIsr)).toEqual([[1, 2]]);
  fixture.proposer.fence(0);
  await until(
    () => fixture!.proposer.calls.length === 1 && fixture!.partition.status().pendingIsr === undefined,
  );
  fixture.partition.recordFollowerFetch(3, EPOCH, 0); // it came back before the retry
  fixture.clock.advance(1_001); // past the retry pause, within the lag time
  await new Promise((r) => setTimeout(r, 20));
  expect(fixture.proposer.calls.length).toBe(1);
});
