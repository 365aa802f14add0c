/**
 * Broker liveness: each broker holds `/tide/<cluster>/brokers/<id>` under a lease. The key exists
 * exactly while the broker's process is alive and in touch with the metadata store; the lease
 * lapsing (crash, partition, paused process) removes it, which the controller sees by watching.
 */
import type { Clock } from '../clock';
import { TideError } from '../errors';
import type { Logger } from '../logger';
import { MetadataKeys, decodeBrokerRecord, encodeBrokerRecord, type BrokerRecord } from '../metadata/keys';
import { mirrorPrefix, type MirrorUpdate } from '../metadata/prefix-mirror';
import type { Lease, MetadataStore, Watch } from '../metadata/store';

/** A live broker as the cluster sees it. */
export type BrokerInfo = BrokerRecord;

/** How long a broker may be out of touch before it counts as dead. */
export const DEFAULT_BROKER_LEASE_TTL_MS = 10_000;

export interface BrokerRegistryOptions {
  store: MetadataStore;
  clusterName: string;
  clock: Clock;
  logger: Logger;
  /** TTL of each registration's lease; default DEFAULT_BROKER_LEASE_TTL_MS. */
  leaseTtlMs?: number;
}

export interface RegisterOptions {
  /**
   * When the id is taken, wait up to this long for the holder's key to go (a crashed predecessor
   * whose lease has not lapsed yet) before failing. 0 (default) fails at once. A restarting
   * broker typically passes its lease TTL plus a margin.
   */
  waitForPreviousMs?: number;
}

/** A broker's live registration. */
export interface BrokerRegistration {
  readonly broker: BrokerInfo;
  readonly leaseId: string;
  /**
   * Called once if the registration lapses while the process still runs (lease lost: the store
   * was unreachable for a TTL). The broker is then dead to the cluster and must register again
   * (other brokers may already have taken over its partitions) or stop.
   */
  onLost(listener: (reason: Error) => void): void;
  /** Deregisters now: the key goes at once (a clean shutdown). */
  close(): Promise<void>;
  /**
   * Stops keeping the registration alive without removing it: it lapses after the lease TTL, as if
   * the process had died. For fault injection and tests.
   */
  release(): void;
  /** Until when the registration's lease is certainly alive, when the store can tell (Lease.validUntilMs). */
  validUntilMs(): number | undefined;
}

export interface BrokersUpdate {
  revision: number;
  /** Every live broker, sorted by id. */
  brokers: BrokerInfo[];
  /** Brokers that registered (or re-registered with a new address) since the last update. */
  added: BrokerInfo[];
  /** Ids of brokers whose registration went away. */
  removed: number[];
  /** True for the first update (and after the watch had to re-read a snapshot). */
  snapshot: boolean;
}

export class BrokerRegistry {
  private readonly keys: MetadataKeys;
  private readonly leaseTtlMs: number;

  constructor(private readonly options: BrokerRegistryOptions) {
    this.keys = new MetadataKeys(options.clusterName);
    this.leaseTtlMs = options.leaseTtlMs ?? DEFAULT_BROKER_LEASE_TTL_MS;
  }

  /**
   * Registers a broker under a fresh lease, only if no live process holds its id. Throws
   * INVALID_CONFIG for a malformed broker record or when the id is registered by another live
   * process (after waiting `waitForPreviousMs`).
   */
  async register(broker: BrokerInfo, options: RegisterOptions = {}): Promise<BrokerRegistration> {
    const value = checkedBrokerValue(broker);
    const key = this.keys.broker(broker.id);
    const deadlineMs = this.options.clock.nowMs() + (options.waitForPreviousMs ?? 0);
    const lease = await this.options.store.grantLease(this.leaseTtlMs);
    try {
      for (;;) {
        const result = await this.options.store.txn(
          [{ key, target: 'createRevision', op: '=', value: 0 }],
          [{ type: 'put', key, value, lease: lease.id }],
          [{ type: 'get', key }],
        );
        if (result.succeeded) break;
        const holder = result.gets[0];
        const remainingMs = deadlineMs - this.options.clock.nowMs();
        if (holder && remainingMs <= 0) {
          throw new TideError(
            'INVALID_CONFIG',
            `broker id ${broker.id} is already registered by another live process (${describeHolder(holder.value, key)}); ` +
              `give each broker a unique id, or wait up to ${this.leaseTtlMs} ms for a crashed predecessor's registration to lapse`,
            { context: { broker: broker.id } },
          );
        }
        if (holder) await this.waitForDelete(key, holder.modRevision, remainingMs);
      }
    } catch (err) {
      await lease.revoke().catch(() => undefined);
      throw err;
    }
    this.options.logger.info({ broker, leaseId: lease.id, leaseTtlMs: this.leaseTtlMs }, 'broker registered');
    return new Registration(broker, lease, this.options.logger);
  }

