/**
 * A prefix watch on etcd that survives etcd restarts and lost connections without losing events.
 *
 * Each watch owns one gRPC Watch stream (etcd3's WatchBuilder is not used: on reconnect it resumes
 * from the revision in the last response header, which during a catch-up is etcd's current
 * revision rather than the last event sent, so events can be skipped). This watch remembers the
 * revision after the last event it delivered and, when the stream breaks, opens a new one from
 * exactly there, retrying with backoff for as long as the watch lives. Nothing is delivered twice
 * and nothing is skipped. If etcd compacted that revision away meanwhile (or cancels the watch for
 * any other reason), `onError` is called once and the watch stops: the caller re-reads a snapshot
 * and watches again.
 *
 * etcd sends a revision's events in one response, and may send several revisions per response;
 * they are split so `onEvents` gets one call per revision, in order.
 */
import type { IDuplexStream, IWatchRequest, IWatchResponse, WatchClient } from 'etcd3';
import type { Clock, Timer } from '../../clock';
import { TideError } from '../../errors';
import type { Logger } from '../../logger';
import type { Watch, WatchEvent } from '../store';
import { closedError } from './calls';
import { closeStream } from './lease';
import { prefixRange, toNumber, toWatchEvent } from './convert';

type WatchStream = IDuplexStream<IWatchRequest, IWatchResponse>;

export interface EtcdWatchDeps {
  watches: WatchClient;
  clock: Clock;
  logger: Logger;
  endpoints: string[];
  /** Called once the watch stops for good (cancelled, failed, store closed). */
  onEnd: (watch: EtcdWatch) => void;
}

const RECONNECT_DELAY_MIN_MS = 50;
const RECONNECT_DELAY_MAX_MS = 2000;

export class EtcdWatch implements Watch {
  private stream?: WatchStream;
  private stopped = false;
  private retryTimer?: Timer;
  private reconnectDelayMs = RECONNECT_DELAY_MIN_MS;
  private disconnectedSinceMs?: number;
  private pendingCreate?: { resolve: () => void; reject: (err: Error) => void };

  constructor(
    private readonly deps: EtcdWatchDeps,
    private readonly prefix: string,
    /** The next revision to deliver (the start revision of the next stream). */
    private nextRevision: number,
    private readonly onEvents: (events: WatchEvent[]) => void,
    private readonly onError?: (err: Error) => void,
  ) {}

  /** Opens the first stream; resolves once etcd created the watch. */
  start(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = this.deps.clock.setTimeout(() => {
        this.pendingCreate = undefined;
        this.stop();
        reject(this.unavailable(`etcd did not create the watch within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pendingCreate = {
        resolve: () => {
          timer.cancel();
          resolve();
        },
        reject: (err) => {
          timer.cancel();
          reject(err);
        },
      };
      this.open();
    });
  }

  async cancel(): Promise<void> {
    this.stop();
  }

  /** Stops for good without calling onError (cancel, store close); a pending start() rejects. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    const pending = this.pendingCreate;
    this.pendingCreate = undefined;
    pending?.reject(closedError());
    this.retryTimer?.cancel();
    if (this.stream) closeStream(this.stream);
    this.stream = undefined;
    this.deps.onEnd(this);
  }

  private open(): void {
    void this.deps.watches.watch().then(
      (stream) => {
        if (this.stopped) {
          closeStream(stream);
          return;
        }
        this.stream = stream;
        stream.on('data', (res) => this.onResponse(stream, res));
        stream.on('error', (err) => this.onBroken(stream, err));
        stream.on('end', () => this.onBroken(stream, new Error('watch stream ended')));
        const range = prefixRange(this.prefix);
        stream.write({ create_request: { ...range, start_revision: this.nextRevision } });
      },
      (err: Error) => this.onBroken(undefined, err),
    );
  }

  private onResponse(stream: WatchStream, res: IWatchResponse): void {
    if (stream !== this.stream || this.stopped) return;
    if (res.canceled || toNumber(res.compact_revision) > 0) {
      this.fail(this.cancelledError(res));
      return;
    }
    if (res.created) {
      this.reconnectDelayMs = RECONNECT_DELAY_MIN_MS;
      if (this.disconnectedSinceMs !== undefined) {
        this.deps.logger.info(
          {
            prefix: this.prefix,
            fromRevision: this.nextRevision,
            outageMs: this.deps.clock.nowMs() - this.disconnectedSinceMs,
          },
          'etcd watch resumed',
        );
        this.disconnectedSinceMs = undefined;
      }
      const pending = this.pendingCreate;
      this.pendingCreate = undefined;
      pending?.resolve();
    }
    if (res.events?.length) this.deliver(res.events.map(toWatchEvent));
  }

  private deliver(events: WatchEvent[]): void {
    let start = 0;
    while (start < events.length && !this.stopped) {
      const revision = events[start].revision;
      let end = start + 1;
      while (end < events.length && events[end].revision === revision) end++;
      const batch = events.slice(start, end);
      start = end;
      // A resumed stream starts at nextRevision, so this only guards against a misbehaving server.
      if (revision < this.nextRevision) continue;
      this.nextRevision = revision + 1;
      try {
        this.onEvents(batch);
      } catch (err) {
        // A throwing watcher is a bug in its owner: surface it as an uncaught error (as an
        // EventEmitter listener would) instead of breaking the stream.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }

  private onBroken(stream: WatchStream | undefined, err: Error): void {
    if (stream !== this.stream || this.stopped) return;
    if (stream) closeStream(stream);
    this.stream = undefined;
    if (this.disconnectedSinceMs === undefined) {
      this.disconnectedSinceMs = this.deps.clock.nowMs();
      this.deps.logger.warn(
        { err, prefix: this.prefix, fromRevision: this.nextRevision },
        'etcd watch disconnected; resuming from the next undelivered revision',
      );
    }
    this.retryTimer = this.deps.clock.setTimeout(() => {
      if (!this.stopped && !this.stream) this.open();
    }, this.reconnectDelayMs);
    this.reconnectDelayMs = Math.min(this.reconnectDelayMs * 2, RECONNECT_DELAY_MAX_MS);
  }

  /** The watch cannot go on: reject the start, or report once through onError. */
  private fail(err: TideError): void {
    const pending = this.pendingCreate;
    this.pendingCreate = undefined;
    this.stop();
    if (pending) {
      pending.reject(err);
      return;
    }
    if (this.onError) this.onError(err);
    else this.deps.logger.error({ err, prefix: this.prefix }, 'etcd watch failed and has no onError');
  }

  private cancelledError(res: IWatchResponse): TideError {
    const compacted = toNumber(res.compact_revision);
    if (compacted > 0) {
      return new TideError(
        'METADATA_UNAVAILABLE',
        `cannot watch ${this.prefix} from revision ${this.nextRevision}: etcd compacted its history up to revision ${compacted}; ` +
          'read a fresh snapshot and watch from its revision + 1',
      );
    }
    return this.unavailable(`etcd cancelled the watch: ${res.cancel_reason || 'no reason given'}`);
  }

  private unavailable(message: string): TideError {
    return new TideError(
      'METADATA_UNAVAILABLE',
      `watch on ${this.prefix} at etcd ${this.deps.endpoints.join(',')}: ${message}`,
    );
  }
}
