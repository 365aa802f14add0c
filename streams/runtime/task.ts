/**
 * A stream task: one partition of one subtopology, with its own processors, stores and stream
 * time. The test driver and the cluster runtime both feed it records (`addRecords`), ask it to
 * `process` one record at a time, punctuate, and `commit`. Its time rules are Kafka Streams':
 *
 * - each input record gets its event time from the source's timestamp extractor when buffered;
 * - the next record processed is the head of the partition with the lowest head timestamp;
 * - stream time is the highest event time processed so far (it never goes back);
 * - with `maxTaskIdleMs` > 0, a task that has data for some partitions but not others waits that
 *   long (wall clock) for the empty ones before processing anyway ("enforced processing").
 */
import type { RecordHeader } from '../../services/common/records';
import { StreamsError } from '../errors';
import type { Cancellable, Processor, PunctuationType } from '../processor';
import type { Serde } from '../serdes';
import type { RecordOrigin, StreamRecord } from '../record';
import { cachedStateStore } from '../state/factory';
import { isCachingStore } from '../state/caching-key-value';
import type { RecordCache } from '../state/record-cache';
import { isWriteScoped, type StateStore } from '../state/stores';
import type { NodeDef, StoreDef } from '../topology/nodes';
import type { InternalProcessorContext, RecordCollector } from './internal-context';
import { PunctuationQueue, checkInterval } from './punctuation';

/** A record as read from a topic partition. */
export interface RawRecord {
  key: Buffer | null;
  value: Buffer | null;
  timestampMs: number;
  offset: number;
  headers: RecordHeader[];
}

export interface TaskSpec {
  /** `<subtopology>_<partition>`. */
  id: string;
  partition: number;
  applicationId: string;
  /** The subtopology's nodes, parents before children. */
  nodes: NodeDef[];
  stores: StoreDef[];
  /** Source topics this task reads, with the partition of each (all `partition` unless global). */
  inputs: { topic: string; partition: number }[];
}

export interface TaskOptions {
  collector: RecordCollector;
  wallClockMs: () => number;
  caching: boolean;
  /** With caching: the instance's record cache, in front of the DSL's table and aggregation stores. */
  cache?: RecordCache;
  maxTaskIdleMs: number;
  createStore(def: StoreDef, taskId: string): StateStore;
  /** Global tables' stores, shared by every task of the instance. */
  globalStores: ReadonlyMap<string, StateStore>;
  /** A record the source's serdes cannot read (Kafka's deserialization exception handler). Default 'fail'. */
  deserializationErrors?: RecordErrorPolicy;
  /** A record whose processing throws (Kafka's processing exception handler). Default 'fail'. */
  processingErrors?: RecordErrorPolicy;
  /** Told of each record skipped under those policies (the runtime logs it). */
  onDropped?: (dropped: DroppedRecord) => void;
  /** Told of each punctuation that threw and was passed over under processingErrors (not 'fail'). */
  onPunctuationFailed?: (failed: FailedPunctuation) => void;
}

/**
 * What a record that cannot be read or processed does: 'fail' stops processing (the record is
 * read again after a restart), 'continue' skips it (logged and counted), a dead-letter topic
 * skips it after copying it there unchanged, headers added, so nothing is lost.
 */
export type RecordErrorPolicy = 'fail' | 'continue' | { deadLetterTopic: string };

export interface DroppedRecord {
  taskId: string;
  topic: string;
  partition: number;
  offset: number;
  stage: 'deserialization' | 'processing';
  error: Error;
  deadLetterTopic?: string;
}

/**
 * A punctuation whose callback threw. Under processingErrors other than 'fail' it is passed over,
 * as Kafka's processing exception handler passes over a failing punctuate (KIP-1033): what it did
 * before it threw stands, and it fires again at its next interval. There is no record to copy to
 * a dead-letter topic.
 */
export interface FailedPunctuation {
  taskId: string;
  /** The processor that scheduled it. */
  node: string;
  type: PunctuationType;
  /** The time it fired at (stream time or wall-clock time, by its type). */
  timestamp: number;
  error: Error;
}

