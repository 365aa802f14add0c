/**
 * The cluster layer: bootstrap, a per-topic metadata cache, and routing of a (topic, partition)
 * to the broker address that should get its requests.
 *
 * Routing modes:
 * - `direct`: requests go to the partition leader named by metadata, as Kafka clients do.
 * - `bootstrap`: every request goes to the first reachable bootstrap address, which forwards it
 *   (proxy routing; one `kubectl port-forward` is enough). Metadata is still read, for partition
 *   counts and to validate partitions. Group calls are relayed too (group/coordinator-client.ts).
 * - `auto` (default): `direct`, switching to `bootstrap` when advertised addresses are unreachable.
 *
 * The cache is refreshed on demand: when a topic is first used, when it is older than
 * `metadataMaxAgeMs`, and when a caller reports a retriable routing error (NOT_LEADER,
 * LEADER_NOT_AVAILABLE, FENCED_EPOCH, BROKER_NOT_AVAILABLE) through `invalidate()`. A topic that is
 * not (yet) known is retried for `unknownTopicWaitMs`, which covers a topic created a moment ago;
 * so is a partition the cached topic lacks (`topicWithPartition`): partitions may have been added
 * since the cache was filled, and a group assignment or a send can name one before the metadata
 * watch brings it.
 */
import type * as grpc from '@grpc/grpc-js';
import type { Clock } from '../services/common/clock';
import { TideError, type ErrorCode } from '../services/common/errors';

/** Failures that are the same on every broker and that retrying elsewhere does not fix. */
const SECURITY_FAILURES = new Set<string>(['TLS_FAILED', 'AUTHENTICATION_FAILED', 'AUTHORIZATION_FAILED']);
import type { Logger } from '../services/common/logger';
import { silentLogger } from '../services/common/logger';
import type { MetadataResponse } from '../services/common/grpc/generated/tide/v1/MetadataResponse';
import type { TopicInfo } from '../services/common/grpc/generated/tide/v1/TopicInfo';
import { BrokerCalls, toTideError, unary } from './net/broker-calls';
import { ConnectionPool, type ConnectionOptions } from './net/connection';
import { retry, sleep, type RetryOptions } from './retry';
import { clientClock } from './timers';

/** Re-exported for callers that made their own calls before the broker-call layer (net/broker-calls.ts). */
export { unary };

/**
 * 'direct': each request to its partition's leader. 'bootstrap': every request to the bootstrap
 * broker, which forwards it (proxy routing: one `kubectl port-forward` is enough). 'auto' (the
 * default): direct, unless a broker the metadata advertises cannot be reached while the bootstrap
 * broker can — then bootstrap. Group coordinators are probed the same way when first used.
 */
export type Routing = 'direct' | 'bootstrap' | 'auto';
/** How long 'auto' routing waits for each advertised broker to accept a connection. */
export const ADVERTISED_PROBE_TIMEOUT_MS = 1_500;

