/**
 * How EtcdMetadataStore talks to etcd: one etcd3 client without etcd3's own fault handling, one
 * retry rule, and one mapping from etcd/gRPC failures to TideErrors.
 *
 * Retry rule. etcd3's default policies are replaced by pass-throughs: its per-host circuit
 * breaker stays open for 5 s after three failures, so the first requests after an etcd restart
 * would wait that long, and its global policy retries writes whose outcome is unknown. Instead:
 * - a request that never reached etcd ("No connection established", "no leader") is retried on a
 *   new connection (etcd3 drops the channel after a transport failure, so the next attempt dials
 *   afresh, possibly to another endpoint) with a short backoff, for up to `dialTimeoutMs`;
 * - a request that may have reached etcd (connection dropped mid-call, deadline exceeded) is
 *   retried the same way only when it is idempotent (reads); a write fails at once with
 *   METADATA_UNAVAILABLE saying its outcome is unknown, so the caller re-reads before deciding;
 * - every attempt carries a gRPC deadline of `requestTimeoutMs`, so a hung etcd (SIGSTOP, lost
 *   quorum) gives an error, never a hang.
 */
import { Etcd3, GRPCCancelledError, GRPCDeadlineExceededError, GRPCUnavailableError } from 'etcd3';
import { Channel, type CallOptions, type ChannelCredentials, type ClientOptions } from '@grpc/grpc-js';
import type { IOptions } from 'etcd3';
import type { Clock } from '../../clock';
import { TideError } from '../../errors';

type FaultHandling = NonNullable<IOptions['faultHandling']>;
type Policy = NonNullable<FaultHandling['global']>;

/** A cockatiel-compatible policy that runs the call once, as it is: no retry, no circuit breaker. */
function passThroughPolicy(): Policy {
  const noEvent = () => ({ dispose: () => undefined });
  const policy = {
    onSuccess: noEvent,
    onFailure: noEvent,
    execute: async <T>(fn: (context: { signal: AbortSignal }) => PromiseLike<T> | T, signal?: AbortSignal) =>
      fn({ signal: signal ?? new AbortController().signal }),
  };
  // `_altReturn` is a type-only member of cockatiel's IPolicy; it never exists at runtime.
  return policy as unknown as Policy;
}

/** etcd TLS and password auth (services/common/security/service-security.ts builds it). */
export type EtcdClientSecurity = Pick<IOptions, 'credentials' | 'auth'> & {
  /**
   * Credentials every connection to etcd is made with instead of `credentials` (which etcd3 turns
   * into fixed ones at construction): certificate-provider credentials re-read their files, so a
   * rotated client certificate or CA is used from the next connection on.
   */
  channelCredentials?: ChannelCredentials;
};

/** An etcd3 client whose failures reach us at once (see the retry rule above). */
export function createEtcdClient(endpoints: string[], security: EtcdClientSecurity = {}): Etcd3 {
  const channelCredentials = security.channelCredentials;
  const client = new Etcd3({
    hosts: endpoints,
    ...(security.credentials ? { credentials: security.credentials } : {}),
    ...(security.auth ? { auth: security.auth } : {}),
    faultHandling: { host: () => passThroughPolicy(), global: passThroughPolicy() },
    grpcOptions: {
      // Notice a dead peer on an idle connection (lease keep-alives keep it busy anyway).
      'grpc.keepalive_time_ms': 10_000,
      'grpc.keepalive_timeout_ms': 5_000,
      // etcd3 offers no way to hand it credentials; every service client it creates takes these
      // options, and grpc-js lets them choose the channel.
      ...(channelCredentials
        ? {
            channelFactoryOverride: (address: string, _fixed: ChannelCredentials, options: ClientOptions) =>
              new Channel(address, channelCredentials, options),
          }
        : {}),
    },
  });
  if (channelCredentials && security.auth) useForPasswordAuth(client, channelCredentials);
  return client;
}

/**
 * etcd3 asks etcd for a password-auth token over a client of its own, made with the fixed
 * credentials and no options. It keeps those credentials on its authenticator and reads them at
 * each request for a token, so they are replaced there. Throws if etcd3 no longer has that shape
 * (test/integration/etcd-tls.test.ts would fail), rather than silently using certificates read once.
 */
function useForPasswordAuth(client: Etcd3, credentials: ChannelCredentials): void {
  const pool = (client as unknown as { pool?: { authenticator?: { credentials?: unknown } } }).pool;
  if (!pool?.authenticator || !('credentials' in pool.authenticator)) {
    throw new Error('etcd3 changed: its connection pool has no authenticator credentials to replace');
  }
  pool.authenticator.credentials = credentials;
}

/** How a failed attempt may be retried. */
export type FailureKind = 'unsent' | 'ambiguous' | 'final';

