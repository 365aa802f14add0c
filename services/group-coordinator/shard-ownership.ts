/**
 * Which shards this coordinator instance owns, through leased keys in the metadata store (modelled
 * on the controller election, services/controller/election.ts, one key per shard):
 *
 * - The instance registers `/coordinators/instances/<id>` under its lease, and mirrors the whole
 *   `/coordinators/` prefix (instances and shard keys).
 * - Each shard's desired owner is the rendezvous-hash winner among live instances (shards.ts).
 * - Take = ONE transaction: create `/coordinators/shards/<n>` under this instance's lease only if
 *   absent (createRevision = 0). A new owner therefore takes a shard only after the previous
 *   owner deleted the key (a graceful handoff) or its lease lapsed (a crash): never while it may
 *   still serve. The key's createRevision is the shard epoch, written into every record of the
 *   offsets topic so a deposed owner's late writes are ignored on replay.
 * - Give up = stop serving the shard first (`onRelease` resolves), then delete the key if it is
 *   still ours (createRevision == epoch).
 * - Lease lost (etcd unreachable for a TTL): every shard is dropped locally at once (its successor
 *   may take it as soon as etcd expires the lease), then the instance registers again.
 * - Every lease gets a LeaseFence, handed out with each shard taken under it: the coordinator
 *   checks it before (and after) every write of the shard, so a paused instance that wakes past
 *   its lease writes nothing, even before the loss is noticed (coordinator.ts).
 *
 * Reconciliation runs after every change of the mirrored prefix, serialized, and again every
 * `retryDelayMs` after a store error.
 */
import type { Clock, Timer } from '../common/clock';
import { LeaseFence } from '../common/lease-fence';
import type { Logger } from '../common/logger';
import { mirrorPrefix, type PrefixMirror } from '../common/metadata/prefix-mirror';
import type { Lease, MetadataStore } from '../common/metadata/store';
import {
  CoordinatorKeys,
  decodeCoordinatorRecord,
  decodeShardCount,
  desiredOwner,
  encodeCoordinatorRecord,
  encodeShardCount,
  type CoordinatorRecord,
} from '../common/cluster/coordinator-shards';

export const DEFAULT_COORDINATOR_LEASE_TTL_MS = 10_000;
export const DEFAULT_OWNERSHIP_RETRY_DELAY_MS = 1_000;

export interface AcquiredShard {
  shard: number;
  /** The shard epoch (createRevision of the shard key). */
  epoch: number;
  /**
   * The fence of the lease the shard was taken under: mayAct() is false once that lease is lost or
   * may have expired (a later lease of this instance does not revive it).
   */
  fence: LeaseFence;
}

export interface ShardOwnershipOptions {
  store: MetadataStore;
  clusterName: string;
  self: CoordinatorRecord;
  /** Used only when the cluster has no shard count yet (the first instance writes it). */
  shardCount: number;
  clock: Clock;
  logger: Logger;
  leaseTtlMs?: number;
  retryDelayMs?: number;
  /** Shards this instance now owns; serve their groups once loaded. */
  onAcquire: (shards: AcquiredShard[]) => void;
  /**
   * Stop serving a shard. `graceful` is false when the lease was lost (the key may already be
   * someone else's): drop everything at once, write nothing more. Resolves when stopped.
   */
  onRelease: (shard: number, graceful: boolean) => Promise<void>;
}

export class ShardOwnership {
  readonly keys: CoordinatorKeys;
  private readonly logger: Logger;
  private shards = 0;
  private lease?: Lease;
  private fence?: LeaseFence;
  private mirror?: PrefixMirror;
  private view: ReadonlyMap<string, Buffer> = new Map();
  private readonly owned = new Map<number, number>();
  private running = false;
  private again = false;
  private stopped = false;
  private retryTimer?: Timer;

  constructor(private readonly options: ShardOwnershipOptions) {
    this.keys = new CoordinatorKeys(options.clusterName);
    this.logger = options.logger.child({ component: 'shard-ownership', coordinator: options.self.id });
  }

