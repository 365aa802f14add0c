/**
 * Internal topics in the controller: created with their full replication factor or not at all
 * (a retriable NOT_ENOUGH_REPLICAS while brokers are missing), never deleted through the Admin
 * API, their names reserved; and growReplicas, the reconciler's pure decision that adds replicas
 * to an internal topic created smaller.
 */
import type { ManualClock } from '../../../services/common/clock';
import type { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
import type { BrokerInfo } from '../../../services/common/cluster/broker-registry';
import type { PartitionState } from '../../../services/common/metadata/keys';
import { TideError } from '../../../services/common/errors';
import { seededRandom } from '../../harness/random';
import { TopicManager } from '../../../services/controller/topic-manager';
import { internalTopicCreator, topicAdmin } from '../../../services/controller/topic-admin';
import { growReplicas } from '../../../services/controller/internal-replicas';
import { CLUSTER, setup } from './helpers';

const broker = (id: number): BrokerInfo => ({ id, host: `b${id}`, port: 9092 });
const OFFSETS = {
  name: '__consumer_offsets',
  partitions: 4,
  replicationFactor: 3,
  configs: { 'cleanup.policy': 'compact' },
  validateOnly: false,
};

async function failure(promise: Promise<unknown>): Promise<TideError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof TideError)) throw new Error(`expected a TideError, got ${String(err)}`);
  return err;
}

describe('internal topics in the controller', () => {
  let clock: ManualClock;
  let store: EmbeddedMetadataStore;
  let live: BrokerInfo[];
  let manager: TopicManager;

  beforeEach(() => {
    ({ clock, store } = setup());
    live = [broker(1)];
    manager = new TopicManager({
      store,
      clusterName: CLUSTER,
      clock,
      logger: setup().logger,
      defaultReplicationFactor: 1,
      liveBrokers: async () => live,
      random: seededRandom(3),
    });
  });

  afterEach(async () => {
    await store.close();
  });

  it('waits for the replication factor instead of shrinking it', async () => {
    const creator = internalTopicCreator(manager);
    const early = await failure(creator.createInternalTopic(OFFSETS));
    expect(early.code).toBe('NOT_ENOUGH_REPLICAS');
    expect(early.retriable).toBe(true);
    await expect(manager.describeTopic(OFFSETS.name)).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC' });
    live = [broker(1), broker(2), broker(3)];
    const created = await creator.createInternalTopic(OFFSETS);
    expect((created.partitions ?? []).every((p) => p.replicas?.length === 3)).toBe(true);
    expect((await failure(creator.createInternalTopic(OFFSETS))).code).toBe('TOPIC_ALREADY_EXISTS');
  });

  it('raises the target of an internal topic created smaller', async () => {
    await manager.createTopic({ ...OFFSETS, replicationFactor: 1, internal: true });
    live = [broker(1), broker(2), broker(3)];
    expect((await failure(internalTopicCreator(manager).createInternalTopic(OFFSETS))).code).toBe(
      'TOPIC_ALREADY_EXISTS',
    );
    expect((await manager.describeTopic(OFFSETS.name)).replicationFactor).toBe(3);
    // Never lowered.
    expect(await manager.raiseReplicationFactor(OFFSETS.name, 2)).toBe(false);
  });

  it('refuses to delete an internal topic and to create one of the reserved names', async () => {
    await manager.createTopic({ ...OFFSETS, replicationFactor: 1, internal: true });
    expect((await failure(topicAdmin(manager).deleteTopic(OFFSETS.name))).code).toBe('INTERNAL_TOPIC');
    await manager.describeTopic(OFFSETS.name);
    const admin = topicAdmin(manager);
    for (const name of ['__consumer_offsets', '__transaction_state']) {
      const err = await failure(
        admin.createTopic({ name, partitions: 1, replicationFactor: 1, configs: {}, validateOnly: false }),
      );
      expect(err.code).toBe('INTERNAL_TOPIC');
    }
  });
});

describe('growReplicas', () => {
  const state = (replicas: number[], leader = replicas[0]): PartitionState => ({
    leader,
    leaderEpoch: 4,
    partitionEpoch: 9,
    replicas,
    isr: replicas,
  });
  const liveness = (ids: number[], shuttingDown: number[] = []) => ({
    live: new Set(ids),
    shuttingDown: new Set(shuttingDown),
  });

  it.each([
    ['adds live brokers up to the target, leader and ISR unchanged', [1], [1, 2, 3], 3, [1, 2, 3]],
    ['adds what it can when brokers are still missing', [1], [1, 2], 3, [1, 2]],
    ['skips brokers that are shutting down', [1], [1, 2, 3, 4], 3, [1, 3, 4]],
  ])('%s', (_what, replicas, live, target, expected) => {
    const grown = growReplicas(
      state(replicas),
      target,
      liveness(
        live,
        [2].filter(() => live.length === 4),
      ),
      {
        bumpEpoch: true,
      },
    );
    expect(grown?.replicas).toEqual(expected);
    expect(grown?.leader).toBe(1);
    expect(grown?.leaderEpoch).toBe(4);
    expect(grown?.partitionEpoch).toBe(10);
    expect(grown?.isr).toEqual(replicas);
  });

  it('prefers the least loaded brokers', () => {
    const load = new Map([
      [2, 10],
      [3, 1],
      [4, 5],
    ]);
    expect(growReplicas(state([1]), 2, liveness([1, 2, 3, 4]), { bumpEpoch: true, load })?.replicas).toEqual([
      1, 3,
    ]);
  });

  it('changes nothing when the target is met, the partition is offline or no broker is free', () => {
    expect(growReplicas(state([1, 2, 3]), 3, liveness([1, 2, 3, 4]), { bumpEpoch: true })).toBeUndefined();
    expect(growReplicas(state([1], -1), 3, liveness([1, 2, 3]), { bumpEpoch: true })).toBeUndefined();
    expect(growReplicas(state([1]), 3, liveness([1]), { bumpEpoch: true })).toBeUndefined();
  });

  it('does not bump the epoch twice when another change already did', () => {
    expect(growReplicas(state([1]), 2, liveness([1, 2]), { bumpEpoch: false })?.partitionEpoch).toBe(9);
  });
});
