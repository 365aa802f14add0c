/**
 * The reconciler: the effectful loop around partition-leadership.ts. While its controller is
 * active it follows broker liveness (BrokerRegistry.watchBrokers) and partition states
 * (TopicManager.watchTopics) and writes the decisions:
 *
 * - on activation, one full pass over every partition;
 * - when brokers go or come, a pass over every partition (leaders of dead brokers replaced, dead
 *   brokers out of ISRs, offline partitions led again by a returning ISR member);
 * - when topics change, a pass over the changed topics that need something (a topic created while a
 *   broker died, unclean election just enabled, ...);
 * - every `leaderImbalanceCheckIntervalMs` and after a broker registers, a preferred-leader pass.
 *
 * Watches only tell the reconciler *that* something may need doing (its view is checked with the
 * pure functions, no I/O); a pass re-reads the partitions it touches from the store and writes with
 * fencing and a compare on each partition key's modRevision, retrying with fresh state on conflict.
 * Passes run one at a time; requests arriving during a pass are merged into the next one.
 * A failed fencing compare deposes the controller (onFenced) and stops the reconciler.
 */
import type { Clock, Timer } from '../common/clock';
import { TideError } from '../common/errors';
import type { Logger } from '../common/logger';
import { decodeTopicRecord, type MetadataKeys, type PartitionState } from '../common/metadata/keys';
import { growReplicas } from './internal-replicas';
import type { Compare, MetadataStore, Watch } from '../common/metadata/store';
import type { BrokerRegistry } from '../common/cluster/broker-registry';
import {
  preferredLeaderElection,
  reconcilePartition,
  type BrokerLiveness,
  type LeadershipDecision,
} from './partition-leadership';
import { readPartitions, writePartitions, type PartitionWrite } from './partition-store';
import { toReplicationConfig } from '../common/cluster/topic-config';
import type { TopicManager } from './topic-manager';
import type { BrokersUpdate } from '../common/cluster/broker-registry';
import type { TopicState, TopicsUpdate } from '../common/cluster/topic-watcher';

export const DEFAULT_LEADER_IMBALANCE_CHECK_INTERVAL_MS = 30_000;
export const DEFAULT_RECONCILE_RETRY_DELAY_MS = 1_000;
/** Conflict retries of one pass before it waits retryDelayMs. */
export const RECONCILE_CONFLICT_ATTEMPTS = 5;

/** Counters of what the reconciler (and the RPCs writing through the node) did. */
export interface LeadershipStats {
  /** Leaders chosen from the ISR after a leader was lost (or an offline partition recovered). */
  leaderElections: number;
  /** Leaders chosen outside the ISR (unclean.leader.election.enable): possible data loss. */
  uncleanElections: number;
  /** Partitions that went offline (no live ISR member). */
  offlineTransitions: number;
  /** ISR shrinks because brokers died. */
  isrShrinks: number;
  /** Leadership moves back to the preferred replica. */
  preferredLeaderElections: number;
  /** Completed passes. */
  passes: number;
}

export interface ReconcilerOptions {
  store: MetadataStore;
  keys: MetadataKeys;
  clock: Clock;
  logger: Logger;
  registry: BrokerRegistry;
  topics: TopicManager;
  /** The active controller's fencing compares; throws NOT_CONTROLLER when not active. */
  fencing: () => Compare[];
  /** Called once when a write was fenced: the controller must step down. */
  onFenced: (err: TideError) => void;
  /** Brokers in controlled shutdown (never made leader by a pass when another replica can lead). */
  shuttingDown: () => ReadonlySet<number>;
  /** Current reports of leaders their followers cannot reach (UnreachableReports.current). */
  unreachable?: () => ReadonlyMap<number, ReadonlySet<number>>;
  /** Told of every broker update while active (before the reconciler acts on it). */
  onBrokers?: (update: BrokersUpdate) => void;
  leaderImbalanceCheckIntervalMs?: number;
  retryDelayMs?: number;
  writeBatchSize?: number;
  stats: LeadershipStats;
}

interface PassRequest {
  /** undefined = every topic. */
  topics?: Set<string>;
  preferred: boolean;
}

