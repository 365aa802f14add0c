/**
 * The topic view brokers follow: every topic with its config and partition states, kept current by
 * mirroring the topics/ and partitions/ keys (one snapshot, then one watch, in revision order), and
 * reported as topic-level changes: created, updated (config or partition states), deleted.
 *
 * A topic exists once its topic key does; its partition keys are written in the same transaction,
 * so a created topic arrives with all its partitions. A re-created topic (same name, new topicId)
 * arrives as 'deleted' then 'created'. A value that cannot be decoded is logged, the topic keeps
 * its last good state, and its name is listed in `unreadable` (never reported deleted for it: a
 * broker must not drop data because of a bad record).
 *
 * It also mirrors the replica moves in flight (reassignments/, services/common/metadata/
 * reassignment-record.ts): a partition being moved carries its adding and removing replicas, and
 * a move starting or ending is an update of its partition, so a leader knows which followers are
 * new copies still catching up (the reassignment throttle) without the state format changing.
 */
import type { Clock } from '../clock';
import type { Logger } from '../logger';
import {
  MetadataKeys,
  decodePartitionState,
  decodeTopicRecord,
  type PartitionState,
  type TopicRecord,
} from '../metadata/keys';
import { ElasticKeys, decodeReassignment, parseReassignmentKey } from '../metadata/reassignment-record';
import { mirrorPrefix, type KeyChange, type MirrorUpdate } from '../metadata/prefix-mirror';
import type { MetadataStore, Watch } from '../metadata/store';
import { checkStoredConfigs, effectiveTopicConfig } from './topic-config';

/** A partition's state with its index. */
export interface PartitionView extends PartitionState {
  partition: number;
  /**
   * While a replica move is in flight (absent otherwise): the replicas it adds, which were not in
   * the partition when the move started, and the replicas it will drop (Kafka's KIP-455 sets).
   */
  addingReplicas?: number[];
  removingReplicas?: number[];
}

/** One topic as brokers see it. */
export interface TopicState {
  name: string;
  topicId: string;
  internal: boolean;
  replicationFactor: number;
  /** The topic's partition count; `partitions` lists the states present (normally all of them). */
  partitionCount: number;
  /** Explicitly set configs (canonical); see topic-config.ts for defaults. */
  configs: Record<string, string>;
  /** Effective max.message.bytes: the largest batch the topic accepts (clients size batches by it). */
  maxMessageBytes: number;
  createdAtMs: number;
  /** Sorted by partition index. */
  partitions: PartitionView[];
}

export type TopicChange =
  | { type: 'created'; topic: TopicState }
  | {
      type: 'updated';
      topic: TopicState;
      previous: TopicState;
      /** True when the explicit configs differ (apply the topic's new configs). */
      configsChanged: boolean;
      /** Partitions whose state changed, appeared or disappeared. */
      changedPartitions: number[];
    }
  /** `topic` is the last state seen before the deletion. */
  | { type: 'deleted'; topic: TopicState };

export interface TopicsUpdate {
  /** The store revision this view reflects. */
  revision: number;
  /** Every topic now, by name. A live view: copy what you keep. */
  topics: ReadonlyMap<string, TopicState>;
  /** What changed since the previous update; for the first one, a 'created' per topic. */
  changes: TopicChange[];
  /** True for the first update and after a re-read snapshot (the watch broke and recovered). */
  snapshot: boolean;
  /**
   * Topics whose stored values cannot be decoded right now (see the file comment). An update is
   * also delivered when only this set changes.
   */
  unreadable: ReadonlySet<string>;
}

export interface TopicWatch extends Watch {
  /** The current view (same as the last update's `topics`). */
  topics(): ReadonlyMap<string, TopicState>;
}

export interface TopicWatcherOptions {
  store: MetadataStore;
  keys: MetadataKeys;
  clock: Clock;
  logger: Logger;
}

/**
 * Calls `listener` with the current topics, then with every change, in revision order, never
 * concurrently. Resolves after the first call. `listener` must not throw.
 */
export async function watchTopics(
  options: TopicWatcherOptions,
  listener: (update: TopicsUpdate) => void,
): Promise<TopicWatch> {
  const view = new TopicView(options.keys, options.logger);
  const moves = new ElasticKeys(options.keys);
  const mirror = await mirrorPrefix(
    {
      store: options.store,
      prefix: options.keys.root,
      filter: (key) =>
        key.startsWith(options.keys.topicsPrefix) ||
        key.startsWith(options.keys.partitionsPrefix) ||
        key.startsWith(moves.reassignmentsPrefix),
      clock: options.clock,
      logger: options.logger,
    },
    (update) => {
      const unreadableBefore = [...view.unreadable].sort().join('/');
      const changes = view.apply(update);
      const unreadableChanged = [...view.unreadable].sort().join('/') !== unreadableBefore;
      if (changes.length > 0 || update.snapshot || unreadableChanged) {
        listener({
          revision: update.revision,
          topics: view.topics,
          changes,
          snapshot: update.snapshot,
          unreadable: new Set(view.unreadable),
        });
      }
    },
  );
  return { cancel: () => mirror.cancel(), topics: () => view.topics };
}

/** Assembles topic states from raw keys and diffs them. */
class TopicView {
  readonly topics = new Map<string, TopicState>();
  readonly unreadable = new Set<string>();
  private readonly moves: ElasticKeys;

  constructor(
    private readonly keys: MetadataKeys,
    private readonly logger: Logger,
  ) {
    this.moves = new ElasticKeys(keys);
  }

