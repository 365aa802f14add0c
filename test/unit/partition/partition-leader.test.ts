/**
 * Partition as leader on a manual clock with fake followers (their fetches are recorded by hand):
 * HW over the ISR, ISR shrink after replica.lag.time.max.ms and expansion when caught up (through a
 * scripted AlterPartition), acks=all timing with min.insync.replicas, timeouts, leadership loss and
 * zombie fencing.
 */
import { buildBatch } from '../log/batches';
import { TempDirs } from '../log/helpers';
import { LAG_MS, partitionOn, state, track, until, type PartitionFixture } from './helpers';

const dirs = new TempDirs();
let fixture: PartitionFixture | undefined;

afterEach(async () => {
  fixture?.partition.close();
  await fixture?.log.close();
  fixture = undefined;
  await dirs.cleanup();
});

async function leader(overrides = {}, minIsr = 2, settings = {}): Promise<PartitionFixture> {
  fixture = await partitionOn(dirs, { settings });
  await fixture.partition.makeLeader(state(overrides), minIsr);
  return fixture;
}

const EPOCH = 9_000; // follower broker epoch

describe('high watermark', () => {
  it('is the smallest LEO of the ISR, waits for every member to fetch, never goes back', async () => {
    const { partition } = await leader();
    for (let i = 0; i < 3; i++) await partition.append(buildBatch(), { acks: 'leader' });
    expect([partition.leaderLogEndOffset, partition.highWatermark]).toEqual([3, 0]);
    partition.recordFollowerFetch(2, EPOCH, 3);
    expect(partition.highWatermark).toBe(0); // broker 3 has not fetched since this leadership began
    partition.recordFollowerFetch(3, EPOCH, 2);
    expect(partition.highWatermark).toBe(2);
    partition.recordFollowerFetch(3, EPOCH, 1); // e.g. a restarted follower that lost its tail
    expect(partition.highWatermark).toBe(2);
    partition.recordFollowerFetch(3, EPOCH, 3);
    expect(partition.highWatermark).toBe(3);
  });

  it('a single-replica ISR moves with the local appends (the dev setup)', async () => {
    const { partition } = await leader({ replicas: [1], isr: [1] }, 1);
    await partition.append(buildBatch({ records: 4 }));
    expect(partition.highWatermark).toBe(4);
  });

  it('a new leader keeps the HW it had as follower until the followers fetch', async () => {
    fixture = await partitionOn(dirs);
    const { partition, log } = fixture;
    partition.makeFollower(state({ leader: 2, leaderEpoch: 4 }));
    await log.appendAsFollower(
      Buffer.concat([0, 1, 2, 3].map((o) => buildBatch({ baseOffset: o, partitionLeaderEpoch: 4 }))),
    );
    partition.updateFollowerHighWatermark(2);
    expect(partition.highWatermark).toBe(2);
    await partition.makeLeader(state({ leaderEpoch: 5 }), 2);
    expect(log.epochEntries()).toEqual([
      { epoch: 4, startOffset: 0 },
      { epoch: 5, startOffset: 4 },
    ]);
    expect(partition.highWatermark).toBe(2);
    partition.recordFollowerFetch(2, EPOCH, 4);
    partition.recordFollowerFetch(3, EPOCH, 4);
    expect(partition.highWatermark).toBe(4);
  });
});

