/**
 * A real secured cluster: etcd, a controller, two brokers and a group coordinator, all on TLS with
 * mTLS, static tokens and JWT authentication and ACL authorization. For every RPC of every service
 * in protos/ (loaded at run time, so a new RPC is covered as soon as it exists), on every process
 * that serves it: an unauthenticated caller gets UNAUTHENTICATED / AUTHENTICATION_FAILED, a caller
 * without ACLs gets PERMISSION_DENIED / AUTHORIZATION_FAILED (listings answer, showing nothing),
 * and no refusal names a topic or group. Internal RPCs refuse even super users and client
 * certificates. An allowed caller works through the normal client; a fetch stream ends when its
 * token expires, and another when its ACL is removed.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as grpc from '@grpc/grpc-js';
import { Tide, TideError } from '../../client';
import { makeCa, makeLeaf } from '../harness/certs';
import { TestCluster } from '../harness/cluster';
import { runCli } from '../harness/cli';
import { TestIssuer, serviceAccountClaims } from '../harness/jwt';
import { allProtoMethods, type ProtoMethod } from '../harness/proto-methods';
import { bearer, callRpc, type CallOutcome } from '../harness/raw-grpc';

jest.setTimeout(120_000);

const ISSUER = 'https://issuer.test';
const AUDIENCE = 'tide';
const TOPIC = 'secret-topic';
const OTHER = 'other-topic';
const GROUP = 'secret-group';
/**
 * RPCs whose proto may land before any process serves them (work in progress elsewhere); any
 * other RPC that no process serves fails the test.
 */
const NOT_SERVED_YET = new Set<string>([]);
/** RPCs that only filter what they answer: a caller without ACLs gets an answer naming nothing. */
const FILTER_ONLY = new Set([
  '/tide.v1.Broker/Metadata',
  '/tide.v1.Broker/WatchMetadata',
  '/tide.v1.Admin/ListTopics',
  '/tide.v1.Admin/ListApplicationMetadata',
  '/tide.v1.GroupCoordinator/ListGroups',
  '/tide.v1.TransactionCoordinator/ListTransactions',
]);

/** A request naming real resources, so a wrongly allowed call would act on them. */
function sample(method: ProtoMethod): object {
  const samples: Record<string, object> = {
    Produce: { topic: TOPIC, partition: 0, records: [{ value: Buffer.from('x') }] },
    ProduceStream: { correlation_id: 1, topic: TOPIC, partition: 0, records: [{ value: Buffer.from('x') }] },
    Fetch: { topic: TOPIC, partition: 0, offset: 0, max_wait_ms: 0 },
    FetchStream: { positions: [{ topic: TOPIC, partition: 0, offset: 0 }] },
    FetchStreamMulti: { positions: [{ topic: TOPIC, partition: 0, offset: 0 }] },
    ListOffsets: { topic: TOPIC, partition: 0, timestamp_ms: -1 },
    CreateTopic: { name: 'secret-new', partitions: 1 },
    DeleteTopic: { name: TOPIC },
    DeleteRecords: { topic: TOPIC, partition: 0, offset: -1 },
    DescribeTopic: { name: TOPIC },
    DescribeConfigs: { topic: TOPIC },
    AlterConfigs: { topic: TOPIC, set: { 'retention.ms': '1000' } },
    CreatePartitions: { topic: TOPIC, count: 4 },
    AlterPartitionReassignments: { reassignments: [{ topic: TOPIC, partition: 0, replicas: [1, 0] }] },
    DecommissionBroker: { broker_id: 1 },
    CreateAcls: { acls: [{ principal: 'nobody', resource_type: 'topic', name: TOPIC, operation: 'all' }] },
    DeleteAcls: { filters: [{ principal: 'alice' }] },
    AlterClientQuotas: {
      alterations: [{ entity: { user: 'nobody' }, set: [{ key: 'producer_byte_rate', value: 1e9 }] }],
    },
    FindCoordinator: { group_id: GROUP },
    Membership: { join: { group_id: GROUP, topics: [TOPIC], session_timeout_ms: 10_000 } },
    CommitOffsets: { group_id: GROUP, offsets: [{ topic: TOPIC, partition: 0, offset: 1 }] },
    FetchOffsets: { group_id: GROUP },
    DescribeGroup: { group_id: GROUP },
    ResetOffsets: { group_id: GROUP, topics: [TOPIC], offset: 0, dry_run: true },
    DeleteGroup: { group_id: GROUP },
    AlterPartition: { broker_id: 0, topic: TOPIC, partition: 0, new_isr: [0] },
    ControlledShutdown: { broker_id: 0 },
    CreateInternalTopic: { name: '__evil', partitions: 1 },
    ReportReplicaOffline: { broker_id: 0, topic: TOPIC, partition: 0 },
    FindTransactionCoordinator: { transactional_id: 'payments-writer' },
    InitTransactions: { transactional_id: 'payments-writer' },
    AddPartitionsToTxn: {
      transactional_id: 'payments-writer',
      producer_id: 1,
      producer_epoch: 0,
      partitions: [{ topic: TOPIC, partitions: [0] }],
    },
    AddOffsetsToTxn: {
      transactional_id: 'payments-writer',
      producer_id: 1,
      producer_epoch: 0,
      group_id: GROUP,
    },
    TxnOffsetCommit: {
      transactional_id: 'payments-writer',
      producer_id: 1,
      producer_epoch: 0,
      group_id: GROUP,
      offsets: [{ topic: TOPIC, partition: 0, offset: 1 }],
    },
    EndTxn: { transactional_id: 'payments-writer', producer_id: 1, producer_epoch: 0, commit: true },
    EndTxnStream: {
      call_id: 1,
      request: { transactional_id: 'payments-writer', producer_id: 1, producer_epoch: 0, commit: true },
    },
    JoinStream: {
      call_id: 1,
      request: {
        transactional_id: 'payments-writer',
        producer_id: 1,
        producer_epoch: 0,
        partitions: [{ topic: TOPIC, partitions: [0] }],
      },
    },
    WriteTxnMarkersStream: {
      call_id: 1,
      request: {
        markers: [
          {
            producer_id: 1,
            producer_epoch: 0,
            coordinator_epoch: 0,
            result: 'TXN_RESULT_ABORT',
            partitions: [{ topic: TOPIC, partition: 0 }],
          },
        ],
      },
    },
    DescribeTransaction: { transactional_id: 'payments-writer' },
  };
  return samples[method.name] ?? {};
}

