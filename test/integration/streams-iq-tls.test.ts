/**
 * Interactive queries over TLS with client certificates (mTLS), against real processes (etcd, a
 * controller, a broker, a group coordinator) and two instances of a count in this process, each
 * with a query server on `queryServer.tls` (certificates from openssl, test/harness/certs.ts):
 *
 * - every key queried through either instance equals the count, so the instances forward keys to
 *   each other over mTLS, and a key range gathers both instances' entries in key-byte order;
 * - a plain-text caller and a TLS caller without a client certificate are refused; one with a
 *   certificate from the CA is answered;
 * - `tls` without a key file fails start() with what to set;
 * - with `queryServer.auth` (a JWT issuer, static tokens, an allow list), a caller is answered
 *   only for the stores its principal is allowed, the instances forward keys with their own
 *   service-account token, and missing, expired or unknown credentials are refused as
 *   UNAUTHENTICATED, a principal without a grant as PERMISSION_DENIED naming no store; with
 *   `mtls`, principals come from the certificates' subjects through a mapping rule.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { Tide } from '../../client';
import { streamsProto } from '../../services/common/grpc/streams-proto';
import type { StoreGetResponse } from '../../services/common/grpc/generated/tide/v1/StoreGetResponse';
import { Serdes, type StreamsApp } from '../../streams';
import type { QueryTlsOptions } from '../../streams/runtime/query/query-tls';
import type { QueryAuthOptions } from '../../streams/runtime/query/query-auth';
import { bearerCallCredentials } from '../../services/common/security/bearer-token';
import type { DescribeInstancesResponse } from '../../services/common/grpc/generated/tide/v1/DescribeInstancesResponse';
import { TestIssuer, serviceAccountClaims } from '../harness/jwt';
import { makeCa, makeLeaf } from '../harness/certs';
import { TestCluster } from '../harness/cluster';
import { startStreamsCluster, stopStreamsCluster } from '../harness/streams-cluster';
import { makeTempDir, waitFor } from '../harness/processes';

jest.setTimeout(150_000);

const APP = 'iq-tls';
const INPUT = 'iq-tls-words';
const KEYS = Array.from({ length: 20 }, (_, i) => `k${i}`);

let cluster: TestCluster;
let tide: Tide;
let certs: string;
let tls: QueryTlsOptions;
const apps: StreamsApp[] = [];

beforeAll(async () => {
  certs = makeTempDir('tide-iq-tls-');
  makeCa(certs, 'ca');
  makeLeaf(certs, 'ca', 'instance', 'streams-instance');
  tls = {
    certFile: path.join(certs, 'instance.crt'),
    keyFile: path.join(certs, 'instance.key'),
    caFile: path.join(certs, 'ca.crt'),
    clientAuth: 'require',
  };
  ({ cluster, tide } = await startStreamsCluster());
  await tide.admin().createTopic(INPUT, { partitions: 2, replicationFactor: 1 });
});

afterAll(() => stopStreamsCluster({ cluster, tide }, ...apps));

function counter(
  queryTls: QueryTlsOptions | undefined,
  auth?: QueryAuthOptions,
  applicationId = APP,
): StreamsApp {
  const b = tide.streams({ applicationId });
  b.stream(INPUT, { key: Serdes.string, value: Serdes.string }).groupByKey().count({ name: 'counts' });
  const app = b.app(b.build(), {
    commitIntervalMs: 100,
    replicationFactor: 1,
    statusIntervalMs: 0,
    sessionTimeoutMs: 6_000,
    queryServer: { host: '127.0.0.1', port: 0, tls: queryTls, auth },
  });
  apps.push(app);
  return app;
}

/** Two instances of the count, started, holding one task each. */
async function startPair(...args: Parameters<typeof counter>): Promise<[StreamsApp, StreamsApp]> {
  const a = counter(...args);
  const b = counter(...args);
  await a.start();
  await b.start();
  await waitFor(() => a.taskIds().length === 1 && b.taskIds().length === 1, {
    timeoutMs: 60_000,
    what: `one task each (a: ${a.taskIds()}, b: ${b.taskIds()})`,
  });
  return [a, b];
}

/** A raw StreamsQuery Get through `endpoint` with the given channel credentials: the count, or the error. */
function rawGet(
  endpoint: string,
  credentials: grpc.ChannelCredentials,
  key: string,
  { app = APP, store = 'counts' } = {},
): Promise<number | grpc.ServiceError> {
  const client = new (streamsProto().StreamsQuery)(endpoint, credentials);
  return new Promise((resolve) => {
    client.Get(
      { application_id: app, store, key: Serdes.string.serialize(key) },
      { deadline: Date.now() + 5_000 },
      (err: grpc.ServiceError | null, res?: StoreGetResponse) => {
        client.close();
        if (err) return resolve(err);
        resolve(res!.found ? Serdes.number.deserialize(Buffer.from(res!.value)) : -1);
      },
    );
  });
}

