/**
 * Interactive-query routing without a cluster: the key's task is the producer's partition of its
 * bytes; a task running here is read locally (table values without their timestamp, window
 * ranges, every entry); a task elsewhere goes to its owner's endpoint; anything unknown or not
 * running here is a retriable NOT_AVAILABLE, and an unknown store a STORE error. A global table's
 * store is read here, never routed: every instance has all of it once loaded. A lookup that allows
 * stale answers reads a standby copy kept here when the active task is not readable here; all()
 * that allows them reads copies for the tasks no owner answers for.
 */
import { partitionForKey } from '../../../client';
import { Serdes, StreamsBuilder, TimeWindows } from '../../../streams';
import { StreamsError } from '../../../streams/errors';
import type { QueryClients } from '../../../streams/runtime/query/clients';
import { QueryRouter } from '../../../streams/runtime/query/router';
import { StreamsQueries } from '../../../streams/runtime/query/typed';
import { InMemoryKeyValueStore, InMemoryWindowStore } from '../../../streams/state/memory';
import type { StateStore } from '../../../streams/state/stores';

const b = new StreamsBuilder({ applicationId: 'q' });
const grouped = b.stream('in', { key: Serdes.string, value: Serdes.string }).groupByKey();
grouped.count({ name: 'counts' });
grouped.windowedBy(TimeWindows.ofSizeWithNoGrace(1_000)).count({ name: 'per-second' });
b.globalTable('users', { key: Serdes.string, value: Serdes.string, name: 'users' });
const topology = b.build();
const partitions = new Map([
  ['in', 4],
  ['users', 3],
]);

const stores = new Map<string, StateStore>();
const globals = new Map<string, StateStore>();
const standbys = new Map<string, StateStore>();
const owners = new Map<string, string>();
const remote: string[] = [];
const clients = {
  get: async (endpoint: string, store: string, _key: Buffer, allowStale?: boolean) => {
    remote.push(`${endpoint} ${store}${allowStale ? ' stale' : ''}`);
    return { found: true, value: Serdes.number.serialize(7), timestampMs: 1, servedBy: endpoint };
  },
  all: async (endpoint: string) => {
    if (endpoint === 'dead:3') throw new StreamsError('NOT_AVAILABLE', 'instance dead:3: unreachable');
    remote.push(`${endpoint} all`);
    // An owner's answer may hold a key a stale copy elsewhere also has (its assignment moved).
    return [{ key: Serdes.string.serialize('moved'), value: Serdes.number.serialize(30), timestampMs: 0 }];
  },
  windows: async () => ({ windows: [], servedBy: '' }),
  range: async (endpoint: string, _store: string, from: Buffer, to: Buffer) => {
    remote.push(`${endpoint} range ${from.toString()}..${to.toString()}`);
    // The owner holds one key, and answers within the bounds as a real instance does.
    const key = Serdes.string.serialize('c-remote');
    const inside =
      (from.length === 0 || Buffer.compare(key, from) >= 0) &&
      (to.length === 0 || Buffer.compare(key, to) <= 0);
    return inside ? [{ key, value: Serdes.number.serialize(5), timestampMs: 0 }] : [];
  },
} as unknown as QueryClients;

const router = new QueryRouter({
  topology,
  partitions: () => partitions,
  localStore: (task, store) => stores.get(`${task}/${store}`),
  globalStore: (store) => globals.get(store),
  standbyStore: (task, store) => standbys.get(`${task}/${store}`),
  owners: () => owners,
  self: () => 'me:1',
  clients,
});
const queries = new StreamsQueries(() => router);
/** A table store of `counts` holding these keys and counts. */
function kv(entries: [string, number][]) {
  const store = new InMemoryKeyValueStore<string, { value: number; timestamp: number }>(
    'counts',
    undefined,
    Serdes.string,
  );
  for (const [k, v] of entries) store.put(k, { value: v, timestamp: 0 });
  return store;
}
const task = (key: string) => `0_${partitionForKey(Serdes.string.serialize(key), 4)}`;

