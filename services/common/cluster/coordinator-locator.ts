/**
 * "Who coordinates group G": answered from the coordinator keys in the metadata store, so any
 * process with the store can answer it — every broker and every coordinator. Brokers serve these
 * two next to their relay of the rest of the service (services/broker/api/coordinator-forward.ts).
 */
import { TideError } from '../errors';
import type { MetadataStore } from '../metadata/store';
import type { GroupCoordinatorHandlers } from '../grpc/generated/tide/v1/GroupCoordinator';
import type { DescribeCoordinatorsResponse__Input } from '../grpc/generated/tide/v1/DescribeCoordinatorsResponse';
import type { FindCoordinatorResponse__Input } from '../grpc/generated/tide/v1/FindCoordinatorResponse';
import { unary, type RpcEdge } from '../grpc/unary';
import {
  CoordinatorKeys,
  decodeCoordinatorRecord,
  decodeShardCount,
  shardOf,
  validateGroupId,
} from './coordinator-shards';

export class CoordinatorLocator {
  private readonly keys: CoordinatorKeys;
  private shardCount?: number;

  constructor(
    private readonly store: MetadataStore,
    clusterName: string,
  ) {
    this.keys = new CoordinatorKeys(clusterName);
  }

  /** COORDINATOR_NOT_AVAILABLE when no coordinator ever ran, or the group's shard has no owner now. */
  async find(groupId: string): Promise<FindCoordinatorResponse__Input> {
    const shardCount = await this.readShardCount();
    const shard = shardOf(groupId, shardCount);
    const kv = await this.store.get(this.keys.shard(shard));
    const owner = kv && decodeCoordinatorRecord(kv.value);
    if (!owner) {
      throw new TideError(
        'COORDINATOR_NOT_AVAILABLE',
        `shard ${shard} of group ${groupId} has no coordinator right now (it is moving, or no \`tide coordinator\` runs)`,
      );
    }
    return { coordinator: owner, shard, shard_count: shardCount };
  }

  async describe(): Promise<DescribeCoordinatorsResponse__Input> {
    const range = await this.store.getPrefix(this.keys.prefix);
    const coordinators = [];
    const shards = [];
    let shardCount = 0;
    for (const kv of range.kvs) {
      if (kv.key === this.keys.config) {
        shardCount = decodeShardCount(kv.value);
        continue;
      }
      const record = decodeCoordinatorRecord(kv.value);
      if (!record) continue;
      if (this.keys.parseInstance(kv.key) !== undefined) coordinators.push(record);
      const shard = this.keys.parseShard(kv.key);
      if (shard !== undefined) shards.push({ shard, coordinator_id: record.id, epoch: kv.createRevision });
    }
    shards.sort((a, b) => a.shard - b.shard);
    return { coordinators, shards, shard_count: shardCount };
  }

  private async readShardCount(): Promise<number> {
    if (this.shardCount !== undefined) return this.shardCount;
    const kv = await this.store.get(this.keys.config);
    if (!kv) {
      throw new TideError(
        'COORDINATOR_NOT_AVAILABLE',
        'no group coordinator has started in this cluster yet; run `tide coordinator` (tide dev runs one)',
      );
    }
    this.shardCount = decodeShardCount(kv.value);
    return this.shardCount;
  }
}

/** FindCoordinator and DescribeCoordinators as unary handlers. */
export function locatorMethods(
  locator: CoordinatorLocator,
  edge: RpcEdge,
): Pick<GroupCoordinatorHandlers, 'FindCoordinator' | 'DescribeCoordinators'> {
  return {
    FindCoordinator: unary(edge, 'FindCoordinator', (req: { group_id: string }) =>
      locator.find(validateGroupId(req.group_id)),
    ),
    DescribeCoordinators: unary(edge, 'DescribeCoordinators', () => locator.describe()),
  };
}
