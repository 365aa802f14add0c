/**
 * Shard ownership on the embedded metadata store with a manual clock: instances split the shards
 * by rendezvous hashing, a joining instance gets its shards by graceful handover (released before
 * taken), a leaving one hands everything over, and a crashed one's shards move only after its
 * lease lapses (advance(ttl - 1): still held; advance(1): taken). Every shard carries the fence of
 * the lease it was taken under.
 */
import { ManualClock } from '../../../services/common/clock';
import { silentLogger } from '../../../services/common/logger';
import { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
import { ShardOwnership, type AcquiredShard } from '../../../services/group-coordinator/shard-ownership';
import {
  decodeCoordinatorRecord,
  desiredOwner,
  shardOf,
} from '../../../services/common/cluster/coordinator-shards';

const TTL = 5_000;
const SHARDS = 16;
const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

let clock: ManualClock;
let store: EmbeddedMetadataStore;
const log: string[] = [];
const started: ShardOwnership[] = [];

function instance(id: string): { ownership: ShardOwnership; held: Set<number>; acquired: AcquiredShard[] } {
  const held = new Set<number>();
  const acquired: AcquiredShard[] = [];
  const ownership = new ShardOwnership({
    store,
    clusterName: 'test',
    self: { id, host: '127.0.0.1', port: 1 },
    shardCount: SHARDS,
    clock,
    logger: silentLogger(),
    leaseTtlMs: TTL,
    retryDelayMs: 100,
    onAcquire: (shards: AcquiredShard[]) => {
      for (const s of shards) {
        // Never two holders: whoever had it must have released it (or lost its lease) before.
        log.push(`${id}+${s.shard}`);
        held.add(s.shard);
        acquired.push(s);
      }
    },
    onRelease: async (shard) => {
      log.push(`${id}-${shard}`);
      held.delete(shard);
    },
  });
  started.push(ownership);
  return { ownership, held, acquired };
}

function noDoubleHolders(...holders: Set<number>[]): void {
  const all = holders.flatMap((h) => [...h]);
  expect(new Set(all).size).toBe(all.length);
}

beforeEach(() => {
  clock = new ManualClock();
  store = new EmbeddedMetadataStore({ clock });
  log.length = 0;
  started.length = 0;
});

afterEach(async () => {
  for (const o of started) await o.stop().catch(() => undefined);
  await store.close();
});

it('hashes groups to shards and shards to instances deterministically', () => {
  expect(shardOf('billing', 64)).toBe(shardOf('billing', 64));
  const counts = new Map<string, number>();
  for (let s = 0; s < 64; s++) {
    const owner = desiredOwner(s, ['a', 'b', 'c'])!;
    counts.set(owner, (counts.get(owner) ?? 0) + 1);
  }
  expect([...counts.values()].every((n) => n >= 10)).toBe(true);
  expect(counts.size).toBe(3);
  // Removing an instance moves only its shards.
  for (let s = 0; s < 64; s++) {
    const before = desiredOwner(s, ['a', 'b', 'c']);
    if (before !== 'c') expect(desiredOwner(s, ['a', 'b'])).toBe(before);
  }
});

it('one instance takes every shard; a second one gets its share by handover', async () => {
  const a = instance('a');
  await a.ownership.start();
  await flush();
  expect(a.held.size).toBe(SHARDS);
  const b = instance('b');
  await b.ownership.start();
  await flush();
  await flush();
  expect(b.held.size).toBeGreaterThan(3);
  noDoubleHolders(a.held, b.held);
  expect(a.held.size + b.held.size).toBe(SHARDS);
  for (let s = 0; s < SHARDS; s++)
    expect((desiredOwner(s, ['a', 'b']) === 'a' ? a : b).held.has(s)).toBe(true);
  // Each moved shard was released by a before b took it.
  for (const s of b.held) expect(log.indexOf(`a-${s}`)).toBeLessThan(log.indexOf(`b+${s}`));
  const kv = await store.get(b.ownership.keys.shard([...b.held][0]));
  expect(decodeCoordinatorRecord(kv!.value)?.id).toBe('b');
});

it('a stopping instance hands everything over at once', async () => {
  const a = instance('a');
  const b = instance('b');
  await a.ownership.start();
  await b.ownership.start();
  await flush();
  await b.ownership.stop();
  await flush();
  expect(b.held.size).toBe(0);
  expect(a.held.size).toBe(SHARDS);
});

it("a crashed instance's shards move only after its lease lapses", async () => {
  const a = instance('a');
  const b = instance('b');
  await a.ownership.start();
  await b.ownership.start();
  await flush();
  const bShards = [...b.held];
  expect(bShards.length).toBeGreaterThan(0);
  // Simulate b's crash: its keep-alives stop (the store still holds its keys until the TTL).
  const leaseId = (await store.get(b.ownership.keys.instance('b')))!.lease!;
  await stopKeepAlives(b.ownership);
  clock.advance(TTL - 1);
  await flush();
  expect(bShards.every((s) => !a.held.has(s))).toBe(true);
  expect((await store.get(b.ownership.keys.instance('b')))?.lease).toBe(leaseId);
  clock.advance(1);
  await flush();
  await flush();
  expect(bShards.every((s) => a.held.has(s))).toBe(true);
  expect(a.held.size).toBe(SHARDS);
});

it('hands every shard out with the fence of its lease: shut past the deadline, and for good once lost', async () => {
  // The embedded store cannot tell a lease's deadline; give its leases one, as etcd's have.
  let deadlineMs = clock.nowMs() + TTL;
  const grant = store.grantLease.bind(store);
  store.grantLease = async (ttlMs) => Object.assign(await grant(ttlMs), { validUntilMs: () => deadlineMs });
  const a = instance('a');
  await a.ownership.start();
  await flush();
  expect(a.held.size).toBe(SHARDS);
  const fence = a.acquired[0].fence;
  expect(a.acquired.every((s) => s.fence === fence)).toBe(true);
  expect(fence.mayAct()).toBe(true);
  clock.advance(TTL);
  expect(fence.mayAct()).toBe(true);
  clock.advance(1); // no keep-alive answer for a TTL (a paused process): shut before any timer ran
  expect(fence.mayAct()).toBe(false);
  deadlineMs = clock.nowMs() + 10 * TTL; // a keep-alive answered after all
  expect(fence.mayAct()).toBe(true);

  // The lease lapses: every shard is dropped, and taken again under the next lease.
  const taken = a.acquired.length;
  (a.ownership as unknown as { lease: { release(): void } }).lease.release();
  clock.advance(TTL);
  await flush();
  await flush();
  expect(fence.mayAct()).toBe(false); // lost: its deadline no longer matters
  expect(a.held.size).toBe(SHARDS);
  const retaken = a.acquired.slice(taken);
  expect(retaken).toHaveLength(SHARDS);
  expect(retaken.every((s) => s.fence !== fence && s.fence.mayAct())).toBe(true);
});

/** Releases the instance's lease without revoking (keys lapse after the TTL), as a crash does. */
async function stopKeepAlives(ownership: ShardOwnership): Promise<void> {
  const lease = (ownership as unknown as { lease: { release(): void } }).lease;
  (ownership as unknown as { stopped: boolean }).stopped = true; // the dead process does nothing more
  lease.release();
}
