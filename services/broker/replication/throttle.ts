/**
 * The reassignment throttle (`reassignmentThrottleBytesPerSecond`; Kafka's
 * leader.replication.throttled.rate with its throttled-replica lists set to the moving replicas).
 *
 * A leader answers follower fetches; the fetches of a replica that a move is ADDING and that is
 * not in the ISR yet are reassignment traffic: a new copy catching up from the log start, which
 * could read a whole partition from disk and send it at once. Those reads share one token bucket
 * per broker; every other follower (ISR members, and out-of-sync replicas that are not being
 * added, such as a restarted broker catching up) is never throttled, so acks=all latency does not
 * wait on the bucket. An empty bucket does not block the stream: the throttled partition is
 * answered without records (its follower fetches again) while the others are served as usual.
 *
 * The bucket may go into debt: a fetch is granted whatever the bucket holds (at least one byte),
 * the log read returns at least one whole batch, and the bytes actually read are taken, so a
 * batch larger than the burst still moves and the long-run rate stays at the limit.
 *
 * Bytes served to adding replicas are counted (tide_reassignment_bytes_total) with or without a
 * limit.
 */
import type { Clock } from '../../common/clock';
import type { FetchThrottle } from './leader-fetch';

/**
 * The bucket holds at most this much of one second's rate: short bursts spread the copy's CPU
 * work (the leader's reads and sends, the new replica's checks and writes) thinly over time. In
 * two interleaved pairs of runs (bench/reassign.ts, 256 MiB at 16 MiB/s) produce p99 during the
 * move was 74 and 86 ms with 20 ms against 92 and 240 ms with 100 ms, but the shared machine's
 * noise is of the same order: the evidence for the smaller burst is weak, the reasoning is not.
 */
const BURST_SECONDS = 0.02;
/** ...but at least this much, so a slow limit still sends useful reads. */
const MIN_BURST_BYTES = 64 * 1024;

/** Bytes at a steady rate, with a bounded burst and debt. */
export class TokenBucket {
  private tokens: number;
  private lastRefillMs: number;
  readonly burstBytes: number;

  constructor(
    readonly bytesPerSecond: number,
    private readonly clock: Clock,
    burstBytes?: number,
  ) {
    if (!(bytesPerSecond > 0) || !Number.isFinite(bytesPerSecond))
      throw new RangeError(`a token bucket needs a positive finite rate, got ${bytesPerSecond}`);
    this.burstBytes = burstBytes ?? Math.max(Math.ceil(bytesPerSecond * BURST_SECONDS), MIN_BURST_BYTES);
    this.tokens = this.burstBytes;
    this.lastRefillMs = clock.nowMs();
  }

  /** Bytes that may be taken now; <= 0 while the bucket is empty or in debt. */
  available(): number {
    this.refill();
    return this.tokens;
  }

  /** Takes `bytes` (already sent): the bucket may go into debt, repaid by later refills. */
  take(bytes: number): void {
    this.refill();
    this.tokens -= bytes;
  }

  /** Milliseconds until available() is positive again; 0 when it already is. */
  msUntilAvailable(): number {
    const tokens = this.available();
    if (tokens > 0) return 0;
    return Math.ceil(((1 - tokens) * 1000) / this.bytesPerSecond);
  }

  private refill(): void {
    const now = this.clock.nowMs();
    const elapsedMs = now - this.lastRefillMs;
    if (elapsedMs <= 0) return;
    this.lastRefillMs = now;
    this.tokens = Math.min(this.burstBytes, this.tokens + (elapsedMs * this.bytesPerSecond) / 1000);
  }
}

/** What the throttle needs to know of a led partition. */
export interface ThrottledPartition {
  readonly topic: string;
  readonly partition: number;
  /** The committed ISR. */
  readonly isr: readonly number[];
}

export interface ReassignmentThrottleDeps {
  /** 0 = unthrottled (bytes are still counted). */
  bytesPerSecond: number;
  clock: Clock;
  /** The replicas a move in flight is adding to the partition (none when it is not moving). */
  addingReplicas(topic: string, partition: number): readonly number[] | undefined;
  /** Bytes served to adding replicas (the metric). */
  onServed?: (bytes: number) => void;
  /** The bucket's size; default 20 ms of the rate, at least 64 KiB. */
  burstBytes?: number;
}

export class ReassignmentThrottle implements FetchThrottle {
  private readonly bucket: TokenBucket | undefined;

  constructor(private readonly deps: ReassignmentThrottleDeps) {
    if (!Number.isSafeInteger(deps.bytesPerSecond) || deps.bytesPerSecond < 0)
      throw new RangeError(
        `reassignmentThrottleBytesPerSecond must be an integer >= 0, got ${deps.bytesPerSecond}`,
      );
    this.bucket =
      deps.bytesPerSecond > 0 ? new TokenBucket(deps.bytesPerSecond, deps.clock, deps.burstBytes) : undefined;
  }

  /** True when `replicaId`'s fetches of `partition` are reassignment traffic (see the file comment). */
  applies(partition: ThrottledPartition, replicaId: number): boolean {
    if (partition.isr.includes(replicaId)) return false;
    return this.deps.addingReplicas(partition.topic, partition.partition)?.includes(replicaId) ?? false;
  }

  limit(partition: ThrottledPartition, replicaId: number, budget: number): number | undefined {
    if (!this.applies(partition, replicaId)) return undefined;
    if (!this.bucket) return budget;
    return Math.max(0, Math.min(budget, Math.floor(this.bucket.available())));
  }

  served(bytes: number): void {
    if (bytes <= 0) return;
    this.bucket?.take(bytes);
    this.deps.onServed?.(bytes);
  }

  msUntilAvailable(): number {
    return this.bucket?.msUntilAvailable() ?? 0;
  }
}
