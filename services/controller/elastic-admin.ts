/**
 * The controller's implementation of the Admin API's elastic operations (elastic-operations.ts):
 * adding partitions through the topic manager, moves and decommissions through the reassigner.
 * `tide dev` (no controller loop) gets only partitionAdmin.
 */
import type { ElasticAdmin, PartitionAdmin } from '../common/cluster/elastic-operations';
import { toTopicInfo } from '../common/cluster/admin-wire';
import { refuseReservedName } from '../common/cluster/topic-name';
import type { Reassigner } from './reassigner';
import type { TopicManager } from './topic-manager';

export function partitionAdmin(manager: TopicManager): PartitionAdmin {
  return {
    async createPartitions(topic, count, validateOnly) {
      refuseReservedName(topic);
      return toTopicInfo(await manager.createPartitions(topic, count, { validateOnly }));
    },
  };
}

export function elasticAdmin(manager: TopicManager, reassigner: Reassigner): Required<ElasticAdmin> {
  return {
    ...partitionAdmin(manager),
    alterReassignments: (entries, validateOnly) => reassigner.alterReassignments(entries, validateOnly),
    listReassignments: (topics) => reassigner.listReassignments(topics),
    decommissionBroker: (id) => reassigner.decommission(id),
    recommissionBroker: (id) => reassigner.recommission(id),
    describeDecommission: (id) => reassigner.describeDecommission(id),
  };
}
