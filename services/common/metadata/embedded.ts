/**
 * An in-process MetadataStore with etcd's semantics, for `tide dev` and unit tests.
 *
 * - One global revision; every write batch (put, delete, or a transaction's taken branch that
 *   changes something) takes the next revision, and each key keeps createRevision, modRevision and
 *   version as etcd does. Reads and read-only transactions do not move the revision.
 * - Transactions follow etcd's rules: compares (evaluated by compare.ts) on an absent key see
 *   createRevision = modRevision = version = 0, and a value compare on an absent key is false
 *   whatever the operator; ops of the
 *   taken branch run in order (a get sees an earlier put of the same branch); a branch may not put a
 *   key twice nor put a key it also deletes (INVALID_REQUEST, etcd's "duplicate key").
 * - Watches replay from an in-memory history of the last `historyRevisionsMax` revisions; watching
 *   from an older revision fails with METADATA_UNAVAILABLE. Events reach watchers in revision
 *   order, one callback per revision, from a microtask: never re-entrantly inside a write, and
 *   always before the awaited write resolves.
 * - Leases live while this process holds them (the holder is in-process, so keep-alives cannot
 *   fail); `release()` starts the TTL countdown on the injected clock, `revoke()` ends it now.
 *   Either way the lease's keys go in one revision.
 * - With `persistPath`, non-leased keys and the revision are saved after each write batch (group
 *   commit: writes made during a save share the next one); a write resolves once saved. Watchers
 *   and readers may see a write slightly before it is on disk; in one process that is harmless.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Clock, Timer } from '../clock';
import { TideError } from '../errors';
import type { Logger } from '../logger';
import { loadState, lockStateFile, saveState } from './embedded-persistence';
import type {
  Compare,
  KeyValue,
  Lease,
  MetadataStore,
  RangeResult,
  TxnOp,
  TxnResult,
  Watch,
  WatchEvent,
} from './store';
import { compareHolds } from './compare';

/** Revisions of history kept for watches by default. */
export const DEFAULT_HISTORY_REVISIONS_MAX = 10_000;

export interface EmbeddedMetadataStoreOptions {
  /** Drives lease TTLs. */
  clock: Clock;
  /**
   * File holding the durable state; absent = memory only. Its folder is created if missing, and
   * `<file>.lock` keeps a second process from opening it while this store is open.
   */
  persistPath?: string;
  /** Revisions of watch history kept; watching from an older revision fails. */
  historyRevisionsMax?: number;
  /** Reports background save failures (lease expiry writes have no caller to reject). */
  logger?: Logger;
}

interface LeaseState {
  id: string;
  ttlMs: number;
  keys: Set<string>;
  listeners: ((reason: Error) => void)[];
  expiryTimer?: Timer;
}

interface Watcher {
  prefix: string;
  fromRevision: number;
  onEvents: (events: WatchEvent[]) => void;
  queue: WatchEvent[][];
  scheduled: boolean;
  cancelled: boolean;
}

interface HistoryEntry {
  revision: number;
  events: WatchEvent[];
}

type WriteOp = Exclude<TxnOp, { type: 'get' }>;

function toBuffer(value: Buffer | string): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value);
}

function copyKv(kv: KeyValue): KeyValue {
  return { ...kv, value: Buffer.from(kv.value) };
}

function closedError(): TideError {
  return new TideError('METADATA_UNAVAILABLE', 'the metadata store is closed', { retriable: false });
}

export class EmbeddedMetadataStore implements MetadataStore {
  private readonly clock: Clock;
  private readonly persistPath?: string;
  private readonly historyRevisionsMax: number;
  private readonly logger?: Logger;
  private readonly kvs = new Map<string, KeyValue>();
  private revision = 0;
  /** Highest revision whose events are no longer in `history`. */
  private compactedRevision = 0;
  private history: HistoryEntry[] = [];
  private readonly leases = new Map<string, LeaseState>();
  private nextLeaseId = 1;
  private readonly watchers = new Set<Watcher>();
  private closed = false;
  private saveWaiters: { resolve: () => void; reject: (err: Error) => void }[] = [];
  private saving?: Promise<void>;
  private unlock?: () => void;