export interface ClusterOptions {
  /** Broker addresses 'host:port' to bootstrap from, tried in order. */
  bootstrap: string[];
  /** Default 'auto'. */
  routing?: Routing;
  clientId?: string;
  logger?: Logger;
  clock?: Clock;
  connection?: ConnectionOptions;
  /** Deadline of unary control calls (metadata, list offsets, admin). Default 30 s. */
  requestTimeoutMs?: number;
  /** Deadline of each bootstrap attempt. Default 10 s. */
  connectTimeoutMs?: number;
  /** Cached topic metadata older than this is refetched on next use. Default 5 min. */
  metadataMaxAgeMs?: number;
  /** How long an unknown topic is retried before UNKNOWN_TOPIC is surfaced. Default 2 s. */
  unknownTopicWaitMs?: number;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_METADATA_MAX_AGE_MS = 300_000;
export const DEFAULT_UNKNOWN_TOPIC_WAIT_MS = 2_000;
const GRPC_UNIMPLEMENTED = 12;

export interface BrokerMetadata {
  id: number;
  host: string;
  port: number;
  rack: string;
  /** 'host:port' */
  address: string;
}

export interface PartitionMetadata {
  partition: number;
  /** Broker id; -1 when the partition has no leader. */
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  offlineReplicas: number[];
  partitionEpoch: number;
}

export interface TopicMetadata {
  name: string;
  topicId: string;
  internal: boolean;
  /** Indexed by partition number. */
  partitions: PartitionMetadata[];
  /** The topic's max.message.bytes; 0 when the broker did not say. */
  maxMessageBytes: number;
  fetchedAtMs: number;
}

export interface ClusterMetadata {
  clusterId: string;
  controllerId: number;
  brokers: BrokerMetadata[];
  topics: TopicMetadata[];
}

/** Errors after which a caller should call `invalidate(topic)` and retry. */
export const ROUTING_ERRORS: ReadonlySet<string> = new Set([
  'NOT_LEADER',
  'LEADER_NOT_AVAILABLE',
  'FENCED_EPOCH',
  'BROKER_NOT_AVAILABLE',
  'UNKNOWN_TOPIC',
  'UNKNOWN_PARTITION',
]);

/** The partitions of a wire TopicInfo, indexed by partition number. */
export function partitionsOf(t: TopicInfo): PartitionMetadata[] {
  const partitions: PartitionMetadata[] = [];
  for (const p of t.partitions) {
    partitions[p.partition] = {
      partition: p.partition,
      leader: p.leader,
      leaderEpoch: p.leader_epoch,
      replicas: p.replicas,
      isr: p.isr,
      offlineReplicas: p.offline_replicas,
      partitionEpoch: p.partition_epoch,
    };
  }
  return partitions;
}

export class Cluster {
  readonly pool: ConnectionPool;
  /** Every broker request of this client goes through here (net/broker-calls.ts). */
  readonly calls: BrokerCalls;
  private readonly routingOption: Routing;
  private effectiveRouting: 'direct' | 'bootstrap';
  readonly logger: Logger;
  readonly clock: Clock;
  readonly requestTimeoutMs: number;
  private readonly bootstrapAddresses: string[];
  private readonly connectTimeoutMs: number;
  private readonly metadataMaxAgeMs: number;
  private readonly unknownTopicWaitMs: number;
  private readonly topics = new Map<string, TopicMetadata>();
  private readonly leaderListeners = new Set<(topic: string, partition: number) => void>();
  private readonly brokers = new Map<number, BrokerMetadata>();
  private readonly inFlight = new Map<string, Promise<void>>();
  private controlAddress: string | undefined;
  private metadataWatch: grpc.ClientReadableStream<MetadataResponse> | undefined;
  private connecting: Promise<void> | undefined;
  private closed = false;

  constructor(options: ClusterOptions) {
    if (!options.bootstrap || options.bootstrap.length === 0) {
      throw new TideError('INVALID_REQUEST', 'bootstrap needs at least one broker address (host:port)');
    }
    this.bootstrapAddresses = [...options.bootstrap];
    this.routingOption = options.routing ?? 'auto';
    this.effectiveRouting = this.routingOption === 'bootstrap' ? 'bootstrap' : 'direct';
    this.logger = options.logger ?? silentLogger();
    this.clock = options.clock ?? clientClock;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    this.metadataMaxAgeMs = options.metadataMaxAgeMs ?? DEFAULT_METADATA_MAX_AGE_MS;
    this.unknownTopicWaitMs = options.unknownTopicWaitMs ?? DEFAULT_UNKNOWN_TOPIC_WAIT_MS;
    this.pool = new ConnectionPool({
      clientId: options.clientId,
      ...options.connection,
      proxyRouting: () => this.effectiveRouting === 'bootstrap',
    });
    this.calls = new BrokerCalls(this.pool, this.requestTimeoutMs);
  }