export interface TaskMetrics {
  recordsIn: number;
  /** Records written by the task's sinks (output and repartition topics). */
  recordsOut: number;
  droppedLateRecords: number;
  /** Records skipped because the timestamp extractor returned a negative time. */
  skippedInvalidTimestamp: number;
  /** Records skipped because they could not be read or processed (deserializationErrors, processingErrors). */
  droppedRecords: number;
  enforcedProcessing: number;
  punctuations: number;
  /** Punctuations that threw and were passed over (processingErrors other than 'fail'). */
  failedPunctuations: number;
  streamTimeMs: number;
}

/** A buffered record. Its origin is the queue's partition and `offset`, built only when asked for. */
interface Buffered {
  record: StreamRecord<unknown, unknown>;
  /** The record as read: its offset, and its bytes for sinks (the key) and dead letters. */
  raw: RawRecord;
  /** The key as deserialized: a sink writing this key with the same serde reuses `raw.key`. */
  sourceKey: unknown;
  source: Processor<unknown, unknown>;
  /**
   * Skipped, in order, when it reaches the head: the extractor gave no valid time (counted), or
   * the serdes could not read it (handled as `deserializationErrors` says).
   */
  skip: 'invalidTimestamp' | { unreadable: Error } | null;
}

/**
 * One input partition's buffered records. A head index instead of `Array.shift()`: the runtime
 * adds a whole fetched chunk at once, and shifting a long array copies what remains behind the
 * head on every call once the array is too large for V8 to trim it in place.
 */
class PartitionQueue {
  private items: Buffered[] = [];
  private head = 0;
  /** The source's key serde (undefined: keys stay bytes). */
  keySerde: Serde<unknown> | undefined;
  /** Highest timestamp extracted in this partition (the extractor's `partitionTime`). */
  partitionTimeMs = -1;
  /** Next offset to commit (last processed + 1); -1 before anything was processed. */
  committableOffset = -1;
  constructor(
    readonly topic: string,
    readonly partition: number,
  ) {}
  get length(): number {
    return this.items.length - this.head;
  }
  push(item: Buffered): void {
    this.items.push(item);
  }
  /** Takes the head record (the queue must not be empty). */
  shift(): Buffered {
    const item = this.items[this.head++];
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
  headTimestamp(): number {
    return this.items[this.head].record.timestamp;
  }
}

export class StreamTask {
  readonly id: string;
  readonly partition: number;
  readonly applicationId: string;
  private readonly queues = new Map<string, PartitionQueue>();
  /** The same queues, for the per-record loops (no iterator per record). */
  private readonly queueList: PartitionQueue[] = [];
  private readonly processors = new Map<string, Processor<unknown, unknown>>();
  private readonly contexts = new Map<string, NodeContext>();
  private readonly children = new Map<string, string[]>();
  /** Each node's children's processors, in order: what `forward` calls per record. */
  private readonly childProcessors = new Map<string, Processor<unknown, unknown>[]>();
  private readonly nodesByName = new Map<string, NodeDef>();
  /** The stores themselves: restored, checkpointed and handed to standby copies by the runtime. */
  readonly stores = new Map<string, StateStore>();
  /** The record cache's views of stores (caching on): what processors, queries and tests read. */
  private readonly views = new Map<string, StateStore>();
  private readonly streamPunctuations = new PunctuationQueue();
  private readonly wallPunctuations = new PunctuationQueue();
  private readonly commitHooks: (() => void)[] = [];
  /** The record being processed and its queue (for `currentOrigin`). */
  private current: Buffered | undefined;
  private currentQueue: PartitionQueue | undefined;
  private idleSinceMs: number | undefined;
  /** The record whose processing threw under processingErrors 'fail' (the error itself is the processor's). */
  failedAt: RecordOrigin | undefined;
  /** The punctuation that threw under processingErrors 'fail'. */
  failedPunctuation: Omit<FailedPunctuation, 'error' | 'taskId'> | undefined;
  private closed = false;
  readonly metrics: TaskMetrics = {
    recordsIn: 0,
    recordsOut: 0,
    droppedLateRecords: 0,
    skippedInvalidTimestamp: 0,
    droppedRecords: 0,
    enforcedProcessing: 0,
    punctuations: 0,
    failedPunctuations: 0,
    streamTimeMs: -1,
  };

