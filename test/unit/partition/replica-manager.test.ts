/**
 * ReplicaManager on metadata updates: which replicas lead or follow (and at which epoch), what the
 * follower fetchers are told, stale states ignored, NOT_LEADER naming the leader, the ISR timer,
 * deleted topics; and LeaseFence (zombie fencing).
 */
import type { TideError } from '../../../services/common/errors';
import { ManualClock } from '../../../services/common/clock';
import { silentLogger } from '../../../services/common/logger';
import type { TopicState, TopicsUpdate } from '../../../services/common/cluster/topic-watcher';
import { toLogConfig } from '../../../services/broker/partition/log-config';
import { LogManager } from '../../../services/broker/log/log-manager';
import type { Partition } from '../../../services/broker/partition/partition';
import { LeaseFence } from '../../../services/common/lease-fence';
import { ReplicaManager, type FollowerFetchers } from '../../../services/broker/partition/replica-manager';
import type { PartitionState } from '../../../services/common/metadata/keys';
import { buildBatch } from '../log/batches';
import { TempDirs } from '../log/helpers';
import { ScriptedProposer } from './helpers';

const dirs = new TempDirs();
let logs: LogManager;
let manager: ReplicaManager;
let clock: ManualClock;

class RecordingFetchers implements FollowerFetchers {
  readonly fetching = new Map<Partition, { leaderId: number; leaderEpoch: number }>();
  readonly events: string[] = [];
  add(partition: Partition, leaderId: number, leaderEpoch: number): void {
    this.fetching.set(partition, { leaderId, leaderEpoch });
    this.events.push(`add ${partition.topic}-${partition.partition} from ${leaderId}@${leaderEpoch}`);
  }
  remove(partition: Partition): void {
    if (this.fetching.delete(partition)) this.events.push(`remove ${partition.topic}-${partition.partition}`);
  }
}

function topic(name: string, states: PartitionState[], configs: Record<string, string> = {}): TopicState {
  return {
    name,
    topicId: `${name}-id`,
    internal: false,
    replicationFactor: states[0].replicas.length,
    partitionCount: states.length,
    configs,
    maxMessageBytes: toLogConfig(configs).maxMessageBytes,
    createdAtMs: 0,
    partitions: states.map((s, partition) => ({ partition, ...s })),
  };
}

let revision = 0;
function update(changes: TopicsUpdate['changes'], all: TopicState[]): TopicsUpdate {
  return {
    revision: ++revision,
    topics: new Map(all.map((t) => [t.name, t])),
    changes,
    snapshot: false,
    unreadable: new Set(),
  };
}

const ps = (
  leader: number,
  leaderEpoch: number,
  isr = [1, 2, 3],
  partitionEpoch = leaderEpoch,
): PartitionState => ({
  leader,
  leaderEpoch,
  partitionEpoch,
  replicas: [1, 2, 3],
  isr,
});

let fetchers: RecordingFetchers;
let proposer: ScriptedProposer;

beforeEach(async () => {
  clock = new ManualClock();
  logs = new LogManager({
    dataDir: await dirs.make(),
    clock,
    logger: silentLogger(),
    defaultConfig: toLogConfig({}),
  });
  await logs.open();
  fetchers = new RecordingFetchers();
  proposer = new ScriptedProposer();
  manager = new ReplicaManager({
    brokerId: 1,
    logs,
    clock,
    logger: silentLogger(),
    settings: { replicaLagTimeMaxMs: 1_000 },
    fetchers,
    isrProposer: proposer,
  });
});

afterEach(async () => {
  manager.closeAll();
  await logs.closeAll();
  await dirs.cleanup();
});

