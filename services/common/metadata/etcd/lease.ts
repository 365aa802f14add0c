/**
 * A granted etcd lease and its keep-alive loop.
 *
 * TTL: etcd counts lease TTLs in whole seconds and raises them to its minimum (1.5 election
 * timeouts rounded up: 2 s with etcd's default 1 s election timeout). grantLease asks for
 * ceil(ttlMs / 1000) seconds, at least 1, and `ttlMs` reports what etcd granted.
 *
 * Keep-alive: one LeaseKeepAlive stream per lease, a keep-alive every ttl/3 (as etcd's Go client),
 * the stream reopened with a short backoff whenever it breaks (etcd restart, lost connection).
 * Every answer sets a local deadline: the answer's time + the TTL etcd reported. etcd expires the
 * lease no earlier than that (it renewed the lease before answering), so:
 * - lost (onLost fires) when the deadline passes without a newer answer: the lease may have
 *   expired in etcd, and the holder must stop acting on it. The store then revokes it (best
 *   effort) so its keys do not linger until etcd notices. A false alarm is possible (etcd restarted
 *   and extended the lease, which etcd does on restart) but never a missed loss;
 * - lost when etcd answers TTL 0 (expired or revoked by someone else).
 * release() stops the keep-alives; once the deadline has passed the lease is looked up
 * (LeaseTimeToLive) until etcd reports it gone, and only then does onLost fire: the keys are gone
 * by then. etcd3's own Lease helper is not used: its release() never reports the lapse, it reports
 * a loss only after 2 x TTL without contact, and it reads Date.now() instead of the Clock.
 */
import type { IDuplexStream, ILeaseKeepAliveRequest, ILeaseKeepAliveResponse, LeaseClient } from 'etcd3';
import type { Clock, Timer } from '../../clock';
import { TideError } from '../../errors';
import type { Logger } from '../../logger';
import type { Lease } from '../store';
import { Caller, isLeaseNotFound } from './calls';
import { toNumber } from './convert';

type State = 'alive' | 'released' | 'revoked' | 'lost' | 'closed';

export interface EtcdLeaseDeps {
  leases: LeaseClient;
  caller: Caller;
  clock: Clock;
  logger: Logger;
  /** Called once the lease ends in any way (the store forgets it). */
  onEnd: (lease: EtcdLease) => void;
}

const RECONNECT_DELAY_MIN_MS = 50;
const RECONNECT_DELAY_MAX_MS = 1000;
/** How often a released lease is looked up again while etcd has not yet expired it. */
const LAPSE_POLL_MS = 100;

export class EtcdLease implements Lease {
  private state: State = 'alive';
  private readonly listeners: ((reason: Error) => void)[] = [];
  private lostReason?: Error;
  private stream?: IDuplexStream<ILeaseKeepAliveRequest, ILeaseKeepAliveResponse>;
  private keepAliveTimer?: Timer;
  private deadlineTimer?: Timer;
  private retryTimer?: Timer;
  private reconnectDelayMs = RECONNECT_DELAY_MIN_MS;
  /** Clock time by which etcd may have expired the lease, unless a keep-alive answers first. */
  private deadlineMs: number;

  constructor(
    private readonly deps: EtcdLeaseDeps,
    readonly id: string,
    readonly ttlMs: number,
    grantedAtMs: number,
  ) {
    this.deadlineMs = grantedAtMs + ttlMs;
    this.armDeadline();
    this.openStream();
    this.keepAliveTimer = deps.clock.setInterval(
      () => this.sendKeepAlive(),
      Math.max(1, Math.floor(ttlMs / 3)),
    );
  }

  async revoke(): Promise<void> {
    if (this.state === 'revoked' || this.state === 'closed') return;
    this.end('revoked');
    try {
      await this.deps.caller.run(`revoke lease ${this.id}`, true, (options) =>
        this.deps.leases.leaseRevoke({ ID: this.id }, options),
      );
    } catch (err) {
      // Already expired or revoked: its keys are gone, which is what revoke promises.
      if (isLeaseNotFound(err) || isLeaseNotFound((err as Error).cause)) return;
      throw err;
    }
  }

  release(): void {
    if (this.state !== 'alive') return;
    this.state = 'released';
    this.stopKeepAlive();
    this.deadlineTimer?.cancel();
    this.retryTimer = this.deps.clock.setTimeout(
      () => void this.checkLapsed(),
      Math.max(0, this.deadlineMs - this.deps.clock.nowMs()),
    );
  }

  onLost(listener: (reason: Error) => void): void {
    const reason = this.lostReason;
    if (reason) queueMicrotask(() => listener(reason));
    else if (this.state === 'alive' || this.state === 'released') this.listeners.push(listener);
  }

  /** Stops everything without revoking or reporting a loss (the store is closing). */
  close(): void {
    if (this.state === 'revoked' || this.state === 'closed' || this.state === 'lost') return;
    this.end('closed');
  }