  constructor(
    private readonly spec: TaskSpec,
    private readonly options: TaskOptions,
  ) {
    this.id = spec.id;
    this.partition = spec.partition;
    this.applicationId = spec.applicationId;
    for (const input of spec.inputs) {
      const queue = new PartitionQueue(input.topic, input.partition);
      this.queues.set(queueKey(input.topic, input.partition), queue);
      this.queueList.push(queue);
    }
    for (const def of spec.stores) {
      const store = options.createStore(def, spec.id);
      this.stores.set(def.name, store);
      if (!options.caching || !options.cache) continue;
      const view = cachedStateStore(def, store, options.cache, `${spec.id}/${def.name}`);
      if (view !== store) this.views.set(def.name, view);
    }
    for (const node of spec.nodes) {
      this.nodesByName.set(node.name, node);
      this.children.set(node.name, []);
    }
    for (const node of spec.nodes) {
      for (const parent of node.parents) this.children.get(parent)?.push(node.name);
    }
    const metrics = this.metrics;
    const counted: RecordCollector = {
      partitionsOf: (topic) => options.collector.partitionsOf(topic),
      send: (record) => {
        metrics.recordsOut++;
        options.collector.send(record);
      },
    };
    const nodeOptions = { ...options, collector: counted };
    for (const node of spec.nodes) {
      this.processors.set(node.name, node.create());
      this.contexts.set(node.name, new NodeContext(this, node.name, nodeOptions));
    }
    for (const [name, children] of this.children) {
      this.childProcessors.set(
        name,
        children.map((c) => this.processors.get(c)!),
      );
    }
    // Parents are initialised first, so a child's init may rely on its parent's stores.
    for (const node of spec.nodes) this.processors.get(node.name)!.init?.(this.contexts.get(node.name)!);
  }

  /** Buffers records read from one input partition (deserialized, with their event time). */
  addRecords(topic: string, partition: number, records: RawRecord[]): void {
    this.checkOpen();
    const queue = this.queues.get(queueKey(topic, partition));
    if (!queue) {
      throw new StreamsError('STATE', `task ${this.id} does not read ${topic}-${partition}`);
    }
    const sourceNode = this.spec.nodes.find((n) => n.source?.topics.includes(topic));
    if (!sourceNode?.source) throw new StreamsError('STATE', `task ${this.id} has no source for ${topic}`);
    const src = sourceNode.source;
    const source = this.processors.get(sourceNode.name)!;
    const extractor = src.timestampExtractor;
    queue.keySerde = src.key;
    for (const raw of records) {
      let key: unknown;
      let value: unknown;
      try {
        key = raw.key === null || !src.key ? raw.key : src.key.deserialize(raw.key);
        value = raw.value === null || !src.value ? raw.value : src.value.deserialize(raw.value);
      } catch (err) {
        const error = err instanceof Error ? err : new Error(String(err));
        if ((this.options.deserializationErrors ?? 'fail') === 'fail') {
          throw new StreamsError(
            'SERDE',
            `${topic}-${partition} at offset ${raw.offset}: ${error.message}. To skip such records, set deserializationErrors to 'continue' or { deadLetterTopic }`,
            { cause: err },
          );
        }
        queue.push({
          record: {
            key: null,
            value: null,
            timestamp: Math.max(queue.partitionTimeMs, 0),
            headers: raw.headers,
          },
          raw,
          sourceKey: undefined,
          source,
          skip: { unreadable: error },
        });
        continue;
      }
      const ts = extractor
        ? extractor(
            { key, value, timestampMs: raw.timestampMs, topic, partition, offset: raw.offset },
            queue.partitionTimeMs,
          )
        : raw.timestampMs;
      if (!Number.isFinite(ts) || ts < 0) {
        // Kept in the queue so its offset is committed only after the records before it.
        queue.push({
          record: { key, value, timestamp: Math.max(queue.partitionTimeMs, 0), headers: raw.headers },
          raw,
          sourceKey: key,
          source,
          skip: 'invalidTimestamp',
        });
        continue;
      }
      queue.partitionTimeMs = Math.max(queue.partitionTimeMs, ts);
      queue.push({
        record: { key, value, timestamp: ts, headers: raw.headers },
        raw,
        sourceKey: key,
        source,
        skip: null,
      });
    }
  }

