/**
 * Offline JWT verification against a JWKS file: signature (RS*, PS*, ES*, EdDSA, never `none` or
 * HMAC), `exp` (required: it is what ends long-lived streams), `nbf`, issuer and audience.
 * Kubernetes projected service-account tokens are JWTs like any other: point the JWKS file at the
 * cluster's `/openid/v1/jwks` and the issuer at its `--service-account-issuer`.
 *
 * Built on node:crypto rather than `jose`: jose 6 is an ES module, which the CommonJS build and
 * jest (before Node 24) cannot require; node:crypto imports JWKs and verifies the same algorithms.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import { TideError } from '../../errors';

/** Claims the verifier reads; others are kept for the principal mapping. */
export interface JwtClaims {
  [claim: string]: unknown;
  iss?: string;
  sub?: string;
  aud?: string | string[];
  exp: number;
  nbf?: number;
}

interface Algorithm {
  digest: string | null;
  kty: string;
  options: Partial<crypto.VerifyKeyObjectInput>;
}

const ALGORITHMS: Record<string, Algorithm> = {
  RS256: { digest: 'sha256', kty: 'RSA', options: {} },
  RS384: { digest: 'sha384', kty: 'RSA', options: {} },
  RS512: { digest: 'sha512', kty: 'RSA', options: {} },
  PS256: {
    digest: 'sha256',
    kty: 'RSA',
    options: { padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 },
  },
  PS384: {
    digest: 'sha384',
    kty: 'RSA',
    options: { padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: 48 },
  },
  PS512: {
    digest: 'sha512',
    kty: 'RSA',
    options: { padding: crypto.constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 },
  },
  ES256: { digest: 'sha256', kty: 'EC', options: { dsaEncoding: 'ieee-p1363' } },
  ES384: { digest: 'sha384', kty: 'EC', options: { dsaEncoding: 'ieee-p1363' } },
  ES512: { digest: 'sha512', kty: 'EC', options: { dsaEncoding: 'ieee-p1363' } },
  EdDSA: { digest: null, kty: 'OKP', options: {} },
};

/** Why a token was refused; the message is safe to return to the caller. */
export class TokenRejected extends Error {
  constructor(
    message: string,
    readonly expired = false,
  ) {
    super(message);
    this.name = 'TokenRejected';
  }
}

interface Jwk {
  kid?: string;
  kty: string;
  use?: string;
  alg?: string;
  key: crypto.KeyObject;
}

/** Parses a JWKS document; throws INVALID_CONFIG when it holds no usable public key. */
export function parseJwks(text: string, source: string): Jwk[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new TideError('INVALID_CONFIG', `the JWKS file ${source} is not JSON: ${(err as Error).message}`);
  }
  const keys = (doc as { keys?: unknown }).keys;
  if (!Array.isArray(keys))
    throw new TideError('INVALID_CONFIG', `the JWKS file ${source} has no "keys" array`);
  const out: Jwk[] = [];
  for (const raw of keys as Record<string, unknown>[]) {
    if (raw['use'] !== undefined && raw['use'] !== 'sig') continue;
    if (raw['d'] !== undefined) {
      throw new TideError(
        'INVALID_CONFIG',
        `the JWKS file ${source} holds a private key; give only public keys`,
      );
    }
    try {
      const key = crypto.createPublicKey({ key: raw as crypto.JsonWebKey, format: 'jwk' });
      out.push({
        kty: String(raw['kty']),
        key,
        ...(typeof raw['kid'] === 'string' ? { kid: raw['kid'] } : {}),
        ...(typeof raw['alg'] === 'string' ? { alg: raw['alg'] } : {}),
      });
    } catch {
      // An unsupported key type (e.g. a symmetric "oct" key) verifies nothing; skip it.
    }
  }
  if (out.length === 0)
    throw new TideError('INVALID_CONFIG', `the JWKS file ${source} holds no usable public signing key`);
  return out;
}

export interface JwtVerifierOptions {
  jwksFile: string;
  issuer: string;
  audience: string;
  /** Tolerated clock difference for nbf (exp is strict, so expiry ends streams on time). */
  clockToleranceMs?: number;
  now?: () => number;
}

const JWKS_CHECK_INTERVAL_MS = 1_000;

