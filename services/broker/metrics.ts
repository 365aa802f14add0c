/**
 * The broker's Prometheus metrics (served on `metricsPort` at /metrics):
 *
 *   tide_rpc_duration_seconds{method,code}             unary RPC latency; _count is the request rate
 *   tide_records_in_total{topic} / tide_bytes_in_total{topic}   appended by produce (as leader)
 *   tide_bytes_out_total{topic}                        record bytes served to consumers
 *   tide_partitions_led / tide_partitions_followed
 *   tide_under_replicated_partitions                   led partitions whose ISR is smaller than their replicas
 *   tide_isr_shrinks_total / tide_isr_expands_total    ISR changes of led partitions, as applied
 *   tide_reassignment_bytes_total                      log bytes sent, as leader, to replicas a move is adding
 *   tide_log_inline_writes_total                       log writes made on the event loop (log/inline-writes.ts)
 *   tide_log_slow_inline_writes_total                  of those, the ones slower than 5 ms
 *   tide_log_inline_write_backoffs_total               times slow ones sent log writes back to the thread pool
 *   plus Node's process metrics (CPU, memory, event loop lag, GC).
 */
import { Counter, Gauge } from 'prom-client';
import { createServiceMetrics, type ServiceMetrics } from '../common/metrics';
import type { Logger } from '../common/logger';
import type { RpcEdge } from '../common/grpc/unary';
import type { PartitionStatus } from './partition/partition';
import type { InlineWriteStats } from './log';

export interface TrafficMetrics {
  produced(topic: string, records: number, bytes: number): void;
  fetched(topic: string, bytes: number): void;
}

export class BrokerMetrics implements TrafficMetrics {
  readonly service: ServiceMetrics = createServiceMetrics('broker');
  private readonly recordsIn = new Counter({
    name: 'tide_records_in_total',
    help: 'Records appended by produce requests',
    labelNames: ['topic'],
    registers: [this.service.registry],
  });
  private readonly bytesIn = new Counter({
    name: 'tide_bytes_in_total',
    help: 'Record batch bytes appended by produce requests',
    labelNames: ['topic'],
    registers: [this.service.registry],
  });
  private readonly bytesOut = new Counter({
    name: 'tide_bytes_out_total',
    help: 'Record batch bytes served to consumers',
    labelNames: ['topic'],
    registers: [this.service.registry],
  });
  private readonly isrShrinks = new Counter({
    name: 'tide_isr_shrinks_total',
    help: 'ISR shrinks of partitions led here',
    registers: [this.service.registry],
  });
  private readonly isrExpands = new Counter({
    name: 'tide_isr_expands_total',
    help: 'ISR expands of partitions led here',
    registers: [this.service.registry],
  });
  private readonly reassignmentBytes = new Counter({
    name: 'tide_reassignment_bytes_total',
    help: 'Log bytes this broker sent, as leader, to replicas a reassignment is adding (not yet in the ISR)',
    registers: [this.service.registry],
  });
  private readonly isrSizes = new Map<string, number>();

  constructor(status: () => PartitionStatus[], inline: Readonly<InlineWriteStats>) {
    const registers = [this.service.registry];
    const counted = (name: string, help: string, read: () => number) =>
      new Counter({
        name,
        help,
        registers,
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    counted(
      'tide_log_inline_writes_total',
      'Log writes made on the event loop instead of the thread pool',
      () => inline.inline,
    );
    counted(
      'tide_log_slow_inline_writes_total',
      'Log writes made on the event loop that took over 5 ms',
      () => inline.slow,
    );
    counted(
      'tide_log_inline_write_backoffs_total',
      'Times slow writes sent log writes back to the thread pool for a while (the kernel throttling writes)',
      () => inline.backoffs,
    );
    new Gauge({
      name: 'tide_partitions_led',
      help: 'Partitions this broker leads',
      registers,
      collect() {
        this.set(status().filter((p) => p.role === 'leader').length);
      },
    });
    new Gauge({
      name: 'tide_partitions_followed',
      help: 'Partitions this broker follows',
      registers,
      collect() {
        this.set(status().filter((p) => p.role !== 'leader').length);
      },
    });
    new Gauge({
      name: 'tide_under_replicated_partitions',
      help: 'Partitions led here whose ISR is smaller than their replica set',
      registers,
      collect() {
        this.set(status().filter((p) => p.role === 'leader' && p.isr.length < p.replicas.length).length);
      },
    });
  }

  /** The RPC edge for unary handlers: errors logged, latency and result observed. */
  edge(logger: Logger): RpcEdge {
    return { logger, observeRpc: this.service.observeRpc };
  }

  produced(topic: string, records: number, bytes: number): void {
    this.recordsIn.inc({ topic }, records);
    this.bytesIn.inc({ topic }, bytes);
  }

  fetched(topic: string, bytes: number): void {
    if (bytes > 0) this.bytesOut.inc({ topic }, bytes);
  }

  reassignmentServed(bytes: number): void {
    if (bytes > 0) this.reassignmentBytes.inc(bytes);
  }

  /** Counts ISR changes of led partitions since the last call (called after each metadata change). */
  observePartitions(partitions: PartitionStatus[]): void {
    for (const p of partitions) {
      if (p.role !== 'leader') continue;
      const key = `${p.topic}\u0000${p.partition}`;
      const before = this.isrSizes.get(key);
      if (before !== undefined && p.isr.length < before) this.isrShrinks.inc();
      if (before !== undefined && p.isr.length > before) this.isrExpands.inc();
      this.isrSizes.set(key, p.isr.length);
    }
  }
}