  buffered(): number {
    let n = 0;
    for (const q of this.queues.values()) n += q.length;
    return n;
  }

  /**
   * Whether `process()` would process a record now: some data is buffered and either every input
   * partition has data or the idle wait (maxTaskIdleMs of wall clock) for the empty ones is over.
   */
  isProcessable(): boolean {
    let some = false;
    let all = true;
    for (const q of this.queueList) {
      if (q.length > 0) some = true;
      else all = false;
    }
    if (!some) {
      this.idleSinceMs = undefined;
      return false;
    }
    if (all || this.options.maxTaskIdleMs <= 0) {
      this.idleSinceMs = undefined;
      return true;
    }
    const now = this.options.wallClockMs();
    this.idleSinceMs ??= now;
    return now - this.idleSinceMs >= this.options.maxTaskIdleMs;
  }

  /**
   * Runs `fn` with each store's writes in one storage transaction (LMDB: one commit for the
   * whole of it instead of one per write). The runtime processes a fetched chunk, or a
   * punctuation and what follows it, this way.
   */
  inStoreWriteScope(fn: () => void): void {
    let run = fn;
    for (const store of this.stores.values()) {
      if (!isWriteScoped(store)) continue;
      const inner = run;
      run = () => store.inWriteScope(inner);
    }
    run();
  }

  /** Processes every record that can be processed now, in one store write scope; returns how many. */
  processAvailable(): number {
    let processed = 0;
    this.inStoreWriteScope(() => {
      while (this.process()) processed++;
    });
    return processed;
  }

  /** Processes the head record of the partition with the lowest head timestamp; false if none. */
  process(): boolean {
    this.checkOpen();
    if (!this.isProcessable()) return false;
    let next: PartitionQueue | undefined;
    let empty = false;
    for (const q of this.queueList) {
      if (q.length === 0) {
        empty = true;
        continue;
      }
      if (!next || q.headTimestamp() < next.headTimestamp()) next = q;
    }
    if (!next) return false;
    if (empty) this.metrics.enforcedProcessing++;
    const item = next.shift();
    if (item.skip !== null) {
      if (item.skip === 'invalidTimestamp') this.metrics.skippedInvalidTimestamp++;
      else this.drop(next, item, 'deserialization', item.skip.unreadable);
      next.committableOffset = item.raw.offset + 1;
      return true;
    }
    this.metrics.recordsIn++;
    this.metrics.streamTimeMs = Math.max(this.metrics.streamTimeMs, item.record.timestamp);
    this.current = item;
    this.currentQueue = next;
    try {
      item.source.process(item.record);
    } catch (err) {
      if ((this.options.processingErrors ?? 'fail') === 'fail') {
        this.failedAt = { topic: next.topic, partition: next.partition, offset: item.raw.offset };
        throw err;
      }
      this.drop(next, item, 'processing', err instanceof Error ? err : new Error(String(err)));
    } finally {
      this.current = undefined;
      this.currentQueue = undefined;
    }
    next.committableOffset = item.raw.offset + 1;
    this.metrics.punctuations += this.streamPunctuations.fire(this.metrics.streamTimeMs);
    return true;
  }

  /**
   * After a restore: stream time goes on from what the task's state had seen (it never goes
   * back), so records that were late before a restart are still late after it.
   */
  restoreStreamTime(ms: number): void {
    this.metrics.streamTimeMs = Math.max(this.metrics.streamTimeMs, ms);
  }

