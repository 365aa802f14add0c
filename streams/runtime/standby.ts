/**
 * Standby and warm-up copies of other instances' tasks: the logged stores of a task kept up to
 * date by tailing their changelog partitions (one plain consumer for all of them), never
 * processing input. When the task becomes active here, its stores are handed over with the offset
 * each has applied, and the restore reads only the remainder. When an active task leaves this
 * instance cleanly, its stores are adopted as a standby (no re-read) until the next assignment
 * says whether to keep them.
 *
 * Stores are created through the runtime's store factory with a changelog *relay*: writes made
 * while the standby applies changelog records go nowhere; after a handover the relay points at the
 * active task's changelog writer.
 *
 * Persistent (LMDB) copies — key-value, window and session stores — write a checkpoint (the changelog offset their files contain) when
 * they are dropped or the app closes, so a restart resumes them from there; in-memory copies start
 * from the beginning. Under exactlyOnce the changelogs are read read_committed.
 */
import type { Consumer, Tide } from '../../client/index';
import type { ConsumerBatch, TopicPartition } from '../../client/types';
import type { Logger } from '../../services/common/logger';
import { isPersistentStore } from '../state/factory';
import type { ChangeListener, StateStore, StoreChange } from '../state/stores';
import type { StoreDef } from '../topology/nodes';
import { changelogTopic, ChangelogCodec } from './changelog';
import { checkpointStreamTime, readCheckpoint, STREAM_TIME_KEY, writeCheckpoint } from './checkpoint';
import { changelogApplier, type ChangelogChunk } from './restore';

/** A store's changelog listener, switched between nothing (standby) and the active task's writer. */
export interface ChangeRelay {
  fn?: ChangeListener;
}

/** A logged store with the changelog offset it has applied up to (the next offset to apply). */
export interface StoreSlot {
  def: StoreDef;
  store: StateStore;
  relay: ChangeRelay;
  position: number;
  /** The highest stream time among the changelog records applied (-1: none); the task goes on from it. */
  streamTimeMs: number;
}

export interface StandbyDeps {
  tide: Tide;
  applicationId: string;
  readCommitted: boolean;
  stateDir?: string;
  logger: Logger;
  /** The logged stores of a task (its subtopology's). */
  storesOf(taskId: string): StoreDef[];
  /** The runtime's store factory (LMDB with a state dir and serdes, else in memory). */
  createStore(def: StoreDef, taskId: string, onChange: ChangeListener): StateStore;
  /** The task runs here now (a copy's late checkpoint must not overwrite the active task's files' record). */
  isActive(taskId: string): boolean;
  /** Which copies are within reach of taking over changed (the runtime reports it to the group). */
  onCaughtUpChanged(): void;
  acceptableRecoveryLag: number;
}

interface CopyStore extends StoreSlot {
  tp: TopicPartition;
  /** Writes changelog records into the store (as bytes in one transaction for LMDB). */
  apply: (chunk: ChangelogChunk) => void;
  /** The changelog's end as last seen (high watermark); undefined until known. */
  end?: number;
  /** The reader must move the consumer to `position` (a new copy of this partition). */
  seek: boolean;
}

interface Copy {
  taskId: string;
  stores: CopyStore[];
}

export class StandbyTasks {
  private readonly copies = new Map<string, Copy>();
  /** `topic\0partition` → the copy's store reading it. */
  private readonly readers = new Map<string, CopyStore>();
  private consumer?: Consumer;
  private loop?: Promise<void>;
  private caughtUp = new Set<string>();
  private closed = false;
  /** Changelog records applied by standbys (metrics and tests). */
  recordsApplied = 0;

  constructor(private readonly deps: StandbyDeps) {}

  /** Task ids kept here now. */
  taskIds(): string[] {
    return [...this.copies.keys()].sort();
  }

  /** Keeps exactly these tasks' copies (minus `except`, the tasks active here). */
  set(taskIds: readonly string[], except: ReadonlySet<string>): void {
    if (this.closed) return;
    const wanted = new Set(taskIds.filter((t) => !except.has(t)));
    for (const id of [...this.copies.keys()]) if (!wanted.has(id)) void this.drop(id);
    for (const id of wanted) if (!this.copies.has(id)) this.start(id);
    this.reassign();
  }

  /** A copy's store, for queries that allow stale answers; undefined when no copy of the task is here. */
  store(taskId: string, name: string): StateStore | undefined {
    return this.copies.get(taskId)?.stores.find((s) => s.def.name === name)?.store;
  }

