/**
 * How the API handlers find a hosted partition replica: the replica manager implements it, the
 * handlers depend on it (so the API layer depends on the partition layer, never the reverse).
 */
import type { Partition } from './partition';

/** Finds the hosted partition replica or throws UNKNOWN_TOPIC / UNKNOWN_PARTITION / NOT_LEADER. */
export interface PartitionRegistry {
  leaderFor(topic: string, partition: number): Partition;
  /** True when `leaderFor` would throw LEADER_NOT_AVAILABLE (checked without building the error). */
  awaitingLeader(topic: string, partition: number): boolean;
}