  /**
   * A record skipped as `deserializationErrors` or `processingErrors` says (not 'fail'): counted,
   * reported, and with a dead-letter topic copied there as it was read, with headers saying why
   * (KIP-1034's names, so tools written for Kafka read them).
   */
  private drop(queue: PartitionQueue, item: Buffered, stage: DroppedRecord['stage'], error: Error): void {
    const policy = (
      stage === 'deserialization' ? this.options.deserializationErrors : this.options.processingErrors
    )!;
    const deadLetterTopic = typeof policy === 'object' ? policy.deadLetterTopic : undefined;
    this.metrics.droppedRecords++;
    const { raw } = item;
    if (deadLetterTopic !== undefined) {
      this.options.collector.send({
        topic: deadLetterTopic,
        key: raw.key,
        value: raw.value,
        timestampMs: raw.timestampMs,
        headers: [...raw.headers, ...deadLetterHeaders(error, queue.topic, queue.partition, raw.offset)],
      });
    }
    this.options.onDropped?.({
      taskId: this.id,
      topic: queue.topic,
      partition: queue.partition,
      offset: raw.offset,
      stage,
      error,
      deadLetterTopic,
    });
  }

  /** Fires wall-clock punctuations that are due; returns how many fired. */
  punctuateWallClock(): number {
    this.checkOpen();
    const fired = this.wallPunctuations.fire(this.options.wallClockMs());
    this.metrics.punctuations += fired;
    return fired;
  }

  /** Flushes caches and buffers; returns the offsets to commit (next offset per input partition). */
  commit(): { topic: string; partition: number; offset: number }[] {
    this.checkOpen();
    // Held forwards first, then the cached stores in one batch each. A flush forwards what it
    // wrote, which may write a downstream cached store flushed before it: go again until clean.
    for (let pass = 0; ; pass++) {
      for (const hook of this.commitHooks) hook();
      for (const view of this.views.values()) view.flush();
      if (this.views.size === 0) break;
      const dirty = [...this.views.values()].some((v) => isCachingStore(v) && v.hasDirty());
      if (pass >= 1 && !dirty) break;
      if (pass > this.views.size + 1) {
        throw new StreamsError('STATE', `task ${this.id}: cached stores still dirty after ${pass} flushes`);
      }
    }
    for (const [name, store] of this.stores) if (!this.views.has(name)) store.flush();
    const out: { topic: string; partition: number; offset: number }[] = [];
    for (const q of this.queues.values()) {
      if (q.committableOffset >= 0)
        out.push({ topic: q.topic, partition: q.partition, offset: q.committableOffset });
    }
    return out;
  }

  /** Closes the processors and (unless kept, e.g. handed to a standby copy) the stores. */
  close(keepStores = false): void {
    if (this.closed) return;
    this.closed = true;
    for (const p of this.processors.values()) p.close?.();
    // Unflushed cached writes are dropped: a clean close committed (flushed) first.
    for (const v of this.views.values()) v.close();
    if (!keepStores) for (const s of this.stores.values()) s.close();
  }

  // ---- used by NodeContext ----

  currentOrigin(): RecordOrigin | undefined {
    const item = this.current;
    const queue = this.currentQueue;
    return item && queue
      ? { topic: queue.topic, partition: queue.partition, offset: item.raw.offset }
      : undefined;
  }

  /**
   * The bytes the record being processed had for `key`, if `serde` read them: serializing `key`
   * again would give the same bytes. Only for primitive keys, compared by value (an object key
   * may have been changed in place since it was read).
   */
  sourceKeyBytes(key: unknown, serde: Serde<unknown>): Buffer | undefined {
    const item = this.current;
    if (item === undefined || item.raw.key === null || this.currentQueue?.keySerde !== serde) {
      return undefined;
    }
    const t = typeof key;
    if (t !== 'string' && t !== 'number' && t !== 'bigint') return undefined;
    return Object.is(item.sourceKey, key) ? item.raw.key : undefined;
  }

  forwardFrom(node: string, record: StreamRecord<unknown, unknown>, child?: string): void {
    if (child === undefined) {
      const processors = this.childProcessors.get(node);
      if (processors) for (let i = 0; i < processors.length; i++) processors[i].process(record);
      return;
    }
    const children = this.children.get(node) ?? [];
    if (!children.includes(child)) {
      throw new StreamsError(
        'TOPOLOGY',
        `node ${node} has no child named ${child} (children: ${children.join(', ')})`,
      );
    }
    this.processors.get(child)!.process(record);
  }