/** Verifies tokens against the JWKS file, re-read when it changes (key rotation). */
export class JwtVerifier {
  private keys: Jwk[];
  private mtimeMs: number;
  private checkedAtMs = 0;
  private readonly now: () => number;

  constructor(private readonly options: JwtVerifierOptions) {
    if (!options.issuer || !options.audience) {
      throw new TideError(
        'INVALID_CONFIG',
        'JWT authentication needs authJwtIssuer and authJwtAudience (tokens for another issuer or audience must not be accepted)',
      );
    }
    this.now = options.now ?? Date.now;
    this.keys = this.read();
    this.mtimeMs = mtime(options.jwksFile);
  }

  /** The claims of a valid token; throws TokenRejected saying why not. */
  verify(token: string): JwtClaims {
    this.refreshKeys();
    const parts = token.split('.');
    if (parts.length !== 3) throw new TokenRejected('the token is not a JWT');
    const header = decodeJson(parts[0]!, 'header') as { alg?: string; kid?: string };
    const alg = ALGORITHMS[header.alg ?? ''];
    if (!alg) throw new TokenRejected(`unsupported JWT algorithm ${String(header.alg)}`);
    const candidates = this.keys.filter(
      (k) => k.kty === alg.kty && (!header.kid || k.kid === header.kid) && (!k.alg || k.alg === header.alg),
    );
    const data = Buffer.from(`${parts[0]}.${parts[1]}`);
    const signature = Buffer.from(parts[2]!, 'base64url');
    const valid = candidates.some((k) => {
      try {
        return crypto.verify(
          alg.digest,
          data,
          { key: k.key, ...alg.options } as crypto.VerifyKeyObjectInput,
          signature,
        );
      } catch {
        return false;
      }
    });
    if (!valid) throw new TokenRejected('the token signature does not verify against the configured keys');
    const claims = decodeJson(parts[1]!, 'payload') as Partial<JwtClaims>;
    const nowS = this.now() / 1000;
    const tolerance = (this.options.clockToleranceMs ?? 30_000) / 1000;
    if (typeof claims.exp !== 'number') throw new TokenRejected('the token has no exp claim');
    if (claims.exp <= nowS) throw new TokenRejected('the token has expired', true);
    if (typeof claims.nbf === 'number' && claims.nbf > nowS + tolerance) {
      throw new TokenRejected('the token is not valid yet (nbf)');
    }
    if (claims.iss !== this.options.issuer)
      throw new TokenRejected('the token issuer is not the configured one');
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audiences.includes(this.options.audience)) {
      throw new TokenRejected('the token audience does not include the configured one');
    }
    return claims as JwtClaims;
  }

  private refreshKeys(): void {
    const now = Date.now();
    if (now - this.checkedAtMs < JWKS_CHECK_INTERVAL_MS) return;
    this.checkedAtMs = now;
    const m = mtime(this.options.jwksFile);
    if (m === this.mtimeMs) return;
    try {
      this.keys = this.read();
      this.mtimeMs = m;
    } catch {
      // Mid-rewrite or broken: keep the previous keys, retry on the next check.
    }
  }

  private read(): Jwk[] {
    let text: string;
    try {
      text = fs.readFileSync(this.options.jwksFile, 'utf8');
    } catch (err) {
      throw new TideError(
        'INVALID_CONFIG',
        `cannot read the JWKS file ${this.options.jwksFile}: ${(err as Error).message}`,
      );
    }
    return parseJwks(text, this.options.jwksFile);
  }
}

function decodeJson(part: string, what: string): Record<string, unknown> {
  try {
    const value = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    if (value && typeof value === 'object') return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new TokenRejected(`the JWT ${what} is not base64url JSON`);
}

function mtime(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}

/**
 * The principal of verified claims: a Kubernetes service-account token (its `kubernetes.io`
 * claim) maps to `system:serviceaccount:<namespace>:<name>`, any other token to `claim`.
 */
export function jwtPrincipal(claims: JwtClaims, claim: string): string | undefined {
  const k8s = claims['kubernetes.io'] as
    { namespace?: unknown; serviceaccount?: { name?: unknown } } | undefined;
  if (k8s && typeof k8s.namespace === 'string' && typeof k8s.serviceaccount?.name === 'string') {
    return `system:serviceaccount:${k8s.namespace}:${k8s.serviceaccount.name}`;
  }
  const value = claims[claim];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