  /**
   * Finds a reachable bootstrap broker (trying each in order) and loads cluster metadata.
   * Idempotent; concurrent callers share one attempt. Fails with BROKER_NOT_AVAILABLE naming
   * every address tried and why.
   */
  connect(): Promise<void> {
    if (this.controlAddress) return Promise.resolve();
    this.connecting ??= this.bootstrap().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  /** The routing the client was configured with ('auto' resolves at connect, see `routing`). */
  get configuredRouting(): Routing {
    return this.routingOption;
  }

  /** How requests are routed now ('auto' has resolved to one of the two). */
  get routing(): 'direct' | 'bootstrap' {
    return this.effectiveRouting;
  }

  /** The address for control requests (metadata, offsets, admin). Requires connect(). */
  anyBroker(): string {
    if (!this.controlAddress)
      throw new TideError('BROKER_NOT_AVAILABLE', 'not connected: call connect() first');
    return this.controlAddress;
  }

  /** Cached metadata of a topic, or undefined (never triggers a request). */
  cachedTopic(topic: string): TopicMetadata | undefined {
    return this.topics.get(topic);
  }

  /** Known brokers by id. */
  knownBrokers(): BrokerMetadata[] {
    return [...this.brokers.values()];
  }

  /**
   * Metadata of a topic from the cache, fetching it when absent, stale, or `refresh` is set.
   * An unknown topic is retried for `unknownTopicWaitMs` before UNKNOWN_TOPIC is thrown.
   */
  async topicMetadata(topic: string, refresh = false): Promise<TopicMetadata> {
    const cached = this.topics.get(topic);
    if (cached && !refresh && this.isFresh(cached)) return cached;
    return this.awaitTopic(topic);
  }

  /**
   * Metadata of a topic that has `partition`: from the cache when it names the partition, else
   * fetched. A cached topic without it may be stale (partitions added since), so the partition is
   * retried for `unknownTopicWaitMs`, as an unknown topic is, before UNKNOWN_PARTITION is thrown.
   */
  async topicWithPartition(topic: string, partition: number): Promise<TopicMetadata> {
    const cached = this.topics.get(topic);
    if (cached && this.isFresh(cached) && cached.partitions[partition]) return cached;
    return this.awaitTopic(topic, partition);
  }

  /** Partition count of a topic (fetching metadata when needed). */
  async partitionCount(topic: string): Promise<number> {
    return (await this.topicMetadata(topic)).partitions.length;
  }

  /**
   * Where requests for (topic, partition) go, from the cache only. Throws UNKNOWN_TOPIC /
   * UNKNOWN_PARTITION / LEADER_NOT_AVAILABLE (the last retriable).
   */
  leaderFor(topic: string, partition: number): string {
    const meta = this.topics.get(topic);
    if (!meta)
      throw new TideError('UNKNOWN_TOPIC', `no metadata for topic ${topic}`, {
        context: { topic },
        retriable: true,
      });
    const p = meta.partitions[partition];
    if (!p) {
      throw new TideError(
        'UNKNOWN_PARTITION',
        `topic ${topic} has ${meta.partitions.length} partitions, not ${partition + 1}`,
        { context: { topic, partition } },
      );
    }
    if (this.routing === 'bootstrap') return this.anyBroker();
    const broker = p.leader >= 0 ? this.brokers.get(p.leader) : undefined;
    if (!broker) {
      throw new TideError(
        'LEADER_NOT_AVAILABLE',
        `partition ${topic}/${partition} has no available leader (leader ${p.leader})`,
        {
          context: { topic, partition, broker: p.leader },
        },
      );
    }
    return broker.address;
  }

  /** Like leaderFor, fetching metadata first when the topic or the partition is not cached. */
  async leaderAddress(topic: string, partition: number): Promise<string> {
    await this.topicWithPartition(topic, partition);
    return this.leaderFor(topic, partition);
  }

  /** Marks a topic's metadata stale: the next use refetches it. */
  invalidate(topic: string): void {
    const meta = this.topics.get(topic);
    if (meta) meta.fetchedAtMs = -Infinity;
  }

  /**
   * Fetches metadata for the given topics (all topics when empty) and updates the cache.
   * Concurrent refreshes of the same topic share one request.
   */
  async refresh(topics: string[] = []): Promise<void> {
    const key = topics.length === 0 ? '*' : [...topics].sort().join('\u0000');
    let pending = this.inFlight.get(key);
    if (!pending) {
      pending = this.fetchMetadata(topics)
        .then(() => undefined)
        .finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, pending);
    }
    return pending;
  }

  /** A Metadata request answered as a typed view (also updates the cache). */
  async fetchMetadata(topics: string[] = []): Promise<ClusterMetadata> {
    await this.connect();
    const response = await this.withControlBroker((address) => this.calls.metadata(address, topics));
    const view = this.absorb(response);
    // A requested topic the broker left out no longer exists (or does not yet): drop stale entries.
    for (const topic of topics) if (!view.topics.some((t) => t.name === topic)) this.topics.delete(topic);
    return view;
  }

