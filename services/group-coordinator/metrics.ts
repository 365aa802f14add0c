/**
 * The coordinator's Prometheus metrics, on the shared service registry (services/common/metrics.ts:
 * Node process metrics and tide_rpc_duration_seconds) served at `GET /metrics`:
 *
 *   tide_consumer_group_lag{group,topic,partition}               high watermark - committed offset
 *   tide_consumer_group_committed_offset{group,topic,partition}  -1: none
 *   tide_consumer_group_members{group}
 *   tide_coordinator_shards{status}                               shards held (loading / active)
 *
 * Lag is computed at scrape time (one ListOffsets per partition of the groups this instance
 * coordinates; both lag gauges share one computation per scrape), the same numbers as
 * `tide groups describe`.
 */
import { Gauge } from 'prom-client';
import { createServiceMetrics, type ServiceMetrics } from '../common/metrics';
import type { Coordinator, PartitionLagView } from './coordinator';

/** How long one lag computation serves scrapes (the two lag gauges of one scrape share it). */
const LAG_REUSE_MS = 1_000;

export function coordinatorMetrics(
  coordinator: Coordinator,
  metrics: ServiceMetrics = createServiceMetrics('coordinator'),
): ServiceMetrics {
  let cached:
    { atMs: number; lag: Promise<{ groupId: string; partitions: PartitionLagView[] }[]> } | undefined;
  const lag = () => {
    if (!cached || Date.now() - cached.atMs > LAG_REUSE_MS)
      cached = { atMs: Date.now(), lag: coordinator.allLag() };
    return cached.lag;
  };
  const labels = (groupId: string, p: PartitionLagView) => ({
    group: groupId,
    topic: p.topic,
    partition: String(p.partition),
  });
  new Gauge({
    name: 'tide_consumer_group_lag',
    help: 'Records behind the high watermark, per consumer group and partition',
    labelNames: ['group', 'topic', 'partition'],
    registers: [metrics.registry],
    async collect() {
      this.reset();
      for (const g of await lag())
        for (const p of g.partitions) if (p.lag >= 0) this.set(labels(g.groupId, p), p.lag);
    },
  });
  new Gauge({
    name: 'tide_consumer_group_committed_offset',
    help: 'Committed offset per consumer group and partition (-1: none)',
    labelNames: ['group', 'topic', 'partition'],
    registers: [metrics.registry],
    async collect() {
      this.reset();
      for (const g of await lag())
        for (const p of g.partitions) this.set(labels(g.groupId, p), p.committedOffset);
    },
  });
  new Gauge({
    name: 'tide_consumer_group_members',
    help: 'Members per consumer group',
    labelNames: ['group'],
    registers: [metrics.registry],
    collect() {
      this.reset();
      for (const g of coordinator.listGroups()) this.set({ group: g.groupId }, g.members);
    },
  });
  new Gauge({
    name: 'tide_coordinator_shards',
    help: 'Group shards this coordinator holds, by status',
    labelNames: ['status'],
    registers: [metrics.registry],
    collect() {
      const shards = coordinator.loadedShards();
      for (const status of ['loading', 'active'])
        this.set({ status }, shards.filter((s) => s.status === status).length);
    },
  });
  return metrics;
}
