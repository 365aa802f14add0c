/**
 * Controller election on the metadata store, without etcd3's Election helper (it can report
 * `elected` after resign() and observe() can name the wrong leader).
 *
 * - Campaign = ONE transaction: create `/tide/<cluster>/controller` under this instance's lease
 *   only if absent (createRevision = 0). Winning makes the key's createRevision the controller
 *   epoch: store revisions only grow, so every later election has a larger epoch.
 * - Fencing: every metadata write of the active controller carries the compare
 *   `createRevision(/controller) == epoch` (see fencing()). A deposed controller's write fails
 *   in the store, whatever the deposed process believes.
 * - Standbys keep one watch on the key and campaign again when it is deleted (the holder resigned
 *   or its lease lapsed). The active instance steps down at once when its lease is lost, the key
 *   is deleted, or one of its fenced writes fails (stepDown()), then campaigns again.
 * - resign() deletes the key if it is still ours (createRevision == epoch) and revokes the lease.
 *
 * A campaign that fails on a store error is retried after `retryDelayMs` on the injected clock.
 */
import type { Clock, Timer } from '../common/clock';
import { TideError } from '../common/errors';
import type { Logger } from '../common/logger';
import { MetadataKeys } from '../common/metadata/keys';
import type { Compare, Lease, MetadataStore, Watch, WatchEvent } from '../common/metadata/store';
import {
  activeControllerOf,
  encodeActiveControllerRecord,
  type ActiveController,
} from '../common/cluster/controller-record';

export const DEFAULT_CONTROLLER_LEASE_TTL_MS = 10_000;
export const DEFAULT_CAMPAIGN_RETRY_DELAY_MS = 1_000;

export type ElectionState = 'standby' | 'active' | 'stopped';

/** A change of this instance's role. */
export interface ElectionEvent {
  state: ElectionState;
  /** The epoch won ('active'), or the epoch just lost ('standby' or 'stopped' after 'active'; else 0). */
  epoch: number;
  /** Why this instance left 'active'. */
  reason?: string;
}

export interface ControllerElectionOptions {
  store: MetadataStore;
  clusterName: string;
  controllerId: number;
  /** Where brokers reach this controller, written into the controller record. */
  host?: string;
  port?: number;
  clock: Clock;
  logger: Logger;
  /** TTL of the lease holding the controller key; default DEFAULT_CONTROLLER_LEASE_TTL_MS. */
  leaseTtlMs?: number;
  /** Delay before campaigning again after a store error; default DEFAULT_CAMPAIGN_RETRY_DELAY_MS. */
  retryDelayMs?: number;
}

export class ControllerElection {
  private readonly keys: MetadataKeys;
  private readonly key: string;
  private readonly logger: Logger;
  private state: ElectionState = 'standby';
  private currentEpoch = 0;
  private lease?: Lease;
  private watch?: Watch;
  private campaigning = false;
  private campaignAgain = false;
  private retryTimer?: Timer;
  private readonly listeners: ((event: ElectionEvent) => void)[] = [];
  private holder?: ActiveController;

  constructor(private readonly options: ControllerElectionOptions) {
    this.keys = new MetadataKeys(options.clusterName);
    this.key = this.keys.controller;
    this.logger = options.logger.child({ component: 'election', controllerId: options.controllerId });
  }

  /** This instance's role now. */
  get role(): ElectionState {
    return this.state;
  }

  get isActive(): boolean {
    return this.state === 'active';
  }

  /** The epoch this instance holds; 0 unless active. */
  get epoch(): number {
    return this.state === 'active' ? this.currentEpoch : 0;
  }

  /** The active controller as last seen by this instance (itself when active), if any. */
  get activeController(): ActiveController | undefined {
    return this.holder;
  }

  /** Listeners are called synchronously on every role change, in order. */
  onChange(listener: (event: ElectionEvent) => void): void {
    this.listeners.push(listener);
  }

  /**
   * The compares that fence a write to this instance's epoch. Throws NOT_CONTROLLER when this
   * instance is not active, so a standby never even sends a write.
   */
  fencing(): Compare[] {
    if (this.state !== 'active') throw this.notController('this controller is not active');
    return [{ key: this.key, target: 'createRevision', op: '=', value: this.currentEpoch }];
  }

