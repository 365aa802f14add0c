/**
 * The MetadataStore contract, as one suite every implementation runs (embedded now, etcd later).
 *
 * Written to pass on a real etcd too: keys live under a fresh root per test, revisions are only
 * compared with each other (another client may write in between), watch callbacks are awaited with
 * `eventually` instead of assumed synchronous, and time moves through the harness: a manual clock
 * for the embedded store, real sleeps (with `expirySlackMs` of tolerance) for etcd.
 */
import type { KeyValue, MetadataStore, WatchEvent } from '../../../services/common/metadata/store';

export interface ContractHarness {
  store: MetadataStore;
  /** Lets `ms` of time pass: ManualClock.advance for the embedded store, a real sleep for etcd. */
  advanceMs(ms: number): Promise<void>;
  /** The TTL the lease tests grant (etcd counts whole seconds and has a minimum of a few). */
  leaseTtlMs: number;
  /** How far from its TTL a released lease may lapse: 0 on a manual clock, ~1500 on etcd. */
  expirySlackMs: number;
  /** Closes the store and removes whatever the test left. */
  cleanup(): Promise<void>;
}

/** Retries `check` until it stops throwing (watch callbacks and lease expiry are asynchronous). */
export async function eventually(check: () => void | Promise<void>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  }
}

/** Settles pending microtasks and immediates, then gives a remote store a moment. */
async function settle(ms = 0): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
}

function text(kv: KeyValue | undefined): string | undefined {
  return kv?.value.toString('utf8');
}

interface Recorded {
  type: WatchEvent['type'];
  key: string;
  value?: string;
  revision: number;
}

/** Collects watch callbacks: one entry per callback (= per revision). */
function recorder(root: string): {
  batches: Recorded[][];
  flat: () => Recorded[];
  onEvents: (events: WatchEvent[]) => void;
} {
  const batches: Recorded[][] = [];
  return {
    batches,
    flat: () => batches.flat(),
    onEvents: (events) =>
      batches.push(
        events.map((e) => ({
          type: e.type,
          key: e.key.slice(root.length),
          value: e.value?.toString('utf8'),
          revision: e.revision,
        })),
      ),
  };
}

let rootCounter = 0;

