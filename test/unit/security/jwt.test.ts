import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  JwtVerifier,
  TokenRejected,
  jwtPrincipal,
  parseJwks,
} from '../../../services/common/security/auth/jwt';
import { Authenticator, readStaticTokens } from '../../../services/common/security/auth/authenticator';
import { TideError } from '../../../services/common/errors';
import { TestIssuer, serviceAccountClaims, type TestAlg } from '../../harness/jwt';

const ISSUER = 'https://kubernetes.default.svc';
const AUDIENCE = 'tide';
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-jwt-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function verifierFor(issuers: TestIssuer[], now?: () => number): JwtVerifier {
  const file = path.join(dir, `jwks-${Math.random()}.json`);
  fs.writeFileSync(file, JSON.stringify({ keys: issuers.flatMap((i) => i.jwks().keys) }));
  return new JwtVerifier({ jwksFile: file, issuer: ISSUER, audience: AUDIENCE, ...(now ? { now } : {}) });
}

const nowS = () => Math.floor(Date.now() / 1000);
const claims = (extra: Record<string, unknown> = {}) => ({
  iss: ISSUER,
  aud: AUDIENCE,
  sub: 'alice',
  exp: nowS() + 600,
  ...extra,
});

describe('JwtVerifier', () => {
  it.each<TestAlg>(['RS256', 'PS256', 'ES256', 'EdDSA'])('accepts a valid %s token', (alg) => {
    const issuer = new TestIssuer(alg);
    expect(verifierFor([issuer]).verify(issuer.sign(claims())).sub).toBe('alice');
  });

  it('finds the key by kid among several', () => {
    const a = new TestIssuer('RS256');
    const b = new TestIssuer('ES256');
    const verifier = verifierFor([a, b]);
    expect(verifier.verify(b.sign(claims({ sub: 'bob' }))).sub).toBe('bob');
  });

  it.each([
    ['a foreign key', () => new TestIssuer('RS256').sign(claims()), /signature/],
    ['an expired token', (i: TestIssuer) => i.sign(claims({ exp: nowS() - 1 })), /expired/],
    ['no exp', (i: TestIssuer) => i.sign({ iss: ISSUER, aud: AUDIENCE, sub: 'x' }), /no exp/],
    ['another issuer', (i: TestIssuer) => i.sign(claims({ iss: 'https://evil' })), /issuer/],
    ['another audience', (i: TestIssuer) => i.sign(claims({ aud: ['other'] })), /audience/],
    ['a future nbf', (i: TestIssuer) => i.sign(claims({ nbf: nowS() + 3600 })), /not valid yet/],
    ['alg none', (i: TestIssuer) => i.sign(claims(), { alg: 'none' }), /unsupported/],
    ['HS256', (i: TestIssuer) => i.sign(claims(), { alg: 'HS256' }), /unsupported/],
    ['garbage', () => 'not-a-jwt', /not a JWT/],
  ])('refuses %s', (_what, make, message) => {
    const issuer = new TestIssuer('RS256');
    const verifier = verifierFor([issuer]);
    const token = make(issuer);
    expect(() => verifier.verify(token)).toThrow(TokenRejected);
    expect(() => verifier.verify(token)).toThrow(message);
  });

  it('a tampered payload does not verify', () => {
    const issuer = new TestIssuer('ES256');
    const [h, , s] = issuer.sign(claims()).split('.');
    const forged = Buffer.from(JSON.stringify(claims({ sub: 'admin' }))).toString('base64url');
    expect(() => verifierFor([issuer]).verify(`${h}.${forged}.${s}`)).toThrow(/signature/);
  });

  it('needs an issuer and an audience, and refuses a JWKS with private keys', () => {
    const issuer = new TestIssuer('RS256');
    const file = path.join(dir, 'jwks.json');
    fs.writeFileSync(file, JSON.stringify(issuer.jwks()));
    expect(() => new JwtVerifier({ jwksFile: file, issuer: '', audience: 'a' })).toThrow(/authJwtIssuer/);
    const withPrivate = { keys: [{ ...issuer.privateKey.export({ format: 'jwk' }), kid: 'k' }] };
    expect(() => parseJwks(JSON.stringify(withPrivate), 'x.json')).toThrow(/private key/);
    expect(() => parseJwks('{}', 'x.json')).toThrow(TideError);
  });

  it('re-reads a rotated JWKS file', async () => {
    const old = new TestIssuer('RS256');
    const next = new TestIssuer('RS256');
    const file = path.join(dir, 'rotating.json');
    fs.writeFileSync(file, JSON.stringify(old.jwks()));
    const verifier = new JwtVerifier({ jwksFile: file, issuer: ISSUER, audience: AUDIENCE });
    expect(() => verifier.verify(next.sign(claims()))).toThrow(/signature/);
    await new Promise((r) => setTimeout(r, 1_100));
    fs.writeFileSync(file, JSON.stringify(next.jwks()));
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    expect(verifier.verify(next.sign(claims())).sub).toBe('alice');
  });
});

describe('principals of tokens', () => {
  it('a Kubernetes service-account token maps to system:serviceaccount:<ns>:<name>', () => {
    const issuer = new TestIssuer('RS256');
    const token = issuer.sign(serviceAccountClaims(ISSUER, AUDIENCE, 'payments', 'api'));
    const verified = verifierFor([issuer]).verify(token);
    expect(jwtPrincipal({ ...verified, sub: 'ignored' }, 'sub')).toBe('system:serviceaccount:payments:api');
  });

  it('other tokens use the configured claim', () => {
    expect(jwtPrincipal({ exp: 1, sub: 'alice', email: 'a@x' }, 'email')).toBe('a@x');
    expect(jwtPrincipal({ exp: 1, sub: 'alice' }, 'email')).toBeUndefined();
  });

  it('the authenticator caches a verified token until it expires', () => {
    const issuer = new TestIssuer('ES256');
    let now = Date.now();
    const auth = new Authenticator(
      { jwt: { verifier: verifierFor([issuer], () => now), principalClaim: 'sub' } },
      () => now,
    );
    const token = issuer.sign(claims({ exp: Math.floor(now / 1000) + 2 }));
    const identity = auth.authenticate({ token });
    expect(identity).toMatchObject({ principal: 'alice', mechanism: 'jwt' });
    expect(identity.expiresAtMs).toBe((Math.floor(now / 1000) + 2) * 1000);
    now += 3_000;
    expect(() => auth.authenticate({ token })).toThrow(/expired/);
  });

  it('static tokens map to their principal; an unknown token and no credentials are refused', () => {
    const file = path.join(dir, 'tokens');
    fs.writeFileSync(file, '# dev tokens\ns3cret alice\n\nother  bob smith\n');
    const tokens = readStaticTokens(file);
    expect([...tokens]).toEqual([
      ['s3cret', 'alice'],
      ['other', 'bob smith'],
    ]);
    const auth = new Authenticator({ staticTokens: tokens });
    expect(auth.authenticate({ token: 's3cret' })).toMatchObject({ principal: 'alice', mechanism: 'static' });
    expect(() => auth.authenticate({ token: 'nope' })).toThrow(/not one this listener knows/);
    expect(() => auth.authenticate({})).toThrow(/no credentials.*static bearer token/);
    fs.writeFileSync(file, 'lonely\n');
    expect(() => readStaticTokens(file)).toThrow(/line 1/);
  });

  it('with no mechanism configured every caller is ANONYMOUS', () => {
    expect(new Authenticator({}).authenticate({}).principal).toBe('ANONYMOUS');
  });
});
