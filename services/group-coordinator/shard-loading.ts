/**
 * How a coordinator takes up the shards it acquires, shared by the group coordinator
 * (coordinator.ts, over `__consumer_offsets`) and the transaction coordinator
 * (txn/txn-coordinator.ts, over `__transaction_state`); what a shard holds is theirs.
 *
 * Loading: the shards acquired together are grouped by the partition of their log (one replay per
 * partition). For each partition, a marker per shard (keyed by shard and epoch, coordinator epoch =
 * shard epoch) is appended behind the lease-time fence, then the partition is replayed from its
 * start through the last marker; a record older than the newest marker of its shard seen so far is
 * a deposed owner's late write and is skipped (ReplayFence). A failed load is retried with
 * exponential backoff (up to LOAD_RETRY_MAX_MS) for the shards still owned under the same epoch.
 *
 * Writing: appendFenced refuses to send unless every shard written may still be written, and
 * refuses to acknowledge when that stopped holding while the append ran (coordinator.ts's header
 * says why).
 */
import type { Clock } from '../common/clock';
import { TideError } from '../common/errors';
import type { CoordinatorRecord } from '../common/cluster/coordinator-shards';
import type { LeaseFence } from '../common/lease-fence';
import type { Logger } from '../common/logger';
import { markerKey, markerValue } from './offsets-codec';
import type { OffsetsLog, OffsetsLogRecord } from './offsets-log';
import type { AcquiredShard } from './shard-ownership';

/** The longest wait between two attempts to load a partition's shards. */
export const LOAD_RETRY_MAX_MS = 5_000;

/** What a coordinator keeps of every shard it owns, whatever else the shard holds. */
export interface OwnedShard {
  shard: number;
  /** The shard epoch it was acquired with. */
  epoch: number;
  status: 'loading' | 'active';
  /** The fence of the lease the shard was taken under. */
  fence: LeaseFence;
  /** False once the shard is dropped or handed over: nothing more of it may be written. */
  writable: boolean;
}

/** The state of a shard just acquired: loading, writable under the lease it was taken with. */
export function acquiredShard(a: AcquiredShard): OwnedShard {
  return { shard: a.shard, epoch: a.epoch, status: 'loading', fence: a.fence, writable: true };
}

/**
 * NOT_COORDINATOR for a call about `what` ('group g', 'transactional id t') of a shard this
 * instance (`selfId`) does not own; it names the owner when the metadata store knows another one.
 */
export function notOwnedError(
  selfId: string,
  shard: number,
  what: string,
  owner: CoordinatorRecord | undefined,
): TideError {
  const where =
    owner && owner.id !== selfId
      ? `; coordinator ${owner.id} at ${owner.host}:${owner.port} owns it`
      : '; it is moving';
  return new TideError(
    'NOT_COORDINATOR',
    `coordinator ${selfId} does not own shard ${shard} of ${what}${where}`,
  );
}

/** When a fence is checked: before the append is sent, or after it completed. */
export type FenceCheck = 'before' | 'after';

/**
 * Appends `records` to `partition` behind the lease-time fence of `states`: the error `fenceError`
 * gives for any of them is thrown before anything is sent, and again (nothing acknowledged) when
 * it appears while the append ran. Resolves with the last record's offset.
 */
export async function appendFenced<S extends OwnedShard>(
  log: OffsetsLog,
  states: readonly S[],
  partition: number,
  records: OffsetsLogRecord[],
  fenceError: (state: S, when: FenceCheck) => TideError | undefined,
): Promise<number> {
  for (const state of states) {
    const fenced = fenceError(state, 'before');
    if (fenced) throw fenced;
  }
  const offset = await log.append(partition, records);
  for (const state of states) {
    const fenced = fenceError(state, 'after');
    if (fenced) throw fenced;
  }
  return offset;
}

/** Whether `state` may be written now: not given up, and its lease certainly alive. */
export function mayWrite(state: OwnedShard): boolean {
  return state.writable && state.fence.mayAct();
}

/**
 * The replay side of the markers: which shards a replay loads, the newest marker seen so far for
 * each, and how many records it found to be a deposed owner's.
 */
export class ReplayFence {
  private readonly newestMarker = new Map<number, number>();
  private skippedRecords = 0;