  /** A store as processors and queries see it: through the record cache if it has one. */
  readableStore(name: string): StateStore | undefined {
    return this.views.get(name) ?? this.stores.get(name);
  }

  store(name: string): StateStore {
    const s = this.readableStore(name) ?? this.options.globalStores.get(name);
    if (!s) {
      throw new StreamsError(
        'STORE',
        `task ${this.id} has no store named ${name}; connect it to the processor`,
      );
    }
    return s;
  }

  schedule(
    node: string,
    intervalMs: number,
    type: PunctuationType,
    callback: (timestamp: number) => void,
  ): Cancellable {
    checkInterval(intervalMs, type);
    const run = (cb: () => void, timestamp: number): void => {
      const saved = this.current;
      const savedQueue = this.currentQueue;
      this.current = undefined;
      this.currentQueue = undefined;
      try {
        cb();
      } catch (err) {
        this.punctuationThrew(node, type, timestamp, err);
      } finally {
        this.current = saved;
        this.currentQueue = savedQueue;
      }
    };
    return type === 'streamTime'
      ? this.streamPunctuations.add(intervalMs, 0, callback, run)
      : this.wallPunctuations.add(intervalMs, this.options.wallClockMs() + intervalMs, callback, run);
  }

  /** processingErrors applied to a punctuation: 'fail' throws on, anything else passes it over. */
  private punctuationThrew(node: string, type: PunctuationType, timestamp: number, err: unknown): void {
    if ((this.options.processingErrors ?? 'fail') === 'fail') {
      this.failedPunctuation = { node, type, timestamp };
      throw err;
    }
    this.metrics.failedPunctuations++;
    const error = err instanceof Error ? err : new Error(String(err));
    this.options.onPunctuationFailed?.({ taskId: this.id, node, type, timestamp, error });
  }

  addCommitHook(hook: () => void): void {
    this.commitHooks.push(hook);
  }

  private checkOpen(): void {
    if (this.closed) throw new StreamsError('STATE', `task ${this.id} is closed`);
  }
}

class NodeContext implements InternalProcessorContext {
  readonly applicationId: string;
  readonly taskId: string;
  readonly partition: number;
  readonly caching: boolean;
  readonly collector: RecordCollector;

  constructor(
    private readonly task: StreamTask,
    readonly nodeName: string,
    private readonly options: TaskOptions,
  ) {
    this.applicationId = task.applicationId;
    this.taskId = task.id;
    this.partition = task.partition;
    this.caching = options.caching;
    this.collector = options.collector;
  }

  streamTime(): number {
    return this.task.metrics.streamTimeMs;
  }
  wallClockTime(): number {
    return this.options.wallClockMs();
  }
  origin(): RecordOrigin | undefined {
    return this.task.currentOrigin();
  }
  sourceKeyBytes(key: unknown, serde: Serde<unknown>): Buffer | undefined {
    return this.task.sourceKeyBytes(key, serde);
  }
  forward<K, V>(record: StreamRecord<K, V>, child?: string): void {
    this.task.forwardFrom(this.nodeName, record as StreamRecord<unknown, unknown>, child);
  }
  getStateStore<S extends StateStore>(name: string): S {
    return this.task.store(name) as S;
  }
  schedule(intervalMs: number, type: PunctuationType, callback: (timestamp: number) => void): Cancellable {
    return this.task.schedule(this.nodeName, intervalMs, type, callback);
  }
  recordDroppedLate(): void {
    this.task.metrics.droppedLateRecords++;
  }
  onCommit(flush: () => void): void {
    this.task.addCommitHook(flush);
  }
}

function queueKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/** KIP-1034's dead-letter headers: what failed, why, and where the record was read. */
function deadLetterHeaders(error: Error, topic: string, partition: number, offset: number): RecordHeader[] {
  const header = (key: string, value: string): RecordHeader => ({ key, value: Buffer.from(value, 'utf8') });
  return [
    header('__streams.errors.exception', error.name),
    header('__streams.errors.message', error.message),
    header('__streams.errors.stacktrace', error.stack ?? ''),
    header('__streams.errors.topic', topic),
    header('__streams.errors.partition', String(partition)),
    header('__streams.errors.offset', String(offset)),
  ];
}
