/**
 * Who may query an application's stores: `queryServer.auth`. Callers are authenticated as the
 * services authenticate theirs (services/common/security/auth/authenticator.ts: a bearer token —
 * static, else a JWT such as a Kubernetes service-account token — else the client certificate),
 * then a principal may read the stores its `allow` entry lists. An application has no ACL store:
 * the list is part of its options, the same on every instance.
 *
 * A key owned by another instance is forwarded with this instance's own credential (its
 * certificate under mTLS, or `tokenFile`), so the instances' principal must be allowed every
 * store; the caller was checked by the instance it called.
 *
 * Refusals say which of authentication or authorization failed, never which stores exist.
 */
import type * as grpc from '@grpc/grpc-js';
import { TideError } from '../../../services/common/errors';
import type { Logger } from '../../../services/common/logger';
import { bearerTokenOf } from '../../../services/common/security/bearer-token';
import {
  AuthenticationError,
  Authenticator,
  readStaticTokens,
  type AuthenticatorSettings,
} from '../../../services/common/security/auth/authenticator';
import { JwtVerifier } from '../../../services/common/security/auth/jwt';
import { parsePrincipalRules } from '../../../services/common/security/auth/principal-mapping';
import { StreamsError } from '../../errors';
import type { QueryTlsOptions } from './query-tls';

export interface QueryAuthOptions {
  /**
   * The principal from the caller's certificate (needs `tls.clientAuth` 'request' or 'require'):
   * its subject DN (default) or SAN, mapped by Kafka-style rules (`RULE:…/…/,DEFAULT`).
   */
  mtls?: { source?: 'subject' | 'san'; rules?: string };
  /** JWT bearer tokens checked offline against a JWKS file (Kubernetes service-account tokens). */
  jwt?: { jwksFile: string; issuer: string; audience: string; principalClaim?: string };
  /** `<token> <principal>` per line: development tokens. */
  staticTokensFile?: string;
  /**
   * Principal → the stores it may query, or '*' for all. A name ending in `*` is a prefix
   * (`system:serviceaccount:team-a:*`). DescribeInstances needs at least one store.
   */
  allow: Readonly<Record<string, readonly string[] | '*'>>;
  /** This instance's bearer token toward the others (re-read when the file changes). */
  tokenFile?: string;
}

interface Grant {
  principal: string;
  prefix: boolean;
  stores: ReadonlySet<string> | '*';
}

/** Refuses a caller: 'AUTHENTICATION_FAILED' or 'AUTHORIZATION_FAILED', with a message safe to return. */
function refused(code: 'AUTHENTICATION_FAILED' | 'AUTHORIZATION_FAILED', message: string): TideError {
  return new TideError(code, message);
}

function invalid(message: string): StreamsError {
  return new StreamsError('TOPOLOGY', `queryServer.auth: ${message}`);
}

export class QueryAccess {
  private readonly grants: Grant[];

  private constructor(
    private readonly authenticator: Authenticator,
    allow: QueryAuthOptions['allow'],
    private readonly audit: Logger,
  ) {
    this.grants = Object.entries(allow).map(([name, stores]) => ({
      principal: name.endsWith('*') ? name.slice(0, -1) : name,
      prefix: name.endsWith('*'),
      stores: stores === '*' ? '*' : new Set(stores),
    }));
  }

  /** The checks of `auth` (undefined: none); throws a StreamsError saying what to set. */
  static of(
    auth: QueryAuthOptions | undefined,
    tls: QueryTlsOptions | undefined,
    logger: Logger,
  ): QueryAccess | undefined {
    if (!auth) return undefined;
    if (!tls) throw invalid('needs queryServer.tls: credentials are never taken over plain text');
    const settings: AuthenticatorSettings = {};
    if (auth.mtls) {
      if ((tls.clientAuth ?? 'none') === 'none') {
        throw invalid(
          "mtls needs client certificates: set queryServer.tls.clientAuth to 'request' or 'require'",
        );
      }
      settings.mtls = {
        source: auth.mtls.source ?? 'subject',
        rules: parsePrincipalRules(auth.mtls.rules ?? ''),
      };
    }
    if (auth.jwt) {
      settings.jwt = {
        verifier: new JwtVerifier({
          jwksFile: auth.jwt.jwksFile,
          issuer: auth.jwt.issuer,
          audience: auth.jwt.audience,
        }),
        principalClaim: auth.jwt.principalClaim ?? 'sub',
      };
    }
    if (auth.staticTokensFile) settings.staticTokens = readStaticTokens(auth.staticTokensFile);
    const authenticator = new Authenticator(settings);
    if (!authenticator.enabled)
      throw invalid('names no way to authenticate: set mtls, jwt or staticTokensFile');
    if (!auth.mtls && !auth.tokenFile) {
      throw invalid('takes tokens only, so this instance needs one for the others: set tokenFile');
    }
    if (!auth.allow || Object.keys(auth.allow).length === 0) {
      throw invalid('allow lists no principal: nobody, not even the instances, could query');
    }
    for (const [principal, stores] of Object.entries(auth.allow)) {
      if (stores !== '*' && !Array.isArray(stores)) {
        throw invalid(`allow['${principal}'] must be a list of store names or '*'`);
      }
    }
    return new QueryAccess(authenticator, auth.allow, logger.child({ name: 'audit' }));
  }

  /**
   * The caller's principal if it may query `store` (undefined: any store, for DescribeInstances);
   * otherwise a TideError the handler returns as UNAUTHENTICATED or PERMISSION_DENIED.
   */
  check(call: grpc.ServerUnaryCall<unknown, unknown>, method: string, store: string | undefined): string {
    let principal: string;
    try {
      const identity = this.authenticator.authenticate({
        token: bearerTokenOf(call.metadata),
        peerCertificate: call.getAuthContext().sslPeerCertificate,
      });
      if (identity.expiresAtMs !== undefined && identity.expiresAtMs <= Date.now()) {
        throw new AuthenticationError('the credential has expired');
      }
      principal = identity.principal;
    } catch (err) {
      if (!(err instanceof AuthenticationError)) throw err;
      this.audit.warn(
        { method, peer: call.getPeer(), code: 'AUTHENTICATION_FAILED' },
        'query not authenticated',
      );
      throw refused('AUTHENTICATION_FAILED', err.message);
    }
    if (!this.allows(principal, store)) {
      this.audit.warn(
        { principal, method, store, peer: call.getPeer(), code: 'AUTHORIZATION_FAILED' },
        'query denied',
      );
      throw refused(
        'AUTHORIZATION_FAILED',
        store === undefined
          ? 'your principal may query no store of this application'
          : 'your principal may not query this store: ask for it in queryServer.auth.allow',
      );
    }
    return principal;
  }

  /** Whether `principal` may read `store` (undefined: some store). */
  allows(principal: string, store: string | undefined): boolean {
    return this.grants.some(
      (g) =>
        (g.prefix ? principal.startsWith(g.principal) : principal === g.principal) &&
        (g.stores === '*' || (store === undefined ? g.stores.size > 0 : g.stores.has(store))),
    );
  }
}
