/**
 * Tide's TypeScript client: the curated public API.
 *
 *   const tide = new Tide({ bootstrap: ['127.0.0.1:9092'] });
 *   const producer = tide.producer();
 *   await producer.send('events', { key: 'user-42', value: 'hello' });
 *   await producer.sendBatch('events', values);          // bulk: one promise, typed-array offsets
 *   const consumer = tide.consumer({ autoOffsetReset: 'earliest' });
 *   consumer.assign([{ topic: 'events', partition: 0 }]);
 *   for await (const batch of consumer.batches()) { ... }  // or: for await (const record of consumer)
 *   const member = tide.consumer({ groupId: 'billing' });  // a consumer group member
 *   member.subscribe(['events']);
 *   for await (const record of member) { ... }             // offsets auto-committed every 5 s
 *   await tide.groups().describeGroup('billing');          // members, assignment, lag
 *   await tide.admin().createTopic('events', { partitions: 3 });
 *   await tide.close();
 *
 * Layers (each usable alone): net/connection.ts (grpc-js channels) → net/wire.ts and the streams
 * (protocol) → net/broker-calls.ts (every request: deadlines, error mapping) → cluster.ts
 * (bootstrap, metadata, routing) → producer/ / consumer/ / admin.ts / group/
 * (docs/architecture.md, "The client's layers"). Errors are TideError with `code` and `retriable`.
 */
import type { Clock } from '../services/common/clock';
import { silentLogger, type Logger } from '../services/common/logger';
import { Admin, type AdminOptions } from './admin';
import { Cluster, type Routing } from './cluster';
import type { ConnectionOptions } from './net/connection';
import { Consumer, type ConsumerOptions } from './consumer';
import { CoordinatorClient } from './group/coordinator-client';
import { GroupAdmin } from './group/group-admin';
import { GroupConsumer, type GroupConsumerOptions } from './group/group-consumer';
import { Producer, type ProducerOptions } from './producer';
import { TransactionalProducer, type TransactionalProducerOptions } from './producer/transactional-producer';
import { TransactionAdmin } from './transactions-admin';
import { clientCredentialsOf, type ClientSecurityOptions } from './net/security';

export interface TideOptions {
  /** Broker addresses 'host:port', tried in order until one answers. */
  bootstrap: string[];
  clientId?: string;
  logger?: Logger;
  /**
   * 'auto' (default): direct, unless advertised broker or coordinator addresses are unreachable
   * from here — then through the bootstrap broker. 'direct': to partition leaders and group
   * coordinators. 'bootstrap': everything (groups included) through the first reachable bootstrap
   * broker, which forwards it.
   */
  routing?: Routing;
  /** Deadline of unary requests (metadata, offsets, admin). Default 30 s. */
  requestTimeoutMs?: number;
  connectTimeoutMs?: number;
  metadataMaxAgeMs?: number;
  connection?: ConnectionOptions;
  clock?: Clock;
  /** TLS and bearer token (docs/security.md); plain text by default. */
  security?: ClientSecurityOptions;
}

/** One cluster connection shared by the producers, consumers and admin clients made from it. */
export class Tide {
  readonly cluster: Cluster;
  private readonly clients = new Set<{ close(): Promise<void> }>();
  private adminClient: Admin | undefined;
  private coordinatorClient: CoordinatorClient | undefined;
  private readonly connectionOptions: ConnectionOptions | undefined;
  private readonly closeSecurity: () => void;

  constructor(options: TideOptions) {
    const security = clientCredentialsOf(options.security ?? {}, options.logger ?? silentLogger());
    this.closeSecurity = () => security.close();
    this.connectionOptions = security.credentials
      ? { ...options.connection, credentials: security.credentials }
      : options.connection;
    this.cluster = new Cluster({
      bootstrap: options.bootstrap,
      routing: options.routing,
      clientId: options.clientId,
      logger: options.logger,
      clock: options.clock,
      connection: this.connectionOptions,
      requestTimeoutMs: options.requestTimeoutMs,
      connectTimeoutMs: options.connectTimeoutMs,
      metadataMaxAgeMs: options.metadataMaxAgeMs,
    });
  }

  /** Connects to the first reachable bootstrap broker (optional: clients connect lazily). */
  connect(): Promise<void> {
    return this.cluster.connect();
  }

  /**
   * A producer. With `transactionalId`, a transactional one (docs/transactions.md): call
   * `initTransactions()` once, then `transaction(async (tx) => ...)` or begin/commit/abort.
   */
  producer(options: TransactionalProducerOptions): TransactionalProducer;
  producer(options?: ProducerOptions): Producer;
  producer(options: ProducerOptions | TransactionalProducerOptions = {}): Producer | TransactionalProducer {
    if ('transactionalId' in options && options.transactionalId !== undefined) {
      const transactional = new TransactionalProducer(this.cluster, this.coordinators(), options);
      this.clients.add(transactional);
      return transactional;
    }
    const producer = new Producer(this.cluster, options);
    this.clients.add(producer);
    return producer;
  }