const isInternal = (m: ProtoMethod) => m.service.includes('.internal.') || m.service === 'tide.v1.Controller';

let dir: string;
let cluster: TestCluster | undefined;
let issuer: TestIssuer;
let processes: { name: string; address: string }[] = [];
const clients = new Map<string, grpc.Client>();

function client(address: string, cert?: string): grpc.Client {
  const key = `${address}|${cert ?? ''}`;
  let c = clients.get(key);
  if (!c) {
    const ca = fs.readFileSync(path.join(dir, 'ca.crt'));
    const creds = cert
      ? grpc.credentials.createSsl(
          ca,
          fs.readFileSync(path.join(dir, `${cert}.key`)),
          fs.readFileSync(path.join(dir, `${cert}.crt`)),
        )
      : grpc.credentials.createSsl(ca);
    c = new grpc.Client(address, creds);
    clients.set(key, c);
  }
  return c;
}

const tls = () => ({ caFile: path.join(dir, 'ca.crt') });
const tideAs = (token: string) =>
  new Tide({ bootstrap: cluster!.bootstrap(), requestTimeoutMs: 10_000, security: { tls: tls(), token } });

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-auth-cluster-'));
  makeCa(dir, 'ca', 'tide-test-ca');
  makeLeaf(dir, 'ca', 'tide-service', 'tide-service');
  makeLeaf(dir, 'ca', 'client-app', 'client-app');
  issuer = new TestIssuer('ES256');
  fs.writeFileSync(path.join(dir, 'jwks.json'), JSON.stringify(issuer.jwks()));
  fs.writeFileSync(
    path.join(dir, 'tokens'),
    ['admin-token admin', 'alice-token alice', 'nobody-token nobody', 'dave-token dave'].join('\n') + '\n',
  );
  cluster = await TestCluster.start({
    brokers: 2,
    env: {
      TIDE_TLS_CERT_FILE: path.join(dir, 'tide-service.crt'),
      TIDE_TLS_KEY_FILE: path.join(dir, 'tide-service.key'),
      TIDE_TLS_CA_FILE: path.join(dir, 'ca.crt'),
      TIDE_TLS_CLIENT_AUTH: 'request',
      TIDE_AUTH_MTLS: 'true',
      TIDE_AUTH_MTLS_PRINCIPAL_RULES: 'RULE:^CN=([^,]+)$/$1/L',
      TIDE_AUTH_STATIC_TOKENS_FILE: path.join(dir, 'tokens'),
      TIDE_AUTH_JWKS_FILE: path.join(dir, 'jwks.json'),
      TIDE_AUTH_JWT_ISSUER: ISSUER,
      TIDE_AUTH_JWT_AUDIENCE: AUDIENCE,
      TIDE_AUTHORIZATION: 'acl',
      TIDE_SUPER_USERS: 'admin',
      TIDE_INTERNAL_PRINCIPALS: 'tide-service',
    },
  });
  const coordinator = await cluster.startCoordinator('c0');
  processes = [
    { name: 'broker', address: cluster.broker(0).address },
    { name: 'controller', address: cluster.controllers.get(0)!.address },
    { name: 'coordinator', address: coordinator.address },
  ];
  const admin = tideAs('admin-token');
  try {
    await admin.admin().createTopic(TOPIC, { partitions: 1, replicationFactor: 2 });
    await admin.admin().createTopic(OTHER, { partitions: 1, replicationFactor: 2 });
  } finally {
    await admin.close();
  }
});

