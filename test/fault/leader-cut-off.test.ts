/**
 * A leader cut off from its followers and its clients but not from etcd keeps its lease, so the
 * lease path never moves its partitions. Its followers get no answers, report it
 * (ReportLeaderUnreachable), and the controller moves leadership to another in-sync replica within
 * two lease TTLs; nothing acknowledged is lost. The cut is a blackhole on the proxy in front of the
 * leader (every connection into it holds its bytes; its own connections to etcd, the controller
 * and the other brokers are untouched).
 */
import { Tide } from '../../client';
import { TestCluster } from '../harness/cluster';
import { waitFor } from '../harness/processes';
import { Workload } from '../harness/workload';
import { bounded, createReplicatedTopic, expectCleanHistory, partitionState } from './helpers';

jest.setTimeout(150_000);

const PARTITIONS = 2;
const LEASE_TTL_MS = 3_000;
let cluster: TestCluster | undefined;
let tide: Tide | undefined;
let workload: Workload | undefined;

afterEach(async () => {
  await bounded(workload?.stop());
  await bounded(tide?.close());
  await cluster?.stop();
  cluster = undefined;
});

test('a leader blackholed from followers and clients loses leadership while its lease lives; nothing acknowledged is lost', async () => {
  cluster = await TestCluster.start({
    brokers: 3,
    leaseTtlMs: LEASE_TTL_MS,
    replicaLagTimeMaxMs: 3_000,
    proxied: true,
    brokerEnv: { TIDE_REPLICA_LEADER_UNREACHABLE_MS: '1000' },
  });
  tide = new Tide({ bootstrap: cluster.bootstrap(), metadataMaxAgeMs: 500, requestTimeoutMs: 5_000 });
  await createReplicatedTopic(cluster, tide, 'cut-leader', PARTITIONS);
  workload = new Workload(tide, 'cut-leader', PARTITIONS);
  workload.start();
  await waitFor(() => workload!.count > 200, { what: 'first acks', timeoutMs: 30_000 });
  const before = await partitionState(cluster, 'cut-leader', 0);
  const cutOff = before.leader;
  cluster.proxy(cutOff).blackhole('both');
  const cutAt = Date.now();
  try {
    const after = (await waitFor(
      async () => {
        const s = await partitionState(cluster!, 'cut-leader', 0);
        return s.leader >= 0 && s.leader !== cutOff ? s : undefined;
      },
      // Two lease TTLs, plus room for a loaded machine; without the reports it never moves.
      {
        what: 'leadership moved off the cut-off leader',
        timeoutMs: 2 * LEASE_TTL_MS + 8_000,
        intervalMs: 100,
      },
    ))!;
    process.stdout.write(`leadership moved ${Date.now() - cutAt} ms after the cut\n`);
    expect(before.isr).toContain(after.leader);
    expect(after.leaderEpoch).toBeGreaterThan(before.leaderEpoch);
    // The cut-off broker is alive and registered: this was not the lease path.
    expect(cluster.broker(cutOff).child.exitCode).toBeNull();
    // The new leader commits acks=all writes (a client that reaches the brokers that are not cut).
    const others = [...cluster.brokers.entries()].filter(([id]) => id !== cutOff).map(([, b]) => b.address);
    const fresh = new Tide({ bootstrap: others, metadataMaxAgeMs: 500, requestTimeoutMs: 5_000 });
    try {
      const producer = fresh.producer({ acks: 'all' });
      const meta = await producer.send('cut-leader', { value: 'after-the-move', partition: 0 });
      workload.acked.push({
        partition: 0,
        offset: meta.offset,
        value: 'after-the-move',
        producer: 'fresh',
        seq: 0,
      });
      await producer.close();
    } finally {
      await fresh.close();
    }
  } finally {
    cluster.proxy(cutOff).heal();
  }
  await workload.stop();
  await expectCleanHistory(tide, 'cut-leader', PARTITIONS, [workload]);
});
