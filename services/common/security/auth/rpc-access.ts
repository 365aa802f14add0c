/**
 * What every RPC needs, in one table keyed by its gRPC path, so the authorization lives at the
 * server's edge (an interceptor) instead of in each handler. Kafka's mapping is followed:
 * produce = write on the topic, fetch = read, metadata and listings are filtered by describe,
 * group calls need the group (and, for offsets, the topics), cluster administration needs the
 * cluster resource. Internal RPCs (replication, controller calls, transaction markers) accept
 * internal principals only.
 *
 * An RPC missing from the table is refused to everyone but super users, and the unit test
 * `rpc-access.test.ts` fails for it: a new RPC cannot ship without deciding its check.
 */
import { CLUSTER_RESOURCE, type AccessRequest, type Operation, type ResourceType } from './acl';

/** One thing a call needs; when several alternatives are given, any one suffices. */
export type Need = AccessRequest | { anyOf: Alternative[] };
/** A request on a named resource, or (name undefined) on some resource of the type. */
export type Alternative =
  AccessRequest | { resourceType: ResourceType; operation: Operation; name?: undefined };

/** Answers whether the caller may perform one request. */
export type Can = (request: AccessRequest) => boolean;

export type RpcRule =
  /** Health and reflection: answered even to unauthenticated callers (kubelet probes). */
  | { kind: 'public' }
  /** Service-to-service calls: internal principals only. */
  | { kind: 'internal' }
  | {
      kind: 'client';
      /** What each received message needs (a message needing nothing is passed on). */
      needs?: (message: Record<string, unknown>) => Need[];
      /** Removes from each response what the caller may not describe. */
      filter?: (message: Record<string, unknown>, can: Can) => Record<string, unknown>;
    };

const topic = (name: unknown, operation: Operation): AccessRequest => ({
  resourceType: 'topic',
  name: String(name ?? ''),
  operation,
});
const group = (name: unknown, operation: Operation): AccessRequest => ({
  resourceType: 'group',
  name: String(name ?? ''),
  operation,
});
const transactionalId = (name: unknown, operation: Operation): AccessRequest => ({
  resourceType: 'transactional_id',
  name: String(name ?? ''),
  operation,
});
const cluster = (operation: Operation): AccessRequest => ({
  resourceType: 'cluster',
  name: CLUSTER_RESOURCE,
  operation,
});

function unique(requests: AccessRequest[]): AccessRequest[] {
  const seen = new Map<string, AccessRequest>();
  for (const r of requests) seen.set(`${r.resourceType}\0${r.name}\0${r.operation}`, r);
  return [...seen.values()];
}

type Message = Record<string, unknown>;
const list = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

const clusterOnly = (operation: Operation) => (): Need[] => [cluster(operation)];

/** Metadata answers (also WatchMetadata's): only topics the caller may describe. */
function filterMetadata(message: Message, can: Can): Message {
  const topics = list<{ name?: string }>(message['topics']);
  return { ...message, topics: topics.filter((t) => can(topic(t.name, 'describe'))) };
}

function produceNeeds(m: Record<string, unknown>): AccessRequest[] {
  const needs = [topic(m['topic'], 'write')];
  if (m['transactional_id']) needs.push(transactionalId(m['transactional_id'], 'write'));
  return needs;
}

/** FetchStream and FetchStreamMulti: read on every topic a position names. */
function fetchStreamNeeds(m: Record<string, unknown>): AccessRequest[] {
  return unique(list<{ topic?: string }>(m['positions']).map((p) => topic(p.topic, 'read')));
}

const PUBLIC = { kind: 'public' } as const;
const INTERNAL = { kind: 'internal' } as const;

