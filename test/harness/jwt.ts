/**
 * Test JWT issuer: a key pair, its JWKS document, and signed tokens. Uses node:crypto (jose 6 is
 * an ES module jest cannot load before Node 24); tokens are standard compact JWS.
 */
import * as crypto from 'crypto';

export type TestAlg = 'RS256' | 'ES256' | 'EdDSA' | 'PS256';

export class TestIssuer {
  readonly privateKey: crypto.KeyObject;
  readonly publicKey: crypto.KeyObject;

  constructor(
    readonly alg: TestAlg = 'RS256',
    readonly kid = `key-${crypto.randomBytes(4).toString('hex')}`,
  ) {
    const pair =
      alg === 'ES256'
        ? crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' })
        : alg === 'EdDSA'
          ? crypto.generateKeyPairSync('ed25519')
          : crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKey = pair.privateKey;
    this.publicKey = pair.publicKey;
  }

  /** The JWKS document holding the public key. */
  jwks(): { keys: object[] } {
    return {
      keys: [{ ...this.publicKey.export({ format: 'jwk' }), kid: this.kid, use: 'sig', alg: this.alg }],
    };
  }

  sign(claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
    const head = Buffer.from(
      JSON.stringify({ alg: this.alg, typ: 'JWT', kid: this.kid, ...header }),
    ).toString('base64url');
    const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
    const data = Buffer.from(`${head}.${body}`);
    const signature =
      this.alg === 'EdDSA'
        ? crypto.sign(null, data, this.privateKey)
        : this.alg === 'ES256'
          ? crypto.sign('sha256', data, { key: this.privateKey, dsaEncoding: 'ieee-p1363' })
          : this.alg === 'PS256'
            ? crypto.sign('sha256', data, {
                key: this.privateKey,
                padding: crypto.constants.RSA_PKCS1_PSS_PADDING,
                saltLength: 32,
              })
            : crypto.sign('sha256', data, this.privateKey);
    return `${head}.${body}.${signature.toString('base64url')}`;
  }
}

/** Claims of a Kubernetes projected service-account token. */
export function serviceAccountClaims(
  issuer: string,
  audience: string,
  namespace: string,
  name: string,
  expiresInS = 3600,
): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: issuer,
    aud: [audience],
    sub: `system:serviceaccount:${namespace}:${name}`,
    iat: now,
    nbf: now,
    exp: now + expiresInS,
    'kubernetes.io': {
      namespace,
      serviceaccount: { name, uid: '8a1f0c1e-0000-4000-8000-000000000000' },
      pod: { name: `${name}-5d9c7`, uid: '9b2e0d2f-0000-4000-8000-000000000000' },
    },
  };
}
