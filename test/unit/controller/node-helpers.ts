/**
 * Helpers for tests of controller instances on one EmbeddedMetadataStore: a store view that can
 * freeze an instance as SIGSTOP would, configs from the real loader, brokers under leases.
 */
import type { ManualClock } from '../../../services/common/clock';
import { loadConfig } from '../../../services/common/config';
import type { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
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
} from '../../../services/common/metadata/store';
import { BrokerRegistry, type BrokerRegistration } from '../../../services/common/cluster/broker-registry';
import { CONTROLLER_CONFIG_SCHEMA, type ControllerConfig } from '../../../services/controller/config';
import type { ControllerNode } from '../../../services/controller/controller-node';
import { CLUSTER, flush } from './helpers';
import { silentLogger } from '../../../services/common/logger';

/**
 * One process's view of a shared store. freeze() is SIGSTOP for that process: its leases stop
 * being kept alive (they lapse after their TTL) and nothing the store says reaches it (watch
 * events and lease-lost notices wait); thaw() is SIGCONT: everything queued arrives, in order.
 * Calls the process makes go through at once (a frozen process makes none; a thawed one may
 * write before it has read what it missed: exactly the zombie case fencing is for).
 */
export class ProcessStore implements MetadataStore {
  private holdEvents = false;
  private holdLeaseNotices = false;
  private readonly queued: { deliver: () => void; leaseNotice: boolean }[] = [];
  private readonly leases: Lease[] = [];

  constructor(private readonly inner: EmbeddedMetadataStore) {}

  freeze(): void {
    this.holdEvents = true;
    this.holdLeaseNotices = true;
    for (const lease of this.leases) lease.release();
  }

  /**
   * Delivers what was held back, in order. With `leaseNotices: false`, lease-lost notices stay
   * held (and later ones too): the process has not noticed that its lease is gone.
   */
  thaw(options: { leaseNotices?: boolean } = {}): void {
    this.holdEvents = false;
    this.holdLeaseNotices = options.leaseNotices === false;
    for (const item of this.queued.splice(0)) {
      if (item.leaseNotice && this.holdLeaseNotices) this.queued.push(item);
      else item.deliver();
    }
  }

  private gate(deliver: () => void, leaseNotice = false): void {
    if (leaseNotice ? this.holdLeaseNotices : this.holdEvents) this.queued.push({ deliver, leaseNotice });
    else deliver();
  }

  get(key: string): Promise<KeyValue | undefined> {
    return this.inner.get(key);
  }
  getPrefix(prefix: string): Promise<RangeResult> {
    return this.inner.getPrefix(prefix);
  }
  put(key: string, value: Buffer | string, options?: { lease?: string }): Promise<number> {
    return this.inner.put(key, value, options);
  }
  delete(key: string): Promise<boolean> {
    return this.inner.delete(key);
  }
  txn(compares: Compare[], success: TxnOp[], failure?: TxnOp[]): Promise<TxnResult> {
    return this.inner.txn(compares, success, failure);
  }
  watchPrefix(
    prefix: string,
    fromRevision: number,
    onEvents: (events: WatchEvent[]) => void,
    onError?: (err: Error) => void,
  ): Promise<Watch> {
    return this.inner.watchPrefix(
      prefix,
      fromRevision,
      (events) => this.gate(() => onEvents(events)),
      onError,
    );
  }
  async grantLease(ttlMs: number): Promise<Lease> {
    const lease = await this.inner.grantLease(ttlMs);
    this.leases.push(lease);
    return {
      id: lease.id,
      ttlMs: lease.ttlMs,
      revoke: () => lease.revoke(),
      release: () => lease.release(),
      onLost: (listener) => lease.onLost((reason) => this.gate(() => listener(reason), true)),
    };
  }
  async close(): Promise<void> {
    // The shared store is closed by the test.
  }
}

/** A controller config from the real loader (as flags), with test-friendly defaults. */
export function controllerConfig(overrides: Partial<ControllerConfig> = {}): ControllerConfig {
  return loadConfig(CONTROLLER_CONFIG_SCHEMA, {
    flags: {
      clusterName: CLUSTER,
      port: 0,
      leaseTtlMs: 5_000,
      leaderImbalanceCheckIntervalMs: 3_600_000,
      ...overrides,
    },
  });
}

/** Lets watch deliveries and every node's reconciler finish (a few rounds: work begets work). */
export async function settle(...nodes: ControllerNode[]): Promise<void> {
  for (let round = 0; round < 5; round++) {
    await flush();
    await Promise.all(nodes.map((n) => n.settled()));
  }
  await flush();
}

/** Registers brokers under leases of `ttlMs` on the shared store. */
export async function registerBrokers(
  store: MetadataStore,
  clock: ManualClock,
  ids: number[],
  ttlMs = 2_000,
): Promise<Map<number, BrokerRegistration>> {
  const registry = new BrokerRegistry({
    store,
    clusterName: CLUSTER,
    clock,
    logger: silentLogger(),
    leaseTtlMs: ttlMs,
  });
  const out = new Map<number, BrokerRegistration>();
  for (const id of ids) out.set(id, await registry.register({ id, host: '127.0.0.1', port: 9000 + id }));
  return out;
}
