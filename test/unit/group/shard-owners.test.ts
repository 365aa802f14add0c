/**
 * The brokers' watched view of shard owners (what the GroupCoordinator relay routes by), against
 * real ShardOwnership instances on the embedded store with a manual clock: it locates a group's
 * owner, says COORDINATOR_NOT_AVAILABLE before any coordinator ran and while a shard has no owner,
 * lists the live instances, and tells a shard's listeners when its owner key goes or comes.
 */
import { ManualClock } from '../../../services/common/clock';
import { TideError } from '../../../services/common/errors';
import { silentLogger } from '../../../services/common/logger';
import { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
import { ShardOwners } from '../../../services/common/cluster/coordinator-owners';
import { ShardOwnership } from '../../../services/group-coordinator/shard-ownership';
import { shardOf } from '../../../services/common/cluster/coordinator-shards';

const TTL = 5_000;
const SHARDS = 4;
const flush = async () => {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
};

let clock: ManualClock;
let store: EmbeddedMetadataStore;
let view: ShardOwners;
const ownerships: ShardOwnership[] = [];

function coordinator(id: string, port: number): ShardOwnership {
  const ownership = new ShardOwnership({
    store,
    clusterName: 'test',
    self: { id, host: '127.0.0.1', port },
    shardCount: SHARDS,
    clock,
    logger: silentLogger(),
    leaseTtlMs: TTL,
    retryDelayMs: 100,
    onAcquire: () => undefined,
    onRelease: async () => undefined,
  });
  ownerships.push(ownership);
  return ownership;
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return (err as TideError).code;
  }
}

beforeEach(async () => {
  clock = new ManualClock();
  store = new EmbeddedMetadataStore({ clock });
  ownerships.length = 0;
  view = await ShardOwners.start({ store, clusterName: 'test', clock, logger: silentLogger() });
});

afterEach(async () => {
  await view.stop();
  for (const o of ownerships) await o.stop().catch(() => undefined);
  await store.close();
});

it('answers COORDINATOR_NOT_AVAILABLE before any coordinator ran', () => {
  expect(codeOf(() => view.locate('billing'))).toBe('COORDINATOR_NOT_AVAILABLE');
  expect(view.liveInstances()).toEqual([]);
});

it("locates a group's owner and follows the owner key as it goes and comes back", async () => {
  const c0 = coordinator('c0', 1000);
  await c0.start();
  await flush();
  expect(view.locate('billing')).toEqual({
    shard: shardOf('billing', SHARDS),
    owner: { id: 'c0', host: '127.0.0.1', port: 1000 },
  });
  expect(view.liveInstances().map((c) => c.id)).toEqual(['c0']);

  const shard = shardOf('billing', SHARDS);
  const heard: string[] = [];
  const unsubscribe = view.onShardChange(shard, () => heard.push('billing'));
  view.onShardChange((shard + 1) % SHARDS, () => heard.push('other'));

  // c0 stops (a graceful handover with nobody to take over): the shard has no owner.
  await c0.stop();
  await flush();
  expect(heard).toContain('billing');
  expect(codeOf(() => view.locate('billing'))).toBe('COORDINATOR_NOT_AVAILABLE');
  expect(view.liveInstances()).toEqual([]);

  heard.length = 0;
  unsubscribe();
  const c1 = coordinator('c1', 2000);
  await c1.start();
  await flush();
  expect(view.locate('billing').owner.id).toBe('c1');
  expect(heard).not.toContain('billing'); // unsubscribed
});