it('leads, follows and moves between the two as the metadata says', async () => {
  const t1 = topic('t', [ps(1, 0), ps(2, 0)]);
  await manager.apply(update([{ type: 'created', topic: t1 }], [t1]));
  expect(manager.status().map((s) => [s.partition, s.role, s.leader, s.leaderEpoch])).toEqual([
    [0, 'leader', 1, 0],
    [1, 'follower', 2, 0],
  ]);
  expect(fetchers.events).toEqual(['add t-1 from 2@0']);
  expect(manager.leaderFor('t', 0).role).toBe('leader');
  expect(() => manager.leaderFor('t', 1)).toThrow(/broker 2 does/);

  // Leadership swaps: partition 0 moves to broker 3, partition 1 comes here.
  const t2 = topic('t', [ps(3, 1, [1, 3]), ps(1, 1, [1, 2])]);
  await manager.apply(
    update(
      [{ type: 'updated', topic: t2, previous: t1, configsChanged: false, changedPartitions: [0, 1] }],
      [t2],
    ),
  );
  expect(manager.status().map((s) => [s.partition, s.role, s.leader, s.leaderEpoch, s.isr])).toEqual([
    [0, 'follower', 3, 1, [1, 3]],
    [1, 'leader', 1, 1, [1, 2]],
  ]);
  expect(fetchers.events).toEqual(['add t-1 from 2@0', 'add t-0 from 3@1', 'remove t-1']);
  expect(logs.get('t', 1)!.epochEntries()).toEqual([{ epoch: 1, startOffset: 0 }]);

  // A stale state (older leader epoch) changes nothing.
  const stale = topic('t', [ps(1, 0), ps(2, 0)]);
  await manager.apply(
    update(
      [{ type: 'updated', topic: stale, previous: t2, configsChanged: false, changedPartitions: [0, 1] }],
      [stale],
    ),
  );
  expect(manager.status().map((s) => [s.role, s.leaderEpoch])).toEqual([
    ['follower', 1],
    ['leader', 1],
  ]);
  // Offline (no leader): nothing served or fetched.
  const offline = topic('t', [ps(-1, 2, [3]), ps(1, 1, [1, 2])]);
  await manager.apply(
    update(
      [{ type: 'updated', topic: offline, previous: t2, configsChanged: false, changedPartitions: [0] }],
      [offline],
    ),
  );
  expect(manager.status()[0]).toMatchObject({ role: 'follower', leader: -1 });
  expect(fetchers.events.at(-1)).toBe('remove t-0');
  expect(() => manager.leaderFor('t', 0)).toThrow(expect.objectContaining({ code: 'LEADER_NOT_AVAILABLE' }));
});

it('awaitingLeader is true exactly where leaderFor would answer LEADER_NOT_AVAILABLE', async () => {
  const partitions = Array.from({ length: 40 }, (_, i) => ps(i % 2 ? 2 : 1, 0));
  const t = topic('many', partitions);
  const open = logs.getOrCreate.bind(logs);
  let opening = 0;
  let peak = 0;
  jest.spyOn(logs, 'getOrCreate').mockImplementation(async (...args) => {
    peak = Math.max(peak, ++opening);
    try {
      return await open(...args);
    } finally {
      opening--;
    }
  });
  await manager.apply(update([{ type: 'created', topic: t }], [t]));
  expect(peak).toBeGreaterThan(1); // opened side by side
  const codeOf = (p: number): string => {
    try {
      manager.leaderFor('many', p);
      return 'led here';
    } catch (err) {
      return (err as TideError).code;
    }
  };
  for (let p = 0; p < 40; p++) {
    expect(codeOf(p)).toBe(p % 2 ? 'NOT_LEADER' : 'led here');
    expect(manager.awaitingLeader('many', p)).toBe(false);
  }
  expect(manager.awaitingLeader('many', 40)).toBe(false); // UNKNOWN_PARTITION
  expect(manager.awaitingLeader('other', 0)).toBe(false); // UNKNOWN_TOPIC
  // Each of the 40 got its own log.
  expect(manager.status()).toHaveLength(40);
  expect(new Set(manager.status().map((s) => logs.get('many', s.partition)))).toHaveProperty('size', 40);

  const offline = topic('many', [ps(-1, 1, [3]), ...partitions.slice(1)]);
  await manager.apply(
    update(
      [{ type: 'updated', topic: offline, previous: t, configsChanged: false, changedPartitions: [0] }],
      [offline],
    ),
  );
  expect(codeOf(0)).toBe('LEADER_NOT_AVAILABLE');
  expect(manager.awaitingLeader('many', 0)).toBe(true);
});

