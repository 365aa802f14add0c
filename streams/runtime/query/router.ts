/**
 * Interactive queries: finds the task that holds a key (the partition the key's bytes hash to with
 * the producer's partitioner, among the store's subtopology's tasks), reads it here when this
 * instance runs that task, else asks the instance the group's assignment names for it (its query
 * endpoint, over StreamsQuery with local_only). Keys and values cross as bytes in the store's
 * serdes; a table's value comes without its timestamp, which travels beside it.
 *
 * Never a wrong answer: a task is read only while it is active here and not restoring; anything
 * else (restoring, moving, an owner not known yet, an owner that does not have it any more) is a
 * retriable StreamsError of kind NOT_AVAILABLE (code STORE_NOT_AVAILABLE). A key lookup that
 * allows stale answers (Kafka's stale stores) is answered from a standby copy kept here when the
 * active task is not readable here: an answer that may lag, instead of a forward or an error.
 */
import { partitionForKey } from '../../../client/index';
import type { Stamped } from '../../processors/common';
import { StreamsError } from '../../errors';
import type { Serde } from '../../serdes';
import type { KeyValueStore, SessionStore, StateStore, WindowStore } from '../../state/stores';
import { inclusiveByteRange } from '../../state/key-range';
import type { StoreDef } from '../../topology/nodes';
import type { Subtopology, Topology } from '../../topology/topology';
import type { QueryClients } from './clients';

export interface GetResult {
  found: boolean;
  value: Buffer;
  /** -1 when the store keeps no timestamp. */
  timestampMs: number;
  servedBy: string;
}

export interface EntryBytes {
  key: Buffer;
  value: Buffer;
  timestampMs: number;
}

export interface WindowBytes {
  startMs: number;
  endMs: number;
  value: Buffer;
  timestampMs: number;
}

export interface QueryRouterDeps {
  topology: Topology;
  /** Partition count per topic (resolved at start). */
  partitions(): ReadonlyMap<string, number>;
  /** The store of a task active and restored here; undefined otherwise. */
  localStore(taskId: string, store: string): StateStore | undefined;
  /** A global table's store on this instance, once loaded; undefined otherwise. */
  globalStore(store: string): StateStore | undefined;
  /** The store of a standby (or warm-up) copy of the task kept here; undefined otherwise. */
  standbyStore(taskId: string, store: string): StateStore | undefined;
  /** Active task → its instance's query endpoint, from the latest assignment. */
  owners(): ReadonlyMap<string, string>;
  /** This instance's query endpoint ('' without a query server). */
  self(): string;
  clients: QueryClients;
}

interface StoreInfo {
  def: StoreDef;
  /** undefined for a global table's store: every instance holds all of it. */
  subtopology?: Subtopology;
  key: Serde<unknown>;
  value: Serde<unknown>;
}

export class QueryRouter {
  constructor(private readonly deps: QueryRouterDeps) {}

  /** The store's definition and serdes; StreamsError STORE for an unknown or unqueryable store. */
  store(name: string): StoreInfo {
    const topology = this.deps.topology;
    const found = topology.subtopologies
      .map((s) => ({ def: s.stores.find((d) => d.name === name), subtopology: s }))
      .find((f) => f.def) ?? {
      def: topology.global.stores.find((d) => d.name === name),
      subtopology: undefined,
    };
    const def = found.def;
    if (def) {
      if (!def.key || !def.value) {
        throw new StreamsError('STORE', `store ${name} has no key and value serdes: it cannot be queried`);
      }
      return { def, subtopology: found.subtopology, key: def.key, value: def.value };
    }
    const names = [...topology.subtopologies.flatMap((s) => s.stores), ...topology.global.stores].map(
      (d) => d.name,
    );
    throw new StreamsError('STORE', `no store named ${name}; the stores are: ${names.join(', ') || 'none'}`);
  }

  /** The task holding `key` (bytes of the store's key serde). */
  taskOf(info: StoreInfo, key: Buffer): string {
    const s = this.partitioned(info);
    const count = this.deps.topology.taskCount(s, this.deps.partitions());
    return `${s.id}_${partitionForKey(key, count)}`;
  }