  /** Every live broker, sorted by id. Malformed registrations are logged and left out. */
  async listBrokers(): Promise<BrokerInfo[]> {
    const range = await this.options.store.getPrefix(this.keys.brokersPrefix);
    const brokers: BrokerInfo[] = [];
    for (const kv of range.kvs) {
      const broker = this.decode(kv.key, kv.value);
      if (broker) brokers.push(broker);
    }
    return brokers.sort((a, b) => a.id - b.id);
  }

  /**
   * Calls `listener` with the live brokers now, then after every change, in revision order.
   * Resolves once the first call has happened.
   */
  async watchBrokers(listener: (update: BrokersUpdate) => void): Promise<Watch> {
    const live = new Map<number, BrokerInfo>();
    return mirrorPrefix(
      {
        store: this.options.store,
        prefix: this.keys.brokersPrefix,
        clock: this.options.clock,
        logger: this.options.logger,
      },
      (update: MirrorUpdate) => {
        const added: BrokerInfo[] = [];
        const removed: number[] = [];
        for (const change of update.changes) {
          const parsed = this.keys.parse(change.key);
          if (parsed?.kind !== 'broker') continue;
          const broker = change.after && this.decode(change.key, change.after);
          if (broker) {
            live.set(parsed.brokerId, broker);
            added.push(broker);
          } else if (!change.after && live.delete(parsed.brokerId)) {
            removed.push(parsed.brokerId);
          }
        }
        if (added.length === 0 && removed.length === 0 && !update.snapshot) return;
        listener({
          revision: update.revision,
          brokers: [...live.values()].sort((a, b) => a.id - b.id),
          added: added.sort((a, b) => a.id - b.id),
          removed: removed.sort((a, b) => a - b),
          snapshot: update.snapshot,
        });
      },
    );
  }

  private decode(key: string, value: Buffer): BrokerInfo | undefined {
    try {
      return decodeBrokerRecord(value, key);
    } catch (err) {
      this.options.logger.error({ err, key }, 'ignoring a malformed broker registration');
      return undefined;
    }
  }

  /** Resolves when `key` is deleted after `sinceRevision`, or after timeoutMs. */
  private async waitForDelete(key: string, sinceRevision: number, timeoutMs: number): Promise<void> {
    let watch: Watch | undefined;
    await new Promise<void>((resolve, reject) => {
      const timer = this.options.clock.setTimeout(resolve, timeoutMs);
      this.options.store
        .watchPrefix(key, sinceRevision + 1, (events) => {
          if (events.some((e) => e.key === key && e.type === 'delete')) {
            timer.cancel();
            resolve();
          }
        })
        .then((w) => (watch = w), reject);
    }).finally(() => watch?.cancel());
  }
}

function checkedBrokerValue(broker: BrokerInfo): string {
  const record = broker.rack ? broker : { id: broker.id, host: broker.host, port: broker.port };
  try {
    decodeBrokerRecord(JSON.stringify(record), `broker ${broker.id}`);
  } catch (err) {
    throw new TideError('INVALID_CONFIG', `cannot register broker: ${(err as Error).message}`, {
      cause: err,
    });
  }
  return encodeBrokerRecord(record);
}

function describeHolder(value: Buffer, key: string): string {
  try {
    const holder = decodeBrokerRecord(value, key);
    return `at ${holder.host}:${holder.port}`;
  } catch {
    return 'unreadable registration';
  }
}

class Registration implements BrokerRegistration {
  private closed = false;

  constructor(
    readonly broker: BrokerInfo,
    private readonly lease: Lease,
    private readonly logger: Logger,
  ) {
    lease.onLost((reason) => {
      if (!this.closed) logger.warn({ broker: broker.id, err: reason }, 'broker registration lost');
    });
  }

  get leaseId(): string {
    return this.lease.id;
  }

  onLost(listener: (reason: Error) => void): void {
    this.lease.onLost((reason) => {
      if (!this.closed) listener(reason);
    });
  }

  release(): void {
    this.lease.release();
  }

  validUntilMs(): number | undefined {
    return this.lease.validUntilMs?.();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.lease.revoke();
    this.logger.info({ broker: this.broker.id }, 'broker deregistered');
  }
}
