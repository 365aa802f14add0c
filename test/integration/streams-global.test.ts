/**
 * Global tables on the cluster runtime, against real processes (etcd, a controller, a broker, a
 * group coordinator): orders (2 partitions) joined with a `users` global table (3 partitions,
 * joined through a field of the order, so no co-partitioning).
 *
 * - start() resolves only once every user written before it is loaded: the first order joins.
 * - An update and a tombstone written while the app runs reach the joins and the queries.
 * - LMDB with a state directory: a restart reads only what was written while the app was down
 *   (its checkpoint); in memory, every record again.
 * - `tide streams describe` lists each instance's copy (loaded, records applied, lag).
 * - A missing global topic is refused at start with the topic's name.
 */
import { Tide, type Consumer } from '../../client';
import {
  Serdes,
  type GlobalKTable,
  type RestoreProgress,
  type StreamsApp,
  type StreamsBuilder,
} from '../../streams';
import { StreamsError } from '../../streams/errors';
import * as path from 'node:path';
import { runCli } from '../harness/cli';
import { TestCluster } from '../harness/cluster';
import { startStreamsCluster, stopStreamsCluster } from '../harness/streams-cluster';
import { makeTempDir, waitFor } from '../harness/processes';

jest.setTimeout(150_000);

let cluster: TestCluster;
let tide: Tide;

beforeAll(async () => {
  ({ cluster, tide } = await startStreamsCluster());
});

afterAll(() => stopStreamsCluster({ cluster, tide }));

const USERS = 30;

/** Orders (order id → user id) joined with a users global table; the joins' output is not read. */
function joinOrders<V>(b: StreamsBuilder, orders: string, table: GlobalKTable<string, V>): void {
  b.stream(orders, { key: Serdes.string, value: Serdes.string })
    .join(
      table,
      (_orderId, user) => user,
      (user, value) => `${user}:${JSON.stringify(value)}`,
      { name: 'j' },
    )
    .foreach(() => undefined);
}

async function scenario(name: string, stateDir: string | undefined): Promise<void> {
  const users = `${name}-users`;
  const orders = `${name}-orders`;
  const enriched = `${name}-enriched`;
  const admin = tide.admin();
  await admin.createTopic(users, { partitions: 3, replicationFactor: 1 });
  await admin.createTopic(orders, { partitions: 2, replicationFactor: 1 });
  await admin.createTopic(enriched, { partitions: 2, replicationFactor: 1 });
  const producer = tide.producer();
  const put = (user: string, value: string | null) => producer.send(users, { key: user, value });
  for (let i = 0; i < USERS; i++) await put(`u${i}`, `name-${i}`);

  // order id → the joined value, as written to the output topic.
  const joined = new Map<string, string>();
  const reader: Consumer = tide.consumer({ autoOffsetReset: 'earliest' });
  reader.assign([0, 1].map((partition) => ({ topic: enriched, partition, offset: 0 })));
  void (async () => {
    for await (const r of reader) joined.set(r.key!.toString(), r.value!.toString());
  })();

  const progress: RestoreProgress[] = [];
  const start = async (): Promise<StreamsApp> => {
    const b = tide.streams({ applicationId: name });
    const table = b.globalTable(users, { key: Serdes.string, value: Serdes.string, name: 'users' });
    b.stream(orders, { key: Serdes.string, value: Serdes.string })
      .leftJoin(
        table,
        (_orderId, user) => user,
        (user, userName) => `${user}:${userName ?? 'unknown'}`,
        { name: 'with-user' },
      )
      .to(enriched, { value: Serdes.string });
    const app = b.app(b.build(), {
      stateDir,
      commitIntervalMs: 100,
      replicationFactor: 1,
      statusIntervalMs: 200,
      onRestore: (p) => p.taskId === 'global' && p.done && progress.push(p),
    });
    await app.start();
    return app;
  };
  const order = (id: string, user: string) => producer.send(orders, { key: id, value: user });

  let app = await start();
  try {
    // Loaded before start() resolved: every user, and the first order already joins.
    expect(progress).toEqual([
      { taskId: 'global', store: 'users', restored: USERS, total: USERS, done: true },
    ]);
    expect(await app.query<string, string>('users', 'u7')).toBe('name-7');
    expect(app.metrics().globalTables).toEqual([
      { store: 'users', topic: users, loaded: true, recordsIn: USERS, lag: 0 },
    ]);
    await order('o1', 'u7');
    await waitFor(() => joined.get('o1') !== undefined, { timeoutMs: 30_000, what: 'order o1 joined' });
    expect(joined.get('o1')).toBe('u7:name-7');

    // Updates while running reach the table: a rename, and a tombstone.
    await put('u7', 'renamed-7');
    await put('u8', null);
    await waitFor(async () => (await app.query<string, string>('users', 'u8')) === null, {
      timeoutMs: 30_000,
      what: 'the tombstone of u8 applied',
    });
    expect(await app.query<string, string>('users', 'u7')).toBe('renamed-7');
    expect(app.metrics().globalTables[0].recordsIn).toBe(USERS + 2);
    // The instance publishes its copy for `tide streams describe`.
    const noConfig = path.join(makeTempDir(), 'none.yaml');
    await waitFor(
      async () => {
        const r = await runCli(['-b', cluster.bootstrap().join(','), 'streams', 'describe', name], {
          env: { TIDE_CONFIG_FILE: noConfig },
        });
        return /users\s+\S+\s+\S+-users\s+loaded\s+32\s+0/.test(r.out);
      },
      { timeoutMs: 30_000, what: 'the global table in tide streams describe' },
    );
    await order('o2', 'u7');
    await order('o3', 'u8');
    await waitFor(() => joined.has('o2') && joined.has('o3'), { timeoutMs: 30_000, what: 'orders o2, o3' });
    expect([joined.get('o2'), joined.get('o3')]).toEqual(['u7:renamed-7', 'u8:unknown']);
    await app.close();

    // Written while the app is down: the restart reads these (LMDB) or everything (in memory).
    await put('u9', 'renamed-9');
    await put(`u${USERS}`, 'new-user');
    progress.length = 0;
    app = await start();
    const written = USERS + 4;
    expect(progress).toEqual([
      {
        taskId: 'global',
        store: 'users',
        restored: stateDir === undefined ? written : 2,
        total: stateDir === undefined ? written : 2,
        done: true,
      },
    ]);
    expect(await app.query<string, string>('users', 'u8')).toBeNull();
    expect(await app.query<string, string>('users', 'u9')).toBe('renamed-9');
    expect((await app.queries.all<string, string>('users')).length).toBe(USERS);
    await order('o4', `u${USERS}`);
    await waitFor(() => joined.has('o4'), { timeoutMs: 30_000, what: 'order o4' });
    expect(joined.get('o4')).toBe(`u${USERS}:new-user`);
    expect(app.error()).toBeUndefined();
  } finally {
    await app.close();
    await reader.close();
    await producer.close();
  }
}