  async get(storeName: string, key: Buffer, localOnly: boolean, allowStale = false): Promise<GetResult> {
    const info = this.store(storeName);
    if (info.def.kind !== 'keyValue') {
      throw new StreamsError('STORE', `store ${storeName} is a ${info.def.kind} store: fetch windows of it`);
    }
    const local = (
      info.subtopology
        ? this.readableHere(this.taskOf(info, key), storeName, allowStale)
        : this.loadedGlobal(storeName)
    ) as KeyValueStore<unknown, unknown> | undefined;
    if (local) {
      const found = local.get(info.key.deserialize(key));
      const { value, timestampMs } = unstamp(info, found);
      return {
        found: found !== null,
        value: found === null ? Buffer.alloc(0) : info.value.serialize(value),
        timestampMs,
        servedBy: this.deps.self(),
      };
    }
    const owner = this.remoteOwner(this.taskOf(info, key), storeName, localOnly);
    return this.deps.clients.get(owner, storeName, key, allowStale);
  }

  /**
   * Every entry: the tasks active here, and each other owner's over one call (it answers for its
   * active tasks). With `allowStale`, a task without a reachable owner — none known, this instance
   * while the task restores, or an owner whose call fails as not available — is read from a
   * standby copy kept here; without one the call fails NOT_AVAILABLE, as it does without
   * `allowStale`. Never a key twice: a copy answers only for a task no owner was asked for, and a
   * key an owner returned anyway (its assignment moved meanwhile) is taken from the owner.
   */
  async all(storeName: string, localOnly: boolean, limit = 0, allowStale = false): Promise<EntryBytes[]> {
    const out = await this.gather(storeName, localOnly, allowStale, undefined);
    return limit > 0 ? out.slice(0, limit) : out;
  }

  /**
   * The entries whose key bytes are in [from, to] (empty: open), gathered as all() does, sorted by
   * key bytes, the first `limit` of them. Each store is read in full and filtered (LMDB's order
   * is the key bytes', but the in-memory and cached stores keep no order).
   */
  async range(
    storeName: string,
    from: Buffer,
    to: Buffer,
    localOnly: boolean,
    limit = 0,
    allowStale = false,
  ): Promise<EntryBytes[]> {
    const out = await this.gather(storeName, localOnly, allowStale, { from, to });
    out.sort((a, b) => Buffer.compare(a.key, b.key));
    return limit > 0 ? out.slice(0, limit) : out;
  }

  private async gather(
    storeName: string,
    localOnly: boolean,
    allowStale: boolean,
    bounds: KeyBounds | undefined,
  ): Promise<EntryBytes[]> {
    const info = this.store(storeName);
    if (info.def.kind !== 'keyValue') {
      throw new StreamsError('STORE', `store ${storeName} is a ${info.def.kind} store: fetch windows of it`);
    }
    const out: EntryBytes[] = [];
    /** Entries read from standby copies: added last, for keys no active task returned. */
    const stale: EntryBytes[] = [];
    const range =
      bounds &&
      inclusiveByteRange(
        bounds.from.length === 0 ? null : bounds.from,
        bounds.to.length === 0 ? null : bounds.to,
      );
    const collect = (store: KeyValueStore<unknown, unknown>, into = out): void => {
      for (const [k, v] of range ? store.scan(range) : store.all()) {
        const { value, timestampMs } = unstamp(info, v);
        into.push({ key: info.key.serialize(k), value: info.value.serialize(value), timestampMs });
      }
    };
    if (!info.subtopology) {
      collect(this.loadedGlobal(storeName) as KeyValueStore<unknown, unknown>);
      return out;
    }
    const count = this.deps.topology.taskCount(info.subtopology, this.deps.partitions());
    const copyOf = (task: string) =>
      allowStale
        ? (this.deps.standbyStore(task, storeName) as KeyValueStore<unknown, unknown> | undefined)
        : undefined;
    /** Owner endpoint → the tasks it is asked for. */
    const remote = new Map<string, string[]>();
    for (let p = 0; p < count; p++) {
      const task = `${info.subtopology.id}_${p}`;
      const local = this.deps.localStore(task, storeName) as KeyValueStore<unknown, unknown> | undefined;
      if (local) {
        collect(local);
        continue;
      }
      if (localOnly) continue;
      const owner = this.deps.owners().get(task);
      const copy = copyOf(task);
      if (copy && (!owner || owner === this.deps.self())) {
        collect(copy, stale);
        continue;
      }
      const endpoint = this.remoteOwner(task, storeName, false);
      remote.set(endpoint, [...(remote.get(endpoint) ?? []), task]);
    }
    const fetched = await Promise.all(
      [...remote].map(async ([endpoint, tasks]) => {
        try {
          return await (bounds
            ? this.deps.clients.range(endpoint, storeName, bounds.from, bounds.to)
            : this.deps.clients.all(endpoint, storeName));
        } catch (err) {
          const copies = tasks.map(copyOf);
          const unavailable = err instanceof StreamsError && err.kind === 'NOT_AVAILABLE';
          if (!unavailable || copies.some((c) => c === undefined)) throw err;
          for (const c of copies) collect(c!, stale);
          return [];
        }
      }),
    );
    for (const entries of fetched) out.push(...entries);
    if (stale.length > 0) {
      const seen = new Set(out.map((e) => e.key.toString('latin1')));
      for (const e of stale) if (!seen.has(e.key.toString('latin1'))) out.push(e);
    }
    return out;
  }