  /**
   * Runs a control request against the control broker; when that broker is unreachable, moves
   * on to the other known brokers and the bootstrap list (direct routing) or re-bootstraps.
   */
  async withControlBroker<T>(fn: (address: string) => Promise<T>): Promise<T> {
    await this.connect();
    const first = this.anyBroker();
    try {
      return await fn(first);
    } catch (err) {
      const e = toTideError(err);
      if (e.code !== 'BROKER_NOT_AVAILABLE' || this.closed) throw e;
      const candidates =
        this.routing === 'bootstrap'
          ? this.bootstrapAddresses
          : [...this.knownBrokers().map((b) => b.address), ...this.bootstrapAddresses];
      for (const address of new Set(candidates)) {
        if (address === first) continue;
        try {
          const result = await fn(address);
          this.controlAddress = address;
          return result;
        } catch (next) {
          if (toTideError(next).code !== 'BROKER_NOT_AVAILABLE') throw toTideError(next);
        }
      }
      throw e;
    }
  }

  /**
   * Runs a request against the leader of (topic, partition) — fetching metadata when the topic is
   * not cached — retrying retriable failures; a routing error marks the topic's metadata stale first.
   */
  withLeader<T>(
    tp: { topic: string; partition: number },
    fn: (address: string) => Promise<T>,
    retryOptions: Partial<RetryOptions>,
    clock: Clock = this.clock,
  ): Promise<T> {
    return retry(
      async () => {
        let address: string | undefined;
        try {
          address = await this.leaderAddress(tp.topic, tp.partition);
          return await fn(address);
        } catch (err) {
          const code = (err as TideError).code;
          if (ROUTING_ERRORS.has(code)) this.invalidate(tp.topic);
          // The leader does not know a partition the metadata names: its view lags (the partition
          // was just added). Retried; the next try's metadata decides whether it exists.
          if (address !== undefined && (code === 'UNKNOWN_PARTITION' || code === 'UNKNOWN_TOPIC'))
            throw new TideError(code, (err as TideError).message, {
              cause: err,
              retriable: true,
              context: (err as TideError).context,
            });
          throw err;
        }
      },
      retryOptions,
      { clock },
    );
  }

  /** A deadline `requestTimeoutMs` from now, for grpc-js call options. */
  deadline(timeoutMs = this.requestTimeoutMs): Date {
    return this.calls.deadline(timeoutMs);
  }

  close(): void {
    this.closed = true;
    this.metadataWatch?.cancel();
    this.pool.close();
  }

  /**
   * Follows the control broker's WatchMetadata stream, so leader changes reach producers and
   * consumers without polling. A broker that does not offer it (UNIMPLEMENTED) is left alone:
   * the cache then refreshes on routing errors and after metadataMaxAgeMs, as before.
   */
  private watchMetadata(address: string, attempt = 0): void {
    if (this.closed) return;
    const call = this.calls.watchMetadata(address);
    this.metadataWatch = call;
    let received = false;
    call.on('data', (response: MetadataResponse) => {
      received = true;
      this.absorb(response);
    });
    let settled = false;
    const resubscribe = (err?: grpc.ServiceError) => {
      if (settled || this.closed || this.metadataWatch !== call) return;
      settled = true;
      if (err?.code === GRPC_UNIMPLEMENTED) return;
      const next = received ? 0 : attempt + 1;
      const delayMs = Math.min(100 * 2 ** next, 5_000);
      this.logger.debug({ err, address, delayMs }, 'metadata watch ended; resubscribing');
      this.clock.setTimeout(() => this.watchMetadata(this.controlAddress ?? address, next), delayMs);
    };
    call.on('error', (err: grpc.ServiceError) => resubscribe(err));
    call.on('end', () => resubscribe());
  }

  /**
   * 'auto' routing: probe every advertised broker; if any cannot be reached (a port-forward, a
   * NAT, an in-cluster DNS name), send everything through the bootstrap broker instead.
   */
  private async chooseRouting(bootstrapAddress: string): Promise<void> {
    const advertised = [...this.brokers.values()].map((b) => b.address).filter((a) => a !== bootstrapAddress);
    const unreachable: string[] = [];
    await Promise.all(
      advertised.map(
        (address) =>
          new Promise<void>((resolve) =>
            this.calls.waitForReady(address, Date.now() + ADVERTISED_PROBE_TIMEOUT_MS, (err) => {
              if (err) unreachable.push(address);
              resolve();
            }),
          ),
      ),
    );
    if (unreachable.length === 0) return;
    for (const address of unreachable) this.pool.closeAddress(address);
    this.effectiveRouting = 'bootstrap';
    this.logger.warn(
      { bootstrap: bootstrapAddress, unreachable },
      'advertised broker addresses are unreachable from here; routing every request through the bootstrap broker (proxy routing)',
    );
  }