  private openStream(): void {
    void this.deps.leases.leaseKeepAlive().then(
      (stream) => {
        if (this.state !== 'alive') {
          closeStream(stream);
          return;
        }
        this.stream = stream;
        stream.on('data', (res) => this.onAnswer(res));
        stream.on('error', (err) => this.onStreamBroken(stream, err));
        stream.on('end', () => this.onStreamBroken(stream, new Error('keep-alive stream ended')));
        this.sendKeepAlive();
      },
      (err: Error) => this.onStreamBroken(undefined, err),
    );
  }

  private sendKeepAlive(): void {
    try {
      this.stream?.write({ ID: this.id });
    } catch (err) {
      this.onStreamBroken(this.stream, err as Error);
    }
  }

  validUntilMs(): number | undefined {
    return this.state === 'alive' ? this.deadlineMs : undefined;
  }

  private onAnswer(res: ILeaseKeepAliveResponse): void {
    if (this.state !== 'alive' || res.ID !== this.id) return;
    const ttlSeconds = toNumber(res.TTL);
    if (ttlSeconds <= 0) {
      this.lose(`lease ${this.id} expired or was revoked in etcd`);
      return;
    }
    this.reconnectDelayMs = RECONNECT_DELAY_MIN_MS;
    this.deadlineMs = this.deps.clock.nowMs() + ttlSeconds * 1000;
    this.armDeadline();
  }

  private onStreamBroken(
    stream: IDuplexStream<ILeaseKeepAliveRequest, ILeaseKeepAliveResponse> | undefined,
    err: Error,
  ): void {
    if (stream !== this.stream || this.state !== 'alive') return;
    if (stream) closeStream(stream);
    this.stream = undefined;
    this.deps.logger.debug({ err, lease: this.id }, 'etcd lease keep-alive stream broke; reopening');
    this.retryTimer?.cancel();
    this.retryTimer = this.deps.clock.setTimeout(() => {
      if (this.state === 'alive' && !this.stream) this.openStream();
    }, this.reconnectDelayMs);
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, RECONNECT_DELAY_MAX_MS);
  }

  private armDeadline(): void {
    this.deadlineTimer?.cancel();
    this.deadlineTimer = this.deps.clock.setTimeout(
      () => {
        if (this.state !== 'alive') return;
        this.lose(
          `lease ${this.id}: no keep-alive answer from etcd for ${this.ttlMs} ms, so etcd may have expired it`,
        );
        // Make it so: the holder has given up on the lease, its keys should not outlive that.
        this.deps.caller
          .run(`revoke lost lease ${this.id}`, true, (options) =>
            this.deps.leases.leaseRevoke({ ID: this.id }, options),
          )
          .catch(() => undefined);
      },
      Math.max(0, this.deadlineMs - this.deps.clock.nowMs()),
    );
  }

  /** After release(): asks etcd whether the lease is gone yet; reports the loss once it is. */
  private async checkLapsed(): Promise<void> {
    if (this.state !== 'released') return;
    let remainingMs = LAPSE_POLL_MS;
    try {
      const res = await this.deps.caller.run(`look up lease ${this.id}`, true, (options) =>
        this.deps.leases.leaseTimeToLive({ ID: this.id }, options),
      );
      const ttlSeconds = toNumber(res.TTL);
      if (ttlSeconds < 0) {
        this.lose(`lease ${this.id} lapsed ${this.ttlMs} ms after it was released`);
        return;
      }
      remainingMs = Math.max(LAPSE_POLL_MS, ttlSeconds * 1000);
    } catch (err) {
      if (this.deps.clock.nowMs() > this.deadlineMs + this.ttlMs) {
        // etcd has been unreachable for a whole TTL past the deadline: nobody renewed it.
        this.lose(`lease ${this.id} was released and etcd could not confirm it: ${(err as Error).message}`);
        return;
      }
    }
    if (this.state !== 'released') return;
    this.retryTimer = this.deps.clock.setTimeout(() => void this.checkLapsed(), remainingMs);
  }

  private lose(message: string): void {
    if (this.state !== 'alive' && this.state !== 'released') return;
    const reason = new TideError('METADATA_UNAVAILABLE', message);
    this.lostReason = reason;
    this.end('lost');
    for (const listener of this.listeners.splice(0)) queueMicrotask(() => listener(reason));
  }

  private end(state: State): void {
    this.state = state;
    this.stopKeepAlive();
    this.deadlineTimer?.cancel();
    this.retryTimer?.cancel();
    if (state !== 'lost') this.listeners.length = 0;
    this.deps.onEnd(this);
  }

  private stopKeepAlive(): void {
    this.keepAliveTimer?.cancel();
    this.keepAliveTimer = undefined;
    if (this.stream) closeStream(this.stream);
    this.stream = undefined;
  }
}

/** Half-closes, then cancels: etcd3 then does not take the CANCELLED error for a failed host. */
export function closeStream(stream: { end(): void; cancel(): void }): void {
  try {
    stream.end();
    stream.cancel();
  } catch {
    // already closed
  }
}
