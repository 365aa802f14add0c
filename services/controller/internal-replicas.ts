/**
 * Growing an internal topic to its replication factor: a pure decision, as partition-leadership.ts.
 * An internal topic (`__consumer_offsets`) that has fewer replicas than its target (created by an
 * older version at min(3, brokers registered at that instant), or its target raised since) gets
 * live brokers added as followers, the least loaded first. The leader, leaderEpoch and ISR stay:
 * the new replicas catch up from the leader, which adds them to the ISR through AlterPartition.
 */
import type { PartitionState } from '../common/metadata/keys';
import type { BrokerLiveness } from './partition-leadership';

/**
 * The state with replicas added up to `targetReplicas` from live brokers that are not shutting
 * down; undefined when nothing can be added (enough replicas, no leader, or no candidate).
 * `bumpEpoch`: false when the caller's write already bumps partitionEpoch for another change.
 * `load`: replicas per broker, so additions spread (ties go to the lower id).
 */
export function growReplicas(
  state: PartitionState,
  targetReplicas: number,
  liveness: BrokerLiveness,
  options: { bumpEpoch: boolean; load?: ReadonlyMap<number, number> },
): PartitionState | undefined {
  if (state.leader < 0 || state.replicas.length >= targetReplicas) return undefined;
  const candidates = [...liveness.live]
    .filter((id) => !state.replicas.includes(id) && !liveness.shuttingDown?.has(id))
    .sort((a, b) => (options.load?.get(a) ?? 0) - (options.load?.get(b) ?? 0) || a - b);
  const added = candidates.slice(0, targetReplicas - state.replicas.length);
  if (added.length === 0) return undefined;
  return {
    ...state,
    replicas: [...state.replicas, ...added],
    partitionEpoch: state.partitionEpoch + (options.bumpEpoch ? 1 : 0),
  };
}