  apply(update: MirrorUpdate): TopicChange[] {
    const touched = new Set<string>();
    for (const change of update.changes) {
      const name = this.topicOf(change);
      if (name !== undefined) touched.add(name);
    }
    const changes: TopicChange[] = [];
    for (const name of [...touched].sort()) {
      const previous = this.topics.get(name);
      const next = this.assemble(name, update.current, previous);
      if (next === 'unreadable') {
        this.unreadable.add(name);
        continue;
      }
      this.unreadable.delete(name);
      if (!next) {
        if (previous) {
          this.topics.delete(name);
          changes.push({ type: 'deleted', topic: previous });
        }
      } else if (!previous) {
        this.topics.set(name, next);
        changes.push({ type: 'created', topic: next });
      } else if (previous.topicId !== next.topicId) {
        this.topics.set(name, next);
        changes.push({ type: 'deleted', topic: previous }, { type: 'created', topic: next });
      } else {
        const diff = diffTopic(previous, next);
        this.topics.set(name, next);
        if (diff) changes.push({ type: 'updated', topic: next, previous, ...diff });
      }
    }
    return changes;
  }

  private topicOf(change: KeyChange): string | undefined {
    const parsed = this.keys.parse(change.key);
    if (parsed?.kind === 'topic' || parsed?.kind === 'partition') return parsed.topic;
    return parseReassignmentKey(this.moves, change.key)?.topic;
  }

  /** The partition's state with its move's replica sets, when a move is in flight. */
  private withMove(view: PartitionView, current: ReadonlyMap<string, Buffer>, name: string): PartitionView {
    const key = this.moves.reassignment(name, view.partition);
    const raw = current.get(key);
    if (!raw) return view;
    try {
      const { target, original } = decodeReassignment(raw, key);
      return {
        ...view,
        addingReplicas: view.replicas.filter((id) => target.includes(id) && !original.includes(id)),
        removingReplicas: view.replicas.filter((id) => !target.includes(id)),
      };
    } catch (err) {
      // Only the throttle and reporting use the move's sets: the partition state itself is fine.
      this.logger.error({ err, topic: name, partition: view.partition }, 'reassignment record unreadable');
      return view;
    }
  }

  /** The topic's state from the raw keys; undefined = no topic; 'unreadable' = keep the old one. */
  private assemble(
    name: string,
    current: ReadonlyMap<string, Buffer>,
    previous?: TopicState,
  ): TopicState | undefined | 'unreadable' {
    const topicKey = this.keys.topic(name);
    const raw = current.get(topicKey);
    if (!raw) return undefined;
    let record: TopicRecord;
    try {
      record = decodeTopicRecord(raw, topicKey);
      checkStoredConfigs(record.configs);
    } catch (err) {
      this.logger.error({ err, topic: name }, 'topic record unreadable; keeping its last good state');
      return 'unreadable';
    }
    const sameIncarnation = previous?.topicId === record.topicId;
    const partitions: PartitionView[] = [];
    for (let partition = 0; partition < record.partitions; partition++) {
      const key = this.keys.partition(name, partition);
      const value = current.get(key);
      if (!value) continue;
      try {
        partitions.push(this.withMove({ partition, ...decodePartitionState(value, key) }, current, name));
      } catch (err) {
        this.logger.error(
          { err, topic: name, partition },
          'partition state unreadable; keeping its last good state',
        );
        const last = sameIncarnation
          ? previous?.partitions.find((p) => p.partition === partition)
          : undefined;
        if (last) partitions.push(last);
      }
    }
    if (partitions.length !== record.partitions) {
      this.logger.warn(
        { topic: name, expected: record.partitions, found: partitions.length },
        'topic has missing partition states',
      );
    }
    return {
      name,
      topicId: record.topicId,
      internal: record.internal,
      replicationFactor: record.replicationFactor,
      partitionCount: record.partitions,
      configs: record.configs,
      maxMessageBytes: Number(effectiveTopicConfig(record.configs, 'max.message.bytes')),
      createdAtMs: record.createdAtMs,
      partitions,
    };
  }
}

function sameConfigs(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

function samePartition(a: PartitionView, b: PartitionView): boolean {
  return (
    a.leader === b.leader &&
    a.leaderEpoch === b.leaderEpoch &&
    a.partitionEpoch === b.partitionEpoch &&
    a.replicas.join() === b.replicas.join() &&
    a.isr.join() === b.isr.join() &&
    (a.addingReplicas ?? []).join() === (b.addingReplicas ?? []).join() &&
    (a.removingReplicas ?? []).join() === (b.removingReplicas ?? []).join()
  );
}

function diffTopic(
  previous: TopicState,
  next: TopicState,
): { configsChanged: boolean; changedPartitions: number[] } | undefined {
  const configsChanged = !sameConfigs(previous.configs, next.configs);
  const before = new Map(previous.partitions.map((p) => [p.partition, p]));
  const after = new Map(next.partitions.map((p) => [p.partition, p]));
  const changedPartitions = [...new Set([...before.keys(), ...after.keys()])]
    .filter((p) => {
      const a = before.get(p);
      const b = after.get(p);
      return !a || !b || !samePartition(a, b);
    })
    .sort((a, b) => a - b);
  const otherChanged =
    previous.partitionCount !== next.partitionCount ||
    previous.replicationFactor !== next.replicationFactor ||
    previous.internal !== next.internal;
  if (!configsChanged && changedPartitions.length === 0 && !otherChanged) return undefined;
  return { configsChanged, changedPartitions };
}