  constructor(options: EmbeddedMetadataStoreOptions) {
    this.clock = options.clock;
    this.persistPath = options.persistPath;
    this.historyRevisionsMax = options.historyRevisionsMax ?? DEFAULT_HISTORY_REVISIONS_MAX;
    this.logger = options.logger;
    if (!(Number.isSafeInteger(this.historyRevisionsMax) && this.historyRevisionsMax >= 1)) {
      throw new TideError(
        'INVALID_CONFIG',
        `historyRevisionsMax must be an integer >= 1 (got ${this.historyRevisionsMax})`,
      );
    }
    if (this.persistPath !== undefined) {
      fs.mkdirSync(path.dirname(path.resolve(this.persistPath)), { recursive: true });
      this.unlock = lockStateFile(this.persistPath);
      try {
        this.load(this.persistPath);
      } catch (err) {
        this.unlock();
        throw err;
      }
    }
  }

  /** The store's current revision (the revision of its last write). */
  get currentRevision(): number {
    return this.revision;
  }

  async get(key: string): Promise<KeyValue | undefined> {
    this.ensureOpen();
    const kv = this.kvs.get(key);
    return kv && copyKv(kv);
  }

  async getPrefix(prefix: string): Promise<RangeResult> {
    this.ensureOpen();
    // etcd orders keys by their bytes; encode each key once rather than per comparison.
    const kvs = [...this.kvs.values()]
      .filter((kv) => kv.key.startsWith(prefix))
      .map((kv) => ({ kv, bytes: Buffer.from(kv.key, 'utf8') }))
      .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
      .map(({ kv }) => copyKv(kv));
    return { kvs, revision: this.revision };
  }

  async put(key: string, value: Buffer | string, options: { lease?: string } = {}): Promise<number> {
    const result = await this.txn([], [{ type: 'put', key, value, lease: options.lease }]);
    return result.revision;
  }

  async delete(key: string): Promise<boolean> {
    const result = await this.txn(
      [],
      [
        { type: 'get', key },
        { type: 'delete', key },
      ],
    );
    return result.gets[0] !== undefined;
  }

  async txn(compares: Compare[], success: TxnOp[], failure: TxnOp[] = []): Promise<TxnResult> {
    this.ensureOpen();
    const succeeded = compares.every((c) => compareHolds(c, this.kvs.get(c.key)));
    const ops = succeeded ? success : failure;
    this.checkOps(ops);
    const gets: (KeyValue | undefined)[] = [];
    const next = this.revision + 1;
    const events: WatchEvent[] = [];
    for (const op of ops) {
      if (op.type === 'get') {
        const kv = this.kvs.get(op.key);
        gets.push(kv && copyKv(kv));
      } else {
        this.apply(op, next, events);
      }
    }
    if (events.length === 0) return { succeeded, revision: this.revision, gets };
    this.commit(next, events);
    await this.requestSave();
    return { succeeded, revision: next, gets };
  }

  async watchPrefix(
    prefix: string,
    fromRevision: number,
    onEvents: (events: WatchEvent[]) => void,
    _onError?: (err: Error) => void,
  ): Promise<Watch> {
    // An in-process watch cannot break after it starts, so onError is never called.
    this.ensureOpen();
    const start = fromRevision < 1 ? this.revision + 1 : fromRevision;
    if (start <= this.compactedRevision) {
      throw new TideError(
        'METADATA_UNAVAILABLE',
        `cannot watch ${prefix} from revision ${start}: history up to revision ${this.compactedRevision} was compacted; ` +
          'read a fresh snapshot and watch from its revision + 1',
      );
    }
    const watcher: Watcher = {
      prefix,
      fromRevision: start,
      onEvents,
      queue: [],
      scheduled: false,
      cancelled: false,
    };
    for (const entry of this.history) {
      if (entry.revision >= start) this.enqueue(watcher, entry.events);
    }
    this.watchers.add(watcher);
    return {
      cancel: async () => {
        watcher.cancelled = true;
        watcher.queue = [];
        this.watchers.delete(watcher);
      },
    };
  }

