/**
 * The leader's bookkeeping of its followers and the pure rules built on it (Kafka's Replica and
 * the ISR parts of Partition). No I/O and no clock: times are passed in.
 *
 * Follower state, updated on every fetch the follower sends (Kafka's Replica.updateFetchState):
 *   - leo = the fetch offset (the follower asks for the next offset it lacks);
 *   - lastCaughtUpTimeMs = the time of this fetch when it reached the leader's LEO of that moment;
 *     else the time of the previous fetch when this one reached the leader's LEO as of that
 *     previous fetch. So a follower that keeps up under constant load (never exactly at the end)
 *     still counts as caught up as long as each fetch reaches what existed one fetch earlier.
 *
 * Rules (the leader counts itself in every ISR):
 *   - HW = min LEO over the maximal ISR (committed ISR plus any member a pending AlterPartition
 *     adds; a member a pending shrink removes still counts until the controller agrees). A member
 *     whose LEO is unknown (no fetch since this replica became leader) holds the HW where it is.
 *     The HW never moves backwards.
 *   - A member other than the leader with now - lastCaughtUpTimeMs > replica.lag.time.max.ms is out
 *     of sync: the leader proposes the ISR without it.
 *   - A replica outside the ISR joins when it is caught up (within the lag time), its LEO has reached
 *     the HW and the start offset of the current leader epoch.
 *   - Low watermark (DeleteRecords) = min log start offset over the leader and the ISR's followers,
 *     each follower's as its last fetch carried it.
 */

/** LEO of a follower that has not fetched since this replica became leader. */
export const UNKNOWN_LEO = -1;

/** What the leader knows about one follower. */
export class FollowerState {
  leo = UNKNOWN_LEO;
  lastCaughtUpTimeMs: number;
  lastFetchTimeMs = 0;
  /** The leader's LEO when the previous fetch arrived (UNKNOWN_LEO before the first). */
  lastFetchLeaderLeo = UNKNOWN_LEO;
  /** The follower broker's incarnation (ReplicaFetchRequest.broker_epoch); -1 until it fetches. */
  brokerEpoch = -1;
  /** The follower's log start offset as its last fetch told (-1 until it fetches). */
  logStartOffset = -1;

  /**
   * @param inSync whether the follower is in the ISR when tracking starts: ISR members get a full
   *   lag period from now to show up, others start as never caught up.
   */
  constructor(
    readonly brokerId: number,
    nowMs: number,
    inSync: boolean,
  ) {
    this.lastCaughtUpTimeMs = inSync ? nowMs : 0;
  }

  /** Applies one fetch at fetchOffset, made at nowMs while the leader's LEO was leaderLeo. */
  onFetch(fetchOffset: number, nowMs: number, leaderLeo: number): void {
    if (fetchOffset >= leaderLeo) {
      this.lastCaughtUpTimeMs = Math.max(this.lastCaughtUpTimeMs, nowMs);
    } else if (this.lastFetchLeaderLeo !== UNKNOWN_LEO && fetchOffset >= this.lastFetchLeaderLeo) {
      this.lastCaughtUpTimeMs = Math.max(this.lastCaughtUpTimeMs, this.lastFetchTimeMs);
    }
    this.lastFetchLeaderLeo = leaderLeo;
    this.lastFetchTimeMs = nowMs;
    this.leo = fetchOffset;
  }

  /** Caught up within the lag time as of nowMs. */
  isCaughtUp(nowMs: number, lagTimeMaxMs: number): boolean {
    return nowMs - this.lastCaughtUpTimeMs <= lagTimeMaxMs;
  }
}

/** The ISR the HW is computed over: the committed ISR plus members a pending change adds. */
export function maximalIsr(isr: readonly number[], pendingIsr: readonly number[] | undefined): number[] {
  if (!pendingIsr) return [...isr];
  return [...new Set([...isr, ...pendingIsr])];
}

/**
 * The HW the leader may move to: the smallest LEO among `isr` (the leader's own is leaderLeo),
 * never below currentHw. Members without state or with an unknown LEO hold it at currentHw.
 */
export function highWatermarkFor(args: {
  leaderId: number;
  leaderLeo: number;
  isr: readonly number[];
  followers: ReadonlyMap<number, FollowerState>;
  currentHw: number;
}): number {
  let hw = args.leaderLeo;
  for (const id of args.isr) {
    if (id === args.leaderId) continue;
    const leo = args.followers.get(id)?.leo ?? UNKNOWN_LEO;
    if (leo === UNKNOWN_LEO) return args.currentHw;
    hw = Math.min(hw, leo);
  }
  return Math.max(hw, args.currentHw);
}

/**
 * Kafka's low watermark: the smallest log start offset over the leader (leaderLogStart) and the
 * followers in `isr`; a member that has not fetched yet counts as -1 (unknown). DeleteRecords
 * completes once it reaches the requested offset.
 */
export function lowWatermarkFor(args: {
  leaderId: number;
  leaderLogStart: number;
  isr: readonly number[];
  followers: ReadonlyMap<number, FollowerState>;
}): number {
  let low = args.leaderLogStart;
  for (const id of args.isr) {
    if (id === args.leaderId) continue;
    low = Math.min(low, args.followers.get(id)?.logStartOffset ?? -1);
  }
  return low;
}

/** ISR members (other than the leader) that have not been caught up for longer than the lag time. */
export function outOfSyncReplicas(args: {
  leaderId: number;
  isr: readonly number[];
  followers: ReadonlyMap<number, FollowerState>;
  nowMs: number;
  lagTimeMaxMs: number;
}): number[] {
  return args.isr.filter((id) => {
    if (id === args.leaderId) return false;
    const state = args.followers.get(id);
    return !state || !state.isCaughtUp(args.nowMs, args.lagTimeMaxMs);
  });
}

/** Whether a replica outside the ISR may join it now. */
export function mayJoinIsr(args: {
  follower: FollowerState;
  highWatermark: number;
  leaderEpochStartOffset: number;
  nowMs: number;
  lagTimeMaxMs: number;
}): boolean {
  const { follower } = args;
  return (
    follower.leo !== UNKNOWN_LEO &&
    follower.leo >= args.highWatermark &&
    follower.leo >= args.leaderEpochStartOffset &&
    follower.isCaughtUp(args.nowMs, args.lagTimeMaxMs)
  );
}
