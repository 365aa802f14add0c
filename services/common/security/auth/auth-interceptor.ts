/**
 * The server interceptor that authenticates every call, authorizes it from the RPC table
 * (rpc-access.ts), filters listings, and ends long-lived streams when their credential expires or
 * when an ACL they relied on is removed. Handlers stay unaware of security; those that want to
 * know the caller read the `tide-principal` header, which the interceptor always sets (a value
 * sent by the client is replaced).
 *
 * Refusals carry the usual Tide trailers (AUTHENTICATION_FAILED / AUTHORIZATION_FAILED) and a
 * message naming no topic or group, so a refused caller learns nothing about what exists.
 */
import * as grpc from '@grpc/grpc-js';
import type { InterceptingServerListener } from '@grpc/grpc-js/build/src/server-interceptors';
import { TideError } from '../../errors';
import type { Logger } from '../../logger';
import { toGrpcStatus } from '../../grpc/status';
import { bearerTokenOf } from '../bearer-token';
import { AuthenticationError, type Authenticator, type Identity } from './authenticator';
import type { Authorizer } from './authorizer';
import { ruleOf, type Need } from './rpc-access';

export const PRINCIPAL_HEADER = 'tide-principal';
/** setTimeout's largest delay; a credential valid for longer is re-checked then. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface AuthInterceptorOptions {
  authenticator: Authenticator;
  authorizer: Authorizer;
  /** The `audit` logger: denials (at warn). */
  audit: Logger;
  now?: () => number;
}

/** An open stream, re-checked when ACLs change. */
interface OpenStream {
  principal: string;
  /** What the stream was allowed, once per distinct need (a produce stream repeats one per batch). */
  granted: Map<string, Need>;
  deny(code: 'AUTHENTICATION_FAILED' | 'AUTHORIZATION_FAILED', message: string): void;
}

export interface AuthInterceptor {
  interceptor: grpc.ServerInterceptor;
  /** Streams currently open (for tests and metrics). */
  readonly openStreams: number;
  close(): void;
}

function needKey(need: Need): string {
  const one = (r: { resourceType: string; name?: string; operation: string }) =>
    `${r.resourceType}\0${r.operation}\0${r.name ?? '\u0001any'}`;
  return 'anyOf' in need ? need.anyOf.map(one).join('\0|') : one(need);
}

/** ServerInterceptingCall that remembers the handler's listener, to cancel it on a mid-stream refusal. */
class GuardedCall extends grpc.ServerInterceptingCall {
  handlerListener?: InterceptingServerListener;

  override start(listener: InterceptingServerListener): void {
    this.handlerListener = listener;
    super.start(listener);
  }
}

export function authInterceptor(options: AuthInterceptorOptions): AuthInterceptor {
  const { authenticator, authorizer, audit } = options;
  const now = options.now ?? Date.now;
  const streams = new Set<OpenStream>();
  const stopWatching = authorizer.acls.onChange(() => {
    for (const stream of [...streams]) {
      if (![...stream.granted.values()].every((need) => authorizer.satisfies(stream.principal, need))) {
        stream.deny('AUTHORIZATION_FAILED', 'an ACL this stream relied on was removed');
      }
    }
  });

  const interceptor: grpc.ServerInterceptor = (method, call) => {
    const path = method.path;
    const rule = ruleOf(path);
    if (rule?.kind === 'public') return new grpc.ServerInterceptingCall(call);
    const streaming = method.requestStream || method.responseStream;
    let identity: Identity | undefined;
    let ended = false;
    let handlerStarted = false;
    let expiryTimer: NodeJS.Timeout | undefined;
    const granted = new Map<string, Need>();
    // Set below, before any listener can run.
    const self: { call?: GuardedCall } = {};

    const finish = () => {
      ended = true;
      if (expiryTimer) clearTimeout(expiryTimer);
      streams.delete(stream);
    };
    const deny = (code: 'AUTHENTICATION_FAILED' | 'AUTHORIZATION_FAILED', message: string) => {
      if (ended) return;
      finish();
      audit.warn(
        { principal: identity?.principal, method: path, peer: call.getPeer(), code },
        code === 'AUTHENTICATION_FAILED' ? 'call not authenticated' : 'call denied',
      );
      const status = toGrpcStatus(new TideError(code, message));
      self.call!.sendStatus({ ...status, details: status.details ?? message });
      // The handler may already run (streams start on metadata): let it release what it holds.
      if (handlerStarted) self.call!.handlerListener?.onCancel();
    };
    const stream: OpenStream = { principal: '', granted, deny };

    const armExpiry = (expiresAtMs: number) => {
      const delay = expiresAtMs - now();
      expiryTimer = setTimeout(
        () => {
          if (now() >= expiresAtMs)
            deny('AUTHENTICATION_FAILED', 'the credential of this stream has expired');
          else armExpiry(expiresAtMs);
        },
        Math.max(0, Math.min(delay, MAX_TIMER_MS)),
      );
      expiryTimer.unref();
    };

    const check = (needs: Need[]): boolean => {
      for (const need of needs) {
        if (!authorizer.satisfies(identity!.principal, need)) {
          deny('AUTHORIZATION_FAILED', 'no ACL allows this call for your principal');
          return false;
        }
        if (streaming) granted.set(needKey(need), need);
      }
      return true;
    };

    const listener = new grpc.ServerListenerBuilder()
      .withOnReceiveMetadata((metadata, next) => {
        try {
          identity = authenticator.authenticate({
            token: bearerTokenOf(metadata),
            peerCertificate: call.getAuthContext().sslPeerCertificate,
          });
        } catch (err) {
          if (!(err instanceof AuthenticationError)) throw err;
          deny('AUTHENTICATION_FAILED', err.message);
          return;
        }
        if (identity.expiresAtMs !== undefined && identity.expiresAtMs <= now()) {
          deny('AUTHENTICATION_FAILED', 'the credential has expired');
          return;
        }
        const principal = identity.principal;
        if (
          rule?.kind === 'internal'
            ? !authorizer.mayCallInternal(principal)
            : !rule && !authorizer.isSuperUser(principal)
        ) {
          deny('AUTHORIZATION_FAILED', 'this RPC is reserved to Tide services');
          return;
        }
        metadata.set(PRINCIPAL_HEADER, principal);
        if (streaming) {
          stream.principal = principal;
          streams.add(stream);
          if (identity.expiresAtMs !== undefined) armExpiry(identity.expiresAtMs);
        }
        handlerStarted = true;
        next(metadata);
      })
      .withOnReceiveMessage((message, next) => {
        if (ended) return;
        const needs =
          rule?.kind === 'client' && rule.needs ? rule.needs(message as Record<string, unknown>) : [];
        if (check(needs)) next(message);
      })
      .withOnReceiveHalfClose((next) => {
        if (!ended) next();
      })
      .withOnCancel(() => finish())
      .build();

    const filter = rule?.kind === 'client' ? rule.filter : undefined;
    const responder = new grpc.ResponderBuilder()
      .withStart((next) => next(listener))
      .withSendMessage((message, next) => {
        const principal = identity?.principal;
        if (!filter || principal === undefined || !authorizer.enabled || authorizer.isSuperUser(principal)) {
          next(message);
          return;
        }
        next(filter(message as Record<string, unknown>, (request) => authorizer.can(principal, request)));
      })
      .withSendStatus((status, next) => {
        if (!ended) finish();
        next(status);
      })
      .build();
    self.call = new GuardedCall(call, responder);
    return self.call;
  };

  return {
    interceptor,
    get openStreams() {
      return streams.size;
    },
    close: () => {
      stopWatching();
      streams.clear();
    },
  };
}