test('in memory: loaded before start() resolves, updated while running, read in full on a restart', async () => {
  await scenario('global-memory', undefined);
});

test('LMDB: a restart reads only what was written to the global topic while the app was down', async () => {
  await scenario('global-lmdb', makeTempDir('tide-global-'));
});

test('a missing global topic is refused at start, naming it', async () => {
  await tide.admin().createTopic('global-missing-orders', { partitions: 1, replicationFactor: 1 });
  const b = tide.streams({ applicationId: 'global-missing' });
  const table = b.globalTable('global-missing-users', {
    key: Serdes.string,
    value: Serdes.string,
    name: 'users',
  });
  joinOrders(b, 'global-missing-orders', table);
  const app = b.app(b.build(), { replicationFactor: 1, statusIntervalMs: 0 });
  const err = await app.start().catch((e: unknown) => e);
  await app.close();
  expect(err).toBeInstanceOf(StreamsError);
  expect((err as Error).message).toMatch(/source topic "global-missing-users" does not exist/);
});

test('a global record its serde cannot read fails start() with the serde error; close() still releases everything', async () => {
  await tide.admin().createTopic('global-bad-users', { partitions: 1, replicationFactor: 1 });
  await tide.admin().createTopic('global-bad-orders', { partitions: 1, replicationFactor: 1 });
  const producer = tide.producer();
  await producer.send('global-bad-users', { key: 'u1', value: '{"name":"ok"}' });
  await producer.send('global-bad-users', { key: 'u2', value: 'not json' });
  await producer.close();
  const b = tide.streams({ applicationId: 'global-bad' });
  const table = b.globalTable('global-bad-users', {
    key: Serdes.string,
    value: Serdes.json<{ name: string }>(),
    name: 'users',
  });
  joinOrders(b, 'global-bad-orders', table);
  const errors: Error[] = [];
  const app = b.app(b.build(), { replicationFactor: 1, statusIntervalMs: 0, onError: (e) => errors.push(e) });
  const err = await app.start().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(StreamsError);
  expect((err as StreamsError).kind).toBe('SERDE');
  expect(errors).toHaveLength(1);
  expect(app.state).toBe('failed');
  await app.close();
  expect(app.state).toBe('failed');
});

test('exactlyOnce: the global table holds committed records only (an aborted transaction never reaches it)', async () => {
  const users = 'global-eos-users';
  await tide.admin().createTopic(users, { partitions: 1, replicationFactor: 1 });
  await tide.admin().createTopic('global-eos-orders', { partitions: 1, replicationFactor: 1 });
  const writer = tide.producer({ transactionalId: 'global-eos-writer' });
  await writer.initTransactions();
  await writer.transaction(async (tx) => {
    await tx.send(users, { key: 'u1', value: 'committed' });
  });
  writer.beginTransaction();
  await writer.send(users, { key: 'u2', value: 'aborted' });
  await writer.abortTransaction();
  await writer.transaction(async (tx) => {
    await tx.send(users, { key: 'u3', value: 'committed-after' });
  });
  await writer.close();

  const b = tide.streams({ applicationId: 'global-eos' });
  const table = b.globalTable(users, { key: Serdes.string, value: Serdes.string, name: 'users' });
  joinOrders(b, 'global-eos-orders', table);
  const app = b.app(b.build(), {
    processingGuarantee: 'exactlyOnce',
    replicationFactor: 1,
    statusIntervalMs: 0,
    commitIntervalMs: 100,
  });
  try {
    await app.start();
    expect(await app.query<string, string>('users', 'u1')).toBe('committed');
    expect(await app.query<string, string>('users', 'u2')).toBeNull();
    expect(await app.query<string, string>('users', 'u3')).toBe('committed-after');
    expect(app.metrics().globalTables[0]).toMatchObject({ loaded: true, recordsIn: 2, lag: 0 });
    expect(app.error()).toBeUndefined();
  } finally {
    await app.close();
  }
});
