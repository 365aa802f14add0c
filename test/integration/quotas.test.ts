/**
 * Client quotas on a real cluster over TLS with static-token principals: `tide quotas set` gives
 * principal alice a produce quota of 512 KiB/s; alice producing as fast as she can for 10 s is
 * slowed to within 10 % of it (the criterion), while bob, producing at the same time
 * without a quota, runs well above it. A max_streams quota refuses carol's second stream with
 * RESOURCE_EXHAUSTED / TOO_MANY_STREAMS. The figures are printed.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as grpc from '@grpc/grpc-js';
import { Tide } from '../../client';
import { tideProto } from '../../services/common/grpc/proto';
import { TestCluster } from '../harness/cluster';
import { runCli } from '../harness/cli';
import { bearer } from '../harness/raw-grpc';

jest.setTimeout(180_000);

const TOPIC = 'quota-topic';
const QUOTA = 512 * 1024;
const RUN_MS = 10_000;
const RECORD_BYTES = 4096;
/** Records per send; several sends in flight keep the producer pipelined. */
const RECORDS_PER_SEND = 16;
const CONCURRENT_SENDS = 4;

let dir: string;
let cluster: TestCluster | undefined;

const openssl = (args: string[]) => execFileSync('/usr/bin/openssl', args, { cwd: dir, stdio: 'pipe' });

const tideAs = (token: string, clientId: string) =>
  new Tide({
    bootstrap: cluster!.bootstrap(),
    clientId,
    requestTimeoutMs: 30_000,
    security: { tls: { caFile: path.join(dir, 'ca.crt') }, token },
  });

const cli = (args: string[]) =>
  runCli([...args, '-b', cluster!.bootstrap().join(',')], {
    env: { TIDE_TLS_CA: path.join(dir, 'ca.crt'), TIDE_TOKEN: 'admin-token' },
  });

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-quotas-'));
  openssl(
    ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=tide-test-ca'].concat([
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
    ]),
  );
  fs.writeFileSync(path.join(dir, 'svc.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  openssl([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=tide-service',
    '-keyout',
    'svc.key',
    '-out',
    'svc.csr',
  ]);
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'svc.csr',
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
    ].concat(['-extfile', 'svc.ext', '-out', 'svc.crt']),
  );
  fs.writeFileSync(
    path.join(dir, 'tokens'),
    ['admin-token admin', 'alice-token alice', 'bob-token bob', 'carol-token carol'].join('\n') + '\n',
  );
  cluster = await TestCluster.start({
    brokers: 1,
    env: {
      TIDE_TLS_CERT_FILE: path.join(dir, 'svc.crt'),
      TIDE_TLS_KEY_FILE: path.join(dir, 'svc.key'),
      TIDE_TLS_CA_FILE: path.join(dir, 'ca.crt'),
      TIDE_TLS_CLIENT_AUTH: 'request',
      TIDE_AUTH_MTLS: 'true',
      TIDE_AUTH_MTLS_PRINCIPAL_RULES: 'RULE:^CN=([^,]+)$/$1/L',
      TIDE_AUTH_STATIC_TOKENS_FILE: path.join(dir, 'tokens'),
      TIDE_AUTHORIZATION: 'acl',
      // Quotas apply to super users too (as in Kafka); the test's principals need no ACLs.
      TIDE_SUPER_USERS: 'admin,alice,bob,carol',
      TIDE_INTERNAL_PRINCIPALS: 'tide-service',
    },
  });
  const admin = tideAs('admin-token', 'setup');
  try {
    await admin.admin().createTopic(TOPIC, { partitions: 1, replicationFactor: 1 });
  } finally {
    await admin.close();
  }
});

