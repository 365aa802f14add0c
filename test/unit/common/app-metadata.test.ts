/**
 * Application metadata against the embedded metadata store (the etcd one keeps the same
 * contract): compare-and-swap on the version, listing by application and key prefix, deletes,
 * entries with a TTL that vanish unless written again, and validation with typed errors.
 */
import { ManualClock } from '../../../services/common/clock';
import { silentLogger } from '../../../services/common/logger';
import { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
import {
  APP_METADATA_VALUE_BYTES_MAX,
  AppMetadataStore,
} from '../../../services/common/app-metadata/app-metadata-store';

let clock: ManualClock;
let store: EmbeddedMetadataStore;
let apps: AppMetadataStore;

beforeEach(() => {
  clock = new ManualClock();
  store = new EmbeddedMetadataStore({ clock, logger: silentLogger() });
  apps = new AppMetadataStore(store, 'c', clock);
});
afterEach(async () => store.close());

const put = (
  application: string,
  key: string,
  value: string,
  o: { expectedVersion?: number; ttlMs?: number } = {},
) => apps.put({ application, key, value: Buffer.from(value), ...o });

it('creates only when absent, then swaps only on the version read', async () => {
  const first = await put('orders', 'streams.topology', 'v1', { expectedVersion: 0 });
  expect(first.applied).toBe(true);
  const again = await put('orders', 'streams.topology', 'other', { expectedVersion: 0 });
  expect(again).toMatchObject({ applied: false, current: { value: Buffer.from('v1') } });
  const read = (await apps.get('orders', 'streams.topology'))!;
  expect(read.value.toString()).toBe('v1');
  expect(read.expiresAtMs).toBe(0);
  const swapped = await put('orders', 'streams.topology', 'v2', { expectedVersion: read.version });
  expect(swapped.applied).toBe(true);
  const stale = await put('orders', 'streams.topology', 'v3', { expectedVersion: read.version });
  expect(stale.applied).toBe(false);
  expect((await apps.get('orders', 'streams.topology'))!.value.toString()).toBe('v2');
  // Unconditional writes always apply.
  expect((await put('orders', 'streams.topology', 'v4')).applied).toBe(true);
});

it('lists by application and key prefix, and deletes one entry or all of an application', async () => {
  await put('orders', 'streams.topology', 't');
  await put('orders', 'streams.instance.a', 'a');
  await put('orders-2', 'streams.topology', 't2');
  await put('a/b c', 'streams.topology', 'odd name');
  const all = await apps.list('', 'streams.topology');
  expect(all.map((e) => e.application).sort()).toEqual(['a/b c', 'orders', 'orders-2']);
  expect((await apps.list('orders')).map((e) => e.key)).toEqual(['streams.instance.a', 'streams.topology']);
  expect(await apps.delete('orders', 'streams.instance.a')).toBe(1);
  expect(await apps.delete('orders', 'streams.instance.a')).toBe(0);
  expect(await apps.delete('orders-2')).toBe(1);
  expect((await apps.list('')).map((e) => e.application).sort()).toEqual(['a/b c', 'orders']);
});

it('an entry with a TTL vanishes unless written again within it', async () => {
  await put('orders', 'streams.instance.a', 'alive', { ttlMs: 30_000 });
  expect((await apps.get('orders', 'streams.instance.a'))!.expiresAtMs).toBe(clock.nowMs() + 30_000);
  clock.advance(20_000);
  await put('orders', 'streams.instance.a', 'still alive', { ttlMs: 30_000 });
  clock.advance(20_000); // the first lease lapses; the entry moved to the second
  expect((await apps.get('orders', 'streams.instance.a'))!.value.toString()).toBe('still alive');
  clock.advance(10_000);
  expect(await apps.get('orders', 'streams.instance.a')).toBeUndefined();
});

it('refuses bad names, keys and sizes with INVALID_REQUEST', async () => {
  await expect(put('', 'k', 'v')).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  await expect(put('app', 'bad/key', 'v')).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  await expect(put('app', 'k', 'v', { ttlMs: -1 })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  await expect(
    apps.put({ application: 'app', key: 'k', value: Buffer.alloc(APP_METADATA_VALUE_BYTES_MAX + 1) }),
  ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
});