export function runMetadataStoreContract(name: string, factory: () => Promise<ContractHarness>): void {
  describe(`MetadataStore contract: ${name}`, () => {
    let h: ContractHarness;
    let store: MetadataStore;
    let root: string;
    const k = (suffix: string): string => `${root}${suffix}`;

    beforeEach(async () => {
      h = await factory();
      store = h.store;
      root = `/contract/${process.pid}-${Date.now()}-${rootCounter++}/`;
    });

    afterEach(async () => {
      await h.cleanup();
    });

    describe('get, put, delete', () => {
      it('gets undefined for an absent key', async () => {
        expect(await store.get(k('absent'))).toBeUndefined();
      });

      it('puts strings and Buffers and reads them back as Buffers with revisions and version', async () => {
        const rev1 = await store.put(k('a'), 'one');
        const first = await store.get(k('a'));
        expect(Buffer.isBuffer(first?.value)).toBe(true);
        expect(first).toMatchObject({ key: k('a'), createRevision: rev1, modRevision: rev1, version: 1 });
        expect(text(first)).toBe('one');
        expect(first?.lease).toBeUndefined();

        const rev2 = await store.put(k('a'), Buffer.from([0, 255, 1]));
        expect(rev2).toBeGreaterThan(rev1);
        const second = await store.get(k('a'));
        expect(second).toMatchObject({ createRevision: rev1, modRevision: rev2, version: 2 });
        expect(second?.value.equals(Buffer.from([0, 255, 1]))).toBe(true);
      });

      it('keeps an empty value distinct from an absent key', async () => {
        await store.put(k('empty'), '');
        const kv = await store.get(k('empty'));
        expect(kv?.value.length).toBe(0);
      });

      it('gives every write a higher revision, and reads report at least the last one', async () => {
        const revs = [
          await store.put(k('x'), '1'),
          await store.put(k('y'), '2'),
          await store.put(k('x'), '3'),
        ];
        expect(revs[1]).toBeGreaterThan(revs[0]);
        expect(revs[2]).toBeGreaterThan(revs[1]);
        expect((await store.getPrefix(root)).revision).toBeGreaterThanOrEqual(revs[2]);
      });

      it('deletes, telling whether the key existed; a re-created key starts again at version 1', async () => {
        const created = await store.put(k('d'), 'v');
        await store.put(k('d'), 'v2');
        expect(await store.delete(k('d'))).toBe(true);
        expect(await store.get(k('d'))).toBeUndefined();
        expect(await store.delete(k('d'))).toBe(false);
        const again = await store.put(k('d'), 'v3');
        expect(await store.get(k('d'))).toMatchObject({
          createRevision: again,
          modRevision: again,
          version: 1,
        });
        expect(again).toBeGreaterThan(created);
      });

      it('lists a prefix sorted by key bytes, excluding siblings that only share characters', async () => {
        for (const key of ['b', 'a/2', 'ab', 'a/10', 'a/1', 'a', 'c']) await store.put(k(key), key);
        const all = await store.getPrefix(root);
        expect(all.kvs.map((kv) => kv.key.slice(root.length))).toEqual([
          'a',
          'a/1',
          'a/10',
          'a/2',
          'ab',
          'b',
          'c',
        ]);
        const under = await store.getPrefix(k('a/'));
        expect(under.kvs.map((kv) => text(kv))).toEqual(['a/1', 'a/10', 'a/2']);
        expect((await store.getPrefix(k('none/'))).kvs).toEqual([]);
      });
    });

    describe('txn', () => {
      it('createRevision = 0 means absent: create-if-absent succeeds once', async () => {
        const absent = [{ key: k('t'), target: 'createRevision' as const, op: '=' as const, value: 0 }];
        const first = await store.txn(
          absent,
          [{ type: 'put', key: k('t'), value: 'mine' }],
          [{ type: 'get', key: k('t') }],
        );
        expect(first.succeeded).toBe(true);
        expect(first.gets).toEqual([]);
        const second = await store.txn(
          absent,
          [{ type: 'put', key: k('t'), value: 'theirs' }],
          [{ type: 'get', key: k('t') }],
        );
        expect(second.succeeded).toBe(false);
        expect(text(second.gets[0])).toBe('mine');
        expect(text(await store.get(k('t')))).toBe('mine');
      });

      it('compares values with = and !=, and a value compare on an absent key fails either way', async () => {
        await store.put(k('v'), 'red');
        const cases: [string, '=' | '!=', string | Buffer, boolean][] = [
          ['v', '=', 'red', true],
          ['v', '=', Buffer.from('red'), true],
          ['v', '=', 'blue', false],
          ['v', '!=', 'blue', true],
          ['v', '!=', 'red', false],
          ['missing', '=', '', false],
          ['missing', '!=', 'anything', false],
        ];
        for (const [key, op, value, expected] of cases) {
          const result = await store.txn([{ key: k(key), target: 'value', op, value }], []);
          expect({ key, op, value: value.toString(), succeeded: result.succeeded }).toEqual({
            key,
            op,
            value: value.toString(),
            succeeded: expected,
          });
        }
      });

      it('compares modRevision, createRevision and version with = != < >', async () => {
        const created = await store.put(k('n'), '1');
        const modified = await store.put(k('n'), '2');
        const cases: [
          'createRevision' | 'modRevision' | 'version',
          '=' | '!=' | '<' | '>',
          number,
          boolean,
        ][] = [
          ['modRevision', '=', modified, true],
          ['modRevision', '=', created, false],
          ['modRevision', '!=', created, true],
          ['modRevision', '!=', modified, false],
          ['modRevision', '<', modified + 1, true],
          ['modRevision', '<', modified, false],
          ['modRevision', '>', modified - 1, true],
          ['modRevision', '>', modified, false],
          ['createRevision', '=', created, true],
          ['createRevision', '>', 0, true],
          ['createRevision', '<', created, false],
          ['createRevision', '!=', 0, true],
          ['version', '=', 2, true],
          ['version', '=', 1, false],
          ['version', '>', 1, true],
          ['version', '<', 2, false],
          ['version', '!=', 3, true],
        ];
        for (const [target, op, value, expected] of cases) {
          const result = await store.txn([{ key: k('n'), target, op, value }], []);
          expect({ target, op, value, succeeded: result.succeeded }).toEqual({
            target,
            op,
            value,
            succeeded: expected,
          });
        }
      });

      it('sees an absent key as revision 0 and version 0 in numeric compares', async () => {
        const cases: ['createRevision' | 'modRevision' | 'version', '=' | '<' | '>', number, boolean][] = [
          ['createRevision', '=', 0, true],
          ['modRevision', '=', 0, true],
          ['version', '=', 0, true],
          ['version', '<', 1, true],
          ['modRevision', '>', 0, false],
        ];
        for (const [target, op, value, expected] of cases) {
          const result = await store.txn([{ key: k('gone'), target, op, value }], []);
          expect({ target, op, succeeded: result.succeeded }).toEqual({ target, op, succeeded: expected });
        }
      });

      it('needs every compare to hold; otherwise runs the failure branch only', async () => {
        await store.put(k('a'), '1');
        await store.put(k('b'), '2');
        const result = await store.txn(
          [
            { key: k('a'), target: 'value', op: '=', value: '1' },
            { key: k('b'), target: 'value', op: '=', value: 'not 2' },
          ],
          [{ type: 'put', key: k('ok'), value: 'yes' }],
          [
            { type: 'put', key: k('failed'), value: 'yes' },
            { type: 'get', key: k('a') },
            { type: 'get', key: k('nope') },
          ],
        );
        expect(result.succeeded).toBe(false);
        expect(result.gets.map(text)).toEqual(['1', undefined]);
        expect(await store.get(k('ok'))).toBeUndefined();
        expect(text(await store.get(k('failed')))).toBe('yes');
      });

      it('applies a branch atomically at one revision, and its gets see its earlier writes', async () => {
        await store.put(k('old'), 'x');
        const result = await store.txn(
          [],
          [
            { type: 'put', key: k('p1'), value: '1' },
            { type: 'put', key: k('p2'), value: '2' },
            { type: 'delete', key: k('old') },
            { type: 'get', key: k('p1') },
            { type: 'get', key: k('old') },
          ],
        );
        expect(result.succeeded).toBe(true);
        expect(result.gets.map(text)).toEqual(['1', undefined]);
        const p1 = await store.get(k('p1'));
        const p2 = await store.get(k('p2'));
        expect(p1?.modRevision).toBe(result.revision);
        expect(p2?.modRevision).toBe(result.revision);
        expect(await store.get(k('old'))).toBeUndefined();
      });

      it('deletes a whole prefix in a branch', async () => {
        for (const key of ['dir/1', 'dir/2', 'dir/sub/3', 'dirt']) await store.put(k(key), 'v');
        const result = await store.txn([], [{ type: 'deletePrefix', prefix: k('dir/') }]);
        expect(result.succeeded).toBe(true);
        expect((await store.getPrefix(root)).kvs.map((kv) => kv.key.slice(root.length))).toEqual(['dirt']);
      });

      it('does not move the revision for a read-only branch', async () => {
        const rev = await store.put(k('r'), 'v');
        const result = await store.txn(
          [{ key: k('r'), target: 'version', op: '=', value: 1 }],
          [{ type: 'get', key: k('r') }],
        );
        expect(result.succeeded).toBe(true);
        expect(text(result.gets[0])).toBe('v');
        expect(result.revision).toBeGreaterThanOrEqual(rev);
        expect((await store.get(k('r')))?.modRevision).toBe(rev);
      });

      it('rejects a branch that writes one key twice, changing nothing', async () => {
        await expect(
          store.txn(
            [],
            [
              { type: 'put', key: k('dup'), value: '1' },
              { type: 'put', key: k('dup'), value: '2' },
            ],
          ),
        ).rejects.toThrow();
        expect(await store.get(k('dup'))).toBeUndefined();
      });
    });

    describe('watch', () => {
      it('replays from a past revision in order, then delivers live changes', async () => {
        const first = await store.put(k('w/a'), '1');
        await store.put(k('w/b'), '2');
        await store.delete(k('w/a'));
        const rec = recorder(root);
        const watch = await store.watchPrefix(k('w/'), first, rec.onEvents);
        await store.put(k('w/c'), '3');
        await eventually(() =>
          expect(rec.flat().map((e) => `${e.type} ${e.key} ${e.value ?? '-'}`)).toEqual([
            'put w/a 1',
            'put w/b 2',
            'delete w/a -',
            'put w/c 3',
          ]),
        );
        const revisions = rec.flat().map((e) => e.revision);
        expect(revisions[0]).toBe(first);
        expect([...revisions].sort((a, b) => a - b)).toEqual(revisions);
        expect(new Set(revisions).size).toBe(revisions.length);
        await watch.cancel();
      });

      it('delivers one callback per revision, with all of a transaction together', async () => {
        const rec = recorder(root);
        const start = (await store.getPrefix(root)).revision + 1;
        const watch = await store.watchPrefix(root, start, rec.onEvents);
        await store.put(k('one'), '1');
        const txn = await store.txn(
          [],
          [
            { type: 'put', key: k('two'), value: '2' },
            { type: 'put', key: k('three'), value: '3' },
            { type: 'delete', key: k('one') },
          ],
        );
        await eventually(() => expect(rec.batches.length).toBe(2));
        expect(rec.batches[1].map((e) => `${e.type} ${e.key}`).sort()).toEqual([
          'delete one',
          'put three',
          'put two',
        ]);
        expect(rec.batches[1].every((e) => e.revision === txn.revision)).toBe(true);
        await watch.cancel();
      });

      it('sees only its prefix', async () => {
        const rec = recorder(root);
        const start = (await store.getPrefix(root)).revision + 1;
        const watch = await store.watchPrefix(k('in/'), start, rec.onEvents);
        await store.put(k('out/x'), 'no');
        await store.put(k('inside'), 'no');
        await store.put(k('in/x'), 'yes');
        await eventually(() => expect(rec.flat().map((e) => e.key)).toEqual(['in/x']));
        await settle(50);
        expect(rec.flat().map((e) => e.key)).toEqual(['in/x']);
        await watch.cancel();
      });

      it('misses and repeats nothing when started from a snapshot revision + 1', async () => {
        await store.put(k('s/before'), 'b');
        const snapshot = await store.getPrefix(k('s/'));
        const rec = recorder(root);
        const watch = await store.watchPrefix(k('s/'), snapshot.revision + 1, rec.onEvents);
        await store.put(k('s/after'), 'a');
        await eventually(() => expect(rec.flat().map((e) => e.key)).toEqual(['s/after']));
        expect(snapshot.kvs.map((kv) => text(kv))).toEqual(['b']);
        await watch.cancel();
      });

      it('keeps revision order across several watchers and keys', async () => {
        const a = recorder(root);
        const b = recorder(root);
        const start = (await store.getPrefix(root)).revision + 1;
        const wa = await store.watchPrefix(root, start, a.onEvents);
        const wb = await store.watchPrefix(k('k'), start, b.onEvents);
        for (let i = 0; i < 20; i++) await store.put(k(`k${i % 3}`), String(i));
        await eventually(() => expect(a.flat().length).toBe(20));
        await eventually(() => expect(b.flat().length).toBe(20));
        expect(a.flat().map((e) => e.value)).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
        expect(b.flat()).toEqual(a.flat());
        await wa.cancel();
        await wb.cancel();
      });

      it('stops delivering after cancel', async () => {
        const rec = recorder(root);
        const start = (await store.getPrefix(root)).revision + 1;
        const watch = await store.watchPrefix(root, start, rec.onEvents);
        await store.put(k('before'), '1');
        await eventually(() => expect(rec.flat().length).toBe(1));
        await watch.cancel();
        await store.put(k('after'), '2');
        await settle(50);
        expect(rec.flat().map((e) => e.key)).toEqual(['before']);
      });
    });

    describe('leases', () => {
      it('attaches keys to a lease', async () => {
        const lease = await store.grantLease(h.leaseTtlMs);
        await store.put(k('l'), 'v', { lease: lease.id });
        expect((await store.get(k('l')))?.lease).toBe(lease.id);
        await lease.revoke();
      });

      it('keeps a lease alive across many TTLs while its holder lives', async () => {
        const lease = await store.grantLease(h.leaseTtlMs);
        await store.put(k('alive'), 'v', { lease: lease.id });
        const lost = jest.fn();
        lease.onLost(lost);
        await h.advanceMs(h.leaseTtlMs * 2 + h.expirySlackMs);
        await settle();
        expect(text(await store.get(k('alive')))).toBe('v');
        expect(lost).not.toHaveBeenCalled();
        await lease.revoke();
      });

      it('revoke deletes the leased keys at once, in one revision, without calling onLost', async () => {
        const lease = await store.grantLease(h.leaseTtlMs);
        await store.txn(
          [],
          [
            { type: 'put', key: k('r/1'), value: 'a', lease: lease.id },
            { type: 'put', key: k('r/2'), value: 'b', lease: lease.id },
          ],
        );
        await store.put(k('r/plain'), 'c');
        const lost = jest.fn();
        lease.onLost(lost);
        const rec = recorder(root);
        const watch = await store.watchPrefix(
          k('r/'),
          (await store.getPrefix(root)).revision + 1,
          rec.onEvents,
        );
        await lease.revoke();
        expect((await store.getPrefix(k('r/'))).kvs.map((kv) => kv.key.slice(root.length))).toEqual([
          'r/plain',
        ]);
        await eventually(() =>
          expect(
            rec
              .flat()
              .map((e) => `${e.type} ${e.key}`)
              .sort(),
          ).toEqual(['delete r/1', 'delete r/2']),
        );
        expect(rec.batches.length).toBe(1);
        await settle(20);
        expect(lost).not.toHaveBeenCalled();
        await watch.cancel();
      });

      it('release lets the lease lapse after its TTL: keys go and onLost fires once', async () => {
        const lease = await store.grantLease(h.leaseTtlMs);
        await store.put(k('x/leased'), 'v', { lease: lease.id });
        await store.put(k('x/plain'), 'p');
        const lost = jest.fn();
        lease.onLost(lost);
        lease.release();
        const early = h.leaseTtlMs - h.expirySlackMs - 1;
        if (early > 0) {
          await h.advanceMs(early);
          await settle();
          expect(text(await store.get(k('x/leased')))).toBe('v');
          expect(lost).not.toHaveBeenCalled();
        }
        await h.advanceMs(h.leaseTtlMs - Math.max(early, 0) + h.expirySlackMs);
        await eventually(
          async () => expect(await store.get(k('x/leased'))).toBeUndefined(),
          5000 + h.expirySlackMs,
        );
        await eventually(() => expect(lost).toHaveBeenCalledTimes(1), 5000 + h.expirySlackMs);
        expect(lost.mock.calls[0][0]).toBeInstanceOf(Error);
        expect(text(await store.get(k('x/plain')))).toBe('p');
        await h.advanceMs(h.leaseTtlMs);
        await settle(20);
        expect(lost).toHaveBeenCalledTimes(1);
      });

      it('refuses a put on a revoked lease', async () => {
        const lease = await store.grantLease(h.leaseTtlMs);
        await lease.revoke();
        await expect(store.put(k('late'), 'v', { lease: lease.id })).rejects.toThrow();
        expect(await store.get(k('late'))).toBeUndefined();
      });

      it('detaches a key re-put without the lease, so it outlives the lease', async () => {
        const lease = await store.grantLease(h.leaseTtlMs);
        await store.put(k('moved'), 'leased', { lease: lease.id });
        await store.put(k('moved'), 'plain');
        expect((await store.get(k('moved')))?.lease).toBeUndefined();
        await lease.revoke();
        expect(text(await store.get(k('moved')))).toBe('plain');
      });
    });
  });
}