  /**
   * A consumer. With `groupId`, a member of that consumer group: call `subscribe(topics)`, then
   * iterate; on Kubernetes its static instance id defaults to the pod name (HOSTNAME).
   */
  consumer(options: GroupConsumerOptions): GroupConsumer;
  consumer(options?: ConsumerOptions): Consumer;
  consumer(options: ConsumerOptions | GroupConsumerOptions = {}): Consumer | GroupConsumer {
    if ('groupId' in options && options.groupId !== undefined) {
      const member = new GroupConsumer(this.cluster, this.coordinators(), {
        ...options,
        instanceId: options.instanceId ?? defaultInstanceId(process.env),
      });
      this.clients.add(member);
      return member;
    }
    const consumer = new Consumer(this.cluster, options);
    this.clients.add(consumer);
    return consumer;
  }

  /** Transaction administration (list, describe). */
  transactions(): TransactionAdmin {
    return new TransactionAdmin(this.coordinators());
  }

  /** Consumer group administration (list, describe with lag, reset offsets). */
  groups(): GroupAdmin {
    return new GroupAdmin(this.coordinators());
  }

  /** The admin client (one per Tide). */
  admin(options: AdminOptions = {}): Admin {
    this.adminClient ??= new Admin(this.cluster, options);
    return this.adminClient;
  }

  /** Flushes and closes every producer, closes every consumer, then the connections. */
  async close(): Promise<void> {
    const clients = [...this.clients];
    this.clients.clear();
    try {
      await Promise.allSettled(clients.map((c) => c.close()));
    } finally {
      this.coordinatorClient?.close();
      this.cluster.close();
      this.closeSecurity();
    }
  }

  /**
   * The shared way to group coordinators (lookup cache, channels to coordinators, relay routing
   * through the bootstrap broker when coordinators are unreachable).
   */
  coordinators(): CoordinatorClient {
    this.coordinatorClient ??= new CoordinatorClient(this.cluster, this.connectionOptions);
    return this.coordinatorClient;
  }
}

/** The static member id a group consumer uses by default: the pod name when on Kubernetes. */
export function defaultInstanceId(env: Record<string, string | undefined>): string | undefined {
  return env.KUBERNETES_SERVICE_HOST && env.HOSTNAME ? env.HOSTNAME : undefined;
}

export { Producer, DEFAULT_BATCH_BYTES, DEFAULT_LINGER_MS, DEFAULT_MAX_BUFFERED_BYTES } from './producer';
export type { ProducerOptions, SendOptions } from './producer';
export { TransactionalProducer } from './producer/transactional-producer';
export { TransactionAdmin } from './transactions-admin';
export type { TransactionDescription, TransactionListing } from './transactions-admin';
export type { TransactionalProducerOptions, TxnOffsetInput } from './producer/transactional-producer';
export type { ClientSecurityOptions, TlsOptions } from './net/security';
export { Consumer } from './consumer';
export { GroupConsumer } from './group/group-consumer';
export type { GroupConsumerOptions, GroupMetadata, RebalanceListener } from './group/group-consumer';
export type { ClientAssignment, ClientAssignorInput } from './group/membership';
export { GroupAdmin } from './group/group-admin';
export type {
  CommittedOffset,
  GroupDescription,
  GroupListing,
  GroupMemberDescription,
  GroupPartitionLag,
  ResetOffsetsOptions,
  ResetPlanEntry,
  ResetResult,
  ResetTarget,
} from './group/group-admin';
export type { AutoOffsetReset, ConsumerOptions, FetchOptions, FetchResult, IsolationLevel } from './consumer';
export { Admin } from './admin';
export type {
  AclBinding,
  AclFilter,
  ClientQuota,
  QuotaEntity,
  QuotaKey,
  AdminOptions,
  AlterConfigsOptions,
  ClusterDescription,
  ConfigEntry,
  CreateTopicOptions,
  DeletedRecords,
  PartitionStatus,
  RecordsToDelete,
  TopicDescription,
  TopicDetails,
} from './admin';
export { Cluster } from './cluster';
export { CoordinatorClient } from './group/coordinator-client';
export type {
  BrokerMetadata,
  ClusterMetadata,
  ClusterOptions,
  PartitionMetadata,
  Routing,
  TopicMetadata,
} from './cluster';
export { ConnectionPool, channelOptionsFor } from './net/connection';
export type { ConnectionOptions } from './net/connection';
export { retry, isRetriable, backoffMs } from './retry';
export type { RetryOptions } from './retry';
export { partitionForKey, murmur2 } from './producer/partitioner';
export type {
  BatchMetadata,
  Bytes,
  ConsumerBatch,
  ConsumerRecord,
  HeadersInput,
  ProducerRecord,
  RecordHeader,
  RecordMetadata,
  RecordRange,
  TopicPartition,
} from './types';
export type { AcksOption } from './net/wire';
export { TideError, ERROR_CODES } from '../services/common/errors';
export type { ErrorCode, ErrorContext } from '../services/common/errors';