  /** Takes a copy's stores for the task becoming active here; undefined when there is none. */
  release(taskId: string): Map<string, StoreSlot> | undefined {
    const copy = this.copies.get(taskId);
    if (!copy) return undefined;
    this.forget(copy);
    this.reassign();
    return new Map(
      copy.stores.map((s) => [
        s.def.name,
        { def: s.def, store: s.store, relay: s.relay, position: s.position, streamTimeMs: s.streamTimeMs },
      ]),
    );
  }

  /** Keeps the stores of a task that stopped being active here (cleanly) as a copy. */
  adopt(taskId: string, slots: StoreSlot[]): void {
    if (this.closed || this.copies.has(taskId)) {
      for (const s of slots) s.store.close();
      return;
    }
    const partition = Number(taskId.slice(taskId.lastIndexOf('_') + 1));
    const stores = slots.map((s) => {
      s.relay.fn = undefined;
      return this.copyStore(s.def, s.store, s.relay, partition, s.position, s.streamTimeMs);
    });
    this.add({ taskId, stores });
    this.reassign();
  }

  /** Per task kept here: records its copy is behind the changelogs (unknown ends count as 0). */
  lags(): Map<string, number> {
    const out = new Map<string, number>();
    for (const copy of this.copies.values()) {
      let lag = 0;
      for (const s of copy.stores) lag += Math.max(0, (s.end ?? s.position) - s.position);
      out.set(copy.taskId, lag);
    }
    return out;
  }

