/**
 * The MetadataStore: Tide's one door to coordination. Two implementations keep the same contract:
 * `EmbeddedMetadataStore` (in-process, for `tide dev` and unit tests) and the etcd one (production).
 * The contract mirrors etcd's: a revisioned key space, compare-and-swap transactions, watches that
 * replay from a revision, and leases whose keys vanish when the lease lapses.
 */

export interface KeyValue {
  key: string;
  value: Buffer;
  /** Store revision at which the key was created. */
  createRevision: number;
  /** Store revision of the key's last change. */
  modRevision: number;
  /** Number of changes since creation (1 on create). */
  version: number;
  /** The lease the key is attached to, if any. */
  lease?: string;
}

/** A condition of a transaction. `createRevision: 0` means "the key does not exist". */
export type Compare =
  | { key: string; target: 'value'; op: '=' | '!='; value: Buffer | string }
  | {
      key: string;
      target: 'createRevision' | 'modRevision' | 'version';
      op: '=' | '!=' | '<' | '>';
      value: number;
    };

export type TxnOp =
  | { type: 'put'; key: string; value: Buffer | string; lease?: string }
  | { type: 'delete'; key: string }
  | { type: 'deletePrefix'; prefix: string }
  | { type: 'get'; key: string };

export interface TxnResult {
  succeeded: boolean;
  /** Store revision after the transaction. */
  revision: number;
  /** Results of 'get' ops in the branch taken, in order (undefined = absent). */
  gets: (KeyValue | undefined)[];
}

export interface WatchEvent {
  type: 'put' | 'delete';
  key: string;
  /** Absent for deletes. */
  value?: Buffer;
  /** The revision of this change. */
  revision: number;
}

export interface Watch {
  cancel(): Promise<void>;
}

export interface Lease {
  /** Opaque lease id, usable in put() and transactions. */
  readonly id: string;
  readonly ttlMs: number;
  /**
   * Stops keep-alives and deletes every key attached to the lease. The lease's onLost listeners are
   * not called: giving a lease up on purpose is not losing it.
   */
  revoke(): Promise<void>;
  /**
   * Stops keep-alives without revoking: the lease and its keys lapse after ttlMs, exactly as when the
   * holding process dies (etcd3's `lease.release()`). onLost listeners fire when it lapses. Used for
   * crash simulation in tests and by a process that wants its keys to outlive it for one TTL.
   */
  release(): void;
  /**
   * Local clock time until which the lease is certainly alive (the last keep-alive answer plus the
   * TTL), when the store can tell; a holder that must not outlive its lease (a partition leader)
   * stops acting past it. Undefined when the store cannot tell.
   */
  validUntilMs?(): number | undefined;
  /** Called once when the lease is lost (expired, revoked elsewhere, or keep-alive failed). */
  onLost(listener: (reason: Error) => void): void;
}

export interface RangeResult {
  kvs: KeyValue[];
  /** Store revision the read was served at: watch from revision + 1 to see every later change. */
  revision: number;
}

export interface MetadataStore {
  get(key: string): Promise<KeyValue | undefined>;
  /** Every key starting with `prefix`, sorted by key. */
  getPrefix(prefix: string): Promise<RangeResult>;
  /** Returns the revision of the write. */
  put(key: string, value: Buffer | string, options?: { lease?: string }): Promise<number>;
  /** Returns true when the key existed. */
  delete(key: string): Promise<boolean>;
  /** Runs `success` if every compare holds, else `failure`, atomically. */
  txn(compares: Compare[], success: TxnOp[], failure?: TxnOp[]): Promise<TxnResult>;
  /**
   * Calls `onEvents` with every change under `prefix` from `fromRevision` (inclusive) on, in
   * revision order, batched per revision: one call per revision, never re-entrantly inside a write.
   * A `fromRevision` below 1 means "from the next revision" (etcd's start revision 0).
   * Fails with METADATA_UNAVAILABLE when the revision was compacted away. `onError` is called at
   * most once if the watch breaks later (e.g. etcd compacted past it while disconnected); the watch
   * then delivers nothing more and the caller re-reads a snapshot and watches again.
   * `onEvents` must not throw.
   */
  watchPrefix(
    prefix: string,
    fromRevision: number,
    onEvents: (events: WatchEvent[]) => void,
    onError?: (err: Error) => void,
  ): Promise<Watch>;
  /** Grants a lease kept alive in the background until revoked or lost. */
  grantLease(ttlMs: number): Promise<Lease>;
  close(): Promise<void>;
}