describe('acks=all', () => {
  it('is refused before the append when |ISR| < min.insync.replicas', async () => {
    const { partition, log } = await leader({ isr: [1] }, 2);
    await expect(partition.append(buildBatch(), { acks: 'all' })).rejects.toMatchObject({
      code: 'NOT_ENOUGH_REPLICAS',
    });
    expect(log.logEndOffset).toBe(0);
    await expect(partition.append(buildBatch(), { acks: 'leader' })).resolves.toMatchObject({
      baseOffset: 0,
    });
  });

  it('completes when the HW passes the last offset of the batch, not before', async () => {
    const { partition } = await leader();
    const produced = track(partition.append(buildBatch({ records: 3 }), { acks: 'all' }));
    await until(() => partition.leaderLogEndOffset === 3, 'the local append');
    partition.recordFollowerFetch(2, EPOCH, 3);
    partition.recordFollowerFetch(3, EPOCH, 2);
    await Promise.resolve();
    expect(produced.outcome).toBe('pending');
    partition.recordFollowerFetch(3, EPOCH, 3);
    await until(() => produced.outcome !== 'pending');
    expect(produced.outcome).toBe('resolved');
    expect(produced.value).toMatchObject({ baseOffset: 0, lastOffset: 2 });
  });

  it('waits for a lagging follower until it leaves the ISR, then completes (min.insync.replicas 2 of 3)', async () => {
    const { partition, clock, proposer } = await leader();
    const produced = track(partition.append(buildBatch({ records: 2 }), { acks: 'all', timeoutMs: 60_000 }));
    await until(() => partition.leaderLogEndOffset === 2);
    // Broker 2 keeps fetching at the end; broker 3 never fetches.
    const tick = (ms: number) => {
      clock.advance(ms);
      partition.recordFollowerFetch(2, EPOCH, 2);
      partition.maybeShrinkIsr();
    };
    tick(0);
    tick(LAG_MS - 1);
    tick(1);
    expect(proposer.calls).toHaveLength(0); // exactly the lag time is still in sync
    tick(1);
    expect(proposer.calls.map((c) => c.proposal)).toEqual([
      { brokerId: 1, topic: 'orders', partition: 0, leaderEpoch: 5, partitionEpoch: 3, newIsr: [1, 2] },
    ]);
    expect(partition.status().pendingIsr).toEqual([1, 2]);
    expect(partition.highWatermark).toBe(0); // broker 3 still counts while the shrink is pending
    expect(produced.outcome).toBe('pending');
    proposer.accept(0, [1, 2, 3]);
    await until(() => produced.outcome !== 'pending');
    expect(produced.outcome).toBe('resolved');
    expect([partition.isr, partition.partitionEpoch, partition.highWatermark]).toEqual([[1, 2], 4, 2]);
  });

  it('fails with NOT_ENOUGH_REPLICAS after the append when the ISR shrank below min.insync.replicas', async () => {
    const { partition, clock, proposer, log } = await leader({}, 3);
    const produced = track(partition.append(buildBatch(), { acks: 'all', timeoutMs: 60_000 }));
    await until(() => partition.leaderLogEndOffset === 1);
    clock.advance(LAG_MS + 1);
    partition.recordFollowerFetch(2, EPOCH, 1);
    partition.maybeShrinkIsr();
    expect(proposer.calls[0].proposal.newIsr).toEqual([1, 2]);
    proposer.accept(0, [1, 2, 3]);
    await until(() => produced.outcome !== 'pending');
    expect(produced.outcome).toBe('NOT_ENOUGH_REPLICAS');
    expect(log.logEndOffset).toBe(1); // the record is in the log (Kafka's NOT_ENOUGH_REPLICAS_AFTER_APPEND)
    await expect(partition.append(buildBatch(), { acks: 'all' })).rejects.toMatchObject({
      code: 'NOT_ENOUGH_REPLICAS',
    });
    expect(log.logEndOffset).toBe(1);
  });

  it('times out with REQUEST_TIMED_OUT when the ISR does not catch up in time', async () => {
    const { partition, clock } = await leader();
    const produced = track(partition.append(buildBatch(), { acks: 'all', timeoutMs: 500 }));
    await until(() => partition.leaderLogEndOffset === 1);
    clock.advance(499);
    await Promise.resolve();
    expect(produced.outcome).toBe('pending');
    clock.advance(1);
    await until(() => produced.outcome !== 'pending');
    expect(produced.outcome).toBe('REQUEST_TIMED_OUT');
  });

  it('fails pending requests with NOT_LEADER when leadership moves; a follower refuses produce naming the leader', async () => {
    const { partition } = await leader();
    const produced = track(partition.append(buildBatch(), { acks: 'all' }));
    await until(() => partition.leaderLogEndOffset === 1);
    partition.makeFollower(state({ leader: 2, leaderEpoch: 6 }));
    await until(() => produced.outcome !== 'pending');
    expect(produced.outcome).toBe('NOT_LEADER');
    await expect(partition.append(buildBatch())).rejects.toThrow(/led by broker 2/);
    await expect(partition.read(0, 1000)).rejects.toMatchObject({ code: 'NOT_LEADER' });
  });

  it('a zombie leader (registration lapsed) refuses produce requests and appends nothing', async () => {
    const { partition, lease, log } = await leader();
    lease.ok = false;
    for (const acks of ['none', 'leader', 'all'] as const) {
      await expect(partition.append(buildBatch(), { acks })).rejects.toMatchObject({ code: 'NOT_LEADER' });
    }
    expect(log.logEndOffset).toBe(0);
    lease.ok = true;
    await expect(partition.append(buildBatch(), { acks: 'leader' })).resolves.toMatchObject({
      baseOffset: 0,
    });
  });
});