afterAll(async () => {
  for (const c of clients.values()) c.close();
  await cluster?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Served by streams application instances, not by Tide's processes (streams-iq.test.ts covers it). */
const NOT_TIDE_SERVICES = new Set(['tide.v1.StreamsQuery']);
const methods = allProtoMethods().filter(
  (m) => m.service.startsWith('tide.') && !NOT_TIDE_SERVICES.has(m.service),
);

/** Asserts the outcome is the refusal, naming nothing it should not. */
function expectRefused(outcome: CallOutcome, code: grpc.status, tideCode: string, where: string): void {
  expect({ where, outcome: outcome.kind, code: outcome.kind === 'error' ? outcome.code : undefined }).toEqual(
    {
      where,
      outcome: 'error',
      code,
    },
  );
  if (outcome.kind !== 'error') return;
  expect({ where, tideCode: outcome.tideCode }).toEqual({ where, tideCode });
  for (const name of [TOPIC, OTHER, GROUP]) expect(outcome.details).not.toContain(name);
}

it('every RPC of every service refuses unauthenticated callers and callers without ACLs', async () => {
  const covered: string[] = [];
  let checks = 0;
  for (const method of methods) {
    let served = 0;
    for (const proc of processes) {
      const where = `${method.path} on the ${proc.name}`;
      const anonymous = await callRpc(client(proc.address), method, sample(method), new grpc.Metadata());
      if (anonymous.kind === 'error' && anonymous.code === grpc.status.UNIMPLEMENTED) continue;
      served++;
      checks++;
      expectRefused(anonymous, grpc.status.UNAUTHENTICATED, 'AUTHENTICATION_FAILED', where);
      const badToken = await callRpc(client(proc.address), method, sample(method), bearer('forged-token'));
      expectRefused(badToken, grpc.status.UNAUTHENTICATED, 'AUTHENTICATION_FAILED', `${where} (bad token)`);

      const nobody = await callRpc(client(proc.address), method, sample(method), bearer('nobody-token'));
      if (FILTER_ONLY.has(method.path)) {
        expect({ where, kind: nobody.kind }).toEqual({ where, kind: 'ok' });
        const text = JSON.stringify(nobody.kind === 'ok' ? nobody.response : {});
        for (const name of [TOPIC, OTHER, GROUP])
          expect({ where, leaks: text.includes(name) }).toEqual({ where, leaks: false });
      } else {
        expectRefused(nobody, grpc.status.PERMISSION_DENIED, 'AUTHORIZATION_FAILED', `${where} (no ACL)`);
      }
      if (isInternal(method)) {
        // Neither a super user nor a CA-signed client certificate may act as a Tide service.
        const superUser = await callRpc(client(proc.address), method, sample(method), bearer('admin-token'));
        expectRefused(
          superUser,
          grpc.status.PERMISSION_DENIED,
          'AUTHORIZATION_FAILED',
          `${where} (super user)`,
        );
        const clientCert = await callRpc(
          client(proc.address, 'client-app'),
          method,
          sample(method),
          new grpc.Metadata(),
        );
        expectRefused(
          clientCert,
          grpc.status.PERMISSION_DENIED,
          'AUTHORIZATION_FAILED',
          `${where} (client cert)`,
        );
      }
    }
    if (served === 0)
      expect({ path: method.path, served: NOT_SERVED_YET.has(method.path) }).toEqual({
        path: method.path,
        served: true,
      });
    else covered.push(method.path);
  }
  console.log(`checked ${checks} (RPC, process) pairs covering ${covered.length} of ${methods.length} RPCs`);
  // The main services must all have been reached (a wrong address would skip them silently).
  for (const path of [
    '/tide.v1.Broker/Produce',
    '/tide.v1.Admin/CreateAcls',
    '/tide.v1.Controller/AlterPartition',
    '/tide.v1.internal.Replication/Replicate',
    '/tide.v1.GroupCoordinator/Membership',
  ]) {
    expect(covered).toContain(path);
  }
  // The cluster kept working under internal identities: replication, controller and coordinator.
  const admin = tideAs('admin-token');
  try {
    const topic = (await admin.admin().describeTopic(TOPIC)).topic;
    expect(topic.partitions[0]!.isr).toHaveLength(2);
  } finally {
    await admin.close();
  }
});

it('an allowed caller works through the client, and sees only what it may describe', async () => {
  const grant = await runCli(
    [
      'acls',
      'add',
      '--principal',
      'alice',
      '--topic',
      TOPIC,
      '--operation',
      'read',
      '--operation',
      'write',
      '-b',
      cluster!.bootstrap().join(','),
    ],
    { env: { TIDE_TLS_CA: path.join(dir, 'ca.crt'), TIDE_TOKEN: 'admin-token' } },
  );
  expect(grant.stderr).toBe('');
  expect(grant.out).toContain('added 2 ACL(s)');
  const group = await runCli([
    '--token',
    'admin-token',
    '--tls-ca',
    path.join(dir, 'ca.crt'),
    'acls',
    'add',
    '--principal',
    'alice',
    '--group',
    'secret-',
    '--prefixed',
    '--operation',
    'read',
    '-b',
    cluster!.bootstrap().join(','),
  ]);
  expect(group.out).toContain('added 1 ACL(s)');
  const listed = await runCli([
    '--token',
    'admin-token',
    '--tls-ca',
    path.join(dir, 'ca.crt'),
    'acls',
    'list',
    '--principal',
    'alice',
    '--json',
    '-b',
    cluster!.bootstrap().join(','),
  ]);
  expect(JSON.parse(listed.out)).toHaveLength(3);
  const refused = await runCli([
    '--token',
    'alice-token',
    '--tls-ca',
    path.join(dir, 'ca.crt'),
    'acls',
    'list',
    '-b',
    cluster!.bootstrap().join(','),
  ]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('AUTHORIZATION_FAILED');

  const alice = tideAs('alice-token');
  try {
    await waitUntil(async () => (await alice.admin().listTopics()).includes(TOPIC));
    expect(await alice.admin().listTopics()).toEqual([TOPIC]);
    expect((await alice.admin().metadata()).topics.map((t) => t.name)).toEqual([TOPIC]);
    const producer = alice.producer();
    await producer.send(TOPIC, { value: 'hello', partition: 0 });
    await producer.close();
    const consumer = alice.consumer();
    const fetched = await consumer.fetch({ topic: TOPIC, partition: 0 }, 0, { maxWaitMs: 0 });
    expect(fetched.records.map((r) => r.value!.toString())).toContain('hello');
    await consumer.close();
    await alice.groups().commitOffsets(GROUP, [{ topic: TOPIC, partition: 0, offset: 1 }]);
    expect((await alice.groups().fetchOffsets(GROUP)).map((o) => o.offset)).toEqual([1]);
    const denied = (await alice
      .admin()
      .describeTopic(OTHER)
      .catch((e: unknown) => e)) as TideError;
    expect(denied).toBeInstanceOf(TideError);
    expect(denied.code).toBe('AUTHORIZATION_FAILED');
    expect(denied.message).not.toContain(OTHER);
    const noDelete = (await alice
      .admin()
      .deleteTopic(TOPIC)
      .catch((e: unknown) => e)) as TideError;
    expect(noDelete.code).toBe('AUTHORIZATION_FAILED');
  } finally {
    await alice.close();
  }
});

it('a Kubernetes service-account token authenticates as system:serviceaccount:<ns>:<name>', async () => {
  const token = issuer.sign(serviceAccountClaims(ISSUER, AUDIENCE, 'shop', 'orders'));
  const orders = tideAs(token);
  const admin = tideAs('admin-token');
  try {
    expect(await orders.admin().listTopics()).toEqual([]);
    await admin.admin().createAcls([
      {
        principal: 'system:serviceaccount:shop:orders',
        resourceType: 'topic',
        name: OTHER,
        operation: 'describe',
      },
    ]);
    await waitUntil(async () => (await orders.admin().listTopics()).includes(OTHER));
    expect(await orders.admin().listTopics()).toEqual([OTHER]);
    const foreign = tideAs(
      new TestIssuer('ES256').sign(serviceAccountClaims(ISSUER, AUDIENCE, 'shop', 'orders')),
    );
    const err = (await foreign
      .admin()
      .listTopics()
      .catch((e: unknown) => e)) as TideError;
    expect(err.code).toBe('AUTHENTICATION_FAILED');
    await foreign.close();
  } finally {
    await orders.close();
    await admin.close();
  }
});

/** The leader of the test topic's partition, where a fetch session stays open. */
async function leaderAddress(tide: Tide): Promise<string> {
  const leader = (await tide.admin().describeTopic(TOPIC)).topic.partitions[0]!.leader;
  return cluster!.broker(leader).address;
}

interface StreamEnd {
  code: grpc.status;
  details: string;
  tideCode?: string;
  atMs: number;
}

/** Opens a FetchStream as `token` on `leader` and resolves with how (and when) it ended. */
function openFetchStream(token: string, leader: string): { ended: Promise<StreamEnd>; cancel(): void } {
  const method = methods.find((m) => m.path === '/tide.v1.Broker/FetchStream')!;
  const stream = client(leader).makeServerStreamRequest(
    method.path,
    method.definition.requestSerialize as (v: object) => Buffer,
    method.definition.responseDeserialize as (b: Buffer) => object,
    { positions: [{ topic: TOPIC, partition: 0, offset: 0 }] },
    bearer(token),
  );
  stream.on('data', () => undefined);
  stream.on('error', () => undefined);
  const ended = new Promise<StreamEnd>((resolve) =>
    stream.on('status', (status: grpc.StatusObject) =>
      resolve({
        code: status.code,
        details: status.details,
        tideCode: status.metadata.get('tide-error-code')[0] as string | undefined,
        atMs: Date.now(),
      }),
    ),
  );
  return { ended, cancel: () => stream.cancel() };
}

it('a fetch stream ends with UNAUTHENTICATED when its token expires', async () => {
  const admin = tideAs('admin-token');
  await admin
    .admin()
    .createAcls([{ principal: 'carol', resourceType: 'topic', name: TOPIC, operation: 'read' }]);
  const leader = await leaderAddress(admin);
  await admin.close();
  const expiresAtMs = (Math.floor(Date.now() / 1000) + 4) * 1000;
  const token = issuer.sign({ iss: ISSUER, aud: AUDIENCE, sub: 'carol', exp: expiresAtMs / 1000 });
  const stream = openFetchStream(token, leader);
  try {
    const { code, details, tideCode, atMs } = await stream.ended;
    expect({ code, tideCode }).toEqual({
      code: grpc.status.UNAUTHENTICATED,
      tideCode: 'AUTHENTICATION_FAILED',
    });
    expect(details).toContain('expired');
    expect(atMs).toBeGreaterThanOrEqual(expiresAtMs);
    console.log(`fetch stream ended ${atMs - expiresAtMs} ms after its token expired`);
  } finally {
    stream.cancel();
  }
});

it('removing the ACL a fetch stream relies on ends it', async () => {
  const admin = tideAs('admin-token');
  try {
    await admin
      .admin()
      .createAcls([{ principal: 'dave', resourceType: 'topic', name: TOPIC, operation: 'read' }]);
    const leader = await leaderAddress(admin);
    // The broker's cache hears of the grant through its watch.
    await waitUntil(async () => {
      const probe = openFetchStream('dave-token', leader);
      const outcome = await Promise.race([
        probe.ended.then(() => false),
        new Promise<boolean>((r) => setTimeout(() => r(true), 500)),
      ]);
      probe.cancel();
      return outcome;
    });
    const stream = openFetchStream('dave-token', leader);
    await new Promise((r) => setTimeout(r, 500));
    const removedAtMs = Date.now();
    const removed = await admin.admin().deleteAcls([{ principal: 'dave' }]);
    expect(removed).toHaveLength(1);
    const { code, details, tideCode, atMs } = await stream.ended;
    expect({ code, tideCode }).toEqual({
      code: grpc.status.PERMISSION_DENIED,
      tideCode: 'AUTHORIZATION_FAILED',
    });
    expect(details).not.toContain(TOPIC);
    console.log(`fetch stream ended ${atMs - removedAtMs} ms after its ACL was removed`);
  } finally {
    await admin.close();
  }
});

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 200));
  }
}
