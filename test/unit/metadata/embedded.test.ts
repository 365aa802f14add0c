import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ManualClock } from '../../../services/common/clock';
import { TideError } from '../../../services/common/errors';
import { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
import type { WatchEvent } from '../../../services/common/metadata/store';
import { runMetadataStoreContract } from './contract';

runMetadataStoreContract('embedded', async () => {
  const clock = new ManualClock();
  const store = new EmbeddedMetadataStore({ clock });
  return {
    store,
    leaseTtlMs: 1000,
    expirySlackMs: 0,
    advanceMs: async (ms) => {
      clock.advance(ms);
      await new Promise((resolve) => setImmediate(resolve));
    },
    cleanup: () => store.close(),
  };
});

function tmpDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'tide-meta-'));
}

describe('EmbeddedMetadataStore', () => {
  let clock: ManualClock;

  beforeEach(() => {
    clock = new ManualClock();
  });

  describe('delivery', () => {
    it('never calls a watcher inside the write, and has called it by the time the write resolves', async () => {
      const store = new EmbeddedMetadataStore({ clock });
      const seen: number[] = [];
      await store.watchPrefix('/', 1, (events) => seen.push(events[0].revision));
      const pending = store.put('/a', '1');
      expect(seen).toEqual([]);
      const rev = await pending;
      expect(seen).toEqual([rev]);
      await store.close();
    });

    it('delivers writes made from inside a watch callback after the current callback returns', async () => {
      const store = new EmbeddedMetadataStore({ clock });
      const order: string[] = [];
      await store.watchPrefix('/', 1, (events: WatchEvent[]) => {
        for (const e of events) {
          order.push(`start ${e.key}`);
          if (e.key === '/a') void store.put('/b', '2');
          order.push(`end ${e.key}`);
        }
      });
      await store.put('/a', '1');
      await new Promise((resolve) => setImmediate(resolve));
      expect(order).toEqual(['start /a', 'end /a', 'start /b', 'end /b']);
      await store.close();
    });

    it('treats fromRevision 0 as "from now", as etcd does', async () => {
      const store = new EmbeddedMetadataStore({ clock });
      await store.put('/old', '1');
      const keys: string[] = [];
      await store.watchPrefix('/', 0, (events) => keys.push(...events.map((e) => e.key)));
      await store.put('/new', '2');
      expect(keys).toEqual(['/new']);
      await store.close();
    });
  });

  describe('history compaction', () => {
    it('keeps historyRevisionsMax revisions; watching from older ones fails with METADATA_UNAVAILABLE', async () => {
      const store = new EmbeddedMetadataStore({ clock, historyRevisionsMax: 3 });
      const revs: number[] = [];
      for (let i = 0; i < 5; i++) revs.push(await store.put(`/k${i}`, String(i)));
      const error = await store.watchPrefix('/', revs[1], () => undefined).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(TideError);
      expect((error as TideError).code).toBe('METADATA_UNAVAILABLE');
      expect((error as TideError).message).toMatch(/compacted/);
      const keys: string[] = [];
      await store.watchPrefix('/', revs[2], (events) => keys.push(...events.map((e) => e.key)));
      await new Promise((resolve) => setImmediate(resolve));
      expect(keys).toEqual(['/k2', '/k3', '/k4']);
      await store.close();
    });

    it('compact(r) keeps revision r watchable and drops the ones before', async () => {
      const store = new EmbeddedMetadataStore({ clock });
      const revs: number[] = [];
      for (let i = 0; i < 4; i++) revs.push(await store.put('/k', String(i)));
      store.compact(revs[2]);
      await expect(store.watchPrefix('/', revs[1], () => undefined)).rejects.toMatchObject({
        code: 'METADATA_UNAVAILABLE',
      });
      const values: string[] = [];
      await store.watchPrefix('/', revs[2], (events) =>
        values.push(...events.map((e) => e.value!.toString())),
      );
      await new Promise((resolve) => setImmediate(resolve));
      expect(values).toEqual(['2', '3']);
      await store.close();
    });
  });

  describe('leases', () => {
    it('expires a released lease exactly at its TTL on the manual clock', async () => {
      const store = new EmbeddedMetadataStore({ clock });
      const lease = await store.grantLease(5000);
      await store.put('/l', 'v', { lease: lease.id });
      const lost: Error[] = [];
      lease.onLost((err) => lost.push(err));
      lease.release();
      clock.advance(4999);
      await new Promise((resolve) => setImmediate(resolve));
      expect(await store.get('/l')).toBeDefined();
      clock.advance(1);
      expect(await store.get('/l')).toBeUndefined();
      await new Promise((resolve) => setImmediate(resolve));
      expect(lost).toHaveLength(1);
      expect(lost[0]).toMatchObject({ code: 'METADATA_UNAVAILABLE' });
      expect(lost[0].message).toMatch(/expired/);
      await store.close();
    });

    it('rejects a non-positive TTL', async () => {
      const store = new EmbeddedMetadataStore({ clock });
      await expect(store.grantLease(0)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
      await store.close();
    });

    it('rejects a transaction that names an unknown lease, changing nothing', async () => {
      const store = new EmbeddedMetadataStore({ clock });
      await expect(
        store.txn(
          [],
          [
            { type: 'put', key: '/a', value: '1' },
            { type: 'put', key: '/b', value: '2', lease: '999' },
          ],
        ),
      ).rejects.toThrow(/lease 999 not found/);
      expect(await store.get('/a')).toBeUndefined();
      await store.close();
    });
  });

  describe('close', () => {
    it('fails later calls with METADATA_UNAVAILABLE and stops lease timers', async () => {
      const store = new EmbeddedMetadataStore({ clock });
      const lease = await store.grantLease(100);
      const lost = jest.fn();
      lease.onLost(lost);
      lease.release();
      await store.close();
      clock.advance(1000);
      await new Promise((resolve) => setImmediate(resolve));
      expect(lost).not.toHaveBeenCalled();
      await expect(store.get('/x')).rejects.toMatchObject({ code: 'METADATA_UNAVAILABLE' });
      await expect(store.put('/x', '1')).rejects.toMatchObject({ code: 'METADATA_UNAVAILABLE' });
      await lease.revoke(); // cleanup after close is a no-op, not an error
    });
  });

  describe('persistence', () => {
    let dir: string;

    beforeEach(() => {
      dir = tmpDir();
    });

    afterEach(() => {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    it('keeps non-leased keys, their revisions and the store revision across a restart', async () => {
      const file = path.join(dir, 'nested', 'metadata.json');
      const first = new EmbeddedMetadataStore({ clock, persistPath: file });
      const created = await first.put('/topics/a', 'A1');
      const modified = await first.put('/topics/a', Buffer.from([1, 2, 3]));
      await first.put('/topics/b', 'B');
      const lease = await first.grantLease(10_000);
      await first.put('/brokers/1', 'leased', { lease: lease.id });
      await first.delete('/topics/b');
      const lastRevision = first.currentRevision;
      await first.close();

      const second = new EmbeddedMetadataStore({ clock, persistPath: file });
      expect(second.currentRevision).toBe(lastRevision);
      const kv = await second.get('/topics/a');
      expect(kv).toMatchObject({ createRevision: created, modRevision: modified, version: 2 });
      expect(kv?.value.equals(Buffer.from([1, 2, 3]))).toBe(true);
      expect(await second.get('/topics/b')).toBeUndefined();
      expect(await second.get('/brokers/1')).toBeUndefined();
      // Revisions continue; history before the restart is gone.
      expect(await second.put('/topics/c', 'C')).toBe(lastRevision + 1);
      await expect(second.watchPrefix('/', lastRevision, () => undefined)).rejects.toMatchObject({
        code: 'METADATA_UNAVAILABLE',
      });
      await second.close();
    });

    it('has saved a write by the time it resolves (group commit of concurrent writes)', async () => {
      const file = path.join(dir, 'metadata.json');
      const store = new EmbeddedMetadataStore({ clock, persistPath: file });
      await Promise.all(Array.from({ length: 50 }, (_, i) => store.put(`/k/${i}`, String(i))));
      const onDisk = JSON.parse(fs.readFileSync(file, 'utf8')) as { revision: number; kvs: unknown[] };
      expect(onDisk.revision).toBe(50);
      expect(onDisk.kvs).toHaveLength(50);
      expect(fs.existsSync(`${file}.tmp`)).toBe(false);
      await store.close();
    });

    it('ignores a leftover temp file from a crash mid-save', async () => {
      const file = path.join(dir, 'metadata.json');
      const first = new EmbeddedMetadataStore({ clock, persistPath: file });
      await first.put('/k', 'kept');
      await first.close();
      fs.writeFileSync(`${file}.tmp`, '{"torn');
      const second = new EmbeddedMetadataStore({ clock, persistPath: file });
      expect((await second.get('/k'))?.value.toString()).toBe('kept');
      await second.close();
    });

    it.each([
      ['not JSON', '{"format": '],
      ['a wrong format', JSON.stringify({ format: 'other', formatVersion: 1, revision: 1, kvs: [] })],
      [
        'a future format version',
        JSON.stringify({ format: 'tide-embedded-metadata', formatVersion: 9, revision: 1, kvs: [] }),
      ],
      [
        'a key newer than the revision',
        JSON.stringify({
          format: 'tide-embedded-metadata',
          formatVersion: 1,
          revision: 1,
          kvs: [{ key: '/k', value: '', createRevision: 1, modRevision: 2, version: 1 }],
        }),
      ],
    ])('refuses to start from a file with %s, naming the file', (_what, content) => {
      const file = path.join(dir, 'metadata.json');
      fs.writeFileSync(file, content);
      expect(() => new EmbeddedMetadataStore({ clock, persistPath: file })).toThrow(file);
    });

    it("refuses a state file another live process holds, and takes over a dead one's lock", async () => {
      const file = path.join(dir, 'metadata.json');
      fs.writeFileSync(`${file}.lock`, `${process.ppid} 0 x`);
      expect(() => new EmbeddedMetadataStore({ clock, persistPath: file })).toThrow(
        `in use by process ${process.ppid}`,
      );
      const deadPid = spawnSync(process.execPath, ['-e', '0']).pid;
      fs.writeFileSync(`${file}.lock`, `${deadPid} 0 x`);
      const store = new EmbeddedMetadataStore({ clock, persistPath: file });
      expect(fs.readFileSync(`${file}.lock`, 'utf8')).toMatch(new RegExp(`^${process.pid} `));
      await store.close();
      expect(fs.existsSync(`${file}.lock`)).toBe(false);
    });

    it('reports a failed save to the writer as METADATA_UNAVAILABLE', async () => {
      const file = path.join(dir, 'gone', 'metadata.json');
      const store = new EmbeddedMetadataStore({ clock, persistPath: file });
      fs.rmSync(path.join(dir, 'gone'), { recursive: true });
      await expect(store.put('/k', 'v')).rejects.toMatchObject({ code: 'METADATA_UNAVAILABLE' });
      await store.close();
    });
  });
});