describe('ISR changes', () => {
  it('a follower outside the ISR joins once it reaches the HW and the leader epoch start', async () => {
    const { partition, proposer } = await leader({ isr: [1, 2] });
    for (let i = 0; i < 4; i++) await partition.append(buildBatch(), { acks: 'leader' });
    partition.recordFollowerFetch(2, EPOCH, 4);
    expect(partition.highWatermark).toBe(4);
    partition.recordFollowerFetch(3, EPOCH, 2);
    expect(proposer.calls).toHaveLength(0);
    partition.recordFollowerFetch(3, EPOCH, 4);
    expect(proposer.calls.map((c) => c.proposal.newIsr)).toEqual([[1, 2, 3]]);
    // While the expansion is pending, broker 3 already counts for the HW.
    await partition.append(buildBatch(), { acks: 'leader' });
    partition.recordFollowerFetch(2, EPOCH, 5);
    expect(partition.highWatermark).toBe(4);
    proposer.accept(0, [1, 2, 3]);
    await until(() => partition.isr.length === 3);
    partition.recordFollowerFetch(3, EPOCH, 5);
    expect(partition.highWatermark).toBe(5);
  });

  it('a failed AlterPartition clears the proposal and is retried after isrProposalRetryMs', async () => {
    const { partition, clock, proposer } = await leader({}, 2, { isrProposalRetryMs: 1_000 });
    partition.recordFollowerFetch(2, EPOCH, 0);
    clock.advance(LAG_MS + 1);
    partition.maybeShrinkIsr();
    proposer.fence(0);
    await until(() => partition.status().pendingIsr === undefined);
    partition.maybeShrinkIsr();
    expect(proposer.calls).toHaveLength(1);
    clock.advance(1_000);
    partition.maybeShrinkIsr();
    expect(proposer.calls).toHaveLength(2);
  });

  it('adopts newer partition states from metadata and ignores older ones', async () => {
    const { partition } = await leader();
    partition.adoptState(state({ partitionEpoch: 7, isr: [1, 3] }), 2);
    expect([partition.isr, partition.partitionEpoch]).toEqual([[1, 3], 7]);
    partition.adoptState(state({ partitionEpoch: 6, isr: [1, 2, 3] }), 2);
    expect([partition.isr, partition.partitionEpoch]).toEqual([[1, 3], 7]);
    partition.adoptState(state({ leaderEpoch: 4, partitionEpoch: 9, isr: [1] }), 2);
    expect(partition.isr).toEqual([1, 3]);
  });
});

describe('follower', () => {
  it('appends what the leader sends and follows its HW up to its own LEO; stale epochs are ignored', async () => {
    fixture = await partitionOn(dirs, { brokerId: 2 });
    const { partition, log } = fixture;
    partition.makeFollower(state({ leader: 1, leaderEpoch: 5 }));
    const batches = Buffer.concat(
      [0, 1, 2].map((o) => buildBatch({ baseOffset: o, partitionLeaderEpoch: 5 })),
    );
    expect(await partition.appendFromLeader(5, batches, 10)).toBe(true);
    expect([log.logEndOffset, partition.highWatermark]).toEqual([3, 3]);
    expect(
      await partition.appendFromLeader(4, buildBatch({ baseOffset: 3, partitionLeaderEpoch: 5 }), 10),
    ).toBe(false);
    expect(log.logEndOffset).toBe(3);
    await expect(partition.append(buildBatch())).rejects.toMatchObject({ code: 'NOT_LEADER' });
  });
});