  private isFresh(meta: TopicMetadata): boolean {
    return this.clock.nowMs() - meta.fetchedAtMs < this.metadataMaxAgeMs;
  }

  /**
   * Refetches the topic until it exists (and has `partition`, when given), for up to
   * `unknownTopicWaitMs`; then UNKNOWN_TOPIC / UNKNOWN_PARTITION.
   */
  private async awaitTopic(topic: string, partition?: number): Promise<TopicMetadata> {
    const deadline = this.clock.nowMs() + this.unknownTopicWaitMs;
    for (let delayMs = 25; ; delayMs = Math.min(delayMs * 2, 500)) {
      try {
        await this.refresh([topic]);
        const found = this.topics.get(topic);
        if (!found)
          throw new TideError('UNKNOWN_TOPIC', `topic ${topic} does not exist`, { context: { topic } });
        if (partition === undefined || found.partitions[partition]) return found;
        throw new TideError(
          'UNKNOWN_PARTITION',
          `topic ${topic} has ${found.partitions.length} partitions; partition ${partition} does not exist`,
          { context: { topic, partition } },
        );
      } catch (err) {
        const e = toTideError(err);
        const unknown = e.code === 'UNKNOWN_TOPIC' || e.code === 'UNKNOWN_PARTITION';
        if (!unknown || this.clock.nowMs() + delayMs > deadline) throw e;
        await sleep(delayMs, this.clock);
      }
    }
  }

  private async bootstrap(): Promise<void> {
    const failures: string[] = [];
    const codes = new Set<string>();
    for (const address of this.bootstrapAddresses) {
      if (this.closed) break;
      try {
        const response = await this.calls.metadata(address, [], this.connectTimeoutMs);
        this.controlAddress = address;
        this.absorb(response);
        this.logger.debug({ address, brokers: response.brokers.length }, 'bootstrapped');
        if (this.routingOption === 'auto') await this.chooseRouting(address);
        this.watchMetadata(address);
        return;
      } catch (err) {
        const e = toTideError(err);
        failures.push(`${address} (${e.code}: ${e.message})`);
        codes.add(e.code);
        this.pool.closeAddress(address);
      }
    }
    // Every broker refused us for the same security reason: say which (TLS, authn, authz), not "unreachable".
    const [only] = codes;
    const security = codes.size === 1 && SECURITY_FAILURES.has(only!) ? (only as ErrorCode) : undefined;
    throw new TideError(
      security ?? 'BROKER_NOT_AVAILABLE',
      `no bootstrap broker reachable; tried ${failures.join(', ') || this.bootstrapAddresses.join(', ')}`,
    );
  }

  /**
   * Calls `listener(topic, partition)` whenever absorbed metadata (the watch, a refresh) names a
   * different leader for a partition than the cache had. Returns the unsubscribe.
   */
  onLeaderChange(listener: (topic: string, partition: number) => void): () => void {
    this.leaderListeners.add(listener);
    return () => this.leaderListeners.delete(listener);
  }

  private absorb(response: MetadataResponse): ClusterMetadata {
    const nowMs = this.clock.nowMs();
    const brokers = response.brokers.map((b) => ({
      id: b.id,
      host: b.host,
      port: b.port,
      rack: b.rack,
      address: `${b.host}:${b.port}`,
    }));
    for (const b of brokers) this.brokers.set(b.id, b);
    const topics = response.topics.map((t): TopicMetadata => {
      const meta = {
        name: t.name,
        topicId: t.topic_id,
        internal: t.internal,
        partitions: partitionsOf(t),
        maxMessageBytes: t.max_message_bytes,
        fetchedAtMs: nowMs,
      };
      const previous = this.topics.get(t.name);
      this.topics.set(t.name, meta);
      if (previous && this.leaderListeners.size > 0) {
        for (const p of meta.partitions) {
          if (!p) continue;
          const was = previous.partitions[p.partition];
          if (was && was.leader !== p.leader) {
            for (const listener of [...this.leaderListeners]) listener(t.name, p.partition);
          }
        }
      }
      return meta;
    });
    return { clusterId: response.cluster_id, controllerId: response.controller_id, brokers, topics };
  }
}