  constructor(readonly shards: ReadonlySet<number>) {}

  /** Whether records of `shard` are being loaded. */
  wants(shard: number): boolean {
    return this.shards.has(shard);
  }

  /** A marker of `shard` with `coordinatorEpoch` was replayed. */
  marker(shard: number, coordinatorEpoch: number): void {
    if (!this.shards.has(shard)) return;
    this.newestMarker.set(shard, Math.max(this.newestMarker.get(shard) ?? 0, coordinatorEpoch));
  }

  /**
   * Whether a record of `shard` written under `coordinatorEpoch` is a deposed owner's (older than
   * the shard's newest marker so far); such a record is counted and must be skipped.
   */
  stale(shard: number, coordinatorEpoch: number): boolean {
    if (coordinatorEpoch >= (this.newestMarker.get(shard) ?? 0)) return false;
    this.skippedRecords++;
    return true;
  }

  get skipped(): number {
    return this.skippedRecords;
  }

  /** Logs the skipped records (once per replay, when there were any). */
  reportSkipped(logger: Logger, partition: number, message: string): void {
    if (this.skippedRecords > 0) logger.warn({ partition, skipped: this.skippedRecords }, message);
  }
}

export interface ShardLoaderOptions<Loaded> {
  clock: Clock;
  logger: Logger;
  /** What the log lines call the shards ('shards', 'transaction shards'). */
  what: string;
  /** The partition of the log that holds `shard`. */
  partitionOf: (shard: number) => number;
  /** Whether `a` is still owned under the epoch it was acquired with (and the coordinator runs). */
  stillOwned: (a: AcquiredShard) => boolean;
  /** Appends `records` to `partition` behind the fence of every shard of `shards`. */
  append: (shards: AcquiredShard[], partition: number, records: OffsetsLogRecord[]) => Promise<number>;
  /** Replays `partition` through offset `through`, keeping what `fence` says is live. */
  replay: (partition: number, through: number, fence: ReplayFence) => Promise<Loaded>;
  /** Serves what was loaded (for the shards still owned); `ms` is how long the load took. */
  activate: (shards: AcquiredShard[], loaded: Loaded, info: { partition: number; ms: number }) => void;
}

/** Loads acquired shards in the background: markers, replay, activation, retries. */
export class ShardLoader<Loaded> {
  constructor(private readonly options: ShardLoaderOptions<Loaded>) {}

  /** Starts loading `acquired` (one replay per partition); returns at once. */
  load(acquired: readonly AcquiredShard[]): void {
    const byPartition = new Map<number, AcquiredShard[]>();
    for (const a of acquired) {
      const partition = this.options.partitionOf(a.shard);
      let list = byPartition.get(partition);
      if (!list) byPartition.set(partition, (list = []));
      list.push(a);
    }
    for (const [partition, list] of byPartition) void this.loadWithRetry(partition, list);
  }

  /** Writes the shards' markers, then replays the partition through them. */
  async loadOnce(partition: number, shards: AcquiredShard[]): Promise<Loaded> {
    const nowMs = this.options.clock.nowMs();
    const through = await this.options.append(
      shards,
      partition,
      shards.map((a) => ({ key: markerKey(a.shard, a.epoch), value: markerValue(a.epoch, nowMs) })),
    );
    return this.options.replay(partition, through, new ReplayFence(new Set(shards.map((a) => a.shard))));
  }

  private async loadWithRetry(partition: number, shards: AcquiredShard[]): Promise<void> {
    const { clock, logger } = this.options;
    for (let attempt = 1; ; attempt++) {
      const pending = shards.filter((a) => this.options.stillOwned(a));
      if (pending.length === 0) return;
      const startedMs = clock.nowMs();
      try {
        const loaded = await this.loadOnce(partition, pending);
        this.options.activate(pending, loaded, { partition, ms: clock.nowMs() - startedMs });
        return;
      } catch (err) {
        const delayMs = Math.min(LOAD_RETRY_MAX_MS, 100 * 2 ** attempt);
        logger.warn({ err, partition, attempt, delayMs }, `loading ${this.options.what} failed; retrying`);
        await new Promise<void>((resolve) => clock.setTimeout(resolve, delayMs));
      }
    }
  }
}
