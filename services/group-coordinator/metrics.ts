/**
 * The coordinator's Prometheus endpoint: `GET /metrics` on its own HTTP port.
 *
 *   tide_consumer_group_lag{group,topic,partition}        high watermark - committed offset
 *   tide_consumer_group_committed_offset{group,topic,partition}
 *   tide_consumer_group_members{group}
 *   tide_coordinator_shards{status}                        shards this instance holds (loading/active)
 *
 * Lag is computed at scrape time (one ListOffsets per partition of the groups this instance
 * coordinates), so a scrape costs as much as `tide groups describe` of every group.
 */
import * as http from 'http';
import { Gauge, Registry } from 'prom-client';
import type { Logger } from '../common/logger';
import type { Coordinator } from './coordinator';

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

export function coordinatorRegistry(coordinator: Coordinator): Registry {
  const registry = new Registry();
  const lag = new Gauge({
    name: 'tide_consumer_group_lag',
    help: 'Records behind the high watermark, per consumer group and partition',
    labelNames: ['group', 'topic', 'partition'],
    registers: [registry],
  });
  const committed = new Gauge({
    name: 'tide_consumer_group_committed_offset',
    help: 'Committed offset per consumer group and partition (-1: none)',
    labelNames: ['group', 'topic', 'partition'],
    registers: [registry],
  });
  new Gauge({
    name: 'tide_consumer_group_members',
    help: 'Members per consumer group',
    labelNames: ['group'],
    registers: [registry],
    collect() {
      this.reset();
      for (const g of coordinator.listGroups()) this.set({ group: g.groupId }, g.members);
    },
  });
  new Gauge({
    name: 'tide_coordinator_shards',
    help: 'Group shards this coordinator holds, by status',
    labelNames: ['status'],
    registers: [registry],
    collect() {
      this.reset();
      const shards = coordinator.loadedShards();
      for (const status of ['loading', 'active'])
        this.set({ status }, shards.filter((s) => s.status === status).length);
    },
  });
  // Both gauges come from one lag computation per scrape.
  const refresh = async () => {
    lag.reset();
    committed.reset();
    for (const { groupId, partitions } of await coordinator.allLag()) {
      for (const p of partitions) {
        const labels = { group: groupId, topic: p.topic, partition: String(p.partition) };
        committed.set(labels, p.committedOffset);
        if (p.lag >= 0) lag.set(labels, p.lag);
      }
    }
  };
  return Object.assign(registry, { refresh });
}

export async function startMetricsServer(
  coordinator: Coordinator,
  options: { host: string; port: number; logger: Logger },
): Promise<MetricsServer> {
  const registry = coordinatorRegistry(coordinator) as Registry & { refresh(): Promise<void> };
  const server = http.createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end('see /metrics\n');
      return;
    }
    registry
      .refresh()
      .then(() => registry.metrics())
      .then(
        (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
        (err: unknown) => {
          options.logger.warn({ err }, 'metrics scrape failed');
          res.writeHead(500).end(String(err));
        },
      );
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve((server.address() as { port: number }).port));
  });
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
