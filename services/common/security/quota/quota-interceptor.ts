/**
 * The server interceptor that enforces client quotas without touching the handlers: it measures
 * what each client call carries (produce bytes in, fetch bytes out, requests, partitions created)
 * against the caller's quota and, as Kafka does, slows a caller over its quota instead of refusing
 * it: the request is handed to the handler (or the response sent) only after the throttle delay,
 * and on a stream every later message waits behind it, so a producer streaming as fast as it can
 * is held to its rate. The delay a call spent is reported in the `tide-throttle-ms` trailer and,
 * as it happens, in the `throttle_time_ms` field of each produce and fetch response (the delay
 * since the previous response), so a client sees it while a stream goes on, as in Kafka.
 *
 * Open streams are capped per principal (max_streams): the excess stream is refused at once with
 * RESOURCE_EXHAUSTED / TOO_MANY_STREAMS. Connections too (max_connections): a call arriving on a
 * connection beyond the principal's cap is refused with TOO_MANY_CONNECTIONS (the principal is
 * known only once a call carries its credentials, so the cap acts on calls, not on handshakes). Internal RPCs (replication, controller traffic) are never
 * throttled. Rates are per service instance, as in Kafka (a quota is per broker).
 */
import * as grpc from '@grpc/grpc-js';
import type { Clock, Timer } from '../../clock';
import { TideError } from '../../errors';
import { toGrpcStatus } from '../../grpc/status';
import { connectionEvents } from '../../grpc/server';
import { ANONYMOUS } from '../auth/authenticator';
import { PRINCIPAL_HEADER } from '../auth/auth-interceptor';
import { ruleOf } from '../auth/rpc-access';
import { clientIdOfUserAgent, type QuotaKey, type QuotaTable } from './quota';
import { DEFAULT_RATE_OPTIONS, WindowedRate, type RateOptions } from './rate';

export const THROTTLE_TRAILER = 'tide-throttle-ms';

type Message = Record<string, unknown>;

/** What a method's messages count against. */
interface Metering {
  /** Units of a request message, and the quota they count against. */
  inbound?: { key: QuotaKey; size: (m: Message) => number };
  /** Units of a response message. */
  outbound?: { key: QuotaKey; size: (m: Message) => number };
  /** Its responses have a `throttle_time_ms` field (ProduceResponse, FetchResponse). */
  reportsThrottle?: boolean;
}

/** The response field that reports throttling as it happens. */
export const THROTTLE_FIELD = 'throttle_time_ms';

function byteLength(v: unknown): number {
  return v instanceof Uint8Array ? v.length : typeof v === 'string' ? Buffer.byteLength(v) : 0;
}

/** Record bytes of a produce request or fetch response: the batches or the portable records. */
export function recordBytes(m: Message): number {
  let bytes = byteLength(m['record_batches']);
  const records = m['records'];
  if (Array.isArray(records)) {
    for (const r of records as Message[]) {
      bytes += byteLength(r['key']) + byteLength(r['value']);
      const headers = r['headers'];
      if (Array.isArray(headers)) {
        for (const h of headers as Message[]) bytes += byteLength(h['key']) + byteLength(h['value']);
      }
    }
  }
  return bytes;
}

const count = (field: string) => (m: Message) => {
  const v = m[field];
  return typeof v === 'number' && v > 0 ? v : 0;
};

const METERING: Record<string, Metering> = {
  '/tide.v1.Broker/Produce': {
    inbound: { key: 'producer_byte_rate', size: recordBytes },
    reportsThrottle: true,
  },
  '/tide.v1.Broker/ProduceStream': {
    inbound: { key: 'producer_byte_rate', size: recordBytes },
    reportsThrottle: true,
  },
  '/tide.v1.Broker/Fetch': {
    outbound: { key: 'consumer_byte_rate', size: recordBytes },
    reportsThrottle: true,
  },
  '/tide.v1.Broker/FetchStream': {
    outbound: { key: 'consumer_byte_rate', size: recordBytes },
    reportsThrottle: true,
  },
  '/tide.v1.Broker/FetchStreamMulti': {
    outbound: {
      key: 'consumer_byte_rate',
      size: (m) => {
        const partitions = m['partitions'];
        let bytes = 0;
        if (Array.isArray(partitions)) for (const p of partitions as Message[]) bytes += recordBytes(p);
        return bytes;
      },
    },
    reportsThrottle: true,
  },
  '/tide.v1.Admin/CreateTopic': { inbound: { key: 'controller_mutation_rate', size: count('partitions') } },
  // The requested total, an upper bound of the partitions added (the interceptor does not know
  // the current count).
  '/tide.v1.Admin/CreatePartitions': {
    inbound: { key: 'controller_mutation_rate', size: count('count') },
  },
};

