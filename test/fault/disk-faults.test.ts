/**
 * Disk faults on a real cluster (injected through the storage engine's seam, config
 * diskFaultsFile): ENOSPC or EIO on write or fsync of one partition's log on its leader. That
 * replica goes offline, the controller moves leadership to another in-sync replica and drops the
 * broker from that ISR, nothing acknowledged is lost, and the broker keeps serving its other
 * partitions (it stays in their ISRs and leads what it led). flush.policy=sync so fsync runs.
 */
import { Tide } from '../../client';
import { TestCluster } from '../harness/cluster';
import { waitFor } from '../harness/processes';
import { Workload } from '../harness/workload';
import { bounded, createReplicatedTopic, expectCleanHistory, partitionState } from './helpers';

jest.setTimeout(150_000);

const PARTITIONS = 3;
let cluster: TestCluster | undefined;
let tide: Tide | undefined;
let workload: Workload | undefined;

afterEach(async () => {
  await bounded(workload?.stop());
  await bounded(tide?.close());
  await cluster?.stop();
  cluster = undefined;
});

test.each([
  ['write', 'ENOSPC'],
  ['fsync', 'EIO'],
])(
  '%s %s on one partition of a leader: leadership moves, nothing lost, its other partitions go on',
  async (op, code) => {
    cluster = await TestCluster.start({ brokers: 3, leaseTtlMs: 3_000, diskFaults: true });
    tide = new Tide({ bootstrap: cluster.bootstrap(), metadataMaxAgeMs: 500, requestTimeoutMs: 10_000 });
    const topic = `disk-${op}`;
    await createReplicatedTopic(cluster, tide, topic, PARTITIONS, { 'flush.policy': 'sync' });
    workload = new Workload(tide, topic, PARTITIONS);
    workload.start();
    await waitFor(() => workload!.count > 150, { what: 'first acks', timeoutMs: 30_000 });
    const before = await partitionState(cluster, topic, 0);
    const faulty = before.leader;
    cluster.injectDiskFaults(faulty, [{ op: op as 'write' | 'fsync', code, topic, partition: 0 }]);
    const after = (await waitFor(
      async () => {
        const s = await partitionState(cluster!, topic, 0);
        return s.leader >= 0 && s.leader !== faulty && !s.isr.includes(faulty) ? s : undefined;
      },
      { what: 'leadership moved off the failed replica', timeoutMs: 20_000, intervalMs: 100 },
    ))!;
    expect(before.isr).toContain(after.leader);
    const countAtMove = workload.count;
    await waitFor(() => workload!.count > countAtMove + 300, {
      what: 'acks after the move',
      timeoutMs: 40_000,
    });
    // The broker is alive and still serves its other partitions.
    expect(cluster.broker(faulty).child.exitCode).toBeNull();
    for (let p = 1; p < PARTITIONS; p++) {
      expect((await partitionState(cluster, topic, p)).isr).toContain(faulty);
    }
    await workload.stop();
    await expectCleanHistory(tide, topic, PARTITIONS, [workload]);
  },
);
