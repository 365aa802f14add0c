import type { ManualClock } from '../../../services/common/clock';
import type { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
import { MetadataKeys } from '../../../services/common/metadata/keys';
import { BrokerRegistry, type BrokersUpdate } from '../../../services/common/cluster/broker-registry';
import { CLUSTER, flush, rejection, setup } from './helpers';

const TTL_MS = 10_000;
const keys = new MetadataKeys(CLUSTER);

describe('BrokerRegistry', () => {
  let clock: ManualClock;
  let store: EmbeddedMetadataStore;
  let registry: BrokerRegistry;

  beforeEach(() => {
    const s = setup();
    ({ clock, store } = s);
    registry = new BrokerRegistry({
      store,
      clusterName: CLUSTER,
      clock,
      logger: s.logger,
      leaseTtlMs: TTL_MS,
    });
  });

  afterEach(async () => {
    await store.close();
  });

  it('registers brokers under a lease and lists them by id', async () => {
    const b2 = await registry.register({ id: 2, host: 'b2', port: 9092, rack: 'zone-b' });
    await registry.register({ id: 1, host: 'b1', port: 9093, rack: '' });
    expect(await registry.listBrokers()).toEqual([
      { id: 1, host: 'b1', port: 9093 },
      { id: 2, host: 'b2', port: 9092, rack: 'zone-b' },
    ]);
    expect((await store.get(keys.broker(2)))?.lease).toBe(b2.leaseId);
  });

  it('refuses an id held by another live process, and leaks no lease doing so', async () => {
    await registry.register({ id: 1, host: 'first', port: 9092 });
    const err = await rejection(registry.register({ id: 1, host: 'second', port: 9092 }));
    expect(err.code).toBe('INVALID_CONFIG');
    expect(err.message).toMatch(
      /broker id 1 is already registered by another live process \(at first:9092\)/,
    );
    expect(err.context.broker).toBe(1);
    expect(await registry.listBrokers()).toEqual([{ id: 1, host: 'first', port: 9092 }]);
  });

  it.each([
    [{ id: 1, host: 'h', port: 0 }, /port/],
    [{ id: -1, host: 'h', port: 1 }, /id/],
    [{ id: 1, host: '', port: 1 }, /host/],
  ])('rejects the malformed broker %j with INVALID_CONFIG', async (broker, message) => {
    const err = await rejection(registry.register(broker));
    expect(err.code).toBe('INVALID_CONFIG');
    expect(err.message).toMatch(message);
  });

  it('drops a broker whose lease lapses (manual clock), telling the holder and the watchers', async () => {
    const registration = await registry.register({ id: 1, host: 'b1', port: 9092 });
    await registry.register({ id: 2, host: 'b2', port: 9092 });
    const updates: BrokersUpdate[] = [];
    const watch = await registry.watchBrokers((u) => updates.push(u));
    const lost = jest.fn();
    registration.onLost(lost);

    registration.release(); // the process "dies": no more keep-alives
    clock.advance(TTL_MS - 1);
    await flush();
    expect((await registry.listBrokers()).map((b) => b.id)).toEqual([1, 2]);
    expect(lost).not.toHaveBeenCalled();

    clock.advance(1);
    await flush();
    expect((await registry.listBrokers()).map((b) => b.id)).toEqual([2]);
    expect(lost).toHaveBeenCalledTimes(1);
    expect(
      updates.map((u) => ({
        ids: u.brokers.map((b) => b.id),
        added: u.added.map((b) => b.id),
        removed: u.removed,
      })),
    ).toEqual([
      { ids: [1, 2], added: [1, 2], removed: [] },
      { ids: [2], added: [], removed: [1] },
    ]);
    await watch.cancel();
  });

  it('removes the key at once on close, without calling onLost', async () => {
    const registration = await registry.register({ id: 1, host: 'b1', port: 9092 });
    const lost = jest.fn();
    registration.onLost(lost);
    await registration.close();
    await flush();
    expect(await registry.listBrokers()).toEqual([]);
    expect(lost).not.toHaveBeenCalled();
    await registration.close(); // idempotent
  });

  it('lets a restarted broker wait for its crashed predecessor to lapse', async () => {
    const crashed = await registry.register({ id: 1, host: 'b1', port: 9092 });
    crashed.release();
    let registered = false;
    const restarting = registry
      .register({ id: 1, host: 'b1', port: 9092 }, { waitForPreviousMs: TTL_MS + 5000 })
      .then((r) => {
        registered = true;
        return r;
      });
    await flush();
    expect(registered).toBe(false);
    clock.advance(TTL_MS);
    const registration = await restarting;
    expect((await store.get(keys.broker(1)))?.lease).toBe(registration.leaseId);
  });

  it('gives up waiting after waitForPreviousMs when the holder stays alive', async () => {
    await registry.register({ id: 1, host: 'b1', port: 9092 });
    const waiting = registry.register({ id: 1, host: 'other', port: 9092 }, { waitForPreviousMs: 3000 });
    await flush();
    clock.advance(3000);
    expect((await rejection(waiting)).message).toMatch(/already registered/);
  });

  it('watches registrations arriving, changing address and going', async () => {
    const updates: BrokersUpdate[] = [];
    const watch = await registry.watchBrokers((u) => updates.push(u));
    const r1 = await registry.register({ id: 1, host: 'b1', port: 9092 });
    await registry.register({ id: 3, host: 'b3', port: 9092 });
    await r1.close();
    await store.put(keys.broker(9), 'garbage'); // logged and ignored
    await flush();
    expect(
      updates.map((u) => [u.snapshot, u.brokers.map((b) => b.id), u.added.map((b) => b.id), u.removed]),
    ).toEqual([
      [true, [], [], []],
      [false, [1], [1], []],
      [false, [1, 3], [3], []],
      [false, [3], [], [1]],
    ]);
    await watch.cancel();
  });
});
