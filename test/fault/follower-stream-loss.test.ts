/**
 * A dead follower must not stall acks=all until its lease or the lag time runs out: when its
 * replication stream breaks and does not come back within replicaStreamLossIsrShrinkMs (1.5 s),
 * the leader takes it out of the ISR through the controller. Lease and lag time are 30 s here, so
 * only the stream-loss rule can shrink the ISR within the waits below. Brokers sit behind fault
 * proxies (the follower's death reaches the leader as a closed connection through its proxy).
 */
import { Tide } from '../../client';
import { TestCluster } from '../harness/cluster';
import { waitFor } from '../harness/processes';
import { Workload } from '../harness/workload';
import { bounded, createReplicatedTopic, expectCleanHistory, partitionState } from './helpers';

jest.setTimeout(150_000);

const PARTITIONS = 2;
let cluster: TestCluster | undefined;
let tide: Tide | undefined;
let workload: Workload | undefined;

afterEach(async () => {
  await bounded(workload?.stop());
  await bounded(tide?.close());
  await cluster?.stop();
  cluster = undefined;
});

test('SIGKILL of a follower: the ISR shrinks within seconds (not the 30 s lease), acks=all goes on, nothing lost', async () => {
  cluster = await TestCluster.start({
    brokers: 3,
    leaseTtlMs: 30_000,
    replicaLagTimeMaxMs: 30_000,
    proxied: true,
    brokerEnv: { TIDE_REPLICA_STREAM_LOSS_ISR_SHRINK_MS: '1500' },
  });
  tide = new Tide({ bootstrap: cluster.bootstrap(), metadataMaxAgeMs: 500 });
  await createReplicatedTopic(cluster, tide, 'follower-loss', PARTITIONS);
  workload = new Workload(tide, 'follower-loss', PARTITIONS);
  workload.start();
  await waitFor(() => workload!.count > 100, { what: 'first acks', timeoutMs: 30_000 });
  const leaders = [
    (await partitionState(cluster, 'follower-loss', 0)).leader,
    (await partitionState(cluster, 'follower-loss', 1)).leader,
  ];
  const follower = [0, 1, 2].find((id) => !leaders.includes(id))!;
  await cluster.broker(follower).stop('SIGKILL');
  // Without the stream-loss rule the ISR keeps the dead broker for the 30 s lease.
  await waitFor(
    async () =>
      !(await partitionState(cluster!, 'follower-loss', 0)).isr.includes(follower) &&
      !(await partitionState(cluster!, 'follower-loss', 1)).isr.includes(follower),
    { what: 'ISR shrink after the stream loss', timeoutMs: 12_000, intervalMs: 200 },
  );
  const countAtShrink = workload.count;
  await waitFor(() => workload!.count > countAtShrink + 100, {
    what: 'acks=all with two in-sync replicas',
    timeoutMs: 12_000,
  });
  await workload.stop();
  await expectCleanHistory(tide, 'follower-loss', PARTITIONS, [workload]);
});
