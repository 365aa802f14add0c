/**
 * The partition replicas this broker hosts, kept in step with cluster metadata: opens a log for
 * every partition assigned here, makes each replica leader or follower at the leader epoch the
 * metadata names (starting and stopping follower fetchers accordingly), applies config changes,
 * deletes the logs of deleted topics, runs the ISR expiration check of the partitions it leads,
 * and answers "which local partition serves topic-p" for the API handlers.
 *
 * Metadata updates are applied one at a time, in order. Per partition:
 *   leader = this broker  → stop fetching it, Partition.makeLeader (new epoch) or adoptState;
 *   leader = another one  → Partition.makeFollower, fetch from that leader at that epoch;
 *   leader = -1 (offline) → follower with no leader: nothing fetched, nothing served.
 * A state with an older leader epoch than the replica's own is ignored.
 */
import { echo } from '../../common/echo';
import type { Clock, Timer } from '../../common/clock';
import { TideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import type { TopicState, TopicsUpdate } from '../../common/cluster/topic-watcher';
import { forEachLimited } from '../../common/for-each-limited';
import { toReplicationConfig } from '../../common/cluster/topic-config';
import { toLogConfig } from './log-config';
import type { LogManager } from '../log';
import type { PartitionRegistry } from './partition-registry';
import { Partition, type IsrProposer, type PartitionStatus } from './partition';
import { replicationSettings, type ReplicationSettings } from './replication-settings';
import type { TxnPartitionJoiner } from './txn-join';

/** Partitions of one topic opened at a time when a metadata update hosts them. */
const HOST_CONCURRENCY = 32;

function keyOf(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/**
 * Follower fetching, as the replica manager drives it (the replication layer implements it).
 * add/remove take effect at once for new fetches; a fetch already in flight is checked against the
 * partition's role and epoch (Partition.isFollowing) before anything is appended or truncated.
 */
export interface FollowerFetchers {
  /** Fetch `partition` from broker `leaderId` at `leaderEpoch` (moving it from any other leader). */
  add(partition: Partition, leaderId: number, leaderEpoch: number): void;
  /** Stop fetching `partition`; no-op when it is not fetched. */
  remove(partition: Partition): void;
}

export interface ReplicaManagerDeps {
  brokerId: number;
  logs: LogManager;
  clock: Clock;
  logger: Logger;
  /** replica.* settings; defaults from replication-settings.ts. */
  settings?: Partial<ReplicationSettings>;
  /** Where ISR changes are proposed (the controller's AlterPartition). Absent: never proposed. */
  isrProposer?: IsrProposer;
  /** Follower fetching. Absent: this broker never fetches (single-node setups). */
  fetchers?: FollowerFetchers;
  /** False while this broker must not act as leader (see services/common/lease-fence.ts). Absent: always true. */
  mayLead?: () => boolean;
  /** Where a replica whose log failed is reported (the controller). Absent: not reported. */
  offlineReporter?: OfflineReplicaReporter;
  /** The transaction coordinator for implicit partition joins (partition/txn-join.ts). */
  txnJoiner?: TxnPartitionJoiner;
}

/** The controller's ReportReplicaOffline, as the replica manager needs it. */
export interface OfflineReplicaReporter {
  reportReplicaOffline(brokerId: number, topic: string, partition: number): Promise<void>;
}

export class ReplicaManager implements PartitionRegistry {
  private readonly partitions = new Map<string, Partition>();
  private topics: ReadonlyMap<string, TopicState> = new Map();
  /** Metadata updates are applied one at a time, in order. */
  private applying: Promise<void> = Promise.resolve();
  private readonly logger: Logger;
  readonly settings: ReplicationSettings;
  private isrTimer: Timer | undefined;
  /** Set by closeAll: partitions still being opened by an update are then not hosted. */
  private closed = false;

  constructor(private readonly deps: ReplicaManagerDeps) {
    this.logger = deps.logger.child({ component: 'replica-manager' });
    this.settings = replicationSettings(deps.settings);
    // Kafka's isr-expiration task runs every replica.lag.time.max.ms / 2.
    this.isrTimer = deps.clock.setInterval(
      () => this.checkIsr(),
      Math.max(1, Math.floor(this.settings.replicaLagTimeMaxMs / 2)),
    );
  }

  get brokerId(): number {
    return this.deps.brokerId;
  }

  /** Queues a metadata update; the returned promise settles once it (and all before it) applied. */
  apply(update: TopicsUpdate): Promise<void> {
    const topics = new Map(update.topics);
    const next = this.applying.then(() => this.applyNow(topics, update));
    this.applying = next.catch((err: unknown) =>
      this.logger.error({ err }, 'failed to apply metadata update'),
    );
    return next;
  }

  private async applyNow(topics: ReadonlyMap<string, TopicState>, update: TopicsUpdate): Promise<void> {
    for (const change of update.changes) {
      if (change.type === 'deleted') await this.removeTopic(change.topic.name, true);
    }
    this.topics = topics;
    for (const change of update.changes) {
      if (change.type === 'created') await this.hostTopic(change.topic);
      if (change.type === 'updated') await this.hostTopic(change.topic, change.configsChanged);
    }
    if (update.snapshot) {
      // Logs on disk for topics the cluster no longer has (deleted while this broker was down).
      for (const log of this.deps.logs.all()) {
        if (!topics.has(log.topic)) {
          this.logger.warn(
            { topic: log.topic, partition: log.partition },
            'deleting the log of a topic that no longer exists',
          );
          await this.deps.logs.delete(log.topic, log.partition);
          continue;
        }
        // Replicas moved off this broker while it was down (the state is there and names others).
        const state = topics.get(log.topic)?.partitions.find((p) => p.partition === log.partition);
        if (
          state &&
          !state.replicas.includes(this.deps.brokerId) &&
          !this.partitions.has(keyOf(log.topic, log.partition))
        ) {
          this.logger.info(
            { topic: log.topic, partition: log.partition, replicas: state.replicas },
            'deleting the log of a replica moved to other brokers',
          );
          await this.deps.logs.delete(log.topic, log.partition);
        }
      }
    }
  }

  private async hostTopic(topic: TopicState, configsChanged = false): Promise<void> {
    const { minInsyncReplicas } = toReplicationConfig(topic.configs);
    // Opening a log is mostly file system calls, which the thread pool runs side by side: a new
    // topic of 1,000 partitions was served after 6.5 s one at a time.
    await forEachLimited(topic.partitions, HOST_CONCURRENCY, (state) =>
      this.hostPartition(topic, state, minInsyncReplicas, configsChanged),
    );
  }

  private async hostPartition(
    topic: TopicState,
    state: TopicState['partitions'][number],
    minInsyncReplicas: number,
    configsChanged: boolean,
  ): Promise<void> {
    const key = keyOf(topic.name, state.partition);
    const existing = this.partitions.get(key);
    if (!state.replicas.includes(this.deps.brokerId)) {
      if (existing) {
        // A replica reassigned away: its copy is deleted, as Kafka's StopReplica(delete=true)
        // does; the partition lives on its other replicas.
        this.stopHosting(key, existing, 'replica moved away');
        await this.deps.logs.delete(topic.name, state.partition);
      }
      return;
    }
    try {
      let partition = existing;
      if (!partition) {
        const log = await this.deps.logs.getOrCreate(topic.name, state.partition, toLogConfig(topic.configs));
        if (this.closed) return; // the log manager closes the log
        partition = new Partition(log, {
          brokerId: this.deps.brokerId,
          clock: this.deps.clock,
          logger: this.logger,
          settings: this.settings,
          isrProposer: this.deps.isrProposer,
          mayLead: this.deps.mayLead,
          txnJoiner: this.deps.txnJoiner,
        });
        this.partitions.set(key, partition);
      } else if (configsChanged) {
        partition.log.updateConfig(toLogConfig(topic.configs));
      }
      if (state.leaderEpoch < partition.leaderEpoch) return; // stale
      if (partition.isLogFailed) return; // offline here until the broker restarts
      if (state.leader === this.deps.brokerId) {
        this.deps.fetchers?.remove(partition);
        await partition.makeLeader(state, minInsyncReplicas);
      } else {
        const moved = partition.role !== 'follower' || partition.leaderEpoch !== state.leaderEpoch;
        partition.makeFollower(state);
        if (state.leader < 0) this.deps.fetchers?.remove(partition);
        else if (moved) this.deps.fetchers?.add(partition, state.leader, state.leaderEpoch);
      }
    } catch (err) {
      this.logger.error(
        { err, topic: topic.name, partition: state.partition },
        'cannot host partition; it stays offline here',
      );
    }
  }

  private stopHosting(key: string, partition: Partition, why: string): void {
    this.deps.fetchers?.remove(partition);
    partition.close();
    this.partitions.delete(key);
    this.logger.info(
      { topic: partition.topic, partition: partition.partition, why },
      'stopped hosting partition',
    );
  }

  private async removeTopic(name: string, deleteLogs: boolean): Promise<void> {
    for (const [key, partition] of this.partitions) {
      if (partition.topic === name) this.stopHosting(key, partition, 'topic deleted');
    }
    if (!deleteLogs) return;
    for (const log of this.deps.logs.all()) {
      if (log.topic === name) await this.deps.logs.delete(log.topic, log.partition);
    }
  }

  /** Every replication stream of follower `replicaId` broke for good: see Partition.followerStreamLost. */
  followerStreamLost(replicaId: number): void {
    for (const partition of this.partitions.values()) partition.followerStreamLost(replicaId);
  }

  /**
   * The log of topic-partition failed (a write or fsync error; log/disk-faults.ts): the replica goes
   * offline here (Partition.logFailed), stops fetching, and the controller is told (retried until
   * it answers) so it moves leadership to another in-sync replica and drops this one from the ISR.
   * The other partitions are served as before. A restart reopens (and recovers) the log.
   */
  logFailed(topic: string, partition: number, error: Error): void {
    const hosted = this.partitions.get(keyOf(topic, partition));
    if (!hosted) return;
    this.logger.error(
      { err: error, topic, partition },
      'partition log failed: replica offline on this broker',
    );
    this.deps.fetchers?.remove(hosted);
    hosted.logFailed(error);
    void this.reportOffline(topic, partition);
  }

  private async reportOffline(topic: string, partition: number): Promise<void> {
    const reporter = this.deps.offlineReporter;
    if (!reporter) return;
    for (let attempt = 1; !this.closed; attempt++) {
      try {
        await reporter.reportReplicaOffline(this.deps.brokerId, topic, partition);
        return;
      } catch (err) {
        this.logger.warn({ err, topic, partition, attempt }, 'could not report an offline replica; retrying');
        await new Promise((r) =>
          this.deps.clock.setTimeout(() => r(undefined), Math.min(5_000, 200 * attempt)),
        );
      }
    }
  }

  /** The ISR expiration check over every partition led here (also run by the timer). */
  checkIsr(): void {
    for (const partition of this.partitions.values()) partition.maybeShrinkIsr();
  }

  /** The hosted replica of topic-partition in any role (the replication service uses it). */
  hosted(topic: string, partition: number): Partition | undefined {
    return this.partitions.get(keyOf(topic, partition));
  }

  leaderFor(topic: string, partition: number): Partition {
    const local = this.partitions.get(keyOf(topic, partition));
    if (local?.role === 'leader') return local;
    const context = { topic, partition, broker: this.deps.brokerId };
    const why = this.whyNotLedHere(topic, partition);
    switch (why.code) {
      case 'UNKNOWN_TOPIC':
        throw new TideError(why.code, `topic ${echo(topic)} does not exist`, { context });
      case 'UNKNOWN_PARTITION':
        throw new TideError(
          why.code,
          `topic ${echo(topic)} has ${why.partitionCount} partitions; ${partition} does not exist`,
          { context },
        );
      case 'NOT_LEADER':
        throw new TideError(
          why.code,
          `broker ${this.deps.brokerId} does not lead ${topic}-${partition}; broker ${why.leader} does`,
          { context },
        );
      default:
        throw new TideError(
          why.code,
          `${topic}-${partition} is not available on broker ${this.deps.brokerId} yet`,
          {
            context,
          },
        );
    }
  }

  /**
   * Whether `leaderFor` would answer LEADER_NOT_AVAILABLE: the partition exists and is to be led
   * here (or has no leader yet) but is not served as leader. Cheap: CreateTopic polls it for
   * every partition of a new topic.
   */
  awaitingLeader(topic: string, partition: number): boolean {
    if (this.partitions.get(keyOf(topic, partition))?.role === 'leader') return false;
    return this.whyNotLedHere(topic, partition).code === 'LEADER_NOT_AVAILABLE';
  }

  private whyNotLedHere(
    topic: string,
    partition: number,
  ):
    | { code: 'UNKNOWN_TOPIC' | 'LEADER_NOT_AVAILABLE' }
    | { code: 'UNKNOWN_PARTITION'; partitionCount: number }
    | { code: 'NOT_LEADER'; leader: number } {
    const state = this.topics.get(topic);
    if (!state) return { code: 'UNKNOWN_TOPIC' };
    if (partition >= state.partitionCount)
      return { code: 'UNKNOWN_PARTITION', partitionCount: state.partitionCount };
    // Views are kept in partition order; the search is for a view that is not.
    const indexed = state.partitions[partition];
    const view =
      indexed?.partition === partition ? indexed : state.partitions.find((p) => p.partition === partition);
    if (view && view.leader >= 0 && view.leader !== this.deps.brokerId)
      return { code: 'NOT_LEADER', leader: view.leader };
    return { code: 'LEADER_NOT_AVAILABLE' };
  }

  /** The HW of a hosted replica (retention never deletes above it), if hosted. */
  highWatermarkOf(topic: string, partition: number): number | undefined {
    return this.partitions.get(keyOf(topic, partition))?.highWatermark;
  }

  /** Every hosted replica's state, sorted by topic and partition (for describe and tests). */
  status(): PartitionStatus[] {
    return [...this.partitions.values()]
      .map((p) => p.status())
      .sort((a, b) => (a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1));
  }

  /** The latest topic view (for metadata responses). */
  currentTopics(): ReadonlyMap<string, TopicState> {
    return this.topics;
  }

  /** The replicas a move in flight is adding to the partition, as the metadata last said. */
  addingReplicasOf(topic: string, partition: number): readonly number[] | undefined {
    const state = this.topics.get(topic);
    const indexed = state?.partitions[partition];
    const view =
      indexed?.partition === partition ? indexed : state?.partitions.find((p) => p.partition === partition);
    return view?.addingReplicas;
  }

  /** Stops serving and fetching every partition (pending requests return); logs are closed by the LogManager. */
  closeAll(): void {
    this.closed = true;
    this.isrTimer?.cancel();
    this.isrTimer = undefined;
    for (const [key, partition] of this.partitions) {
      this.deps.fetchers?.remove(partition);
      partition.close();
      this.partitions.delete(key);
    }
  }
}