afterAll(async () => {
  await cluster?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Produces as fast as the broker lets it until the deadline; returns the bytes acknowledged. */
async function produceFlatOut(tide: Tide, deadline: number): Promise<number> {
  const producer = tide.producer({ lingerMs: 0 });
  const value = Buffer.alloc(RECORD_BYTES, 7);
  const records = Array.from({ length: RECORDS_PER_SEND }, () => ({ value, partition: 0 }));
  let acked = 0;
  const loop = async () => {
    while (Date.now() < deadline) {
      await producer.send(TOPIC, records);
      if (Date.now() <= deadline) acked += RECORDS_PER_SEND * RECORD_BYTES;
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENT_SENDS }, loop));
  } finally {
    await producer.close();
  }
  return acked;
}

async function waitForQuota(user: string, key: string): Promise<void> {
  // Every service's quota cache follows the metadata store by watch; give it a moment.
  const listed = await cli(['quotas', 'list', '--user', user, '--json']);
  expect(JSON.parse(listed.out)).toEqual([expect.objectContaining({ entity: { user } })]);
  expect(listed.out).toContain(key);
  await new Promise((r) => setTimeout(r, 1_500));
}

it('holds a producer to its byte quota within 10 % over 10 s, while another principal runs unthrottled', async () => {
  const set = await cli(['quotas', 'set', '--user', 'alice', 'producer_byte_rate=512Ki']);
  expect(set.stderr).toBe('');
  expect(set.out).toMatch(/alice\s+producer_byte_rate\s+524288/);
  await waitForQuota('alice', 'producer_byte_rate');

  const alice = tideAs('alice-token', 'alice-app');
  const bob = tideAs('bob-token', 'bob-app');
  try {
    const start = Date.now();
    const deadline = start + RUN_MS;
    const [aliceBytes, bobBytes] = await Promise.all([
      produceFlatOut(alice, deadline),
      produceFlatOut(bob, deadline),
    ]);
    const aliceRate = (aliceBytes * 1000) / RUN_MS;
    const bobRate = (bobBytes * 1000) / RUN_MS;
    console.log(
      `quota ${QUOTA} B/s: alice (quota) ${Math.round(aliceRate)} B/s = ${((aliceRate / QUOTA) * 100).toFixed(1)} % of the quota; ` +
        `bob (no quota) ${Math.round(bobRate)} B/s = ${(bobRate / QUOTA).toFixed(1)}x the quota`,
    );
    expect(Math.abs(aliceRate - QUOTA) / QUOTA).toBeLessThan(0.1);
    expect(bobRate).toBeGreaterThan(2 * QUOTA);
  } finally {
    await alice.close();
    await bob.close();
  }

  const removed = await cli(['quotas', 'remove', '--user', 'alice']);
  expect(removed.out).toContain('no quota left');
  expect((await cli(['quotas', 'list', '--user', 'alice'])).out).toContain('no quotas');
});

it('refuses a stream over the max_streams quota with RESOURCE_EXHAUSTED and TOO_MANY_STREAMS', async () => {
  const set = await cli(['quotas', 'set', '--user', 'carol', 'max_streams=1']);
  expect(set.stderr).toBe('');
  await waitForQuota('carol', 'max_streams');
  const def = (
    tideProto().Broker.service as unknown as Record<string, grpc.MethodDefinition<object, object>>
  )['FetchStream']!;
  const client = new grpc.Client(
    cluster!.broker(0).address,
    grpc.credentials.createSsl(fs.readFileSync(path.join(dir, 'ca.crt'))),
  );
  const open = () =>
    client.makeServerStreamRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      { positions: [{ topic: TOPIC, partition: 0, offset: 0 }] },
      bearer('carol-token'),
    );
  try {
    const first = open();
    const firstError = new Promise<grpc.ServiceError>((resolve) => first.on('error', resolve));
    first.on('data', () => undefined);
    await new Promise((r) => setTimeout(r, 500));
    const refused = await new Promise<grpc.ServiceError>((resolve) => open().on('error', resolve));
    expect(refused.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(refused.metadata.get('tide-error-code')).toEqual(['TOO_MANY_STREAMS']);
    expect(refused.details).toMatch(/max_streams/);
    // The first stream is still being served: it ends only when cancelled.
    first.cancel();
    expect((await firstError).code).toBe(grpc.status.CANCELLED);
  } finally {
    client.close();
  }
});