it('two instances answer every key through either one over mTLS; callers without a client certificate are refused', async () => {
  const [a, b] = await startPair(tls);
  const producer = tide.producer();
  await producer.send(
    INPUT,
    KEYS.map((key) => ({ key, value: 'v' })),
  );
  await producer.close();
  for (const app of [a, b]) {
    await waitFor(
      async () => {
        for (const key of KEYS) {
          const n = await app.query<string, number>('counts', key).catch(() => null);
          if (n !== 1) return false;
        }
        return true;
      },
      { timeoutMs: 60_000, what: `every key counted, queried through ${app.queryEndpoint}` },
    );
  }

  // A range gathers both instances' tasks (one over mTLS), in key-byte order.
  const expectedRange = KEYS.filter((k) => k >= 'k1' && k <= 'k3').sort();
  for (const app of [a, b]) {
    const range = await app.queries.range<string, number>('counts', 'k1', 'k3');
    expect(range).toEqual(expectedRange.map((k) => [k, 1]));
  }

  const endpoint = a.queryEndpoint;
  const plain = await rawGet(endpoint, grpc.credentials.createInsecure(), 'k0');
  expect(plain).toBeInstanceOf(Error);
  const ca = fs.readFileSync(tls.caFile!);
  const noClientCert = await rawGet(endpoint, grpc.credentials.createSsl(ca), 'k0');
  expect(noClientCert).toBeInstanceOf(Error);
  const withCert = await rawGet(
    endpoint,
    grpc.credentials.createSsl(ca, fs.readFileSync(tls.keyFile), fs.readFileSync(tls.certFile)),
    'k0',
  );
  expect(withCert).not.toBeInstanceOf(Error);
  expect(a.error()).toBeUndefined();
  expect(b.error()).toBeUndefined();
});

it('queryServer.tls without a key file fails start() and says what to set', async () => {
  const app = counter({ certFile: tls.certFile, keyFile: '' });
  await expect(app.start()).rejects.toThrow(/queryServer\.tls needs certFile and keyFile/);
});

