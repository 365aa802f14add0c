/**
 * Who is calling: the mechanisms a listener accepts (any combination, all off by default), tried
 * in this order: a bearer token (static token, else JWT), else the client certificate (mTLS).
 * A token that is present but invalid is refused even when a certificate would have passed, so a
 * caller never silently runs as another identity than the one it asked for.
 */
import * as fs from 'fs';
import type * as tls from 'tls';
import { TideError } from '../../errors';
import { JwtVerifier, TokenRejected, jwtPrincipal } from './jwt';
import {
  applyPrincipalRules,
  distinguishedName,
  preferredSubjectAltName,
  type PrincipalRule,
} from './principal-mapping';

export type Mechanism = 'mtls' | 'jwt' | 'static' | 'anonymous';

/** An authenticated caller. */
export interface Identity {
  principal: string;
  mechanism: Mechanism;
  /** When the credential stops being valid (token exp, certificate notAfter); long streams end then. */
  expiresAtMs?: number;
}

/** The principal of every call when authentication is off (Kafka's User:ANONYMOUS). */
export const ANONYMOUS: Identity = { principal: 'ANONYMOUS', mechanism: 'anonymous' };

export class AuthenticationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthenticationError';
  }
}

export interface MtlsSettings {
  /** `subject`: the RFC 2253 distinguished name; `san`: the first URI SAN, else DNS SAN. */
  source: 'subject' | 'san';
  rules: readonly PrincipalRule[];
}

export interface JwtSettings {
  verifier: JwtVerifier;
  principalClaim: string;
}

export interface AuthenticatorSettings {
  mtls?: MtlsSettings;
  jwt?: JwtSettings;
  /** token → principal. */
  staticTokens?: ReadonlyMap<string, string>;
}

/** What the interceptor knows about a call. */
export interface Credentials {
  token?: string;
  peerCertificate?: tls.PeerCertificate;
}

const MAX_CACHED_TOKENS = 10_000;

export class Authenticator {
  /** Verified JWTs: a stream of calls with one token verifies its signature once. */
  private readonly verified = new Map<string, Identity>();

  constructor(
    private readonly settings: AuthenticatorSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** False when no mechanism is configured: every call is ANONYMOUS. */
  get enabled(): boolean {
    return !!(this.settings.mtls || this.settings.jwt || this.settings.staticTokens);
  }

  /** The caller's identity; throws AuthenticationError with a message safe to return. */
  authenticate(credentials: Credentials): Identity {
    if (!this.enabled) return ANONYMOUS;
    if (credentials.token) return this.fromToken(credentials.token);
    if (this.settings.mtls && credentials.peerCertificate && hasSubject(credentials.peerCertificate)) {
      return this.fromCertificate(credentials.peerCertificate, this.settings.mtls);
    }
    throw new AuthenticationError(`no credentials: this listener accepts ${this.accepted()}`);
  }

  private accepted(): string {
    const ways: string[] = [];
    if (this.settings.mtls) ways.push('a client certificate');
    if (this.settings.jwt) ways.push('a JWT bearer token');
    if (this.settings.staticTokens) ways.push('a static bearer token');
    return ways.join(' or ');
  }

  private fromToken(token: string): Identity {
    const principal = this.settings.staticTokens?.get(token);
    if (principal !== undefined) return { principal, mechanism: 'static' };
    const jwt = this.settings.jwt;
    if (!jwt) throw new AuthenticationError('the bearer token is not one this listener knows');
    const cached = this.verified.get(token);
    if (cached) {
      if ((cached.expiresAtMs ?? Infinity) > this.now()) return cached;
      this.verified.delete(token);
      throw new AuthenticationError('the token has expired');
    }
    let identity: Identity;
    try {
      const claims = jwt.verifier.verify(token);
      const name = jwtPrincipal(claims, jwt.principalClaim);
      if (!name)
        throw new TokenRejected(`the token has no ${jwt.principalClaim} claim to name its principal`);
      identity = { principal: name, mechanism: 'jwt', expiresAtMs: claims.exp * 1000 };
    } catch (err) {
      if (err instanceof TokenRejected) throw new AuthenticationError(err.message);
      throw err;
    }
    if (this.verified.size >= MAX_CACHED_TOKENS) this.evictExpired();
    this.verified.set(token, identity);
    return identity;
  }

  private evictExpired(): void {
    const now = this.now();
    for (const [token, identity] of this.verified) {
      if ((identity.expiresAtMs ?? Infinity) <= now) this.verified.delete(token);
    }
    if (this.verified.size >= MAX_CACHED_TOKENS) this.verified.clear();
  }

  private fromCertificate(cert: tls.PeerCertificate, mtls: MtlsSettings): Identity {
    const name =
      mtls.source === 'san'
        ? preferredSubjectAltName(cert.subjectaltname)
        : distinguishedName(cert.subject as unknown as Record<string, string | string[]>);
    if (!name) throw new AuthenticationError('the client certificate has no subject alternative name');
    const principal = applyPrincipalRules(mtls.rules, name);
    if (!principal) throw new AuthenticationError('no principal mapping rule matches the client certificate');
    const notAfter = Date.parse(cert.valid_to);
    return { principal, mechanism: 'mtls', ...(Number.isFinite(notAfter) ? { expiresAtMs: notAfter } : {}) };
  }
}

function hasSubject(cert: tls.PeerCertificate): boolean {
  return !!cert.subject || !!cert.subjectaltname;
}

/**
 * Reads a static token file: one `<token> <principal>` per line, `#` comments. For development
 * and tests; tokens are secrets, so the file should be readable by the service only.
 */
export function readStaticTokens(file: string): Map<string, string> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new TideError(
      'INVALID_CONFIG',
      `cannot read the static token file ${file}: ${(err as Error).message}`,
    );
  }
  const tokens = new Map<string, string>();
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^(\S+)\s+(\S.*)$/.exec(line);
    if (!match) {
      throw new TideError(
        'INVALID_CONFIG',
        `${file} line ${index + 1}: write "<token> <principal>" (token and principal separated by spaces)`,
      );
    }
    tokens.set(match[1]!, match[2]!.trim());
  });
  if (tokens.size === 0)
    throw new TideError('INVALID_CONFIG', `the static token file ${file} holds no token`);
  return tokens;
}