export class Reconciler {
  private readonly logger: Logger;
  private active = false;
  /** Bumped on every activation and deactivation, so stale async work can tell it is stale. */
  private generation = 0;
  private watches: Watch[] = [];
  private imbalanceTimer?: Timer;
  private retryTimer?: Timer;
  private live = new Set<number>();
  private topicView: ReadonlyMap<string, TopicState> = new Map();
  private pending?: PassRequest;
  private running = false;
  private idleWaiters: (() => void)[] = [];
  private retryPreferred = false;

  constructor(private readonly options: ReconcilerOptions) {
    this.logger = options.logger.child({ component: 'reconciler' });
  }

  /** Every topic as the topic watch last reported it (empty while inactive). */
  topics(): ReadonlyMap<string, TopicState> {
    return this.topicView;
  }

  /** Live broker ids as the broker watch last reported them (empty while inactive). */
  liveBrokerIds(): ReadonlySet<number> {
    return this.live;
  }

  /** Starts following brokers and topics and runs the first full pass (not awaited). */
  async activate(): Promise<void> {
    if (this.active) return;
    this.active = true;
    const generation = ++this.generation;
    try {
      const brokerWatch = await this.options.registry.watchBrokers((update) => {
        if (generation !== this.generation) return;
        this.live = new Set(update.brokers.map((b) => b.id));
        this.options.onBrokers?.(update);
        if (update.snapshot || update.removed.length > 0 || update.added.length > 0) {
          this.request({ preferred: update.added.length > 0 && !update.snapshot });
        }
      });
      if (generation !== this.generation) return void (await brokerWatch.cancel());
      this.watches.push(brokerWatch);
      const topicWatch = await this.options.topics.watchTopics((update) => {
        if (generation === this.generation) this.onTopics(update);
      });
      if (generation !== this.generation) return void (await topicWatch.cancel());
      this.watches.push(topicWatch);
      this.imbalanceTimer = this.options.clock.setInterval(
        () => this.request({ preferred: true }),
        this.options.leaderImbalanceCheckIntervalMs ?? DEFAULT_LEADER_IMBALANCE_CHECK_INTERVAL_MS,
      );
      this.request({ preferred: false });
    } catch (err) {
      if (generation !== this.generation) return;
      this.logger.error({ err }, 'cannot follow brokers and topics; retrying');
      await this.deactivate();
      this.retryTimer = this.options.clock.setTimeout(
        () => void this.activate(),
        this.options.retryDelayMs ?? DEFAULT_RECONCILE_RETRY_DELAY_MS,
      );
    }
  }

  /** Stops watching and drops pending work (a pass in flight stops at its next write). */
  async deactivate(): Promise<void> {
    this.active = false;
    this.generation++;
    this.imbalanceTimer?.cancel();
    this.retryTimer?.cancel();
    this.pending = undefined;
    this.live = new Set();
    this.topicView = new Map();
    const watches = this.watches;
    this.watches = [];
    await Promise.all(watches.map((w) => w.cancel().catch(() => undefined)));
    this.notifyIdleIfDone();
  }

  /** Asks for a pass: over `topics` (default every topic), with preferred-leader moves or not. */
  request(request: { topics?: Iterable<string>; preferred: boolean }): void {
    if (!this.active) return;
    const topics = request.topics === undefined ? undefined : new Set(request.topics);
    if (!this.pending) {
      this.pending = { topics, preferred: request.preferred };
    } else {
      const merged = this.pending;
      if (!topics) merged.topics = undefined;
      else if (merged.topics) for (const t of topics) merged.topics.add(t);
      merged.preferred ||= request.preferred;
    }
    if (!this.running) void this.drain();
  }

