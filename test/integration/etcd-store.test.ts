/**
 * EtcdMetadataStore against a real etcd (test/harness/etcd.ts): the shared MetadataStore contract,
 * then what only a real server shows: restarts, outages, a hung server, compaction.
 * Needs etcd installed (bash scripts/install-etcd.sh); fails, never skips, without it.
 */
import { Etcd3 } from 'etcd3';
import { TideError } from '../../services/common/errors';
import { silentLogger } from '../../services/common/logger';
import { EtcdMetadataStore, type EtcdMetadataStoreOptions } from '../../services/common/metadata/etcd';
import type { MetadataStore, WatchEvent } from '../../services/common/metadata/store';
import { startEtcd, startTcpProxy, type EtcdProcess } from '../harness/etcd';
import { eventually, runMetadataStoreContract } from '../unit/metadata/contract';

jest.setTimeout(30_000);

let etcd: EtcdProcess | undefined;
let etcdStarting: Promise<EtcdProcess> | undefined;
const stores = new Set<MetadataStore>();

/** One etcd for the whole file, started by whichever test needs it first. */
function sharedEtcd(): Promise<EtcdProcess> {
  etcdStarting ??= startEtcd().then((started) => (etcd = started));
  return etcdStarting;
}

function openStore(endpoints: string[], options: Partial<EtcdMetadataStoreOptions> = {}): EtcdMetadataStore {
  const store = new EtcdMetadataStore({ endpoints, logger: silentLogger(), ...options });
  stores.add(store);
  return store;
}

