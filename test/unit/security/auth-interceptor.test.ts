/**
 * The auth interceptor on a real in-process gRPC server (the Broker service with stand-in
 * handlers): refusals with Tide trailers, the principal header, listing filters, and open streams
 * ended by credential expiry and by ACL removal.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as grpc from '@grpc/grpc-js';
import { tideProto } from '../../../services/common/grpc/proto';
import { startServer, stopServer, type TideServer } from '../../../services/common/grpc/server';
import {
  authInterceptor,
  type AuthInterceptor,
} from '../../../services/common/security/auth/auth-interceptor';
import { Authenticator } from '../../../services/common/security/auth/authenticator';
import { Authorizer } from '../../../services/common/security/auth/authorizer';
import { AclCache, AclStore } from '../../../services/common/security/auth/acl-store';
import { JwtVerifier } from '../../../services/common/security/auth/jwt';
import { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
import { silentLogger } from '../../../services/common/logger';
import { systemClock } from '../../../services/common/clock';
import { TestIssuer } from '../../harness/jwt';

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'tide';
let dir: string;
let store: EmbeddedMetadataStore;
let acls: AclCache;
let auth: AuthInterceptor;
let server: TideServer;
let client: grpc.Client;
let issuer: TestIssuer;
const principals: string[] = [];

type Any = Record<string, unknown>;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-auth-'));
  issuer = new TestIssuer('ES256');
  fs.writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify(issuer.jwks()));
  store = new EmbeddedMetadataStore({ clock: systemClock, logger: silentLogger() });
  acls = await AclCache.start({ store, clusterName: 'c', clock: systemClock, logger: silentLogger() });
  const authenticator = new Authenticator({
    staticTokens: new Map([
      ['alice-token', 'alice'],
      ['admin-token', 'admin'],
    ]),
    jwt: {
      verifier: new JwtVerifier({
        jwksFile: path.join(dir, 'jwks.json'),
        issuer: ISSUER,
        audience: AUDIENCE,
      }),
      principalClaim: 'sub',
    },
  });
  const authorizer = new Authorizer({
    enabled: true,
    superUsers: new Set(['admin']),
    internalPrincipals: new Set(['broker']),
    acls,
  });
  auth = authInterceptor({ authenticator, authorizer, audit: silentLogger() });
  const broker = tideProto().Broker.service;
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    interceptors: [auth.interceptor],
    register: (s) =>
      s.addService(broker, {
        Metadata: (call: grpc.ServerUnaryCall<Any, Any>, cb: grpc.sendUnaryData<Any>) => {
          principals.push(String(call.metadata.get('tide-principal')[0]));
          cb(null, { cluster_id: 'c', topics: [{ name: 'orders' }, { name: 'payments' }] });
        },
        // A fetch session that never has data: only the interceptor can end it.
        FetchStream: (call: grpc.ServerWritableStream<Any, Any>) => {
          call.on('cancelled', () => undefined);
        },
      }),
  });
  client = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client.close();
  auth.close();
  await stopServer(server.server, 0);
  await acls.close();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const serialize = (path: string) => {
  const def = (tideProto().Broker.service as unknown as Record<string, grpc.MethodDefinition<Any, Any>>)[
    path
  ]!;
  return def;
};

function metadata(token?: string): grpc.Metadata {
  const m = new grpc.Metadata();
  if (token) m.set('authorization', `Bearer ${token}`);
  m.set('tide-principal', 'forged');
  return m;
}

function metadataCall(token?: string): Promise<Any> {
  const def = serialize('Metadata');
  return new Promise((resolve, reject) =>
    client.makeUnaryRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      {},
      metadata(token),
      (err, res) => (err ? reject(err) : resolve(res!)),
    ),
  );
}

function fetchStream(token: string): Promise<grpc.ServiceError & { atMs: number }> {
  const def = serialize('FetchStream');
  const stream = client.makeServerStreamRequest(
    def.path,
    def.requestSerialize,
    def.responseDeserialize,
    { positions: [{ topic: 'orders', partition: 0, offset: 0 }] },
    metadata(token),
  );
  return new Promise((resolve) =>
    stream.on('error', (err: grpc.ServiceError) => resolve(Object.assign(err, { atMs: Date.now() }))),
  );
}

it('refuses a call without credentials with UNAUTHENTICATED and AUTHENTICATION_FAILED', async () => {
  const err = (await metadataCall().catch((e: unknown) => e)) as grpc.ServiceError;
  expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
  expect(err.metadata.get('tide-error-code')).toEqual(['AUTHENTICATION_FAILED']);
  expect(err.details).toMatch(/no credentials/);
});

it('sets the principal header for handlers (a forged one is replaced) and filters listings', async () => {
  await new AclStore(store, 'c').create([
    {
      principal: 'alice',
      resourceType: 'topic',
      patternType: 'literal',
      name: 'orders',
      operation: 'read',
      permission: 'allow',
    },
  ]);
  await waitFor(() => acls.acls.length === 1);
  const answer = await metadataCall('alice-token');
  expect((answer['topics'] as Any[]).map((t) => t['name'])).toEqual(['orders']);
  const all = await metadataCall('admin-token');
  expect((all['topics'] as Any[]).map((t) => t['name'])).toEqual(['orders', 'payments']);
  expect(principals.slice(-2)).toEqual(['alice', 'admin']);
});

it('ends a fetch stream when its JWT expires', async () => {
  const expSeconds = Math.floor(Date.now() / 1000) + 2;
  const token = issuer.sign({ iss: ISSUER, aud: AUDIENCE, sub: 'alice', exp: expSeconds });
  const err = await fetchStream(token);
  expect(err.code).toBe(grpc.status.UNAUTHENTICATED);
  expect(err.metadata.get('tide-error-code')).toEqual(['AUTHENTICATION_FAILED']);
  expect(err.atMs).toBeGreaterThanOrEqual(expSeconds * 1000);
  await waitFor(() => auth.openStreams === 0);
});

it('ends a fetch stream when the ACL it relied on is removed', async () => {
  const ended = fetchStream('alice-token');
  await waitFor(() => auth.openStreams === 1);
  await new AclStore(store, 'c').delete([{ principal: 'alice' }]);
  const err = await ended;
  expect(err.code).toBe(grpc.status.PERMISSION_DENIED);
  expect(err.metadata.get('tide-error-code')).toEqual(['AUTHORIZATION_FAILED']);
  expect(err.details).not.toContain('orders');
  await waitFor(() => auth.openStreams === 0);
});

it('refuses a stream without the ACL at once', async () => {
  const err = await fetchStream('alice-token');
  expect(err.code).toBe(grpc.status.PERMISSION_DENIED);
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 300 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
}
