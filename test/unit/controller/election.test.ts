import type { ManualClock } from '../../../services/common/clock';
import type { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
import { MetadataKeys, decodeControllerRecord } from '../../../services/common/metadata/keys';
import type { MetadataStore } from '../../../services/common/metadata/store';
import {
  decodeActiveControllerRecord,
  encodeActiveControllerRecord,
} from '../../../services/common/cluster/controller-record';
import { ControllerElection, type ElectionEvent } from '../../../services/controller/election';
import { TopicManager } from '../../../services/controller/topic-manager';
import { CLUSTER, flush, rejection, setup } from './helpers';
import { ProcessStore } from './node-helpers';

const TTL = 5_000;
const keys = new MetadataKeys(CLUSTER);

describe('ControllerElection', () => {
  let clock: ManualClock;
  let store: EmbeddedMetadataStore;
  let logger: ReturnType<typeof setup>['logger'];
  const started: ControllerElection[] = [];

  function election(
    id: number,
    on: MetadataStore = store,
  ): { election: ControllerElection; events: ElectionEvent[] } {
    const e = new ControllerElection({
      store: on,
      clusterName: CLUSTER,
      controllerId: id,
      host: '127.0.0.1',
      port: 9100 + id,
      clock,
      logger,
      leaseTtlMs: TTL,
      retryDelayMs: 500,
    });
    const events: ElectionEvent[] = [];
    e.onChange((event) => events.push(event));
    started.push(e);
    return { election: e, events };
  }

  beforeEach(() => {
    ({ clock, store, logger } = setup());
    started.length = 0;
  });

  afterEach(async () => {
    for (const e of started) await e.resign();
    await store.close();
  });

  it('the first candidate wins with epoch = createRevision of the key; the second stands by', async () => {
    const a = election(1);
    const b = election(2);
    await a.election.start();
    await b.election.start();
    const kv = (await store.get(keys.controller))!;
    expect(a.election.isActive).toBe(true);
    expect(a.election.epoch).toBe(kv.createRevision);
    expect(a.events).toEqual([{ state: 'active', epoch: kv.createRevision }]);
    expect(b.election.role).toBe('standby');
    expect(b.election.epoch).toBe(0);
    expect(b.events).toEqual([]);
    // The record names the controller, its address, and (after the rewrite) its epoch.
    expect(decodeActiveControllerRecord(kv.value, kv.key)).toEqual({
      controllerId: 1,
      epoch: kv.createRevision,
      host: '127.0.0.1',
      port: 9101,
    });
    // Older readers still decode it.
    expect(decodeControllerRecord(kv.value, kv.key)).toEqual({ controllerId: 1, epoch: kv.createRevision });
    expect(b.election.activeController).toMatchObject({
      controllerId: 1,
      epoch: kv.createRevision,
      address: '127.0.0.1:9101',
    });
    expect(a.election.fencing()).toEqual([
      { key: keys.controller, target: 'createRevision', op: '=', value: kv.createRevision },
    ]);
  });

  it('a standby refuses to fence (NOT_CONTROLLER naming the active controller)', async () => {
    const a = election(1);
    const b = election(2);
    await a.election.start();
    await b.election.start();
    expect(() => b.election.fencing()).toThrow(/not active; the active controller is 1 at 127.0.0.1:9101/);
  });

  it('a standby takes over when the active one stops keeping its lease alive, not a millisecond before', async () => {
    const storeA = new ProcessStore(store);
    const a = election(1, storeA);
    const b = election(2);
    await a.election.start();
    await b.election.start();
    const epochA = a.election.epoch;

    storeA.freeze(); // SIGSTOP: A's keep-alives stop
    clock.advance(TTL - 1);
    await flush();
    expect(b.election.isActive).toBe(false);
    clock.advance(1);
    await flush();
    await flush();
    expect(b.election.isActive).toBe(true);
    expect(b.election.epoch).toBeGreaterThan(epochA);
    expect((await store.get(keys.controller))!.createRevision).toBe(b.election.epoch);
    // A learns only when it runs again; then it steps down and stands by behind B.
    expect(a.election.isActive).toBe(true);
    storeA.thaw();
    await flush();
    await flush();
    expect(a.election.role).toBe('standby');
    expect(a.events.map((e) => e.state)).toEqual(['active', 'standby']);
    expect(a.events[1]).toMatchObject({ epoch: epochA });
  });

  it("a deposed controller's write fails in the store even before it knows it was deposed", async () => {
    const storeA = new ProcessStore(store);
    const a = election(1, storeA);
    const b = election(2);
    await a.election.start();
    await b.election.start();
    const topicsA = new TopicManager({
      store: storeA,
      clusterName: CLUSTER,
      clock,
      logger,
      defaultReplicationFactor: 1,
      liveBrokers: async () => [{ id: 1, host: 'h', port: 1 }],
      fencing: () => a.election.fencing(),
    });

    storeA.freeze();
    clock.advance(TTL);
    await flush();
    await flush();
    expect(b.election.isActive).toBe(true);
    // A was frozen through the takeover; it still believes it is active and writes with its epoch.
    expect(a.election.isActive).toBe(true);
    const err = await rejection(topicsA.createTopic({ name: 'zombie', partitions: 1 }));
    expect(err.code).toBe('NOT_CONTROLLER');
    expect(await store.get(keys.topic('zombie'))).toBeUndefined();
    storeA.thaw();
  });

  it('a standby whose lease lapsed unnoticed campaigns with a fresh lease', async () => {
    const a = election(1);
    const storeB = new ProcessStore(store);
    const b = election(2, storeB);
    await a.election.start();
    await b.election.start();
    storeB.freeze(); // B's (unused) lease lapses; B does not hear of it
    clock.advance(TTL);
    await flush();
    await a.election.resign();
    storeB.thaw({ leaseNotices: false }); // B sees the key go, but not that its lease is gone
    await flush();
    await flush();
    // The campaign with the dead lease failed ("lease not found"); the retry takes a new lease.
    expect(b.election.isActive).toBe(false);
    clock.advance(500);
    await flush();
    await flush();
    expect(b.election.isActive).toBe(true);
    const kv = (await store.get(keys.controller))!;
    expect(kv.createRevision).toBe(b.election.epoch);
  });

  it('resigning hands over at once: the key goes, the standby wins the next epoch', async () => {
    const a = election(1);
    const b = election(2);
    await a.election.start();
    await b.election.start();
    const epochA = a.election.epoch;
    await a.election.resign();
    await flush();
    await flush();
    expect(a.election.role).toBe('stopped');
    expect(a.events.at(-1)).toEqual({ state: 'stopped', epoch: epochA, reason: 'resigned' });
    expect(b.election.isActive).toBe(true);
    expect(b.election.epoch).toBeGreaterThan(epochA);
  });

  it('stepDown (a fenced write failed) leaves active at once, then campaigns again', async () => {
    const a = election(1);
    await a.election.start();
    const first = a.election.epoch;
    // Someone (an operator) deleted the key: the watch deposes A, which wins a new epoch.
    await store.delete(keys.controller);
    await flush();
    await flush();
    expect(a.events.map((e) => e.state)).toEqual(['active', 'standby', 'active']);
    expect(a.events[1].reason).toMatch(/deleted/);
    expect(a.election.epoch).toBeGreaterThan(first);

    a.election.stepDown('test');
    expect(a.election.isActive).toBe(false);
    expect(() => a.election.fencing()).toThrow(/not active/);
    await flush();
    await flush();
    // Its key was still its own (same lease): it resumes that epoch.
    expect(a.election.isActive).toBe(true);
  });

  it('many candidates: exactly one is active, and each takeover has a larger epoch', async () => {
    const stores = [1, 2, 3, 4].map(() => new ProcessStore(store));
    const candidates = stores.map((s, i) => election(i + 1, s));
    await Promise.all(candidates.map((c) => c.election.start()));
    const epochs: number[] = [];
    const frozen = new Set<number>();
    for (let round = 0; round < 3; round++) {
      const active = candidates.filter((c, i) => c.election.isActive && !frozen.has(i));
      expect(active).toHaveLength(1);
      epochs.push(active[0].election.epoch);
      const index = candidates.indexOf(active[0]);
      frozen.add(index);
      stores[index].freeze();
      clock.advance(TTL);
      await flush();
      await flush();
    }
    expect([...epochs].sort((x, y) => x - y)).toEqual(epochs);
    expect(new Set(epochs).size).toBe(3);
    for (const s of stores) s.thaw();
  });
});

describe('controller record', () => {
  it('round-trips with and without an address, and rejects half an address', () => {
    const withAddress = { controllerId: 3, epoch: 42, host: 'ctrl-0.tide', port: 9093 };
    expect(decodeActiveControllerRecord(encodeActiveControllerRecord(withAddress), 'k')).toEqual(withAddress);
    expect(
      decodeActiveControllerRecord(encodeActiveControllerRecord({ controllerId: 3, epoch: 42 }), 'k'),
    ).toEqual({
      controllerId: 3,
      epoch: 42,
    });
    expect(() => encodeActiveControllerRecord({ controllerId: 3, epoch: 42, host: 'h' })).toThrow(/together/);
    expect(() => encodeActiveControllerRecord({ controllerId: 3, epoch: 42, host: 'h', port: 0 })).toThrow(
      /not a valid host and port/,
    );
    // An old record (no address) decodes; a malformed address is ignored, not fatal.
    expect(decodeActiveControllerRecord('{"controllerId":1,"epoch":7,"port":"x"}', 'k')).toEqual({
      controllerId: 1,
      epoch: 7,
    });
  });
});
