/**
 * "Who coordinates group G": answered from the coordinator keys in the metadata store, so any
 * process with the store can answer it — every broker and every coordinator. Brokers register
 * `locatorHandlers()`: the GroupCoordinator service with FindCoordinator and DescribeCoordinators,
 * every other RPC answering NOT_COORDINATOR (a later change may forward them instead).
 */
import * as grpc from '@grpc/grpc-js';
import { TideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import type { MetadataStore } from '../../common/metadata/store';
import { toGrpcStatus } from '../../common/grpc/status';
import type { GroupCoordinatorHandlers } from '../../common/grpc/generated/tide/v1/GroupCoordinator';
import type { DescribeCoordinatorsResponse__Input } from '../../common/grpc/generated/tide/v1/DescribeCoordinatorsResponse';
import type { FindCoordinatorResponse__Input } from '../../common/grpc/generated/tide/v1/FindCoordinatorResponse';
import { unary, type RpcEdge } from '../../broker/api/unary';
import {
  CoordinatorKeys,
  decodeCoordinatorRecord,
  decodeShardCount,
  shardOf,
  validateGroupId,
} from '../shards';
import { coordinatorProto } from './proto';

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

/** The GroupCoordinator service as a broker serves it: lookups only. */
export function locatorHandlers(deps: { store: MetadataStore; clusterName: string; logger: Logger }): {
  definition: grpc.ServiceDefinition;
  handlers: GroupCoordinatorHandlers;
} {
  const logger = deps.logger.child({ component: 'coordinator-locator' });
  const locator = new CoordinatorLocator(deps.store, deps.clusterName);
  const notHere = (method: string) =>
    new TideError(
      'NOT_COORDINATOR',
      `brokers do not coordinate groups (${method}); call FindCoordinator and send it to the coordinator named there`,
    );
  const refuse = (method: string) => unary(logger, method, () => Promise.reject(notHere(method)));
  const handlers: GroupCoordinatorHandlers = {
    ...locatorMethods(locator, logger),
    Membership: (call) => {
      call.on('error', () => undefined);
      call.emit('error', toGrpcStatus(notHere('Membership')));
    },
    CommitOffsets: refuse('CommitOffsets'),
    FetchOffsets: refuse('FetchOffsets'),
    ListGroups: refuse('ListGroups'),
    DescribeGroup: refuse('DescribeGroup'),
    ResetOffsets: refuse('ResetOffsets'),
  };
  return { definition: coordinatorProto().GroupCoordinator.service, handlers };
}