  /** Tasks whose copies are within acceptableRecoveryLag (and whose ends are known). */
  caughtUpTasks(): Set<string> {
    const out = new Set<string>();
    for (const copy of this.copies.values()) {
      const known = copy.stores.every((s) => s.end !== undefined);
      const lag = copy.stores.reduce((n, s) => n + Math.max(0, (s.end ?? 0) - s.position), 0);
      if (known && lag <= this.deps.acceptableRecoveryLag) out.add(copy.taskId);
    }
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.copies.keys()].map((id) => this.drop(id)));
    const consumer = this.consumer;
    this.consumer = undefined;
    await consumer?.close().catch(() => undefined);
    await this.loop?.catch(() => undefined);
  }

  // ---------------------------------------------------------------- internals

  private start(taskId: string): void {
    const partition = Number(taskId.slice(taskId.lastIndexOf('_') + 1));
    const checkpoint = this.deps.stateDir ? readCheckpoint(this.deps.stateDir, taskId) : {};
    const stores: CopyStore[] = [];
    for (const def of this.deps.storesOf(taskId)) {
      const relay: ChangeRelay = {};
      const store = this.deps.createStore(def, taskId, (c: StoreChange) => relay.fn?.(c));
      const topic = changelogTopic(this.deps.applicationId, def.name);
      // An LMDB copy resumes from its checkpoint; without one (or under exactlyOnce, where only a
      // clean close leaves one) its files cannot be trusted and it starts over, emptied.
      let from = 0;
      let streamTimeMs = -1;
      if (isPersistentStore(store)) {
        const at = checkpoint[topic];
        if (at !== undefined) {
          from = at;
          streamTimeMs = checkpointStreamTime(checkpoint);
        } else store.clear();
      }
      stores.push(this.copyStore(def, store, relay, partition, from, streamTimeMs));
    }
    this.add({ taskId, stores });
    this.deps.logger.info({ task: taskId }, 'standby started');
  }

  private copyStore(
    def: StoreDef,
    store: StateStore,
    relay: ChangeRelay,
    partition: number,
    position: number,
    streamTimeMs: number,
  ): CopyStore {
    return {
      def,
      store,
      relay,
      position,
      streamTimeMs,
      tp: { topic: changelogTopic(this.deps.applicationId, def.name), partition },
      apply: changelogApplier(store, new ChangelogCodec(def)),
      seek: true,
    };
  }

  private add(copy: Copy): void {
    this.copies.set(copy.taskId, copy);
    for (const s of copy.stores) {
      this.readers.set(key(s.tp), s);
      void this.learnEnd(copy.taskId, s);
    }
  }

  private async learnEnd(taskId: string, s: CopyStore): Promise<void> {
    // Where the copy started (its checkpoint): records applied meanwhile may take it past the end listed.
    const startedAt = s.position;
    try {
      const listed = await this.ensureConsumer().listOffset(s.tp, 'latest');
      if (startedAt > listed.offset && this.readers.get(key(s.tp)) === s)
        this.startOver(taskId, s, listed.offset);
      s.end ??= listed.offset;
      this.checkCaughtUp();
    } catch (err) {
      this.deps.logger.debug({ err, tp: s.tp }, 'changelog end not known yet');
    }
  }

  /**
   * Stops a copy. Its stores close at once (the task may open them again right away as an active
   * task); LMDB ones get a checkpoint of what they applied once their writes are flushed.
   */
  private drop(taskId: string): Promise<void> {
    const copy = this.copies.get(taskId);
    if (!copy) return Promise.resolve();
    this.forget(copy);
    const dir = this.deps.stateDir;
    const flushed: Promise<unknown>[] = [];
    const checkpoint: Record<string, number> = {};
    let streamTimeMs = -1;
    for (const s of copy.stores) {
      if (isPersistentStore(s.store) && dir) {
        flushed.push(s.store.flushed());
        checkpoint[s.tp.topic] = s.position;
        streamTimeMs = Math.max(streamTimeMs, s.streamTimeMs);
      }
      s.store.close();
    }
    if (streamTimeMs >= 0) checkpoint[STREAM_TIME_KEY] = streamTimeMs;
    this.deps.logger.info({ task: taskId }, 'standby dropped');
    if (!dir || flushed.length === 0) return Promise.resolve();
    return Promise.all(flushed).then(
      () => {
        if (!this.deps.isActive(taskId) && !this.copies.has(taskId))
          writeCheckpoint(dir, taskId, { ...readCheckpoint(dir, taskId), ...checkpoint });
      },
      (err: unknown) => this.deps.logger.warn({ err, task: taskId }, 'standby copy not checkpointed'),
    );
  }

  /**
   * The copy's checkpoint is past its changelog's end: the changelog was deleted and recreated, and
   * the files cannot be trusted to match it (a key it lacks would stay), nor may the new changelog's
   * records below the old position be skipped. The store is emptied and read from the start.
   */
  private startOver(taskId: string, s: CopyStore, end: number): void {
    this.deps.logger.warn(
      { task: taskId, topic: s.tp.topic, partition: s.tp.partition, checkpoint: s.position, end },
      'standby checkpoint past the changelog end: copy emptied',
    );
    if (isPersistentStore(s.store)) {
      s.store.clear();
    } else {
      // An in-memory copy (adopted from a task that ran here) cannot be emptied: a new one.
      s.store.close();
      s.store = this.deps.createStore(s.def, taskId, (c: StoreChange) => s.relay.fn?.(c));
      s.apply = changelogApplier(s.store, new ChangelogCodec(s.def));
    }
    s.position = 0;
    s.streamTimeMs = -1;
    s.end = undefined;
    s.seek = true;
    this.reassign();
  }

  private forget(copy: Copy): void {
    this.copies.delete(copy.taskId);
    for (const s of copy.stores) if (this.readers.get(key(s.tp)) === s) this.readers.delete(key(s.tp));
  }

  private ensureConsumer(): Consumer {
    this.consumer ??= this.deps.tide.consumer({
      autoOffsetReset: 'earliest',
      isolation: this.deps.readCommitted ? 'read_committed' : 'read_uncommitted',
    });
    return this.consumer;
  }

  private reassign(): void {
    if (this.closed) return;
    const consumer = this.ensureConsumer();
    consumer.assign(
      [...this.readers.values()].map((s) => {
        if (!s.seek) return s.tp;
        s.seek = false;
        return { ...s.tp, offset: s.position };
      }),
    );
    this.loop ??= this.tail(consumer);
    this.checkCaughtUp();
  }

  private async tail(consumer: Consumer): Promise<void> {
    try {
      for await (const batch of consumer.batches()) {
        if (this.closed) return;
        this.apply(batch);
      }
    } catch (err) {
      if (!this.closed) this.deps.logger.warn({ err }, 'standby changelog reader stopped');
    }
  }

  private apply(batch: ConsumerBatch): void {
    const s = this.readers.get(key(batch));
    if (!s) return;
    s.apply({
      visit: (visitor) =>
        batch.forEachRecord((offset, timestampMs, key, value) => {
          if (offset < s.position) return;
          if (key !== null) visitor(key, value, timestampMs);
          if (timestampMs > s.streamTimeMs) s.streamTimeMs = timestampMs;
          s.position = offset + 1;
          this.recordsApplied++;
        }),
    });
    s.position = Math.max(s.position, batch.nextOffset);
    s.end = Math.max(s.end ?? 0, batch.highWatermark);
    this.checkCaughtUp();
  }

  private checkCaughtUp(): void {
    const now = this.caughtUpTasks();
    const same = now.size === this.caughtUp.size && [...now].every((t) => this.caughtUp.has(t));
    if (same) return;
    this.caughtUp = now;
    this.deps.onCaughtUpChanged();
  }
}

function key(tp: TopicPartition): string {
  return `${tp.topic}\u0000${tp.partition}`;
}