  /** Starts watching the key and campaigns once. Resolves after that first campaign attempt. */
  async start(): Promise<void> {
    await this.startWatch();
    await this.campaign();
  }

  /**
   * Leaves 'active' at once (a fenced write failed, so another controller may hold the key), then
   * campaigns again. No-op unless active.
   */
  stepDown(reason: string): void {
    if (this.state !== 'active') return;
    this.depose(reason);
    void this.campaign();
  }

  /** Stops campaigning; if active, deletes the key (when still ours) and revokes the lease. */
  async resign(): Promise<void> {
    if (this.state === 'stopped') return;
    const wasActive = this.state === 'active';
    const epoch = this.currentEpoch;
    this.state = 'stopped';
    this.currentEpoch = 0;
    this.retryTimer?.cancel();
    await this.watch?.cancel().catch(() => undefined);
    this.watch = undefined;
    if (wasActive) {
      try {
        await this.options.store.txn(
          [{ key: this.key, target: 'createRevision', op: '=', value: epoch }],
          [{ type: 'delete', key: this.key }],
        );
      } catch (err) {
        this.logger.warn({ err, epoch }, 'could not delete the controller key; it lapses with the lease');
      }
    }
    const lease = this.lease;
    this.lease = undefined;
    await lease?.revoke().catch((err: unknown) => this.logger.warn({ err }, 'lease revoke failed'));
    this.logger.info({ epoch: wasActive ? epoch : undefined }, 'resigned from the controller election');
    this.emit({ state: 'stopped', epoch: wasActive ? epoch : 0, reason: 'resigned' });
  }

  // ---- campaign ----

  /** Runs campaign attempts until active, standby behind a live holder, or stopped. */
  private async campaign(): Promise<void> {
    if (this.campaigning) {
      this.campaignAgain = true;
      return;
    }
    this.campaigning = true;
    try {
      do {
        this.campaignAgain = false;
        if (this.state !== 'standby') return;
        try {
          await this.attempt();
        } catch (err) {
          // A lease the store no longer knows (expired while we were away): take a fresh one next time.
          if (/lease.*not found/i.test((err as Error).message)) this.lease = undefined;
          if ((this.state as ElectionState) === 'active')
            this.depose(`campaign failed: ${(err as Error).message}`);
          this.logger.warn({ err }, 'campaign failed; retrying');
          this.scheduleRetry();
          return;
        }
      } while (this.campaignAgain);
    } finally {
      this.campaigning = false;
    }
  }

  private async attempt(): Promise<void> {
    const lease = await this.ensureLease();
    if (this.state !== 'standby') return;
    const result = await this.options.store.txn(
      [{ key: this.key, target: 'createRevision', op: '=', value: 0 }],
      [{ type: 'put', key: this.key, value: this.recordValue(0), lease: lease.id }],
      [{ type: 'get', key: this.key }],
    );
    if (this.state !== 'standby' || lease !== this.lease) return;
    if (result.succeeded) {
      // The creating transaction's revision is the key's createRevision.
      await this.becomeActive(result.revision, lease);
      return;
    }
    const holder = result.gets[0];
    if (holder && holder.lease === lease.id) {
      // Our own key (an earlier attempt whose answer we lost): we hold that epoch.
      await this.becomeActive(holder.createRevision, lease);
      return;
    }
    // A live holder: stay standby; the key watch campaigns again when the key goes.
    this.holder = holder && activeControllerOf(holder);
    this.logger.info({ activeController: this.holder }, 'standing by: another controller is active');
  }

  private async becomeActive(epoch: number, lease: Lease): Promise<void> {
    this.state = 'active';
    this.currentEpoch = epoch;
    this.holder = {
      controllerId: this.options.controllerId,
      epoch,
      ...(this.options.host !== undefined && this.options.port !== undefined
        ? { address: `${this.options.host}:${this.options.port}` }
        : {}),
      lease: lease.id,
    };
    // Fill the epoch into the record (fenced like every other write of this controller).
    const result = await this.options.store.txn(
      [{ key: this.key, target: 'createRevision', op: '=', value: epoch }],
      [{ type: 'put', key: this.key, value: this.recordValue(epoch), lease: lease.id }],
    );
    if (this.state !== 'active' || this.currentEpoch !== epoch) return;
    if (!result.succeeded) {
      this.depose('the controller key changed right after the election');
      this.campaignAgain = true;
      return;
    }
    this.logger.info({ epoch, leaseId: lease.id }, 'elected active controller');
    this.emit({ state: 'active', epoch });
  }