export interface QuotaInterceptorOptions {
  /** The current quotas (QuotaCache.table). */
  quotas: () => QuotaTable;
  /** Whether an auth interceptor runs before this one and sets `tide-principal`. */
  authenticated: boolean;
  clock: Clock;
  rate?: RateOptions;
}

export interface QuotaInterceptor {
  interceptor: grpc.ServerInterceptor;
  /** Open streams per stream-cap sensor (tests, metrics). */
  openStreams(principal: string): number;
  /** Connections counted against the principal's max_connections quota (tests, metrics). */
  openConnections(principal: string): number;
  close(): void;
}

/** Runs steps in order, each after its delay; a step with no delay and nothing queued runs now. */
class Serial {
  private pending = 0;
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly clock: Clock) {}

  run(delayMs: number, step: () => void): void {
    if (this.pending === 0 && delayMs <= 0) {
      step();
      return;
    }
    this.pending++;
    this.tail = this.tail
      .then(() => (delayMs > 0 ? sleep(this.clock, delayMs) : undefined))
      .then(() => {
        this.pending--;
        step();
      });
  }
}

function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}

export function quotaInterceptor(options: QuotaInterceptorOptions): QuotaInterceptor {
  const { clock } = options;
  const rateOptions = options.rate ?? DEFAULT_RATE_OPTIONS;
  const rates = new Map<string, WindowedRate>();
  const lastUsed = new Map<string, number>();
  const streamsOpen = new Map<string, number>();
  /** Per connection-cap sensor, the connections (peers) its calls came on. */
  const connectionsOpen = new Map<string, Set<string>>();
  const forgetConnection = (peer: string) => {
    for (const [sensor, peers] of connectionsOpen) {
      if (peers.delete(peer) && peers.size === 0) connectionsOpen.delete(sensor);
    }
  };
  connectionEvents.on('closed', forgetConnection);
  // Forget the rates of callers gone quiet for a whole window.
  const sweeper: Timer = clock.setInterval(() => {
    const horizon = clock.nowMs() - rateOptions.samples * rateOptions.sampleMs;
    for (const [key, at] of lastUsed) {
      if (at < horizon) {
        lastUsed.delete(key);
        rates.delete(key);
      }
    }
  }, rateOptions.samples * rateOptions.sampleMs);

  /** Records usage against the caller's quota for key; returns the throttle delay (0 without a quota). */
  const use = (table: QuotaTable, key: QuotaKey, user: string, clientId: string, amount: number): number => {
    const quota = table.resolve(key, user, clientId);
    if (!quota) return 0;
    const id = `${key}|${quota.sensor}`;
    let rate = rates.get(id);
    if (!rate) rates.set(id, (rate = new WindowedRate(rateOptions)));
    const now = clock.nowMs();
    lastUsed.set(id, now);
    rate.record(amount, now);
    return rate.throttleMs(quota.limit, now);
  };

  const interceptor: grpc.ServerInterceptor = (method, call) => {
    const path = method.path;
    const rule = ruleOf(path);
    // Tide's own traffic (replication, controller calls) and public calls are never throttled.
    if (rule?.kind === 'internal' || rule?.kind === 'public') return new grpc.ServerInterceptingCall(call);
    const metering = METERING[path] ?? {};
    const streaming = method.requestStream || method.responseStream;
    const inbound = new Serial(clock);
    const outbound = new Serial(clock);
    let user = ANONYMOUS.principal;
    let clientId = '';
    let throttledMs = 0;
    /** Throttle time not yet reported in a response's throttle_time_ms. */
    let unreportedMs = 0;
    let ended = false;
    let streamSlot: string | undefined;
    const self: { call?: grpc.ServerInterceptingCall } = {};

    const release = () => {
      ended = true;
      if (streamSlot === undefined) return;
      const left = (streamsOpen.get(streamSlot) ?? 1) - 1;
      if (left <= 0) streamsOpen.delete(streamSlot);
      else streamsOpen.set(streamSlot, left);
      streamSlot = undefined;
    };

    const listener = new grpc.ServerListenerBuilder()
      .withOnReceiveMetadata((metadata, next) => {
        if (options.authenticated) {
          const principal = metadata.get(PRINCIPAL_HEADER)[0];
          if (typeof principal === 'string') user = principal;
        }
        const agent = metadata.get('user-agent')[0];
        clientId = clientIdOfUserAgent(typeof agent === 'string' ? agent : undefined);
        const connectionCap = options.quotas().resolve('max_connections', user, clientId);
        if (connectionCap) {
          const peer = self.call!.getPeer();
          const peers = connectionsOpen.get(connectionCap.sensor) ?? new Set<string>();
          if (!peers.has(peer)) {
            if (peers.size >= connectionCap.limit) {
              ended = true;
              const message = `principal ${user} already has ${peers.size} connection(s) open to this service, its max_connections quota`;
              const status = toGrpcStatus(new TideError('TOO_MANY_CONNECTIONS', message));
              self.call!.sendStatus({ ...status, details: status.details ?? message });
              return;
            }
            peers.add(peer);
            connectionsOpen.set(connectionCap.sensor, peers);
          }
        }
        if (streaming) {
          const cap = options.quotas().resolve('max_streams', user, clientId);
          if (cap) {
            const open = streamsOpen.get(cap.sensor) ?? 0;
            if (open >= cap.limit) {
              ended = true;
              const message = `principal ${user} already has ${open} open stream(s) on this service, its max_streams quota`;
              const status = toGrpcStatus(new TideError('TOO_MANY_STREAMS', message));
              self.call!.sendStatus({ ...status, details: status.details ?? message });
              return;
            }
            streamsOpen.set(cap.sensor, open + 1);
            streamSlot = cap.sensor;
          }
        }
        next(metadata);
      })
      .withOnReceiveMessage((message, next) => {
        if (ended) return;
        const table = options.quotas();
        let delay = 0;
        if (!table.empty) {
          delay = use(table, 'request_rate', user, clientId, 1);
          if (metering.inbound) {
            const amount = metering.inbound.size(message as Message);
            if (amount > 0) {
              delay = Math.max(delay, use(table, metering.inbound.key, user, clientId, amount));
            }
          }
        }
        throttledMs += delay;
        unreportedMs += delay;
        inbound.run(delay, () => {
          if (!ended) next(message);
        });
      })
      .withOnReceiveHalfClose((next) => {
        inbound.run(0, () => {
          if (!ended) next();
        });
      })
      .withOnCancel(() => release())
      .build();

    // The time held since the previous response, set in the field even when 0 when the handler's
    // message already had one (a response forwarded from another broker reports that broker's).
    const withThrottle = (message: Message): Message => {
      const reported = unreportedMs;
      if (reported === 0 && !message[THROTTLE_FIELD]) return message;
      unreportedMs = 0;
      return { ...message, [THROTTLE_FIELD]: reported };
    };

    const responder = new grpc.ResponderBuilder()
      .withStart((next) => next(listener))
      .withSendMetadata((metadata, next) => outbound.run(0, () => next(metadata)))
      .withSendMessage((message, next) => {
        let delay = 0;
        const table = options.quotas();
        if (metering.outbound && !table.empty) {
          const amount = metering.outbound.size(message as Message);
          if (amount > 0) delay = use(table, metering.outbound.key, user, clientId, amount);
        }
        throttledMs += delay;
        unreportedMs += delay;
        outbound.run(delay, () =>
          next(metering.reportsThrottle ? withThrottle(message as Message) : message),
        );
      })
      .withSendStatus((status, next) => {
        outbound.run(0, () => {
          release();
          if (throttledMs > 0) {
            const metadata = status.metadata ?? new grpc.Metadata();
            metadata.set(THROTTLE_TRAILER, String(throttledMs));
            next({ ...status, metadata });
          } else next(status);
        });
      })
      .build();
    self.call = new grpc.ServerInterceptingCall(call, responder);
    return self.call;
  };

  return {
    interceptor,
    openStreams: (principal) => {
      const part = `user=${encodeURIComponent(principal)}`;
      let total = 0;
      for (const [sensor, n] of streamsOpen) if (sensor.split(';').includes(part)) total += n;
      return total;
    },
    openConnections: (principal) => {
      const part = `user=${encodeURIComponent(principal)}`;
      let total = 0;
      for (const [sensor, peers] of connectionsOpen)
        if (sensor.split(';').includes(part)) total += peers.size;
      return total;
    },
    close: () => {
      sweeper.cancel();
      connectionEvents.off('closed', forgetConnection);
    },
  };
}
