import { ensureClusterId, readClusterId } from '../../../services/common/cluster/cluster-id';
import { toTopicInfo } from '../../../services/common/cluster/admin-wire';
import { topicAdmin } from '../../../services/controller/topic-admin';
import { TopicManager } from '../../../services/controller/topic-manager';
import { seededRandom } from '../../harness/random';
import { CLUSTER, rejection, setup } from './helpers';

describe('cluster id', () => {
  it('is created once and then read by everyone', async () => {
    const { store } = setup();
    expect(await readClusterId(store, CLUSTER)).toBeUndefined();
    const ids = await Promise.all([
      ensureClusterId(store, CLUSTER),
      ensureClusterId(store, CLUSTER),
      ensureClusterId(store, CLUSTER),
    ]);
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await readClusterId(store, CLUSTER)).toBe(ids[0]);
    expect(await ensureClusterId(store, CLUSTER)).toBe(ids[0]);
    await store.close();
  });
});

describe('topicAdmin (wire shapes)', () => {
  it('serves the Admin API operations in tide.v1 shapes, with offline replicas', async () => {
    const { store, clock, logger } = setup();
    let live = [1, 2, 3];
    const manager = new TopicManager({
      store,
      clusterName: CLUSTER,
      clock,
      logger,
      defaultReplicationFactor: 3,
      liveBrokers: async () => live.map((id) => ({ id, host: `b${id}`, port: 9092 })),
      random: seededRandom(1),
      newTopicId: () => 'id-1',
    });
    const admin = topicAdmin(manager);
    const created = await admin.createTopic({
      name: 't',
      partitions: 2,
      replicationFactor: 0,
      configs: { 'retention.ms': '5' },
      validateOnly: false,
    });
    expect(created).toMatchObject({ name: 't', topic_id: 'id-1', internal: false });
    expect(created.partitions?.[0]).toMatchObject({
      partition: 0,
      leader_epoch: 0,
      partition_epoch: 0,
      offline_replicas: [],
    });

    live = [1, 2];
    const described = await admin.describeTopic('t');
    for (const p of described.topic.partitions ?? []) expect(p.offline_replicas).toEqual([3]);
    expect(described.configs).toContainEqual({ name: 'retention.ms', value: '5', is_default: false });

    expect(await admin.listTopics(false)).toEqual(['t']);
    const altered = await admin.alterConfigs('t', { 'segment.bytes': '2048' }, ['retention.ms'], false);
    expect(altered).toContainEqual({ name: 'retention.ms', value: '604800000', is_default: true });
    expect(await admin.describeConfigs('t')).toEqual(altered);
    await admin.deleteTopic('t');
    expect((await rejection(admin.describeTopic('t'))).code).toBe('UNKNOWN_TOPIC');
    await store.close();
  });

  it('maps a watched topic state too', () => {
    const info = toTopicInfo({
      name: 'x',
      topicId: 'i',
      internal: true,
      partitions: [{ partition: 0, leader: -1, leaderEpoch: 2, partitionEpoch: 3, replicas: [4], isr: [] }],
    });
    expect(info.partitions).toEqual([
      {
        partition: 0,
        leader: -1,
        leader_epoch: 2,
        replicas: [4],
        isr: [],
        offline_replicas: [],
        partition_epoch: 3,
      },
    ]);
  });
});