async function closeStore(store: MetadataStore): Promise<void> {
  stores.delete(store);
  await store.close();
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

afterAll(async () => {
  for (const store of [...stores]) await closeStore(store);
  const pid = etcd?.pid;
  await etcd?.close();
  // Nothing may outlive the file: the etcd process is gone.
  if (pid !== undefined) expect(() => process.kill(pid, 0)).toThrow();
});

runMetadataStoreContract('etcd', async () => {
  const server = await sharedEtcd();
  const store = openStore([server.endpoint]);
  return {
    store,
    // etcd counts whole seconds (its minimum is 1 s with the harness's 500 ms election timeout);
    // 2 s leaves the 1 s-tick keep-alives room on a loaded machine.
    leaseTtlMs: 2000,
    // etcd checks for expired leases every 500 ms; the store then confirms the lapse.
    expirySlackMs: 1500,
    advanceMs: sleep,
    cleanup: () => closeStore(store),
  };
});

/** Expects `promise` to reject with a retriable METADATA_UNAVAILABLE that names `endpoint`. */
async function expectUnavailable(promise: Promise<unknown>, endpoint: string): Promise<TideError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TideError);
  const tideError = err as TideError;
  expect(tideError.code).toBe('METADATA_UNAVAILABLE');
  expect(tideError.retriable).toBe(true);
  expect(tideError.message).toContain(endpoint.replace(/^https?:\/\//, ''));
  return tideError;
}

function recordWatch(): {
  events: WatchEvent[];
  batches: number;
  errors: Error[];
  onEvents: (e: WatchEvent[]) => void;
  onError: (e: Error) => void;
} {
  const rec = {
    events: [] as WatchEvent[],
    batches: 0,
    errors: [] as Error[],
    onEvents: (events: WatchEvent[]) => {
      rec.batches++;
      rec.events.push(...events);
    },
    onError: (err: Error) => rec.errors.push(err),
  };
  return rec;
}

describe('EtcdMetadataStore on a real etcd', () => {
  let root: string;
  let counter = 0;
  beforeEach(() => {
    root = `/etcd-store/${process.pid}-${counter++}/`;
  });

  it('maps request errors: a duplicate key is INVALID_REQUEST, an unknown lease is not retriable', async () => {
    const server = await sharedEtcd();
    const store = openStore([server.endpoint]);
    await expect(
      store.txn(
        [],
        [
          { type: 'put', key: `${root}a`, value: '1' },
          { type: 'put', key: `${root}a`, value: '2' },
        ],
      ),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(store.put(`${root}b`, 'v', { lease: '12345' })).rejects.toMatchObject({
      code: 'METADATA_UNAVAILABLE',
      retriable: false,
    });
    await closeStore(store);
  });

  it('rounds lease TTLs up to whole seconds and reports what etcd granted', async () => {
    const server = await sharedEtcd();
    const store = openStore([server.endpoint]);
    const short = await store.grantLease(300);
    const long = await store.grantLease(2100);
    expect(short.ttlMs).toBe(1000);
    expect(long.ttlMs).toBe(3000);
    await short.revoke();
    await long.revoke();
    await closeStore(store);
  });

  it('close() stops watches and keep-alives without revoking; later calls fail for good', async () => {
    const server = await sharedEtcd();
    const store = openStore([server.endpoint]);
    const other = openStore([server.endpoint]);
    const rec = recordWatch();
    await store.watchPrefix(root, 0, rec.onEvents, rec.onError);
    const lease = await store.grantLease(1000);
    const lost = jest.fn();
    lease.onLost(lost);
    await store.put(`${root}leased`, 'v', { lease: lease.id });
    await eventually(() => expect(rec.events).toHaveLength(1));
    await closeStore(store);
    await expect(store.get(`${root}leased`)).rejects.toMatchObject({
      code: 'METADATA_UNAVAILABLE',
      retriable: false,
    });
    // Not revoked: the key stays until the lease lapses, as if the process had died.
    expect((await other.get(`${root}leased`))?.lease).toBe(lease.id);
    await eventually(async () => expect(await other.get(`${root}leased`)).toBeUndefined(), 5000);
    await other.put(`${root}after`, 'x');
    await sleep(50);
    expect(rec.events).toHaveLength(1);
    expect(rec.errors).toEqual([]);
    expect(lost).not.toHaveBeenCalled();
    await closeStore(other);
  });

  it('watches from a future revision, delivering from that revision on', async () => {
    const server = await sharedEtcd();
    const store = openStore([server.endpoint]);
    const rec = recordWatch();
    const now = (await store.getPrefix(root)).revision;
    const watch = await store.watchPrefix(root, now + 3, rec.onEvents, rec.onError);
    const revs: number[] = [];
    for (let i = 0; i < 4; i++) revs.push(await store.put(`${root}k${i}`, String(i)));
    await eventually(() => expect(rec.events.length).toBeGreaterThan(0));
    const expected = revs.filter((rev) => rev >= now + 3);
    await eventually(() => expect(rec.events.map((e) => e.revision)).toEqual(expected));
    await watch.cancel();
    await closeStore(store);
  });

  it('rejects a watch from a compacted revision, and reports compaction that happened while disconnected', async () => {
    const server = await sharedEtcd();
    const proxy = await startTcpProxy(server.endpoint);
    const store = openStore([proxy.endpoint]);
    const direct = new Etcd3({ hosts: server.endpoint });
    try {
      const first = await store.put(`${root}k`, '1');
      const rec = recordWatch();
      await store.watchPrefix(root, first + 1, rec.onEvents, rec.onError);
      const second = await store.put(`${root}k`, '2');
      await eventually(() => expect(rec.events.map((e) => e.revision)).toEqual([second]));

      // The watch's link breaks; meanwhile the key changes and etcd compacts past the watch.
      proxy.cut();
      await direct.put(`${root}k`).value('3').exec();
      const fourth = Number((await direct.put(`${root}k`).value('4').exec()).header.revision);
      await direct.kv.compact({ revision: fourth, physical: true });
      proxy.restore();
      await eventually(() => expect(rec.errors).toHaveLength(1), 10_000);
      expect(rec.errors[0]).toMatchObject({ code: 'METADATA_UNAVAILABLE' });
      expect(rec.errors[0].message).toMatch(/compacted/);
      expect(rec.events.map((e) => e.revision)).toEqual([second]);

      await expect(store.watchPrefix(root, first, () => undefined)).rejects.toMatchObject({
        code: 'METADATA_UNAVAILABLE',
        message: expect.stringMatching(/compacted/),
      });
    } finally {
      direct.close();
      await closeStore(store);
      await proxy.close();
    }
  });

  it('resumes a watch after its connection breaks, delivering every change made meanwhile exactly once', async () => {
    const server = await sharedEtcd();
    const proxy = await startTcpProxy(server.endpoint);
    const store = openStore([proxy.endpoint]);
    const writer = openStore([server.endpoint]);
    try {
      const rec = recordWatch();
      const start = (await writer.getPrefix(root)).revision + 1;
      await store.watchPrefix(root, start, rec.onEvents, rec.onError);
      await writer.put(`${root}before`, '0');
      await eventually(() => expect(rec.events).toHaveLength(1));
      proxy.cut();
      for (let i = 0; i < 10; i++) await writer.put(`${root}during/${i}`, String(i));
      await writer.txn(
        [],
        [
          { type: 'put', key: `${root}txn/a`, value: 'a' },
          { type: 'put', key: `${root}txn/b`, value: 'b' },
        ],
      );
      proxy.restore();
      await writer.put(`${root}after`, 'z');
      await eventually(() => expect(rec.events).toHaveLength(14), 10_000);
      expect(rec.events.map((e) => e.key.slice(root.length))).toEqual([
        'before',
        ...Array.from({ length: 10 }, (_, i) => `during/${i}`),
        'txn/a',
        'txn/b',
        'after',
      ]);
      expect(rec.batches).toBe(13);
      expect(rec.errors).toEqual([]);
    } finally {
      await closeStore(store);
      await closeStore(writer);
      await proxy.close();
    }
  });

  it('recovers from an etcd crash (SIGKILL, restart on the same data dir): reads, writes, watches and leases go on', async () => {
    // A dedicated etcd: the crash must not disturb the other tests' server.
    const server = await startEtcd();
    const store = openStore([server.endpoint], { dialTimeoutMs: 1000 });
    try {
      const rec = recordWatch();
      const lease = await store.grantLease(5000);
      const lost = jest.fn();
      lease.onLost(lost);
      await store.put(`${root}leased`, 'mine', { lease: lease.id });
      const start = (await store.getPrefix(root)).revision + 1;
      await store.watchPrefix(root, start, rec.onEvents, rec.onError);
      await store.put(`${root}a`, '1');
      await eventually(() => expect(rec.events).toHaveLength(1));

      await server.kill();
      await expectUnavailable(store.get(`${root}a`), server.endpoint);
      const restartedAt = Date.now();
      await server.restart();
      // Served again within a few seconds of etcd being back (no circuit breaker in the way).
      expect((await store.get(`${root}a`))?.value.toString()).toBe('1');
      expect(Date.now() - restartedAt).toBeLessThan(5000);
      await store.put(`${root}b`, '2');
      await eventually(
        () => expect(rec.events.map((e) => e.key.slice(root.length))).toEqual(['a', 'b']),
        10_000,
      );
      expect(rec.errors).toEqual([]);
      // etcd keeps leases across a restart; the keep-alives resume.
      await sleep(1500);
      expect((await store.get(`${root}leased`))?.lease).toBe(lease.id);
      expect(lost).not.toHaveBeenCalled();
      await lease.revoke();
      expect(await store.get(`${root}leased`)).toBeUndefined();
    } finally {
      await closeStore(store);
      await server.close();
    }
  });

  it('fails fast with METADATA_UNAVAILABLE while etcd is down, and serves again once it is back', async () => {
    const server = await startEtcd();
    const store = openStore([server.endpoint], { dialTimeoutMs: 1000 });
    try {
      await store.put(`${root}k`, 'v');
      await server.stop();
      const startedAt = Date.now();
      await expectUnavailable(store.get(`${root}k`), server.endpoint);
      await expectUnavailable(store.put(`${root}k`, 'w'), server.endpoint);
      await expectUnavailable(store.txn([], [{ type: 'get', key: `${root}k` }]), server.endpoint);
      await expectUnavailable(store.grantLease(1000), server.endpoint);
      await expectUnavailable(
        store.watchPrefix(root, 0, () => undefined),
        server.endpoint,
      );
      expect(Date.now() - startedAt).toBeLessThan(5 * 1000 + 2000);
      await server.restart();
      expect((await store.get(`${root}k`))?.value.toString()).toBe('v');
    } finally {
      await closeStore(store);
      await server.close();
    }
  });

  it('times out instead of hanging on a hung etcd (SIGSTOP), and reports its leases lost', async () => {
    const server = await startEtcd();
    const store = openStore([server.endpoint], { dialTimeoutMs: 500, requestTimeoutMs: 1000 });
    try {
      const lease = await store.grantLease(1000);
      const lost = jest.fn();
      lease.onLost(lost);
      server.pause();
      const startedAt = Date.now();
      await expectUnavailable(store.get(`${root}k`), server.endpoint);
      expect(Date.now() - startedAt).toBeLessThan(3000);
      await eventually(() => expect(lost).toHaveBeenCalledTimes(1), 3000);
      expect(lost.mock.calls[0][0]).toMatchObject({ code: 'METADATA_UNAVAILABLE' });
      server.resume();
      await eventually(async () => expect(await store.get(`${root}k`)).toBeUndefined(), 10_000);
    } finally {
      server.resume();
      await closeStore(store);
      await server.close();
    }
  });
});