  async windows(
    storeName: string,
    key: Buffer,
    fromMs: number,
    toMs: number,
    localOnly: boolean,
    allowStale = false,
  ): Promise<{ windows: WindowBytes[]; servedBy: string }> {
    const info = this.store(storeName);
    if (info.def.kind === 'keyValue') {
      throw new StreamsError('STORE', `store ${storeName} is a key-value store: get its keys`);
    }
    const task = this.taskOf(info, key);
    const local = this.readableHere(task, storeName, allowStale);
    if (!local) {
      const owner = this.remoteOwner(task, storeName, localOnly);
      return this.deps.clients.windows(owner, storeName, key, fromMs, toMs, allowStale);
    }
    const k = info.key.deserialize(key);
    const entries =
      info.def.kind === 'window'
        ? (local as WindowStore<unknown, unknown>).fetchRange(k, fromMs, toMs)
        : (local as SessionStore<unknown, unknown>).findSessions(k, fromMs, toMs);
    return {
      windows: entries.map((e) => {
        const { value, timestampMs } = unstamp(info, e.value);
        return {
          startMs: e.window.start,
          endMs: e.window.end,
          value: info.value.serialize(value),
          timestampMs,
        };
      }),
      servedBy: this.deps.self(),
    };
  }

  /** The task's store here: the active task's, or with `allowStale` a standby copy's. */
  private readableHere(task: string, store: string, allowStale: boolean): StateStore | undefined {
    return (
      this.deps.localStore(task, store) ?? (allowStale ? this.deps.standbyStore(task, store) : undefined)
    );
  }

  /** The subtopology of a partitioned store (not a global table's). */
  private partitioned(info: StoreInfo): Subtopology {
    if (!info.subtopology)
      throw new StreamsError('STORE', `store ${info.def.name} is a global table's: it has no tasks`);
    return info.subtopology;
  }

  /** A global table's store here; NOT_AVAILABLE until it is loaded (every instance has one). */
  private loadedGlobal(store: string): StateStore {
    const found = this.deps.globalStore(store);
    if (!found)
      throw new StreamsError(
        'NOT_AVAILABLE',
        `global table ${store} is not loaded on this instance yet; retry`,
      );
    return found;
  }

  /** The endpoint to ask for a task not readable here; NOT_AVAILABLE when there is none to ask. */
  private remoteOwner(task: string, store: string, localOnly: boolean): string {
    const owner = this.deps.owners().get(task);
    const self = this.deps.self();
    if (localOnly || !owner || owner === self) {
      const why = !owner
        ? 'has no known owner yet'
        : owner === self || localOnly
          ? `is not running on ${self || 'this instance'} now (restoring, or moving to or from it)`
          : '';
      throw new StreamsError('NOT_AVAILABLE', `task ${task} of store ${store} ${why}; retry`);
    }
    return owner;
  }
}

/** Key bytes bounds of a range, both included; an empty bound is open. */
interface KeyBounds {
  from: Buffer;
  to: Buffer;
}

function unstamp(info: StoreInfo, stored: unknown): { value: unknown; timestampMs: number } {
  if (stored === null || stored === undefined) return { value: null, timestampMs: -1 };
  if (!info.def.timestamped) return { value: stored, timestampMs: -1 };
  const s = stored as Stamped<unknown>;
  return { value: s.value, timestampMs: s.timestamp };
}