  /** Resolves once no pass is running or pending (for tests and orderly shutdown). */
  settled(): Promise<void> {
    if (!this.running && !this.pending) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  // ---- passes ----

  private onTopics(update: TopicsUpdate): void {
    this.topicView = update.topics;
    const touched = update.changes.filter((c) => c.type !== 'deleted').map((c) => c.topic.name);
    const needy = touched.filter((name) => this.viewNeedsWork(name));
    if (needy.length > 0) this.request({ topics: needy, preferred: false });
  }

  /** True when the watched view of the topic has a partition a liveness pass would change. */
  private viewNeedsWork(name: string): boolean {
    const topic = this.topicView.get(name);
    if (!topic) return false;
    const options = this.electionOptions(topic.configs);
    const liveness = this.liveness();
    return topic.partitions.some(
      (p) =>
        reconcilePartition(p, liveness, options).change !== 'unchanged' ||
        (topic.internal &&
          growReplicas(p, topic.replicationFactor, liveness, { bumpEpoch: true }) !== undefined),
    );
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.pending && this.active) {
        const request = this.pending;
        this.pending = undefined;
        const generation = this.generation;
        try {
          await this.pass(request, generation);
        } catch (err) {
          if (generation !== this.generation) continue;
          if (err instanceof TideError && err.code === 'NOT_CONTROLLER') {
            this.logger.warn({ err }, 'a reconciler write was fenced: stepping down');
            this.options.onFenced(err);
            break;
          }
          this.logger.error({ err }, 'reconciliation pass failed; retrying');
          this.scheduleRetry(request);
        }
      }
    } finally {
      this.running = false;
      this.notifyIdleIfDone();
    }
  }

  private async pass(request: PassRequest, generation: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const targets = new Map<string, number>();
      const topics = await this.readTopicConfigs(request.topics, targets);
      const partitions = await readPartitions(
        this.options.store,
        this.options.keys,
        request.topics,
        (key, err) => this.logger.error({ err, key }, 'partition state unreadable; left as it is'),
      );
      if (generation !== this.generation) return;
      const liveness = this.liveness();
      const load = replicaLoad(partitions.map((p) => p.state));
      const writes: (PartitionWrite & { decision: LeadershipDecision })[] = [];
      for (const stored of partitions) {
        const configs = topics.get(stored.topic);
        if (!configs) continue; // the topic is being deleted
        let decision = reconcilePartition(stored.state, liveness, this.electionOptions(configs));
        if (request.preferred) {
          const preferred = preferredLeaderElection(decision.state, liveness);
          if (preferred.change !== 'unchanged')
            decision =
              decision.change === 'unchanged' ? preferred : { ...preferred, change: decision.change };
        }
        const target = targets.get(stored.topic);
        if (target !== undefined) {
          const unchanged = decision.change === 'unchanged';
          const grown = growReplicas(decision.state, target, liveness, { bumpEpoch: unchanged, load });
          if (grown) {
            decision = { change: unchanged ? 'replicas-grown' : decision.change, state: grown };
            for (const id of grown.replicas) load.set(id, (load.get(id) ?? 0) + 1);
          }
        }
        if (decision.change !== 'unchanged') writes.push({ current: stored, next: decision.state, decision });
      }
      if (writes.length === 0) {
        this.options.stats.passes++;
        return;
      }
      const outcome = await writePartitions(
        this.options.store,
        writes,
        this.options.fencing,
        this.options.writeBatchSize,
      );
      for (const write of outcome.written)
        this.record(write as PartitionWrite & { decision: LeadershipDecision });
      if (outcome.conflicted.length === 0) {
        this.options.stats.passes++;
        return;
      }
      if (attempt >= RECONCILE_CONFLICT_ATTEMPTS) {
        throw new TideError(
          'METADATA_UNAVAILABLE',
          `${outcome.conflicted.length} partition states kept changing during ${attempt} reconciliation attempts`,
        );
      }
      // Only the conflicted topics need another look.
      request = {
        topics: new Set(outcome.conflicted.map((w) => w.current.topic)),
        preferred: request.preferred,
      };
    }
  }

  /** Logs and counts one applied decision. */
  private record(write: PartitionWrite & { decision: LeadershipDecision }): void {
    const { topic, partition, state: before } = write.current;
    const after = write.next;
    const fields = {
      topic,
      partition,
      change: write.decision.change,
      leader: after.leader,
      previousLeader: before.leader,
      leaderEpoch: after.leaderEpoch,
      partitionEpoch: after.partitionEpoch,
      isr: after.isr,
      previousIsr: before.isr,
    };
    const stats = this.options.stats;
    switch (write.decision.change) {
      case 'leader-elected':
        stats.leaderElections++;
        this.logger.info(fields, 'new partition leader elected from the ISR');
        break;
      case 'unclean-leader-elected':
        stats.uncleanElections++;
        this.logger.warn(
          fields,
          'UNCLEAN leader election: no in-sync replica is alive, an out-of-sync replica leads; records acknowledged by the lost ISR may be gone',
        );
        break;
      case 'offline':
        stats.offlineTransitions++;
        this.logger.warn(fields, 'partition offline: no live in-sync replica (unclean election disabled)');
        break;
      case 'isr-shrink':
        stats.isrShrinks++;
        this.logger.info(fields, 'dead brokers removed from the ISR');
        break;
      case 'leader-unreachable':
        stats.leaderElections++;
        this.logger.warn(
          fields,
          'leader moved: the in-sync followers report they cannot reach it (its lease is alive)',
        );
        break;
      case 'preferred-leader':
        stats.preferredLeaderElections++;
        this.logger.info(fields, 'leadership moved back to the preferred replica');
        break;
      case 'replicas-grown':
        this.logger.info(
          { ...fields, replicas: after.replicas, previousReplicas: before.replicas },
          'internal topic partition grown towards its replication factor',
        );
        break;
      default:
        this.logger.info(fields, 'partition state changed');
    }
  }

  /** Topic configs by name; `targets` gets each internal topic's replication factor. */
  private async readTopicConfigs(
    topics: Set<string> | undefined,
    targets: Map<string, number>,
  ): Promise<Map<string, Record<string, string>>> {
    const out = new Map<string, Record<string, string>>();
    const kvs = topics
      ? (
          await Promise.all([...topics].map((t) => this.options.store.get(this.options.keys.topic(t))))
        ).flatMap((kv) => (kv ? [kv] : []))
      : (await this.options.store.getPrefix(this.options.keys.topicsPrefix)).kvs;
    for (const kv of kvs) {
      const parsed = this.options.keys.parse(kv.key);
      if (parsed?.kind !== 'topic') continue;
      try {
        const record = decodeTopicRecord(kv.value, kv.key);
        out.set(parsed.topic, record.configs);
        if (record.internal) targets.set(parsed.topic, record.replicationFactor);
      } catch (err) {
        // Decide with default configs (unclean election off): the safe choice.
        this.logger.error({ err, topic: parsed.topic }, 'topic record unreadable; using default configs');
        out.set(parsed.topic, {});
      }
    }
    return out;
  }

  private electionOptions(configs: Record<string, string>): { uncleanLeaderElectionEnable: boolean } {
    try {
      return { uncleanLeaderElectionEnable: toReplicationConfig(configs).uncleanLeaderElectionEnable };
    } catch {
      return { uncleanLeaderElectionEnable: false };
    }
  }

  private liveness(): BrokerLiveness {
    return {
      live: this.live,
      shuttingDown: this.options.shuttingDown(),
      unreachable: this.options.unreachable?.(),
    };
  }

  /** A full pass later (a full one, so no failed request is lost when retries overlap). */
  private scheduleRetry(request: PassRequest): void {
    const preferred = request.preferred || this.retryPreferred;
    this.retryPreferred = preferred;
    this.retryTimer?.cancel();
    this.retryTimer = this.options.clock.setTimeout(() => {
      this.retryTimer = undefined;
      this.retryPreferred = false;
      this.request({ preferred });
    }, this.options.retryDelayMs ?? DEFAULT_RECONCILE_RETRY_DELAY_MS);
  }

  private notifyIdleIfDone(): void {
    if (this.running || this.pending) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** How many partitions each broker holds a replica of. */
function replicaLoad(states: readonly PartitionState[]): Map<number, number> {
  const load = new Map<number, number>();
  for (const state of states) for (const id of state.replicas) load.set(id, (load.get(id) ?? 0) + 1);
  return load;
}

/** A fresh stats object with every counter at 0. */
export function emptyStats(): LeadershipStats {
  return {
    leaderElections: 0,
    uncleanElections: 0,
    offlineTransitions: 0,
    isrShrinks: 0,
    preferredLeaderElections: 0,
    passes: 0,
  };
}