  /** The cluster's shard count (known after start()). */
  get shardCount(): number {
    return this.shards;
  }

  /** Shards owned now, with their epochs. */
  ownedShards(): ReadonlyMap<number, number> {
    return this.owned;
  }

  /** The owner of a shard as this instance last saw it (itself included). */
  ownerOf(shard: number): CoordinatorRecord | undefined {
    const value = this.view.get(this.keys.shard(shard));
    return value && decodeCoordinatorRecord(value);
  }

  /** Live instances as last seen. */
  instances(): CoordinatorRecord[] {
    const out: CoordinatorRecord[] = [];
    for (const [key, value] of this.view) {
      if (this.keys.parseInstance(key) === undefined) continue;
      const record = decodeCoordinatorRecord(value);
      if (record) out.push(record);
    }
    return out.sort((a, b) => (a.id < b.id ? -1 : 1));
  }

  /** Reads (or writes) the shard count, registers, starts mirroring, and takes the first shards. */
  async start(): Promise<void> {
    this.shards = await this.readShardCount();
    await this.register();
    this.mirror = await mirrorPrefix(
      { store: this.options.store, prefix: this.keys.prefix, clock: this.options.clock, logger: this.logger },
      (update) => {
        this.view = update.current;
        this.schedule();
      },
    );
    await this.reconcileNow();
  }

  /**
   * Leaves: deregisters (so others start aiming at our shards), hands every shard over
   * gracefully, and revokes the lease.
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.retryTimer?.cancel();
    await this.options.store.delete(this.keys.instance(this.options.self.id)).catch(() => undefined);
    while (this.running) await new Promise((r) => setTimeout(r, 10));
    await Promise.all([...this.owned.keys()].map((shard) => this.release(shard)));
    await this.mirror?.cancel().catch(() => undefined);
    const lease = this.lease;
    this.lease = undefined;
    this.fence = undefined;
    await lease?.revoke().catch(() => undefined);
    this.logger.info('left the coordinator shard ring');
  }

  // ---------------------------------------------------------------- internals

  private async readShardCount(): Promise<number> {
    const key = this.keys.config;
    const result = await this.options.store.txn(
      [{ key, target: 'createRevision', op: '=', value: 0 }],
      [{ type: 'put', key, value: encodeShardCount(this.options.shardCount) }],
      [{ type: 'get', key }],
    );
    if (result.succeeded) return this.options.shardCount;
    const count = decodeShardCount(result.gets[0]!.value);
    if (count !== this.options.shardCount)
      this.logger.warn(
        { configured: this.options.shardCount, stored: count },
        "using the cluster's stored shard count",
      );
    return count;
  }

  private async register(): Promise<void> {
    const lease = await this.options.store.grantLease(
      this.options.leaseTtlMs ?? DEFAULT_COORDINATOR_LEASE_TTL_MS,
    );
    this.lease = lease;
    this.fence = this.fenceFor(lease);
    lease.onLost((reason) => this.onLeaseLost(lease, reason));
    await this.options.store.put(
      this.keys.instance(this.options.self.id),
      encodeCoordinatorRecord(this.options.self),
      {
        lease: lease.id,
      },
    );
    this.logger.info({ leaseId: lease.id, shardCount: this.shards }, 'coordinator registered');
  }

  /**
   * A lease whose store cannot tell its deadline (the embedded store: in-process, keep-alives
   * cannot fail) is fenced by its loss only; one that can is fenced from its deadline on, and once
   * it has ended in any way (validUntilMs() undefined: revoked, released, lost).
   */
  private fenceFor(lease: Lease): LeaseFence {
    const validUntil = lease.validUntilMs?.bind(lease);
    return new LeaseFence({
      clock: this.options.clock,
      logger: this.logger,
      validUntilMs: validUntil && (() => validUntil() ?? -Infinity),
      refuses: `writes to __consumer_offsets under lease ${lease.id}`,
    });
  }

