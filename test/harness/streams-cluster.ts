/**
 * The cluster the streams integration tests run their applications on: etcd, one controller, one
 * broker and a group coordinator as processes (TestCluster), and a client of it.
 */
import { Tide } from '../../client';
import { TestCluster } from './cluster';

export interface StreamsCluster {
  cluster: TestCluster;
  tide: Tide;
}

export async function startStreamsCluster(): Promise<StreamsCluster> {
  const cluster = await TestCluster.start({ brokers: 1, controllers: 1 });
  await cluster.startCoordinator('c1');
  return { cluster, tide: new Tide({ bootstrap: cluster.bootstrap() }) };
}

/** Closes what the test left open (applications, consumers), then the client, then the cluster. */
export async function stopStreamsCluster(
  started: Partial<StreamsCluster>,
  ...open: { close(): Promise<unknown> }[]
): Promise<void> {
  for (const o of open) await o.close().catch(() => undefined);
  await started.tide?.close();
  await started.cluster?.stop();
}