it('the ISR timer proposes shrinking followers that stopped fetching; min.insync.replicas comes from the topic', async () => {
  const t = topic('t', [ps(1, 0)], { 'min.insync.replicas': '3' });
  await manager.apply(update([{ type: 'created', topic: t }], [t]));
  const partition = manager.leaderFor('t', 0);
  await expect(partition.append(buildBatch(), { acks: 'leader' })).resolves.toMatchObject({ baseOffset: 0 });
  clock.advance(1_000);
  expect(proposer.calls).toHaveLength(0);
  clock.advance(500); // the check runs every lag/2; both followers are now 1.5 s behind
  expect(proposer.calls.map((c) => c.proposal.newIsr)).toEqual([[1]]);
  proposer.accept(0, [1, 2, 3]);
  await new Promise((r) => setImmediate(r));
  await expect(partition.append(buildBatch(), { acks: 'all' })).rejects.toMatchObject({
    code: 'NOT_ENOUGH_REPLICAS',
  });
});

it('a deleted topic stops fetching and serving and loses its logs', async () => {
  const t = topic('gone', [ps(2, 0)]);
  await manager.apply(update([{ type: 'created', topic: t }], [t]));
  expect(logs.get('gone', 0)).toBeDefined();
  await manager.apply(update([{ type: 'deleted', topic: t }], []));
  expect(fetchers.events).toEqual(['add gone-0 from 2@0', 'remove gone-0']);
  expect(manager.status()).toEqual([]);
  expect(logs.get('gone', 0)).toBeUndefined();
  expect(() => manager.leaderFor('gone', 0)).toThrow(expect.objectContaining({ code: 'UNKNOWN_TOPIC' }));
});

it('a replica moved away stops and its log is deleted (reassignment removes the copy)', async () => {
  const t1 = topic('moved', [ps(2, 0)]);
  await manager.apply(update([{ type: 'created', topic: t1 }], [t1]));
  const t2 = topic('moved', [
    { leader: 2, leaderEpoch: 1, partitionEpoch: 1, replicas: [2, 3], isr: [2, 3] },
  ]);
  await manager.apply(
    update(
      [{ type: 'updated', topic: t2, previous: t1, configsChanged: false, changedPartitions: [0] }],
      [t2],
    ),
  );
  expect(manager.status()).toEqual([]);
  expect(fetchers.fetching.size).toBe(0);
  expect(logs.get('moved', 0)).toBeUndefined();
});

describe('LeaseFence', () => {
  it('fences on loss until registered again, and once the lease may have expired', () => {
    const c = new ManualClock();
    let validUntil = c.nowMs() + 10_000;
    const fence = new LeaseFence({
      clock: c,
      logger: silentLogger(),
      validUntilMs: () => validUntil,
      refuses: 'produce requests as leader',
    });
    expect(fence.mayAct()).toBe(true);
    c.advance(10_000);
    expect(fence.mayAct()).toBe(true);
    c.advance(1);
    expect(fence.mayAct()).toBe(false); // e.g. right after SIGCONT, before any timer fired
    validUntil = c.nowMs() + 10_000; // a keep-alive answer came
    expect(fence.mayAct()).toBe(true);
    fence.lost(new Error('lease expired'));
    expect(fence.mayAct()).toBe(false);
    fence.registered();
    expect(fence.mayAct()).toBe(true);
  });
});
