/**
 * A read-only, watched view of who owns which coordinator shard, for processes that route group
 * requests to coordinators without being one (brokers relaying the GroupCoordinator service). It
 * mirrors the `/coordinators/` prefix (coordinator-shards.ts documents the keys), so locating a group costs no
 * metadata-store round trip, and it tells listeners when a shard's owner key changes — a relayed
 * membership stream then ends, and its member finds the new owner.
 */
import type { Clock } from '../clock';
import { TideError } from '../errors';
import type { Logger } from '../logger';
import { mirrorPrefix, type MirrorUpdate, type PrefixMirror } from '../metadata/prefix-mirror';
import type { MetadataStore } from '../metadata/store';
import {
  CoordinatorKeys,
  decodeCoordinatorRecord,
  decodeShardCount,
  shardOf,
  type CoordinatorRecord,
} from './coordinator-shards';

export interface ShardOwnersOptions {
  store: MetadataStore;
  clusterName: string;
  clock: Clock;
  logger: Logger;
}

/** Where a group's requests go now. */
export interface GroupLocation {
  shard: number;
  owner: CoordinatorRecord;
}

export class ShardOwners {
  private readonly keys: CoordinatorKeys;
  private shardCount: number | undefined;
  private readonly owners = new Map<number, CoordinatorRecord>();
  private readonly instances = new Map<string, CoordinatorRecord>();
  private readonly listeners = new Map<number, Set<() => void>>();
  private mirror?: PrefixMirror;

  private constructor(private readonly options: ShardOwnersOptions) {
    this.keys = new CoordinatorKeys(options.clusterName);
  }

  /** Reads the current owners and follows their changes; rejects if the first read fails. */
  static async start(options: ShardOwnersOptions): Promise<ShardOwners> {
    const view = new ShardOwners(options);
    view.mirror = await mirrorPrefix(
      {
        store: options.store,
        prefix: view.keys.prefix,
        clock: options.clock,
        logger: options.logger.child({ component: 'shard-owners' }),
      },
      (update) => view.apply(update),
    );
    return view;
  }

  /**
   * The shard and owner of a group. COORDINATOR_NOT_AVAILABLE (retriable) when no coordinator
   * ever ran in this cluster, or the group's shard has no owner right now (it is moving).
   */
  locate(groupId: string): GroupLocation {
    if (this.shardCount === undefined)
      throw new TideError(
        'COORDINATOR_NOT_AVAILABLE',
        'no group coordinator has started in this cluster yet; run `tide coordinator` (tide dev runs one)',
      );
    const shard = shardOf(groupId, this.shardCount);
    const owner = this.owners.get(shard);
    if (!owner)
      throw new TideError(
        'COORDINATOR_NOT_AVAILABLE',
        `shard ${shard} of group ${groupId} has no coordinator right now (it is moving); retry shortly`,
      );
    return { shard, owner };
  }

  /** Every live coordinator instance. */
  liveInstances(): CoordinatorRecord[] {
    return [...this.instances.values()];
  }

  /** Calls `listener` once the owner key of `shard` changes (deleted, or written again). */
  onShardChange(shard: number, listener: () => void): () => void {
    let set = this.listeners.get(shard);
    if (!set) this.listeners.set(shard, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(shard) === set) this.listeners.delete(shard);
    };
  }

  async stop(): Promise<void> {
    this.listeners.clear();
    await this.mirror?.cancel();
  }

  private apply(update: MirrorUpdate): void {
    const changedShards = new Set<number>();
    for (const change of update.changes) {
      if (change.key === this.keys.config) {
        if (change.after) this.shardCount = safeShardCount(change.after, this.options.logger);
        continue;
      }
      const record = change.after && decodeCoordinatorRecord(change.after);
      const instance = this.keys.parseInstance(change.key);
      if (instance !== undefined) {
        if (record) this.instances.set(instance, record);
        else this.instances.delete(instance);
        continue;
      }
      const shard = this.keys.parseShard(change.key);
      if (shard === undefined) continue;
      if (record) this.owners.set(shard, record);
      else this.owners.delete(shard);
      changedShards.add(shard);
    }
    for (const shard of changedShards) {
      for (const listener of [...(this.listeners.get(shard) ?? [])]) listener();
    }
  }
}

function safeShardCount(value: Buffer, logger: Logger): number | undefined {
  try {
    return decodeShardCount(value);
  } catch (err) {
    logger.error({ err }, 'ignoring a malformed coordinator config key');
    return undefined;
  }
}