  async grantLease(ttlMs: number): Promise<Lease> {
    this.ensureOpen();
    if (!(Number.isFinite(ttlMs) && ttlMs > 0)) {
      throw new TideError('INVALID_REQUEST', `lease TTL must be a positive number of ms (got ${ttlMs})`);
    }
    const state: LeaseState = { id: String(this.nextLeaseId++), ttlMs, keys: new Set(), listeners: [] };
    this.leases.set(state.id, state);
    return {
      id: state.id,
      ttlMs,
      revoke: async () => {
        if (this.closed || this.leases.get(state.id) !== state) return;
        this.endLease(state);
        await this.requestSave();
      },
      release: () => {
        if (this.closed || this.leases.get(state.id) !== state || state.expiryTimer) return;
        state.expiryTimer = this.clock.setTimeout(() => this.expireLease(state), ttlMs);
      },
      onLost: (listener) => {
        state.listeners.push(listener);
      },
    };
  }

  /**
   * Drops watch history up to (not including) `revision`, as etcd's compact: watching from an
   * earlier revision then fails. For tests; history is also trimmed to historyRevisionsMax.
   */
  compact(revision: number): void {
    this.ensureOpen();
    this.compactedRevision = Math.max(this.compactedRevision, Math.min(revision, this.revision + 1) - 1);
    this.history = this.history.filter((entry) => entry.revision > this.compactedRevision);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const lease of this.leases.values()) lease.expiryTimer?.cancel();
    this.leases.clear();
    for (const watcher of this.watchers) {
      watcher.cancelled = true;
      watcher.queue = [];
    }
    this.watchers.clear();
    try {
      await this.saving;
    } finally {
      this.unlock?.();
    }
  }

  private ensureOpen(): void {
    if (this.closed) throw closedError();
  }

  /** Validates a branch before any of it applies, so a bad branch changes nothing. */
  private checkOps(ops: TxnOp[]): void {
    const puts = new Set<string>();
    const deletedKeys = new Set<string>();
    const deletedPrefixes: string[] = [];
    for (const op of ops) {
      if (op.type === 'delete') deletedKeys.add(op.key);
      if (op.type === 'deletePrefix') deletedPrefixes.push(op.prefix);
    }
    for (const op of ops) {
      if (op.type !== 'put') continue;
      if (puts.has(op.key) || deletedKeys.has(op.key) || deletedPrefixes.some((p) => op.key.startsWith(p))) {
        throw new TideError('INVALID_REQUEST', `duplicate key in transaction: ${op.key} is written twice`);
      }
      puts.add(op.key);
      if (op.lease !== undefined && !this.leases.has(op.lease)) {
        throw new TideError('METADATA_UNAVAILABLE', `lease ${op.lease} not found (expired or revoked)`, {
          retriable: false,
        });
      }
    }
  }

  private apply(op: WriteOp, revision: number, events: WatchEvent[]): void {
    if (op.type === 'put') {
      const previous = this.kvs.get(op.key);
      const value = toBuffer(op.value);
      if (previous?.lease !== undefined) this.leases.get(previous.lease)?.keys.delete(op.key);
      const kv: KeyValue = {
        key: op.key,
        value,
        createRevision: previous ? previous.createRevision : revision,
        modRevision: revision,
        version: previous ? previous.version + 1 : 1,
      };
      if (op.lease !== undefined) {
        kv.lease = op.lease;
        this.leases.get(op.lease)!.keys.add(op.key);
      }
      this.kvs.set(op.key, kv);
      events.push({ type: 'put', key: op.key, value, revision });
    } else if (op.type === 'delete') {
      this.remove(op.key, revision, events);
    } else {
      for (const key of [...this.kvs.keys()].filter((k) => k.startsWith(op.prefix)).sort()) {
        this.remove(key, revision, events);
      }
    }
  }

  private remove(key: string, revision: number, events: WatchEvent[]): void {
    const kv = this.kvs.get(key);
    if (!kv) return;
    if (kv.lease !== undefined) this.leases.get(kv.lease)?.keys.delete(key);
    this.kvs.delete(key);
    events.push({ type: 'delete', key, revision });
  }

  /** Makes a batch of changes the new revision: history, compaction, watchers. */
  private commit(revision: number, events: WatchEvent[]): void {
    this.revision = revision;
    this.history.push({ revision, events });
    const oldestKept = revision - this.historyRevisionsMax + 1;
    if (this.history[0].revision < oldestKept) {
      this.compactedRevision = Math.max(this.compactedRevision, oldestKept - 1);
      this.history = this.history.filter((entry) => entry.revision >= oldestKept);
    }
    for (const watcher of this.watchers) {
      if (revision >= watcher.fromRevision) this.enqueue(watcher, events);
    }
  }

  private enqueue(watcher: Watcher, events: WatchEvent[]): void {
    const matching = events
      .filter((e) => e.key.startsWith(watcher.prefix))
      .map((e) => (e.value === undefined ? { ...e } : { ...e, value: Buffer.from(e.value) }));
    if (matching.length === 0) return;
    watcher.queue.push(matching);
    if (watcher.scheduled) return;
    watcher.scheduled = true;
    queueMicrotask(() => this.deliver(watcher));
  }

  private deliver(watcher: Watcher): void {
    watcher.scheduled = false;
    while (!watcher.cancelled && watcher.queue.length > 0) {
      const batch = watcher.queue.shift()!;
      try {
        watcher.onEvents(batch);
      } catch (err) {
        // A throwing watcher is a bug in its owner: surface it as an uncaught error, as an
        // EventEmitter listener would, without starving the other watchers.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }

  /** Deletes a lease and its keys in one revision. */
  private endLease(lease: LeaseState): void {
    lease.expiryTimer?.cancel();
    this.leases.delete(lease.id);
    const next = this.revision + 1;
    const events: WatchEvent[] = [];
    for (const key of [...lease.keys].sort()) this.remove(key, next, events);
    if (events.length > 0) this.commit(next, events);
  }

  private expireLease(lease: LeaseState): void {
    if (this.closed || this.leases.get(lease.id) !== lease) return;
    this.endLease(lease);
    this.requestSave().catch((err: Error) =>
      this.logger?.error({ err }, 'saving metadata after lease expiry failed'),
    );
    const reason = new TideError(
      'METADATA_UNAVAILABLE',
      `lease ${lease.id} expired after ${lease.ttlMs} ms without keep-alive`,
    );
    for (const listener of lease.listeners) queueMicrotask(() => listener(reason));
  }

  private load(file: string): void {
    const state = loadState(file);
    if (!state) return;
    for (const kv of state.kvs) this.kvs.set(kv.key, kv);
    this.revision = state.revision;
    // The history before the restart is gone: watches start after the loaded revision.
    this.compactedRevision = state.revision;
  }

  /** Resolves once a save that began after this call has completed (group commit). */
  private requestSave(): Promise<void> {
    if (this.persistPath === undefined) return Promise.resolve();
    const file = this.persistPath;
    return new Promise((resolve, reject) => {
      this.saveWaiters.push({ resolve, reject });
      if (!this.saving) this.saving = this.saveLoop(file);
    });
  }

  private async saveLoop(file: string): Promise<void> {
    while (this.saveWaiters.length > 0) {
      const waiters = this.saveWaiters;
      this.saveWaiters = [];
      const kvs = [...this.kvs.values()].filter((kv) => kv.lease === undefined);
      try {
        await saveState(file, { revision: this.revision, kvs });
        for (const waiter of waiters) waiter.resolve();
      } catch (err) {
        const error = new TideError(
          'METADATA_UNAVAILABLE',
          `could not save metadata to ${file}: ${(err as Error).message}`,
          {
            cause: err,
          },
        );
        for (const waiter of waiters) waiter.reject(error);
      }
    }
    // Cleared in the same tick as the last empty-queue check, so no waiter is ever stranded.
    this.saving = undefined;
  }
}