export function classifyFailure(err: unknown): FailureKind {
  if (err instanceof TideError || !(err instanceof Error)) return 'final';
  const message = err.message;
  if (/No connection established|etcdserver: no leader|etcdserver: too many requests/i.test(message)) {
    return 'unsent';
  }
  if (
    err instanceof GRPCUnavailableError ||
    err instanceof GRPCDeadlineExceededError ||
    err instanceof GRPCCancelledError ||
    /etcdserver: (request timed out|leader changed|request cancelled)|ECONNRESET|Connection dropped/i.test(
      message,
    )
  ) {
    return 'ambiguous';
  }
  return 'final';
}

export function closedError(): TideError {
  return new TideError('METADATA_UNAVAILABLE', 'the metadata store is closed', { retriable: false });
}

/** True for etcd's "lease not found" (expired or revoked). */
export function isLeaseNotFound(err: unknown): boolean {
  return err instanceof Error && /requested lease not found|lease not found/i.test(err.message);
}

/** True for etcd's "required revision has been compacted". */
export function isCompacted(err: unknown): boolean {
  return err instanceof Error && /required revision has been compacted/i.test(err.message);
}

/**
 * Maps an etcd or gRPC failure of `what` to a TideError: request errors keep their meaning
 * (INVALID_REQUEST, REQUEST_TOO_LARGE), everything else is METADATA_UNAVAILABLE naming the
 * endpoints. `maybeApplied` marks a write whose outcome is unknown.
 */
export function toMetadataError(
  err: unknown,
  what: string,
  endpoints: string[],
  detail: { maybeApplied?: boolean } = {},
): TideError {
  if (err instanceof TideError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (/client was already closed/i.test(message)) return closedError();
  if (/duplicate key|too many operations in txn/i.test(message)) {
    return new TideError('INVALID_REQUEST', `etcd rejected ${what}: ${message}`, { cause: err });
  }
  if (/request is too large/i.test(message)) {
    return new TideError(
      'REQUEST_TOO_LARGE',
      `etcd rejected ${what}: ${message} (run etcd with --max-request-bytes=4194304, see docs/configuration.md)`,
      { cause: err },
    );
  }
  if (isLeaseNotFound(err)) {
    return new TideError('METADATA_UNAVAILABLE', `${what}: lease not found (expired or revoked)`, {
      cause: err,
      retriable: false,
    });
  }
  if (isCompacted(err)) {
    return new TideError(
      'METADATA_UNAVAILABLE',
      `${what}: etcd compacted that revision away; read a fresh snapshot and watch from its revision + 1`,
      { cause: err },
    );
  }
  const outcome = detail.maybeApplied
    ? '; the write may or may not have been applied: re-read before retrying'
    : '';
  return new TideError(
    'METADATA_UNAVAILABLE',
    `etcd at ${endpoints.join(',')} failed ${what}: ${message}${outcome}`,
    { cause: err },
  );
}

export interface CallerOptions {
  endpoints: string[];
  clock: Clock;
  dialTimeoutMs: number;
  requestTimeoutMs: number;
  isClosed: () => boolean;
}

const RETRY_DELAY_MIN_MS = 25;
const RETRY_DELAY_MAX_MS = 500;

/** Runs requests under the retry rule in this file's header. */
export class Caller {
  constructor(private readonly options: CallerOptions) {}

  /** gRPC call options for one attempt (gRPC deadlines are wall-clock times). */
  callOptions(timeoutMs = this.options.requestTimeoutMs): CallOptions {
    return { deadline: Date.now() + timeoutMs };
  }

  /**
   * Runs `attempt` until it succeeds, fails for good, or `dialTimeoutMs` has passed.
   * `idempotent`: running the request twice has the effect of running it once.
   */
  async run<T>(what: string, idempotent: boolean, attempt: (options: CallOptions) => Promise<T>): Promise<T> {
    const { clock, dialTimeoutMs } = this.options;
    const startMs = clock.nowMs();
    let delayMs = RETRY_DELAY_MIN_MS;
    for (;;) {
      if (this.options.isClosed()) throw closedError();
      try {
        return await attempt(this.callOptions());
      } catch (err) {
        if (this.options.isClosed()) throw closedError();
        const kind = classifyFailure(err);
        const retry = kind === 'unsent' || (kind === 'ambiguous' && idempotent);
        if (!retry || clock.nowMs() - startMs + delayMs > dialTimeoutMs) {
          throw toMetadataError(err, what, this.options.endpoints, {
            maybeApplied: kind === 'ambiguous' && !idempotent,
          });
        }
      }
      await new Promise<void>((resolve) => clock.setTimeout(resolve, delayMs));
      delayMs = Math.min(delayMs * 2, RETRY_DELAY_MAX_MS);
    }
  }
}