it('reads a local task, unstamped; routes a remote one; refuses what is not running', async () => {
  const kv = new InMemoryKeyValueStore<string, { value: number; timestamp: number }>(
    'counts',
    undefined,
    Serdes.string,
  );
  kv.put('alice', { value: 3, timestamp: 99 });
  stores.set(`${task('alice')}/counts`, kv);
  owners.set(task('alice'), 'me:1');
  expect(await queries.get('counts', 'alice')).toBe(3);
  const raw = await router.get('counts', Serdes.string.serialize('alice'), false);
  expect(raw.timestampMs).toBe(99);
  expect(raw.servedBy).toBe('me:1');

  const elsewhere = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7'].find((k) => task(k) !== task('alice'))!;
  owners.set(task(elsewhere), 'other:2');
  expect(await queries.get('counts', elsewhere)).toBe(7);
  expect(remote).toEqual(['other:2 counts']);

  // Forwarded to us, but we do not run it: retriable, never a guess.
  const err = await router.get('counts', Serdes.string.serialize(elsewhere), true).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(StreamsError);
  expect((err as StreamsError).kind).toBe('NOT_AVAILABLE');
  expect((err as StreamsError).retriable).toBe(true);
  expect((err as StreamsError).code).toBe('STORE_NOT_AVAILABLE');

  // Ours by the assignment but not running (restoring): retriable too.
  stores.delete(`${task('alice')}/counts`);
  const restoring = await queries.get('counts', 'alice').catch((e: unknown) => e);
  expect((restoring as StreamsError).kind).toBe('NOT_AVAILABLE');

  const unknown = await queries.get('nope', 'x').catch((e: unknown) => e);
  expect((unknown as StreamsError).kind).toBe('STORE');
});

it('fetches windows of a key by start, and gathers every entry of local tasks', async () => {
  const ws = new InMemoryWindowStore<string, { value: number; timestamp: number }>(
    'per-second',
    1_000,
    60_000,
  );
  ws.put('bob', 0, { value: 1, timestamp: 10 });
  ws.put('bob', 1_000, { value: 2, timestamp: 1_500 });
  ws.put('bob', 5_000, { value: 5, timestamp: 5_100 });
  const sub = topology.subtopologies.find((s) => s.stores.some((d) => d.name === 'per-second'))!;
  const t = `${sub.id}_${partitionForKey(Serdes.string.serialize('bob'), 4)}`;
  stores.set(`${t}/per-second`, ws);
  const got = await queries.windows<string, number>('per-second', 'bob', 0, 1_000);
  expect(got.map((w) => [w.window.start, w.window.end, w.value])).toEqual([
    [0, 1_000, 1],
    [1_000, 2_000, 2],
  ]);
  await expect(queries.get('per-second', 'bob')).rejects.toThrow(/window store/);

  for (let p = 0; p < 4; p++) {
    const kv = new InMemoryKeyValueStore<string, { value: number; timestamp: number }>(
      'counts',
      undefined,
      Serdes.string,
    );
    kv.put(`key-of-${p}`, { value: p, timestamp: 0 });
    stores.set(`0_${p}/counts`, kv);
  }
  const all = await queries.all<string, number>('counts');
  expect(all.sort()).toEqual([
    ['key-of-0', 0],
    ['key-of-1', 1],
    ['key-of-2', 2],
    ['key-of-3', 3],
  ]);
});

it('reads a global table here, whatever the key; NOT_AVAILABLE until it is loaded', async () => {
  const before = await queries.get('users', 'u1').catch((e: unknown) => e);
  expect((before as StreamsError).kind).toBe('NOT_AVAILABLE');
  expect((before as StreamsError).message).toMatch(/global table users is not loaded/);

  const users = new InMemoryKeyValueStore<string, { value: string; timestamp: number }>(
    'users',
    undefined,
    Serdes.string,
  );
  for (let i = 0; i < 8; i++) users.put(`u${i}`, { value: `name-${i}`, timestamp: 100 + i });
  globals.set('users', users);
  const callsBefore = remote.length;
  for (let i = 0; i < 8; i++) expect(await queries.get('users', `u${i}`)).toBe(`name-${i}`);
  expect(await queries.get('users', 'nobody')).toBeNull();
  const raw = await router.get('users', Serdes.string.serialize('u3'), true);
  expect([raw.found, raw.timestampMs, raw.servedBy]).toEqual([true, 103, 'me:1']);
  expect((await queries.all<string, string>('users')).length).toBe(8);
  expect(remote.length).toBe(callsBefore);
});

