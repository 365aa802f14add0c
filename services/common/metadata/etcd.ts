/**
 * The production MetadataStore: etcd v3 (3.4 or newer) through the `etcd3` client.
 *
 * - Reads are linearizable; every result carries etcd's revisions as numbers and lease ids as
 *   etcd's decimal strings. getPrefix lists the prefix sorted by key bytes, with the header
 *   revision (watch from revision + 1 to see every later change).
 * - Transactions map one to one onto etcd's Txn: compares on value / createRevision / modRevision
 *   / version with = != < >, ops put / delete / deletePrefix / get in order (a get sees an earlier
 *   put of its branch). etcd's rules hold: a value compare on an absent key is false, a branch may
 *   not write a key twice (INVALID_REQUEST), at most --max-txn-ops ops (run etcd with
 *   --max-txn-ops=10001 --max-request-bytes=4194304, docs/configuration.md).
 * - Failures: requests that cannot reach etcd are retried for `dialTimeoutMs`; every attempt has a
 *   `requestTimeoutMs` deadline; reads are retried after ambiguous failures, writes are not (their
 *   error says the outcome is unknown). Everything that is etcd's or the network's fault surfaces as
 *   a retriable TideError METADATA_UNAVAILABLE naming the endpoints (see etcd/calls.ts).
 * - Watches resume after an etcd restart or a lost connection from the revision after the last
 *   delivered event: no event is lost or repeated. If etcd compacted that revision meanwhile, the
 *   watch calls onError (METADATA_UNAVAILABLE) once and stops (see etcd/watch.ts).
 * - Leases: TTL in whole seconds rounded up, at least etcd's minimum; keep-alive every TTL/3;
 *   onLost when no keep-alive answer came for a TTL, when etcd reports the lease gone, or, after
 *   release(), once etcd has actually expired it (see etcd/lease.ts). close() stops keep-alives
 *   without revoking: the leases lapse one TTL later, as if the process had died.
 */
import type { Etcd3, IRangeResponse } from 'etcd3';
import { systemClock, type Clock } from '../clock';
import { TideError } from '../errors';
import type { Logger } from '../logger';
import { Caller, closedError, createEtcdClient, isCompacted, type EtcdClientSecurity } from './etcd/calls';
import {
  getsOf,
  isReadOnly,
  prefixRange,
  toCompare,
  toKeyValue,
  toNumber,
  toPutRequest,
  toRequestOp,
} from './etcd/convert';
import { EtcdLease } from './etcd/lease';
import { EtcdWatch } from './etcd/watch';
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

/** How long a request keeps retrying to reach etcd before failing, by default. */
export const DEFAULT_ETCD_DIAL_TIMEOUT_MS = 5_000;
/** The deadline of one request to etcd, by default. */
export const DEFAULT_ETCD_REQUEST_TIMEOUT_MS = 10_000;

export interface EtcdMetadataStoreOptions {
  /** Client URLs of the etcd members, e.g. ["http://etcd-0.etcd:2379"]. At least one. */
  endpoints: string[];
  logger: Logger;
  /** Drives retry backoff, keep-alive ticks and lease-loss deadlines; default the system clock. */
  clock?: Clock;
  /**
   * How long a request keeps retrying while etcd cannot be reached (connection refused, no
   * leader), and how long a watch waits to be created, before failing with METADATA_UNAVAILABLE.
   */
  dialTimeoutMs?: number;
  /** The gRPC deadline of each attempt: a hung etcd fails a request after this long. */
  requestTimeoutMs?: number;
  /** etcd TLS (https:// endpoints) and password auth; none by default. */
  security?: EtcdClientSecurity;
}

export class EtcdMetadataStore implements MetadataStore {
  private readonly endpoints: string[];
  private readonly logger: Logger;
  private readonly clock: Clock;
  private readonly dialTimeoutMs: number;
  private readonly client: Etcd3;
  private readonly caller: Caller;
  private readonly leases = new Set<EtcdLease>();
  private readonly watches = new Set<EtcdWatch>();
  private closed = false;

  constructor(options: EtcdMetadataStoreOptions) {
    if (options.endpoints.length === 0) {
      throw new TideError('INVALID_CONFIG', 'the etcd store needs at least one endpoint');
    }
    this.endpoints = [...options.endpoints];
    this.logger = options.logger.child({ component: 'etcd-metadata' });
    this.clock = options.clock ?? systemClock;
    this.dialTimeoutMs = positive('dialTimeoutMs', options.dialTimeoutMs ?? DEFAULT_ETCD_DIAL_TIMEOUT_MS);
    const requestTimeoutMs = positive(
      'requestTimeoutMs',
      options.requestTimeoutMs ?? DEFAULT_ETCD_REQUEST_TIMEOUT_MS,
    );
    this.client = createEtcdClient(this.endpoints, options.security);
    this.caller = new Caller({
      endpoints: this.endpoints,
      clock: this.clock,
      dialTimeoutMs: this.dialTimeoutMs,
      requestTimeoutMs,
      isClosed: () => this.closed,
    });
  }

  async get(key: string): Promise<KeyValue | undefined> {
    const res = await this.range(`get ${key}`, { key: Buffer.from(key, 'utf8') });
    const kv = res.kvs[0];
    return kv && toKeyValue(kv);
  }