  private onLeaseLost(lease: Lease, reason: Error): void {
    if (lease !== this.lease || this.stopped) return;
    this.fence?.lost(reason);
    this.lease = undefined;
    this.fence = undefined;
    this.logger.warn(
      { err: reason, shards: [...this.owned.keys()] },
      'coordinator lease lost: dropping every shard',
    );
    const shards = [...this.owned.keys()];
    this.owned.clear();
    for (const shard of shards) void this.options.onRelease(shard, false);
    this.register().then(
      () => this.schedule(),
      (err: unknown) => {
        this.logger.error({ err }, 'cannot register again; retrying');
        this.scheduleRetry();
      },
    );
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    void this.reconcileNow();
  }

  private scheduleRetry(): void {
    this.retryTimer?.cancel();
    this.retryTimer = this.options.clock.setTimeout(() => {
      this.retryTimer = undefined;
      if (!this.lease && !this.stopped) {
        this.register().then(
          () => this.schedule(),
          () => this.scheduleRetry(),
        );
        return;
      }
      this.schedule();
    }, this.options.retryDelayMs ?? DEFAULT_OWNERSHIP_RETRY_DELAY_MS);
  }

  private async reconcileNow(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      do {
        this.again = false;
        await this.reconcileOnce();
      } while (this.again && !this.stopped);
    } catch (err) {
      this.logger.warn({ err }, 'shard reconciliation failed; retrying');
      this.scheduleRetry();
    } finally {
      this.running = false;
    }
  }

  private async reconcileOnce(): Promise<void> {
    const lease = this.lease;
    const fence = this.fence;
    if (!lease || !fence || this.stopped) return;
    const live = this.instances().map((i) => i.id);
    const self = this.options.self.id;
    const releases: Promise<void>[] = [];
    const takes: Promise<AcquiredShard | undefined>[] = [];
    for (let shard = 0; shard < this.shards; shard++) {
      const desired = desiredOwner(shard, live);
      const holder = this.view.get(this.keys.shard(shard));
      if (this.owned.has(shard)) {
        if (desired !== self) releases.push(this.release(shard));
        continue;
      }
      if (desired !== self || holder !== undefined) continue;
      takes.push(this.take(shard, lease, fence));
    }
    await Promise.all(releases);
    const acquired = (await Promise.all(takes)).filter((a): a is AcquiredShard => a !== undefined);
    if (acquired.length > 0 && this.lease === lease && !this.stopped) {
      this.logger.info({ shards: acquired.map((a) => a.shard) }, 'took shards');
      this.options.onAcquire(acquired);
    }
  }

  private async take(shard: number, lease: Lease, fence: LeaseFence): Promise<AcquiredShard | undefined> {
    const key = this.keys.shard(shard);
    const result = await this.options.store.txn(
      [{ key, target: 'createRevision', op: '=', value: 0 }],
      [{ type: 'put', key, value: encodeCoordinatorRecord(this.options.self), lease: lease.id }],
      [{ type: 'get', key }],
    );
    let epoch: number | undefined;
    if (result.succeeded) epoch = result.revision;
    else if (result.gets[0]?.lease === lease.id) epoch = result.gets[0].createRevision; // an earlier answer lost
    if (epoch === undefined || this.lease !== lease) return undefined;
    this.owned.set(shard, epoch);
    return { shard, epoch, fence };
  }

  private async release(shard: number): Promise<void> {
    const epoch = this.owned.get(shard);
    if (epoch === undefined) return;
    this.owned.delete(shard);
    try {
      await this.options.onRelease(shard, true);
    } finally {
      await this.options.store
        .txn(
          [{ key: this.keys.shard(shard), target: 'createRevision', op: '=', value: epoch }],
          [{ type: 'delete', key: this.keys.shard(shard) }],
        )
        .catch((err: unknown) =>
          this.logger.warn({ err, shard }, 'could not delete the shard key; it lapses with the lease'),
        );
      this.logger.info({ shard, epoch }, 'handed a shard over');
    }
  }
}