it('with allowStale, a standby copy kept here answers when the active task is not readable here', async () => {
  const key = 'k-standby';
  const t = task(key);
  const copy = new InMemoryKeyValueStore<string, { value: number; timestamp: number }>(
    'counts',
    undefined,
    Serdes.string,
  );
  copy.put(key, { value: 41, timestamp: 5 });
  standbys.set(`${t}/counts`, copy);
  stores.delete(`${t}/counts`);
  owners.delete(t); // the owner is not known (a failover under way)
  const strict = await queries.get('counts', key).catch((e: unknown) => e);
  expect((strict as StreamsError).kind).toBe('NOT_AVAILABLE');
  expect(await queries.get('counts', key, { allowStale: true })).toBe(41);
  const raw = await router.get('counts', Serdes.string.serialize(key), true, true);
  expect([raw.timestampMs, raw.servedBy]).toEqual([5, 'me:1']);

  // The active task readable here wins over the copy.
  const active = new InMemoryKeyValueStore<string, { value: number; timestamp: number }>(
    'counts',
    undefined,
    Serdes.string,
  );
  active.put(key, { value: 42, timestamp: 6 });
  stores.set(`${t}/counts`, active);
  expect(await queries.get('counts', key, { allowStale: true })).toBe(42);

  // Owned elsewhere and no copy here: forwarded, asking the owner to allow stale answers too.
  stores.delete(`${t}/counts`);
  standbys.delete(`${t}/counts`);
  owners.set(t, 'other:2');
  const before = remote.length;
  expect(await queries.get('counts', key, { allowStale: true })).toBe(7);
  expect(remote.slice(before)).toEqual(['other:2 counts stale']);
});

it('all() with allowStale reads the copies kept here for tasks no owner answers for, never a key twice', async () => {
  stores.clear();
  standbys.clear();
  owners.clear();
  stores.set('0_0/counts', kv([['active', 1]]));
  owners.set('0_0', 'me:1');
  owners.set('0_1', 'other:2'); // answers for its tasks (the fake returns none)
  standbys.set('0_1/counts', kv([['never-read', 9]])); // its owner answers: the copy is not read
  owners.set('0_2', 'dead:3'); // its call fails as not available
  standbys.set('0_2/counts', kv([['from-copy-of-dead', 2]]));
  standbys.set(
    '0_3/counts',
    kv([
      ['from-copy-no-owner', 3],
      ['moved', 4],
    ]),
  ); // no owner known here; other:2 answers for 'moved' all the same

  const strict = await queries.all('counts').catch((e: unknown) => e);
  expect((strict as StreamsError).kind).toBe('NOT_AVAILABLE');
  const stale = await queries.all<string, number>('counts', { allowStale: true });
  expect(stale.sort()).toEqual([
    ['active', 1],
    ['from-copy-no-owner', 3],
    ['from-copy-of-dead', 2],
    ['moved', 30],
  ]);

  // Without a copy of one of the dead owner's tasks, its failure stands.
  standbys.delete('0_2/counts');
  const missing = await queries.all('counts', { allowStale: true }).catch((e: unknown) => e);
  expect((missing as StreamsError).kind).toBe('NOT_AVAILABLE');
});

it('range(): keys between the bounds in key-byte order, from local tasks and owners elsewhere', async () => {
  stores.clear();
  standbys.clear();
  owners.clear();
  remote.length = 0;
  stores.set(
    '0_0/counts',
    kv([
      ['d', 4],
      ['a', 1],
      ['z', 26],
    ]),
  );
  stores.set(
    '0_1/counts',
    kv([
      ['b', 2],
      ['c', 3],
    ]),
  );
  stores.set('0_2/counts', kv([]));
  owners.set('0_3', 'other:2');
  expect(await queries.range<string, number>('counts', 'b', 'd')).toEqual([
    ['b', 2],
    ['c', 3],
    ['c-remote', 5],
    ['d', 4],
  ]);
  expect(remote).toEqual(['other:2 range b..d']);
  expect(await queries.range<string, number>('counts', undefined, 'b', { limit: 1 })).toEqual([['a', 1]]);
  expect((await queries.range<string, number>('counts', 'y', undefined)).map(([k]) => k)).toEqual(['z']);
  await expect(queries.range('per-second', 'a', 'b')).rejects.toThrow(/window store/);
});
