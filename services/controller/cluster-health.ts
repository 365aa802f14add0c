/**
 * The cluster's partition health as the active controller sees it (for its gauges, metrics.ts):
 *
 *   underReplicated  partitions whose ISR is smaller than the replicas they keep: |ISR| below
 *                    |replicas| minus the replicas a move in flight is removing (Kafka's rule), so a
 *                    move's new copies catching up do not count, but a copy that fell behind does;
 *   offline          partitions without a live leader (no leader, or its broker is not registered);
 *   balanceScore     how evenly replicas and preferred leaders are spread over the live brokers:
 *                    for each of the two counts, average / maximum over the live brokers (1 =
 *                    perfectly even; 0.75 = the busiest broker carries a third more than the
 *                    average), and the score is the smaller of the two. 1 with no partitions.
 */
import type { TopicState } from '../common/cluster/topic-watcher';
import { balanceScore } from './balancer';

export interface ClusterHealth {
  partitions: number;
  underReplicated: number;
  offline: number;
  balanceScore: number;
}

export function clusterHealth(topics: Iterable<TopicState>, live: ReadonlySet<number>): ClusterHealth {
  let partitions = 0;
  let underReplicated = 0;
  let offline = 0;
  const replicaLists: (readonly number[])[] = [];
  for (const topic of topics) {
    for (const p of topic.partitions) {
      partitions++;
      replicaLists.push(p.replicas);
      const kept = p.replicas.length - (p.removingReplicas?.length ?? 0);
      if (p.isr.length < kept) underReplicated++;
      if (p.leader < 0 || !live.has(p.leader)) offline++;
    }
  }
  return {
    partitions,
    underReplicated,
    offline,
    balanceScore: balanceScore(
      replicaLists,
      [...live].sort((a, b) => a - b),
    ),
  };
}
