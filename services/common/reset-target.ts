/**
 * Where a consumer group's committed offsets are reset to (ResetOffsets): one type for the client
 * that asks (client/group/group-admin.ts, `tide groups reset-offsets`) and the coordinator that
 * resolves it (services/group-coordinator/coordinator.ts).
 */
export type ResetTarget =
  | { to: 'earliest' }
  | { to: 'latest' }
  | { to: 'timestamp'; timestampMs: number }
  | { to: 'offset'; offset: number }
  /** The committed offset moved by shiftBy (negative: back), clamped to what the partition holds. */
  | { to: 'shift'; shiftBy: number };