export const RPC_RULES: Record<string, RpcRule> = {
  // tide.v1.Broker
  // A transactional produce names its transactional id (the leader adds the partition to that
  // transaction): write on the id too, as Kafka's Produce with a transactional id needs.
  '/tide.v1.Broker/Produce': { kind: 'client', needs: produceNeeds },
  '/tide.v1.Broker/ProduceStream': { kind: 'client', needs: produceNeeds },
  '/tide.v1.Broker/Fetch': { kind: 'client', needs: (m) => [topic(m['topic'], 'read')] },
  '/tide.v1.Broker/FetchStream': { kind: 'client', needs: fetchStreamNeeds },
  '/tide.v1.Broker/FetchStreamMulti': { kind: 'client', needs: fetchStreamNeeds },
  '/tide.v1.Broker/ListOffsets': { kind: 'client', needs: (m) => [topic(m['topic'], 'describe')] },
  '/tide.v1.Broker/Metadata': { kind: 'client', filter: filterMetadata },
  '/tide.v1.Broker/WatchMetadata': { kind: 'client', filter: filterMetadata },
  '/tide.v1.Broker/InitProducerId': {
    kind: 'client',
    needs: (m) =>
      m['transactional_id']
        ? [{ resourceType: 'transactional_id', name: String(m['transactional_id']), operation: 'write' }]
        : // Kafka: an idempotent producer needs idempotent_write on the cluster, or write on some topic.
          [{ anyOf: [cluster('idempotent_write'), { resourceType: 'topic', operation: 'write' }] }],
  },

  // tide.v1.Admin
  '/tide.v1.Admin/CreateTopic': {
    kind: 'client',
    needs: (m) => [{ anyOf: [cluster('create'), topic(m['name'], 'create')] }],
  },
  '/tide.v1.Admin/DeleteTopic': { kind: 'client', needs: (m) => [topic(m['name'], 'delete')] },
  '/tide.v1.Admin/ListTopics': {
    kind: 'client',
    filter: (m, can) => ({ ...m, names: list<string>(m['names']).filter((n) => can(topic(n, 'describe'))) }),
  },
  '/tide.v1.Admin/DescribeTopic': { kind: 'client', needs: (m) => [topic(m['name'], 'describe')] },
  '/tide.v1.Admin/DescribeConfigs': { kind: 'client', needs: (m) => [topic(m['topic'], 'describe_configs')] },
  '/tide.v1.Admin/AlterConfigs': { kind: 'client', needs: (m) => [topic(m['topic'], 'alter_configs')] },
  '/tide.v1.Admin/DescribeCluster': { kind: 'client', needs: clusterOnly('describe') },
  '/tide.v1.Admin/CreatePartitions': { kind: 'client', needs: (m) => [topic(m['topic'], 'alter')] },
  '/tide.v1.Admin/AlterPartitionReassignments': { kind: 'client', needs: clusterOnly('alter') },
  '/tide.v1.Admin/ListPartitionReassignments': { kind: 'client', needs: clusterOnly('describe') },
  '/tide.v1.Admin/DecommissionBroker': { kind: 'client', needs: clusterOnly('alter') },
  '/tide.v1.Admin/RecommissionBroker': { kind: 'client', needs: clusterOnly('alter') },
  '/tide.v1.Admin/DescribeDecommission': { kind: 'client', needs: clusterOnly('describe') },
  '/tide.v1.Admin/CreateAcls': { kind: 'client', needs: clusterOnly('alter') },
  '/tide.v1.Admin/DescribeAcls': { kind: 'client', needs: clusterOnly('describe') },
  '/tide.v1.Admin/DeleteAcls': { kind: 'client', needs: clusterOnly('alter') },
  '/tide.v1.Admin/AlterClientQuotas': { kind: 'client', needs: clusterOnly('alter') },
  '/tide.v1.Admin/DescribeClientQuotas': { kind: 'client', needs: clusterOnly('describe') },
  // Application metadata belongs to the application's consumer group: whoever may join the group
  // (read) may record it, describe reads it, delete removes it.
  '/tide.v1.Admin/PutApplicationMetadata': {
    kind: 'client',
    needs: (m) => [group(m['application'], 'read')],
  },
  '/tide.v1.Admin/GetApplicationMetadata': {
    kind: 'client',
    needs: (m) => [group(m['application'], 'describe')],
  },
  '/tide.v1.Admin/ListApplicationMetadata': {
    kind: 'client',
    needs: (m) => (m['application'] ? [group(m['application'], 'describe')] : []),
    filter: (m, can) => ({
      ...m,
      entries: list<{ application?: string }>(m['entries']).filter((e) =>
        can(group(e.application, 'describe')),
      ),
    }),
  },
  '/tide.v1.Admin/DeleteApplicationMetadata': {
    kind: 'client',
    needs: (m) => [group(m['application'], 'delete')],
  },
  // Kafka: DeleteRecords needs delete on the topic.
  '/tide.v1.Admin/DeleteRecords': { kind: 'client', needs: (m) => [topic(m['topic'], 'delete')] },

  // tide.v1.GroupCoordinator
  '/tide.v1.GroupCoordinator/FindCoordinator': {
    kind: 'client',
    needs: (m) => [group(m['group_id'], 'describe')],
  },
  '/tide.v1.GroupCoordinator/DescribeCoordinators': { kind: 'client', needs: clusterOnly('describe') },
  '/tide.v1.GroupCoordinator/Membership': {
    kind: 'client',
    // The join names the group; heartbeats, acks and leaves belong to the stream's joined group.
    needs: (m) => {
      const join = m['join'] as Message | undefined | null;
      return join ? [group(join['group_id'], 'read')] : [];
    },
  },
  '/tide.v1.GroupCoordinator/CommitOffsets': {
    kind: 'client',
    needs: (m) =>
      unique([
        group(m['group_id'], 'read'),
        ...list<{ topic?: string }>(m['offsets']).map((o) => topic(o.topic, 'read')),
      ]),
  },
  '/tide.v1.GroupCoordinator/FetchOffsets': {
    kind: 'client',
    needs: (m) =>
      unique([
        group(m['group_id'], 'describe'),
        ...list<{ topic?: string }>(m['partitions']).map((p) => topic(p.topic, 'describe')),
      ]),
    filter: (m, can) => ({
      ...m,
      offsets: list<{ topic?: string }>(m['offsets']).filter((o) => can(topic(o.topic, 'describe'))),
    }),
  },
  '/tide.v1.GroupCoordinator/ListGroups': {
    kind: 'client',
    filter: (m, can) => ({
      ...m,
      groups: list<{ group_id?: string }>(m['groups']).filter((g) => can(group(g.group_id, 'describe'))),
    }),
  },
  '/tide.v1.GroupCoordinator/DescribeGroup': {
    kind: 'client',
    needs: (m) => [group(m['group_id'], 'describe')],
  },
  '/tide.v1.GroupCoordinator/ResetOffsets': {
    kind: 'client',
    needs: (m) =>
      unique([
        group(m['group_id'], 'read'),
        ...list<string>(m['topics']).map((t) => topic(t, 'read')),
        ...list<{ topic?: string }>(m['partitions']).map((p) => topic(p.topic, 'read')),
      ]),
  },
  '/tide.v1.GroupCoordinator/DeleteGroup': { kind: 'client', needs: (m) => [group(m['group_id'], 'delete')] },

  // tide.v1.StreamsQuery is served by streams application instances (TLS and mTLS, no tokens yet),
  // never by Tide's services. Should a service ever front it: describing the application's group.
  '/tide.v1.StreamsQuery/Get': { kind: 'client', needs: (m) => [group(m['application_id'], 'describe')] },
  '/tide.v1.StreamsQuery/All': { kind: 'client', needs: (m) => [group(m['application_id'], 'describe')] },
  '/tide.v1.StreamsQuery/Range': { kind: 'client', needs: (m) => [group(m['application_id'], 'describe')] },
  '/tide.v1.StreamsQuery/FetchWindows': {
    kind: 'client',
    needs: (m) => [group(m['application_id'], 'describe')],
  },
  '/tide.v1.StreamsQuery/DescribeInstances': {
    kind: 'client',
    needs: (m) => [group(m['application_id'], 'describe')],
  },

  // tide.v1.TransactionCoordinator (Kafka's rules: the transactional id, plus the topics written
  // and the group whose offsets join the transaction)
  '/tide.v1.TransactionCoordinator/FindTransactionCoordinator': {
    kind: 'client',
    needs: (m) => [transactionalId(m['transactional_id'], 'describe')],
  },
  '/tide.v1.TransactionCoordinator/InitTransactions': {
    kind: 'client',
    needs: (m) => [transactionalId(m['transactional_id'], 'write')],
  },
  '/tide.v1.TransactionCoordinator/AddPartitionsToTxn': {
    kind: 'client',
    needs: (m) =>
      unique([
        transactionalId(m['transactional_id'], 'write'),
        ...list<{ topic?: string }>(m['partitions']).map((p) => topic(p.topic, 'write')),
      ]),
  },
  '/tide.v1.TransactionCoordinator/AddOffsetsToTxn': {
    kind: 'client',
    needs: (m) => [transactionalId(m['transactional_id'], 'write'), group(m['group_id'], 'read')],
  },
  '/tide.v1.TransactionCoordinator/TxnOffsetCommit': {
    kind: 'client',
    needs: (m) =>
      unique([
        transactionalId(m['transactional_id'], 'write'),
        group(m['group_id'], 'read'),
        ...list<{ topic?: string }>(m['offsets']).map((o) => topic(o.topic, 'read')),
      ]),
  },
  '/tide.v1.TransactionCoordinator/EndTxn': {
    kind: 'client',
    needs: (m) => [transactionalId(m['transactional_id'], 'write')],
  },
  // Checked per message: each carries one EndTxnRequest.
  '/tide.v1.TransactionCoordinator/EndTxnStream': {
    kind: 'client',
    needs: (m) => [
      transactionalId((m['request'] as { transactional_id?: unknown } | null)?.transactional_id, 'write'),
    ],
  },
  '/tide.v1.TransactionCoordinator/ListTransactions': {
    kind: 'client',
    filter: (m, can) => ({
      ...m,
      transactions: list<{ transactional_id?: string }>(m['transactions']).filter((t) =>
        can(transactionalId(t.transactional_id, 'describe')),
      ),
    }),
  },
  '/tide.v1.TransactionCoordinator/DescribeTransaction': {
    kind: 'client',
    needs: (m) => [transactionalId(m['transactional_id'], 'describe')],
  },

  // Internal services
  '/tide.v1.internal.TxnOffsets/CompleteTxnOffsets': INTERNAL,
  '/tide.v1.Controller/AlterPartition': INTERNAL,
  '/tide.v1.Controller/ControlledShutdown': INTERNAL,
  '/tide.v1.Controller/CreateInternalTopic': INTERNAL,
  '/tide.v1.Controller/ReportLeaderUnreachable': INTERNAL,
  '/tide.v1.Controller/ReportReplicaOffline': INTERNAL,
  '/tide.v1.internal.Replication/Replicate': INTERNAL,
  '/tide.v1.internal.TxnMarkers/WriteTxnMarkers': INTERNAL,
  '/tide.v1.internal.TxnMarkers/WriteTxnMarkersStream': INTERNAL,
  '/tide.v1.internal.TxnJoins/JoinStream': INTERNAL,

  // Standard services
  '/grpc.health.v1.Health/Check': PUBLIC,
  '/grpc.health.v1.Health/Watch': PUBLIC,
  '/grpc.reflection.v1.ServerReflection/ServerReflectionInfo': PUBLIC,
  '/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo': PUBLIC,
};

/** The rule of a path; undefined = not in the table (refused to all but super users). */
export function ruleOf(path: string): RpcRule | undefined {
  return Object.prototype.hasOwnProperty.call(RPC_RULES, path) ? RPC_RULES[path] : undefined;
}
