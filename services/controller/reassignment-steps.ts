/**
 * Replica moves as pure decisions (Kafka's KIP-455): from a partition's state and its move's
 * target to the next state. The reassigner (reassigner.ts) writes what these return.
 *
 * A move from replicas O to target T goes:
 *   1. start:  replicas = O + (T - O), the adding replicas at the end (the preferred leader stays);
 *              the new replicas open a log and fetch from the leader, which adds them to the ISR
 *              once they have caught up (AlterPartition), as for any follower;
 *   2. lead:   once every member of T is in the ISR, a leader outside T hands over to the first
 *              live in-sync member of T (leader epoch + 1);
 *   3. finish: replicas = T, ISR = ISR ∩ T (= T); the removing replicas see they are no longer
 *              assigned, stop and delete their copy.
 * No step ever leaves the ISR smaller than |T| (the ISR only loses replicas outside T, and only
 * once all of T is in it), so a move never takes a partition below min.insync.replicas when
 * |T| >= min.insync.replicas (checked when the move is asked for).
 * Epoch rules as partition-leadership.ts: every change bumps partitionEpoch, a leader change also
 * bumps leaderEpoch.
 */
import { TideError } from '../common/errors';
import type { PartitionState } from '../common/metadata/keys';
import type { BrokerLiveness } from './partition-leadership';
import type { ReassignmentRecord } from './reassignment-store';

/** What the next step of a move is. */
export type MoveStep =
  | { kind: 'wait'; why: string }
  /** The partition lacked some target replicas (a plan replaced mid-move): they are added. */
  | { kind: 'grow'; state: PartitionState }
  | { kind: 'lead'; state: PartitionState }
  /** replicas = target: the move is done and its record is deleted with this write. */
  | { kind: 'finish'; state: PartitionState };

/** The state a move from `state` to `target` starts with (step 1). */
export function startMove(state: PartitionState, target: readonly number[]): PartitionState {
  const adding = target.filter((id) => !state.replicas.includes(id));
  return {
    ...state,
    replicas: [...state.replicas, ...adding],
    isr: [...state.isr],
    partitionEpoch: state.partitionEpoch + 1,
  };
}

/** Replicas being added and removed by a move from `original` to `target`. */
export function moveSets(
  original: readonly number[],
  target: readonly number[],
  current: readonly number[],
): { adding: number[]; removing: number[] } {
  return {
    adding: target.filter((id) => !original.includes(id)),
    removing: current.filter((id) => !target.includes(id)),
  };
}

/** The next step of the move `record` for a partition now at `state`. */
export function nextMoveStep(
  state: PartitionState,
  record: ReassignmentRecord,
  liveness: BrokerLiveness,
): MoveStep {
  const { target } = record;
  const missing = target.filter((id) => !state.replicas.includes(id));
  if (missing.length > 0) {
    return {
      kind: 'grow',
      state: {
        ...state,
        replicas: [...state.replicas, ...missing],
        partitionEpoch: state.partitionEpoch + 1,
      },
    };
  }
  const lagging = target.filter((id) => !state.isr.includes(id));
  if (lagging.length > 0) return { kind: 'wait', why: `replicas ${lagging.join(', ')} are catching up` };
  if (state.leader < 0) return { kind: 'wait', why: 'the partition has no leader' };
  if (!target.includes(state.leader)) {
    const candidates = target.filter((id) => state.isr.includes(id) && liveness.live.has(id));
    const next = candidates.find((id) => !liveness.shuttingDown?.has(id)) ?? candidates[0];
    if (next === undefined) return { kind: 'wait', why: 'no live in-sync target replica can lead' };
    return {
      kind: 'lead',
      state: {
        ...state,
        leader: next,
        leaderEpoch: state.leaderEpoch + 1,
        partitionEpoch: state.partitionEpoch + 1,
        replicas: [...state.replicas],
        isr: [...state.isr],
      },
    };
  }
  return {
    kind: 'finish',
    state: {
      ...state,
      replicas: [...target],
      isr: state.isr.filter((id) => target.includes(id)),
      partitionEpoch: state.partitionEpoch + 1,
    },
  };
}

/**
 * The state a cancelled move returns to: the original replicas, the ISR members among them, and a
 * leader among them (the current one if it is original, else the first live in-sync original
 * replica). Throws INVALID_REQUEST when no original replica is in sync (cancelling would leave
 * the partition without an in-sync copy; let the move finish, or plan a new one).
 */
export function cancelMove(
  state: PartitionState,
  record: ReassignmentRecord,
  liveness: BrokerLiveness,
  context: { topic: string; partition: number },
): PartitionState {
  const { original } = record;
  const isr = state.isr.filter((id) => original.includes(id));
  const liveIsr = original.filter((id) => isr.includes(id) && liveness.live.has(id));
  if (liveIsr.length === 0) {
    throw new TideError(
      'INVALID_REQUEST',
      `cannot cancel the move of ${context.topic}-${context.partition}: none of its original replicas ` +
        `${JSON.stringify(original)} is live and in sync (ISR ${JSON.stringify(state.isr)}); let it finish or plan another move`,
      { context },
    );
  }
  const leader = original.includes(state.leader)
    ? state.leader
    : (liveIsr.find((id) => !liveness.shuttingDown?.has(id)) ?? liveIsr[0]);
  return {
    leader,
    leaderEpoch: leader === state.leader ? state.leaderEpoch : state.leaderEpoch + 1,
    partitionEpoch: state.partitionEpoch + 1,
    replicas: [...original],
    isr,
  };
}