describe('queryServer.auth', () => {
  const AUTH_APP = 'iq-auth';
  const ISSUER = 'https://issuer.test';
  const AUDIENCE = 'tide-queries';
  const issuer = new TestIssuer();
  let serverTls: QueryTlsOptions;
  let auth: QueryAuthOptions;
  let ca: Buffer;

  beforeAll(() => {
    serverTls = { certFile: tls.certFile, keyFile: tls.keyFile, caFile: tls.caFile };
    ca = fs.readFileSync(tls.caFile!);
    fs.writeFileSync(path.join(certs, 'jwks.json'), JSON.stringify(issuer.jwks()));
    fs.writeFileSync(path.join(certs, 'tokens'), 'alice-token alice\nbob-token bob\n');
    fs.writeFileSync(
      path.join(certs, 'instance.token'),
      issuer.sign(serviceAccountClaims(ISSUER, AUDIENCE, 'apps', 'counter')),
    );
    auth = {
      jwt: { jwksFile: path.join(certs, 'jwks.json'), issuer: ISSUER, audience: AUDIENCE },
      staticTokensFile: path.join(certs, 'tokens'),
      tokenFile: path.join(certs, 'instance.token'),
      allow: {
        'system:serviceaccount:apps:counter': '*',
        alice: ['counts'],
        'system:serviceaccount:team-a:*': ['counts'],
      },
    };
  });

  function credentialsOf(token: string | undefined): grpc.ChannelCredentials {
    return token
      ? grpc.credentials.combineChannelCredentials(
          grpc.credentials.createSsl(ca),
          bearerCallCredentials({ token }),
        )
      : grpc.credentials.createSsl(ca);
  }

  /** Get through `endpoint` as the holder of `token`: the count, or the gRPC error. */
  function getAs(endpoint: string, token: string | undefined, key: string, store = 'counts') {
    return rawGet(endpoint, credentialsOf(token), key, { app: AUTH_APP, store });
  }

  function describeAs(endpoint: string, token: string) {
    const c = new (streamsProto().StreamsQuery)(endpoint, credentialsOf(token));
    return new Promise<DescribeInstancesResponse | grpc.ServiceError>((resolve) => {
      c.DescribeInstances(
        { application_id: AUTH_APP },
        { deadline: Date.now() + 5_000 },
        (err: grpc.ServiceError | null, res?: DescribeInstancesResponse) => {
          c.close();
          resolve(err ?? res!);
        },
      );
    });
  }

  function codeOf(r: unknown): number | undefined {
    return r instanceof Error ? (r as grpc.ServiceError).code : undefined;
  }

  it('answers each principal for its stores only; the instances forward with their own token', async () => {
    const [a, b] = await startPair(serverTls, auth, AUTH_APP);
    // The input holds one record per key (the test above wrote it); half the keys are the other
    // instance's, so each answer below through one endpoint was forwarded for half the keys.
    for (const app of [a, b]) {
      await waitFor(
        async () => {
          for (const key of KEYS)
            if ((await getAs(app.queryEndpoint, 'alice-token', key)) !== 1) return false;
          return true;
        },
        { timeoutMs: 60_000, what: `alice reads every key through ${app.queryEndpoint}` },
      );
    }
    expect(await a.queries.all<string, number>('counts')).toHaveLength(KEYS.length);

    const endpoint = a.queryEndpoint;
    const teamA = issuer.sign(serviceAccountClaims(ISSUER, AUDIENCE, 'team-a', 'reader'));
    expect(await getAs(endpoint, teamA, 'k0')).toBe(1);

    expect(codeOf(await getAs(endpoint, undefined, 'k0'))).toBe(grpc.status.UNAUTHENTICATED);
    const expired = issuer.sign(serviceAccountClaims(ISSUER, AUDIENCE, 'team-a', 'reader', -60));
    expect(codeOf(await getAs(endpoint, expired, 'k0'))).toBe(grpc.status.UNAUTHENTICATED);
    expect(codeOf(await getAs(endpoint, 'made-up', 'k0'))).toBe(grpc.status.UNAUTHENTICATED);
    const otherIssuer = new TestIssuer().sign(serviceAccountClaims(ISSUER, AUDIENCE, 'apps', 'counter'));
    expect(codeOf(await getAs(endpoint, otherIssuer, 'k0'))).toBe(grpc.status.UNAUTHENTICATED);

    const bob = await getAs(endpoint, 'bob-token', 'k0');
    expect(codeOf(bob)).toBe(grpc.status.PERMISSION_DENIED);
    expect((bob as grpc.ServiceError).details).not.toMatch(/counts/);
    const secret = await getAs(endpoint, 'alice-token', 'k0', 'secret');
    expect(codeOf(secret)).toBe(grpc.status.PERMISSION_DENIED);
    expect((secret as grpc.ServiceError).details).not.toMatch(/secret|no store/);

    const described = await describeAs(endpoint, 'alice-token');
    expect(codeOf(described)).toBeUndefined();
    expect((described as DescribeInstancesResponse).instances).toHaveLength(2);
    expect(codeOf(await describeAs(endpoint, 'bob-token'))).toBe(grpc.status.PERMISSION_DENIED);
    expect(a.error()).toBeUndefined();
    expect(b.error()).toBeUndefined();
    await a.close();
    await b.close();
  });

  it('takes principals from client certificates: the instances share theirs, a reader gets its store only', async () => {
    makeLeaf(certs, 'ca', 'reader', 'reader');
    makeLeaf(certs, 'ca', 'stranger', 'stranger');
    const mtlsAuth: QueryAuthOptions = {
      mtls: { source: 'subject', rules: 'RULE:^CN=([^,]+)$/$1/' },
      allow: { 'streams-instance': '*', reader: ['counts'] },
    };
    const appId = 'iq-auth-mtls';
    const [a, b] = await startPair(tls, mtlsAuth, appId);
    const as = (name: string) =>
      grpc.credentials.createSsl(
        ca,
        fs.readFileSync(path.join(certs, `${name}.key`)),
        fs.readFileSync(path.join(certs, `${name}.crt`)),
      );
    const get = (credentials: grpc.ChannelCredentials, key: string, store = 'counts') =>
      rawGet(a.queryEndpoint, credentials, key, { app: appId, store });
    // Every key through one instance: half of them forwarded with the instance's certificate.
    await waitFor(
      async () => {
        for (const key of KEYS) if ((await get(as('reader'), key)) !== 1) return false;
        return true;
      },
      { timeoutMs: 60_000, what: 'the reader reads every key through one instance' },
    );
    expect(codeOf(await get(as('reader'), 'k0', 'secret'))).toBe(grpc.status.PERMISSION_DENIED);
    expect(codeOf(await get(as('stranger'), 'k0'))).toBe(grpc.status.PERMISSION_DENIED);
    await a.close();
    await b.close();
  });

  it('fails start() when auth would take credentials in plain text, and says what to set', async () => {
    const app = counter(undefined, auth, AUTH_APP);
    await expect(app.start()).rejects.toThrow(/queryServer\.auth: needs queryServer\.tls/);
  });
});