  async getPrefix(prefix: string): Promise<RangeResult> {
    const res = await this.range(`get prefix ${prefix}`, prefixRange(prefix));
    return { kvs: res.kvs.map(toKeyValue), revision: toNumber(res.header.revision) };
  }

  async put(key: string, value: Buffer | string, options: { lease?: string } = {}): Promise<number> {
    const res = await this.caller.run(`put ${key}`, false, (callOptions) =>
      this.client.kv.put(toPutRequest(key, value, options.lease), callOptions),
    );
    return toNumber(res.header.revision);
  }

  async delete(key: string): Promise<boolean> {
    const res = await this.caller.run(`delete ${key}`, false, (callOptions) =>
      this.client.kv.deleteRange({ key: Buffer.from(key, 'utf8') }, callOptions),
    );
    return toNumber(res.deleted) > 0;
  }

  async txn(compares: Compare[], success: TxnOp[], failure: TxnOp[] = []): Promise<TxnResult> {
    const request = {
      compare: compares.map(toCompare),
      success: success.map(toRequestOp),
      failure: failure.map(toRequestOp),
    };
    const what = describeTxn(success);
    const res = await this.caller.run(what, isReadOnly(success, failure), (callOptions) =>
      this.client.kv.txn(request, callOptions),
    );
    return {
      succeeded: res.succeeded,
      revision: toNumber(res.header.revision),
      gets: getsOf(res.succeeded ? success : failure, res.responses ?? []),
    };
  }

  async watchPrefix(
    prefix: string,
    fromRevision: number,
    onEvents: (events: WatchEvent[]) => void,
    onError?: (err: Error) => void,
  ): Promise<Watch> {
    // One read fixes the start revision: "from the next revision" becomes the read's revision + 1,
    // and a past revision is checked against compaction up front, so watchPrefix itself rejects.
    let start = fromRevision;
    const range = { ...prefixRange(prefix), count_only: true };
    if (fromRevision < 1) {
      start = toNumber((await this.range(`watch ${prefix}`, range)).header.revision) + 1;
    } else {
      try {
        await this.range(`watch ${prefix}`, { ...range, revision: fromRevision });
      } catch (err) {
        if (isCompacted((err as Error).cause)) {
          throw new TideError(
            'METADATA_UNAVAILABLE',
            `cannot watch ${prefix} from revision ${fromRevision}: etcd compacted that history; ` +
              'read a fresh snapshot and watch from its revision + 1',
            { cause: err },
          );
        }
        // A future revision is fine to watch from; anything else is a real failure.
        if (!/future revision/i.test(String((err as Error).cause))) throw err;
      }
    }
    this.ensureOpen();
    const watch = new EtcdWatch(
      {
        watches: this.client.watchClient,
        clock: this.clock,
        logger: this.logger,
        endpoints: this.endpoints,
        onEnd: (w) => this.watches.delete(w),
      },
      prefix,
      start,
      onEvents,
      onError,
    );
    this.watches.add(watch);
    await watch.start(this.dialTimeoutMs);
    return watch;
  }

  async grantLease(ttlMs: number): Promise<Lease> {
    if (!(Number.isFinite(ttlMs) && ttlMs > 0)) {
      throw new TideError('INVALID_REQUEST', `lease TTL must be a positive number of ms (got ${ttlMs})`);
    }
    const ttlSeconds = Math.max(1, Math.ceil(ttlMs / 1000));
    // A grant that is retried after an ambiguous failure may leave one unused lease behind; it
    // holds no keys and lapses after its TTL, so retrying is safe.
    const res = await this.caller.run(`grant a ${ttlSeconds} s lease`, true, (callOptions) =>
      this.client.leaseClient.leaseGrant({ TTL: ttlSeconds }, callOptions),
    );
    const grantedAtMs = this.clock.nowMs();
    if (res.error) throw new TideError('METADATA_UNAVAILABLE', `etcd refused a lease: ${res.error}`);
    if (this.closed) throw closedError();
    const lease = new EtcdLease(
      {
        leases: this.client.leaseClient,
        caller: this.caller,
        clock: this.clock,
        logger: this.logger,
        onEnd: (l) => this.leases.delete(l),
      },
      res.ID,
      toNumber(res.TTL) * 1000,
      grantedAtMs,
    );
    this.leases.add(lease);
    return lease;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const watch of [...this.watches]) watch.stop();
    for (const lease of [...this.leases]) lease.close();
    this.client.close();
  }

  private range(what: string, request: Parameters<Etcd3['kv']['range']>[0]): Promise<IRangeResponse> {
    return this.caller.run(what, true, (callOptions) => this.client.kv.range(request, callOptions));
  }

  private ensureOpen(): void {
    if (this.closed) throw closedError();
  }
}

function positive(name: string, value: number): number {
  if (!(Number.isFinite(value) && value > 0)) {
    throw new TideError('INVALID_CONFIG', `${name} must be a positive number of ms (got ${value})`);
  }
  return value;
}

function describeTxn(success: TxnOp[]): string {
  if (success.length === 1 && success[0].type === 'put') return `put ${success[0].key}`;
  const keys = success.map((op) => (op.type === 'deletePrefix' ? `${op.prefix}*` : op.key));
  return `txn on ${keys.slice(0, 3).join(', ')}${keys.length > 3 ? `, … (${keys.length} ops)` : ''}`;
}