  private depose(reason: string): void {
    if (this.state !== 'active') return;
    const epoch = this.currentEpoch;
    this.state = 'standby';
    this.currentEpoch = 0;
    this.holder = undefined;
    this.logger.warn({ epoch, reason }, 'stepped down: no longer the active controller');
    this.emit({ state: 'standby', epoch, reason });
  }

  private scheduleRetry(): void {
    this.retryTimer?.cancel();
    this.retryTimer = this.options.clock.setTimeout(() => {
      this.retryTimer = undefined;
      void this.campaign();
    }, this.options.retryDelayMs ?? DEFAULT_CAMPAIGN_RETRY_DELAY_MS);
  }

  private async ensureLease(): Promise<Lease> {
    if (this.lease) return this.lease;
    const lease = await this.options.store.grantLease(
      this.options.leaseTtlMs ?? DEFAULT_CONTROLLER_LEASE_TTL_MS,
    );
    if (this.state === 'stopped') {
      await lease.revoke().catch(() => undefined);
      throw this.notController('stopped while campaigning');
    }
    this.lease = lease;
    lease.onLost((reason) => this.onLeaseLost(lease, reason));
    return lease;
  }

  private onLeaseLost(lease: Lease, reason: Error): void {
    if (lease !== this.lease) return;
    this.lease = undefined;
    this.logger.warn({ err: reason, leaseId: lease.id }, 'controller lease lost');
    if (this.state === 'stopped') return;
    this.depose(`lease lost: ${reason.message}`);
    void this.campaign();
  }

  // ---- key watch ----

  private async startWatch(): Promise<void> {
    this.watch = await this.options.store.watchPrefix(
      this.key,
      0,
      (events) => this.onKeyEvents(events),
      (err) => {
        this.logger.warn({ err }, 'controller key watch broke; watching again');
        this.watch = undefined;
        if (this.state === 'stopped') return;
        this.startWatch().then(
          () => void this.campaign(),
          (watchErr: unknown) => {
            this.logger.error({ err: watchErr }, 'cannot watch the controller key; retrying');
            this.scheduleRewatch();
          },
        );
      },
    );
  }

  private scheduleRewatch(): void {
    this.options.clock.setTimeout(() => {
      if (this.state === 'stopped' || this.watch) return;
      this.startWatch().then(
        () => void this.campaign(),
        () => this.scheduleRewatch(),
      );
    }, this.options.retryDelayMs ?? DEFAULT_CAMPAIGN_RETRY_DELAY_MS);
  }

  private onKeyEvents(events: WatchEvent[]): void {
    if (this.state === 'stopped') return;
    for (const event of events) {
      if (event.key !== this.key) continue;
      if (event.type === 'delete') {
        this.holder = undefined;
        if (this.state === 'active') this.depose('the controller key was deleted');
        void this.campaign();
      } else if (this.state === 'standby') {
        // Learn the new holder (for NOT_CONTROLLER messages); the epoch is the put's revision
        // when it created the key, which a get tells us.
        void this.options.store.get(this.key).then(
          (kv) => {
            if (kv && this.state === 'standby') this.holder = activeControllerOf(kv);
          },
          () => undefined,
        );
      }
    }
  }

  // ---- helpers ----

  private recordValue(epoch: number): string {
    const { controllerId, host, port } = this.options;
    return encodeActiveControllerRecord(
      host !== undefined && port !== undefined
        ? { controllerId, epoch, host, port }
        : { controllerId, epoch },
    );
  }

  private notController(why: string): TideError {
    const holder = this.holder;
    const where = holder
      ? `; the active controller is ${holder.controllerId}${holder.address ? ` at ${holder.address}` : ''} (epoch ${holder.epoch})`
      : '';
    return new TideError('NOT_CONTROLLER', `${why}${where}`);
  }

  /** A NOT_CONTROLLER error naming the active controller when known. */
  notControllerError(why = 'this controller is not active'): TideError {
    return this.notController(why);
  }

  private emit(event: ElectionEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.logger.error({ err }, 'election listener failed');
      }
    }
  }
}
