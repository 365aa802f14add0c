/** queryServer.auth: its settings, the allow list, and the refusals (UNAUTHENTICATED / PERMISSION_DENIED). */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { createLogger } from '../../../services/common/logger';
import { TideError } from '../../../services/common/errors';
import { QueryAccess, type QueryAuthOptions } from '../../../streams/runtime/query/query-auth';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-query-auth-'));
const tokensFile = path.join(dir, 'tokens');
const tokenFile = path.join(dir, 'instance.token');
fs.writeFileSync(
  tokensFile,
  'inst-token instance\nalice-token alice\nbob-token bob\ncarol-token carol\nsa-token system:serviceaccount:team-a:reader\n',
);
fs.writeFileSync(tokenFile, 'inst-token\n');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const tls = { certFile: '/tls/tls.crt', keyFile: '/tls/tls.key', caFile: '/tls/ca.crt' };
const audited: Record<string, unknown>[] = [];
const logger = createLogger({
  level: 'warn',
  destination: { write: (line: string) => void audited.push(JSON.parse(line) as Record<string, unknown>) },
});

const auth: QueryAuthOptions = {
  staticTokensFile: tokensFile,
  tokenFile,
  allow: {
    instance: '*',
    alice: ['counts', 'views'],
    'system:serviceaccount:team-a:*': ['counts'],
    carol: [],
  },
};

/** A unary call as the handlers see it, with `token` in its authorization header. */
function callWith(token?: string): grpc.ServerUnaryCall<unknown, unknown> {
  const metadata = new grpc.Metadata();
  if (token) metadata.set('authorization', `Bearer ${token}`);
  return {
    metadata,
    getAuthContext: () => ({}),
    getPeer: () => 'ipv4:127.0.0.1:5555',
  } as unknown as grpc.ServerUnaryCall<unknown, unknown>;
}

function refusal(fn: () => unknown): TideError {
  try {
    fn();
  } catch (err) {
    return err as TideError;
  }
  throw new Error('expected a refusal');
}

describe('settings', () => {
  it('is off without auth', () => {
    expect(QueryAccess.of(undefined, tls, logger)).toBeUndefined();
  });

  it('refuses what would take credentials in plain text or could never work, saying what to set', () => {
    expect(() => QueryAccess.of(auth, undefined, logger)).toThrow(/needs queryServer\.tls/);
    expect(() => QueryAccess.of({ ...auth, mtls: {} }, tls, logger)).toThrow(
      /mtls needs client certificates: set queryServer\.tls\.clientAuth/,
    );
    expect(() => QueryAccess.of({ allow: { a: '*' }, tokenFile }, tls, logger)).toThrow(
      /no way to authenticate: set mtls, jwt or staticTokensFile/,
    );
    expect(() => QueryAccess.of({ ...auth, tokenFile: undefined }, tls, logger)).toThrow(/set tokenFile/);
    expect(() => QueryAccess.of({ ...auth, allow: {} }, tls, logger)).toThrow(/allow lists no principal/);
    expect(() => QueryAccess.of({ ...auth, allow: { a: 'counts' as never } }, tls, logger)).toThrow(
      /allow\['a'\] must be a list of store names or '\*'/,
    );
    expect(() =>
      QueryAccess.of(
        { ...auth, jwt: { jwksFile: path.join(dir, 'none'), issuer: 'i', audience: 'a' } },
        tls,
        logger,
      ),
    ).toThrow(/JWKS/);
  });

  it('takes mTLS alone when the server asks for client certificates (the instances present theirs)', () => {
    const access = QueryAccess.of(
      { mtls: { source: 'san' }, allow: { 'spiffe://x': '*' } },
      { ...tls, clientAuth: 'require' },
      logger,
    );
    expect(access).toBeDefined();
  });
});

describe('the allow list', () => {
  const access = QueryAccess.of(auth, tls, logger)!;

  it('grants exact principals their stores, prefixes theirs, and * every store', () => {
    expect(access.allows('alice', 'counts')).toBe(true);
    expect(access.allows('alice', 'views')).toBe(true);
    expect(access.allows('alice', 'secret')).toBe(false);
    expect(access.allows('alice2', 'counts')).toBe(false);
    expect(access.allows('system:serviceaccount:team-a:reader', 'counts')).toBe(true);
    expect(access.allows('system:serviceaccount:team-a:reader', 'views')).toBe(false);
    expect(access.allows('system:serviceaccount:team-b:reader', 'counts')).toBe(false);
    expect(access.allows('instance', 'anything')).toBe(true);
  });

  it('lets DescribeInstances to a principal with at least one store', () => {
    expect(access.allows('alice', undefined)).toBe(true);
    expect(access.allows('carol', undefined)).toBe(false);
    expect(access.allows('bob', undefined)).toBe(false);
  });
});

describe('check', () => {
  const access = QueryAccess.of(auth, tls, logger)!;

  it('returns the principal of an allowed caller', () => {
    expect(access.check(callWith('alice-token'), 'Get', 'counts')).toBe('alice');
    expect(access.check(callWith('sa-token'), 'Get', 'counts')).toBe('system:serviceaccount:team-a:reader');
  });

  it('refuses a missing or unknown token as AUTHENTICATION_FAILED, and audits it', () => {
    audited.length = 0;
    const none = refusal(() => access.check(callWith(), 'Get', 'counts'));
    expect(none.code).toBe('AUTHENTICATION_FAILED');
    expect(none.message).toMatch(/no credentials: this listener accepts a static bearer token/);
    expect(refusal(() => access.check(callWith('nope'), 'Get', 'counts')).code).toBe('AUTHENTICATION_FAILED');
    expect(audited).toHaveLength(2);
    expect(audited[0]).toMatchObject({ name: 'audit', method: 'Get', code: 'AUTHENTICATION_FAILED' });
  });

  it('refuses a principal without the grant as AUTHORIZATION_FAILED, naming no store', () => {
    audited.length = 0;
    const denied = refusal(() => access.check(callWith('bob-token'), 'Get', 'counts'));
    expect(denied.code).toBe('AUTHORIZATION_FAILED');
    expect(denied.message).not.toMatch(/counts/);
    const secret = refusal(() => access.check(callWith('alice-token'), 'All', 'secret'));
    expect(secret.code).toBe('AUTHORIZATION_FAILED');
    expect(secret.message).not.toMatch(/secret/);
    const describe = refusal(() => access.check(callWith('carol-token'), 'DescribeInstances', undefined));
    expect(describe.code).toBe('AUTHORIZATION_FAILED');
    expect(describe.message).toMatch(/may query no store of this application/);
    expect(audited.map((l) => [l.principal, l.store, l.code])).toEqual([
      ['bob', 'counts', 'AUTHORIZATION_FAILED'],
      ['alice', 'secret', 'AUTHORIZATION_FAILED'],
      ['carol', undefined, 'AUTHORIZATION_FAILED'],
    ]);
  });
});
