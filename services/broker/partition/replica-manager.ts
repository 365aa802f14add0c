/**
 * The partitions this broker hosts, kept in step with cluster metadata: opens a log for every
 * partition assigned here, applies config changes, deletes the logs of deleted topics, and answers
 * "which local partition serves topic-p" for the API handlers.
 */
import type { Clock } from '../../common/clock';
import { TideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import type { TopicState, TopicsUpdate } from '../../controller/topic-watcher';
import type { LogManager } from '../log/log-manager';
import type { PartitionRegistry } from '../api/registry';
import { Partition } from './partition';

function keyOf(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

export class ReplicaManager implements PartitionRegistry {
  private readonly partitions = new Map<string, Partition>();
  private topics: ReadonlyMap<string, TopicState> = new Map();
  /** Metadata updates are applied one at a time, in order. */
  private applying: Promise<void> = Promise.resolve();
  private readonly logger: Logger;

  constructor(private readonly deps: { brokerId: number; logs: LogManager; clock: Clock; logger: Logger }) {
    this.logger = deps.logger.child({ component: 'replica-manager' });
  }

  /** Queues a metadata update; the returned promise settles once it (and all before it) applied. */
  apply(update: TopicsUpdate): Promise<void> {
    const topics = new Map(update.topics);
    const next = this.applying.then(() => this.applyNow(topics, update));
    this.applying = next.catch((err: unknown) => this.logger.error({ err }, 'failed to apply metadata update'));
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
          this.logger.warn({ topic: log.topic, partition: log.partition }, 'deleting the log of a topic that no longer exists');
          await this.deps.logs.delete(log.topic, log.partition);
        }
      }
    }
  }

  private async hostTopic(topic: TopicState, configsChanged = false): Promise<void> {
    for (const state of topic.partitions) {
      if (!state.replicas.includes(this.deps.brokerId)) continue;
      const key = keyOf(topic.name, state.partition);
      const existing = this.partitions.get(key);
      if (existing && existing.leaderEpoch === state.leaderEpoch) {
        if (configsChanged) existing.log.updateConfig(topic.logConfig);
        continue;
      }
      try {
        const log = await this.deps.logs.getOrCreate(topic.name, state.partition, topic.logConfig);
        existing?.close();
        if (state.leader === this.deps.brokerId) {
          this.partitions.set(key, new Partition(log, { clock: this.deps.clock, leaderEpoch: state.leaderEpoch }));
        } else {
          this.partitions.delete(key);
        }
      } catch (err) {
        this.logger.error({ err, topic: topic.name, partition: state.partition }, 'cannot open partition log; it stays offline here');
      }
    }
  }

  private async removeTopic(name: string, deleteLogs: boolean): Promise<void> {
    for (const [key, partition] of this.partitions) {
      if (partition.topic !== name) continue;
      partition.close();
      this.partitions.delete(key);
    }
    if (!deleteLogs) return;
    for (const log of this.deps.logs.all()) {
      if (log.topic === name) await this.deps.logs.delete(log.topic, log.partition);
    }
  }

  leaderFor(topic: string, partition: number): Partition {
    const local = this.partitions.get(keyOf(topic, partition));
    if (local) return local;
    const state = this.topics.get(topic);
    const context = { topic, partition, broker: this.deps.brokerId };
    if (!state) throw new TideError('UNKNOWN_TOPIC', `topic "${topic}" does not exist`, { context });
    if (partition >= state.partitionCount) {
      throw new TideError('UNKNOWN_PARTITION', `topic "${topic}" has ${state.partitionCount} partitions; ${partition} does not exist`, { context });
    }
    const view = state.partitions.find((p) => p.partition === partition);
    if (view && view.leader >= 0 && view.leader !== this.deps.brokerId) {
      throw new TideError('NOT_LEADER', `broker ${this.deps.brokerId} does not lead ${topic}-${partition}; broker ${view.leader} does`, { context });
    }
    throw new TideError('LEADER_NOT_AVAILABLE', `${topic}-${partition} is not available on broker ${this.deps.brokerId} yet`, { context });
  }

  /** The latest topic view (for metadata responses). */
  currentTopics(): ReadonlyMap<string, TopicState> {
    return this.topics;
  }

  /** Stops serving every partition (pending long polls return); logs are closed by the LogManager. */
  closeAll(): void {
    for (const partition of this.partitions.values()) partition.close();
    this.partitions.clear();
  }
}
