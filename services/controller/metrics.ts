/**
 * The controller's Prometheus metrics (served on `metricsPort` at /metrics):
 *
 *   tide_controller_active / tide_controller_epoch        this instance's election state
 *   tide_controller_activations                           times this instance became active
 *   tide_controller_leader_elections / _unclean_elections / _preferred_leader_elections
 *   tide_controller_offline_transitions / _isr_shrinks / _fenced_writes
 *   tide_controller_partitions_moving / _moves_started / _moves_completed / _moves_cancelled
 *   tide_controller_under_replicated_partitions / _offline_partitions / _balance_score
 *                                                         the cluster's partition health (cluster-health.ts)
 *   plus Node's process metrics. Counts are since this process started. The health gauges come
 *   from the active controller: a standby reports 0 partitions and a balance score of NaN.
 */
import { Gauge } from 'prom-client';
import { createServiceMetrics, type ServiceMetrics } from '../common/metrics';
import type { ControllerNode } from './controller-node';

export function controllerMetrics(node: ControllerNode): ServiceMetrics {
  const metrics = createServiceMetrics('controller');
  const registers = [metrics.registry];
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        this.set(read());
      },
    });
  gauge('tide_controller_active', '1 while this instance is the active controller', () =>
    node.isActive ? 1 : 0,
  );
  gauge('tide_controller_epoch', 'Controller epoch of this instance (0 on a standby)', () => node.epoch);
  gauge(
    'tide_controller_activations',
    'Times this instance became the active controller',
    () => node.stats().activations,
  );
  gauge(
    'tide_controller_leader_elections',
    'Leaders elected from the ISR',
    () => node.stats().leaderElections,
  );
  gauge(
    'tide_controller_unclean_elections',
    'Leaders elected outside the ISR (possible data loss)',
    () => node.stats().uncleanElections,
  );
  gauge(
    'tide_controller_preferred_leader_elections',
    'Leadership moves back to the preferred replica',
    () => node.stats().preferredLeaderElections,
  );
  gauge(
    'tide_controller_offline_transitions',
    'Partitions that went offline (no live ISR member)',
    () => node.stats().offlineTransitions,
  );
  gauge('tide_controller_isr_shrinks', 'ISR shrinks because brokers died', () => node.stats().isrShrinks);
  gauge(
    'tide_controller_fenced_writes',
    'Writes of this instance rejected by fencing',
    () => node.stats().fencedWrites,
  );
  gauge(
    'tide_controller_partitions_moving',
    'Partitions with a replica move in flight (reassignment, decommission or balancer)',
    () => node.stats().partitionsMoving,
  );
  gauge(
    'tide_controller_under_replicated_partitions',
    'Partitions whose ISR is smaller than the replicas they keep (replicas a move is removing aside)',
    () => node.health()?.underReplicated ?? 0,
  );
  gauge(
    'tide_controller_offline_partitions',
    'Partitions without a live leader',
    () => node.health()?.offline ?? 0,
  );
  gauge(
    'tide_controller_balance_score',
    'Evenness of replicas and preferred leaders over live brokers: min over the two of average/maximum per broker (1 = even; NaN on a standby)',
    () => node.health()?.balanceScore ?? NaN,
  );
  gauge('tide_controller_moves_started', 'Replica moves started', () => node.stats().movesStarted);
  gauge('tide_controller_moves_completed', 'Replica moves completed', () => node.stats().movesCompleted);
  gauge('tide_controller_moves_cancelled', 'Replica moves cancelled', () => node.stats().movesCancelled);
  return metrics;
}
