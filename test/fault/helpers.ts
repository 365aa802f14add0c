/** Shared steps of the fault tests: partition state from the controller, topics, history checks. */
import * as grpc from '@grpc/grpc-js';
import type { Tide } from '../../client';
import { tideProto } from '../../services/common/grpc/proto';
import type { DescribeTopicResponse } from '../../services/common/grpc/generated/tide/v1/DescribeTopicResponse';
import type { TestCluster } from '../harness/cluster';
import { checkHistory, summarize } from '../harness/history-checker';
import { waitFor } from '../harness/processes';
import { readEverything, type Workload } from '../harness/workload';

export interface PartitionSnapshot {
  leader: number;
  isr: number[];
  leaderEpoch: number;
}

/** The partition state as the active controller has it (works while every broker is down). */
export async function partitionState(
  cluster: TestCluster,
  topic: string,
  partition: number,
): Promise<PartitionSnapshot> {
  let lastError: unknown;
  for (const c of cluster.controllers.values()) {
    const controller = new (tideProto().Admin)(c.address, grpc.credentials.createInsecure());
    try {
      const described = await new Promise<DescribeTopicResponse>((resolve, reject) =>
        controller.DescribeTopic({ name: topic }, { deadline: Date.now() + 5_000 }, (e, r) =>
          e ? reject(e) : resolve(r!),
        ),
      );
      const p = described.topic!.partitions.find((x) => x.partition === partition)!;
      return { leader: p.leader, isr: p.isr, leaderEpoch: p.leader_epoch };
    } catch (err) {
      lastError = err;
    } finally {
      controller.close();
    }
  }
  throw lastError;
}

/** Creates an RF 3, min.insync.replicas 2 topic and waits for full ISRs. */
export async function createReplicatedTopic(
  cluster: TestCluster,
  tide: Tide,
  name: string,
  partitions: number,
  configs: Record<string, string> = {},
): Promise<void> {
  await tide.admin().createTopic(name, {
    partitions,
    replicationFactor: 3,
    configs: { 'min.insync.replicas': '2', ...configs },
  });
  await waitFor(
    async () => {
      for (let p = 0; p < partitions; p++) {
        const s = await partitionState(cluster, name, p);
        if (s.isr.length !== 3 || s.leader < 0) return false;
      }
      return true;
    },
    { what: 'full ISRs', timeoutMs: 30_000 },
  );
}

/** Reads the topic back and fails with the checker's summary unless the history is clean. */
export async function expectCleanHistory(
  tide: Tide,
  topic: string,
  partitions: number,
  workloads: Workload[],
): Promise<void> {
  const acked = workloads.flatMap((w) => w.acked);
  const read = await readEverything(tide, topic, partitions);
  const report = checkHistory(acked, read);
  if (!report.ok) throw new Error(`history check failed:\n${summarize(report)}`);
  expect(acked.length).toBeGreaterThan(0);
}

/** Bounds a cleanup step so a stuck one cannot hang the suite. */
export function bounded(promise: Promise<unknown> | undefined, ms = 10_000): Promise<unknown> {
  return Promise.race([
    (promise ?? Promise.resolve()).catch(() => undefined),
    new Promise((r) => setTimeout(r, ms)),
  ]);
}
