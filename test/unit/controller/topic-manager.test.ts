import type { ManualClock } from '../../../services/common/clock';
import type { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
import { MetadataKeys } from '../../../services/common/metadata/keys';
import type { Compare } from '../../../services/common/metadata/store';
import type { BrokerInfo } from '../../../services/common/cluster/broker-registry';
import { seededRandom } from '../../harness/random';
import { TopicManager, type TopicManagerOptions } from '../../../services/controller/topic-manager';
import type { TopicsUpdate } from '../../../services/common/cluster/topic-watcher';
import { ElasticKeys, encodeReassignment } from '../../../services/common/metadata/reassignment-record';
import { toLogConfig } from '../../../services/broker/partition/log-config';
import { CLUSTER, flush, rejection, setup } from './helpers';

const BROKERS: BrokerInfo[] = [
  { id: 1, host: 'b1', port: 9092 },
  { id: 2, host: 'b2', port: 9092 },
  { id: 3, host: 'b3', port: 9092 },
];
const keys = new MetadataKeys(CLUSTER);

describe('TopicManager', () => {
  let clock: ManualClock;
  let store: EmbeddedMetadataStore;
  let manager: TopicManager;
  let ids: number;

  function newManager(overrides: Partial<TopicManagerOptions> = {}): TopicManager {
    return new TopicManager({
      store,
      clusterName: CLUSTER,
      clock,
      logger: setup().logger,
      defaultReplicationFactor: 2,
      liveBrokers: async () => BROKERS,
      random: seededRandom(7),
      newTopicId: () => `topic-id-${ids++}`,
      ...overrides,
    });
  }

  async function allKeys(): Promise<string[]> {
    return (await store.getPrefix(keys.root)).kvs.map((kv) => kv.key.slice(keys.root.length));
  }

  beforeEach(() => {
    ({ clock, store } = setup());
    ids = 1;
    manager = newManager();
  });

  afterEach(async () => {
    await store.close();
  });

  describe('createTopic', () => {
    it('writes the topic and every partition state, and describes them back', async () => {
      const created = await manager.createTopic({
        name: 'orders',
        partitions: 3,
        replicationFactor: 3,
        configs: { 'retention.ms': '0060000' },
      });
      expect(created).toMatchObject({
        name: 'orders',
        topicId: 'topic-id-1',
        internal: false,
        partitionCount: 3,
        replicationFactor: 3,
        createdAtMs: clock.nowMs(),
        explicitConfigs: { 'retention.ms': '60000' },
      });
      for (const p of created.partitions) {
        expect(p.replicas).toHaveLength(3);
        expect(new Set(p.replicas).size).toBe(3);
        expect(p).toMatchObject({
          leader: p.replicas[0],
          leaderEpoch: 0,
          partitionEpoch: 0,
          isr: p.replicas,
        });
      }
      expect(created.partitions.map((p) => p.partition)).toEqual([0, 1, 2]);
      expect(created.configs.find((c) => c.name === 'retention.ms')).toEqual({
        name: 'retention.ms',
        value: '60000',
        isDefault: false,
      });
      expect(await allKeys()).toEqual([
        'partitions/orders/0',
        'partitions/orders/1',
        'partitions/orders/2',
        'topics/orders',
      ]);
      expect(await manager.describeTopic('orders')).toEqual(created);
    });

    it('writes everything in one revision', async () => {
      await manager.createTopic({ name: 't', partitions: 4 });
      const revisions = new Set((await store.getPrefix(keys.root)).kvs.map((kv) => kv.modRevision));
      expect(revisions.size).toBe(1);
    });

    it('uses the default replication factor for 0 or none', async () => {
      expect((await manager.createTopic({ name: 'a', partitions: 1 })).replicationFactor).toBe(2);
      expect(
        (await manager.createTopic({ name: 'b', partitions: 1, replicationFactor: 0 })).replicationFactor,
      ).toBe(2);
    });

    it.each([
      ['a.b', 'a_b'],
      ['a_b', 'a.b'],
      ['x.y_z', 'x_y.z'],
    ])(
      'refuses %s once %s exists: the names collide in metric names (INVALID_TOPIC)',
      async (first, second) => {
        await manager.createTopic({ name: second, partitions: 1 });
        const err = await rejection(manager.createTopic({ name: first, partitions: 1 }));
        expect(err.code).toBe('INVALID_TOPIC');
        expect(err.message).toContain(`collides with existing topic "${second}"`);
        await manager.createTopic({ name: `${first}-other`, partitions: 1 }); // others are fine
      },
    );

    it('refuses min.insync.replicas above the replication factor (INVALID_CONFIG), accepts it equal', async () => {
      const err = await rejection(
        manager.createTopic({
          name: 'isr',
          partitions: 1,
          replicationFactor: 1,
          configs: { 'min.insync.replicas': '2' },
        }),
      );
      expect(err.code).toBe('INVALID_CONFIG');
      expect(err.message).toMatch(/min.insync.replicas=2 exceeds the replication factor 1/);
      await manager.createTopic({
        name: 'isr',
        partitions: 1,
        replicationFactor: 2,
        configs: { 'min.insync.replicas': '2' },
      });
    });

    it('rejects a second topic of the same name with TOPIC_ALREADY_EXISTS, also when racing', async () => {
      await manager.createTopic({ name: 'dup', partitions: 1 });
      expect((await rejection(manager.createTopic({ name: 'dup', partitions: 2 }))).code).toBe(
        'TOPIC_ALREADY_EXISTS',
      );
      const results = await Promise.allSettled([
        manager.createTopic({ name: 'race', partitions: 1 }),
        manager.createTopic({ name: 'race', partitions: 5 }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(failed.reason).toMatchObject({ code: 'TOPIC_ALREADY_EXISTS' });
      expect((await manager.describeTopic('race')).partitions).toHaveLength(1);
    });

    it.each([
      ['', /empty/],
      ['.', /not allowed/],
      ['..', /not allowed/],
      ['x'.repeat(250), /limit is 249/],
      ['has space', /contains " "/],
      ['slash/y', /contains "\/"/],
      ['star*', /contains "\*"/],
    ])('rejects the name %j with INVALID_TOPIC, writing nothing', async (name, message) => {
      const err = await rejection(manager.createTopic({ name, partitions: 1 }));
      expect(err.code).toBe('INVALID_TOPIC');
      expect(err.message).toMatch(message);
      expect(await allKeys()).toEqual([]);
    });

    it.each([0, -1, 1.5, 10_001])('rejects %p partitions with INVALID_PARTITIONS', async (partitions) => {
      const err = await rejection(manager.createTopic({ name: 't', partitions }));
      expect(err.code).toBe('INVALID_PARTITIONS');
      expect(err.message).toMatch(/1\.\.10000/);
    });

    it('honours partitionsPerTopicMax', async () => {
      manager = newManager({ partitionsPerTopicMax: 4 });
      expect((await rejection(manager.createTopic({ name: 't', partitions: 5 }))).code).toBe(
        'INVALID_PARTITIONS',
      );
      await manager.createTopic({ name: 't', partitions: 4 });
    });

    it.each([
      [4, /larger than the number of live brokers \(3: 1, 2, 3\)/],
      [-1, />= 1/],
    ])('rejects replication factor %p with INVALID_REPLICATION_FACTOR', async (rf, message) => {
      const err = await rejection(manager.createTopic({ name: 't', partitions: 1, replicationFactor: rf }));
      expect(err.code).toBe('INVALID_REPLICATION_FACTOR');
      expect(err.message).toMatch(message);
      expect(await allKeys()).toEqual([]);
    });

    it('rejects invalid or unknown configs with INVALID_CONFIG, writing nothing', async () => {
      const err = await rejection(
        manager.createTopic({
          name: 't',
          partitions: 1,
          configs: { 'retention.ms': 'soon', colour: 'blue' },
        }),
      );
      expect(err.code).toBe('INVALID_CONFIG');
      expect(err.message).toMatch(/retention\.ms/);
      expect(err.message).toMatch(/colour/);
      expect(await allKeys()).toEqual([]);
    });

    it('validateOnly checks and assigns but writes nothing', async () => {
      const result = await manager.createTopic({ name: 't', partitions: 2, validateOnly: true });
      expect(result.partitions).toHaveLength(2);
      expect(result.topicId).toBe('');
      expect(await allKeys()).toEqual([]);
      await manager.createTopic({ name: 'existing', partitions: 1 });
      expect(
        (await rejection(manager.createTopic({ name: 'existing', partitions: 1, validateOnly: true }))).code,
      ).toBe('TOPIC_ALREADY_EXISTS');
    });

    it('gives each topic a 22-character topic id by default', async () => {
      manager = newManager({ newTopicId: undefined });
      const { topicId } = await manager.createTopic({ name: 't', partitions: 1 });
      expect(topicId).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    });
  });

  describe('deleteTopic, listTopics, describeTopic', () => {
    it('deletes the topic and all its partition states; a re-created topic gets a new id', async () => {
      await manager.createTopic({ name: 'gone', partitions: 3 });
      await manager.createTopic({ name: 'gone2', partitions: 1 });
      await manager.deleteTopic('gone');
      expect(await allKeys()).toEqual(['partitions/gone2/0', 'topics/gone2']);
      expect((await rejection(manager.describeTopic('gone'))).code).toBe('UNKNOWN_TOPIC');
      expect((await manager.createTopic({ name: 'gone', partitions: 1 })).topicId).toBe('topic-id-3');
    });

    it('reports UNKNOWN_TOPIC for a topic that does not exist', async () => {
      for (const call of [
        manager.deleteTopic('nope'),
        manager.describeTopic('nope'),
        manager.describeConfigs('nope'),
        manager.alterConfigs('nope', { set: { 'retention.ms': '1' } }),
      ]) {
        const err = await rejection(call);
        expect(err.code).toBe('UNKNOWN_TOPIC');
        expect(err.context.topic).toBe('nope');
      }
    });

    it('lists topics sorted, internal ones only when asked', async () => {
      await manager.createTopic({ name: 'zeta', partitions: 1 });
      await manager.createTopic({ name: '__internal', partitions: 1, internal: true });
      await manager.createTopic({ name: 'alpha', partitions: 1 });
      expect(await manager.listTopics()).toEqual(['alpha', 'zeta']);
      expect(await manager.listTopics({ includeInternal: true })).toEqual(['__internal', 'alpha', 'zeta']);
    });

    it('lists a topic whose record is unreadable instead of failing the whole list', async () => {
      await manager.createTopic({ name: 'ok', partitions: 1 });
      await store.put(keys.topic('broken'), 'not json');
      expect(await manager.listTopics()).toEqual(['broken', 'ok']);
      expect((await rejection(manager.describeTopic('broken'))).message).toMatch(
        /malformed metadata at \/tide\/test\/topics\/broken/,
      );
    });
  });

  describe('alterConfigs', () => {
    beforeEach(async () => {
      await manager.createTopic({
        name: 't',
        partitions: 1,
        configs: { 'retention.ms': '1000', 'flush.policy': 'os' },
      });
    });

    it('sets and deletes keys, returning the effective configs', async () => {
      const entries = await manager.alterConfigs('t', {
        set: { 'segment.bytes': '1048576' },
        delete: ['flush.policy'],
      });
      expect(entries.find((e) => e.name === 'segment.bytes')).toEqual({
        name: 'segment.bytes',
        value: '1048576',
        isDefault: false,
      });
      expect(entries.find((e) => e.name === 'flush.policy')).toEqual({
        name: 'flush.policy',
        value: 'sync',
        isDefault: true,
      });
      expect((await manager.describeTopic('t')).explicitConfigs).toEqual({
        'retention.ms': '1000',
        'segment.bytes': '1048576',
      });
      expect(await manager.describeConfigs('t')).toEqual(entries);
    });

    it('rejects an unknown key whole and changes nothing', async () => {
      const before = await store.get(keys.topic('t'));
      const err = await rejection(
        manager.alterConfigs('t', { set: { 'retention.ms': '5', 'retention.hours': '1' } }),
      );
      expect(err.code).toBe('INVALID_CONFIG');
      expect(err.message).toMatch(/retention\.hours/);
      const after = await store.get(keys.topic('t'));
      expect(after?.modRevision).toBe(before?.modRevision);
      expect((await manager.describeTopic('t')).explicitConfigs['retention.ms']).toBe('1000');
    });

    it('validateOnly returns the would-be configs and changes nothing', async () => {
      const before = await store.get(keys.topic('t'));
      const entries = await manager.alterConfigs('t', { set: { 'retention.ms': '5' }, validateOnly: true });
      expect(entries.find((e) => e.name === 'retention.ms')?.value).toBe('5');
      expect((await store.get(keys.topic('t')))?.modRevision).toBe(before?.modRevision);
    });

    it('loses no update when many alters race', async () => {
      const sets: Record<string, string>[] = [
        { 'segment.bytes': '2048' },
        { 'segment.ms': '60000' },
        { 'max.message.bytes': '1000' },
        { 'min.insync.replicas': '2' },
        { 'cleanup.policy': 'compact' },
      ];
      await Promise.all(sets.map((set) => manager.alterConfigs('t', { set })));
      expect((await manager.describeTopic('t')).explicitConfigs).toEqual({
        'retention.ms': '1000',
        'flush.policy': 'os',
        ...Object.assign({}, ...sets),
      });
    });

    it('gives up with a retriable METADATA_UNAVAILABLE after its attempts', async () => {
      manager = newManager({ alterConfigsAttempts: 1 });
      const results = await Promise.allSettled([
        manager.alterConfigs('t', { set: { 'segment.bytes': '2048' } }),
        manager.alterConfigs('t', { set: { 'segment.ms': '2048' } }),
      ]);
      const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(failed).toHaveLength(1);
      expect(failed[0].reason).toMatchObject({ code: 'METADATA_UNAVAILABLE', retriable: true });
    });

    it('fails with UNKNOWN_TOPIC when the topic is deleted and re-created meanwhile', async () => {
      const racing = manager.alterConfigs('t', { set: { 'segment.bytes': '2048' } });
      await manager.deleteTopic('t');
      await manager.createTopic({ name: 't', partitions: 1 });
      expect((await rejection(racing)).code).toBe('UNKNOWN_TOPIC');
    });
  });

  describe('fencing', () => {
    const holdsController: Compare = { key: keys.controller, target: 'value', op: '=', value: 'me' };

    beforeEach(async () => {
      await store.put(keys.controller, 'someone else');
    });

    it('fails every write with NOT_CONTROLLER when a constructor fencing compare fails, writing nothing', async () => {
      const fenced = newManager({ fencing: () => [holdsController] });
      expect((await rejection(fenced.createTopic({ name: 't', partitions: 1 }))).code).toBe('NOT_CONTROLLER');
      expect(await allKeys()).toEqual(['controller']);
      await manager.createTopic({ name: 't', partitions: 1 });
      expect((await rejection(fenced.alterConfigs('t', { set: { 'retention.ms': '1' } }))).code).toBe(
        'NOT_CONTROLLER',
      );
      expect((await rejection(fenced.deleteTopic('t'))).code).toBe('NOT_CONTROLLER');
      expect(await manager.listTopics()).toEqual(['t']);
    });

    it('takes per-call extra compares too, and writes once they hold', async () => {
      const err = await rejection(
        manager.createTopic({ name: 't', partitions: 1 }, { extraCompares: [holdsController] }),
      );
      expect(err.code).toBe('NOT_CONTROLLER');
      await store.put(keys.controller, 'me');
      await manager.createTopic({ name: 't', partitions: 1 }, { extraCompares: [holdsController] });
      await manager.deleteTopic('t', { extraCompares: [holdsController] });
    });
  });

  describe('watchTopics', () => {
    function summary(update: TopicsUpdate): string[] {
      return update.changes.map((c) => {
        if (c.type === 'updated')
          return `updated ${c.topic.name} configs=${c.configsChanged} partitions=${c.changedPartitions.join(',')}`;
        return `${c.type} ${c.topic.name} ${c.topic.topicId}`;
      });
    }

    it('starts from the current topics, then reports creates, config changes and deletes in order', async () => {
      await manager.createTopic({ name: 'existing', partitions: 2 });
      const updates: TopicsUpdate[] = [];
      const log: string[][] = [];
      const watch = await manager.watchTopics((u) => {
        updates.push(u);
        log.push(summary(u));
      });
      expect(log).toEqual([['created existing topic-id-1']]);
      expect(updates[0].snapshot).toBe(true);
      expect(updates[0].topics.get('existing')?.partitions).toHaveLength(2);

      await manager.createTopic({ name: 'new', partitions: 3, configs: { 'segment.bytes': '4096' } });
      await manager.alterConfigs('new', { set: { 'retention.ms': '-1' } });
      await manager.deleteTopic('existing');
      await manager.createTopic({ name: 'existing', partitions: 1 });
      await flush();

      expect(log.slice(1)).toEqual([
        ['created new topic-id-2'],
        ['updated new configs=true partitions='],
        ['deleted existing topic-id-1'],
        ['created existing topic-id-3'],
      ]);
      const created = updates[1].changes[0];
      expect(created.type === 'created' && created.topic.partitions).toHaveLength(3);
      expect(toLogConfig(created.topic.configs).segmentBytes).toBe(4096);
      const altered = updates[2].changes[0];
      expect(toLogConfig(altered.topic.configs).retentionMs).toBe(-1);
      expect(updates.map((u) => u.revision)).toEqual(
        [...updates.map((u) => u.revision)].sort((a, b) => a - b),
      );
      expect([...watch.topics().keys()].sort()).toEqual(['existing', 'new']);
      await watch.cancel();
    });

    it('reports partition state changes (leader, epochs, isr) as updates', async () => {
      await manager.createTopic({ name: 't', partitions: 2, replicationFactor: 2 });
      const log: string[][] = [];
      const watch = await manager.watchTopics((u) => log.push(summary(u)));
      const p1 = (await manager.describeTopic('t')).partitions[1];
      const { partition: _p, ...state } = p1;
      await store.put(
        keys.partition('t', 1),
        JSON.stringify({ ...state, leader: state.replicas[1], leaderEpoch: 1, partitionEpoch: 1 }),
      );
      await flush();
      expect(log[1]).toEqual(['updated t configs=false partitions=1']);
      expect(watch.topics().get('t')?.partitions[1]).toMatchObject({
        leader: state.replicas[1],
        leaderEpoch: 1,
      });
      await watch.cancel();
    });

    it('carries the adding and removing replicas of a move in flight, as updates of its partition', async () => {
      await manager.createTopic({ name: 't', partitions: 2, replicationFactor: 2 });
      const log: string[][] = [];
      const watch = await manager.watchTopics((u) => log.push(summary(u)));
      const { partition: _p, ...state } = (await manager.describeTopic('t')).partitions[0];
      const [a, b] = state.replicas;
      const added = [1, 2, 3].find((id) => !state.replicas.includes(id))!;
      const moves = new ElasticKeys(keys);
      // The move a -> added, as the reassigner starts it: the record and the grown state in one go.
      await store.txn(
        [],
        [
          {
            type: 'put',
            key: keys.partition('t', 0),
            value: JSON.stringify({ ...state, replicas: [a, b, added], partitionEpoch: 1 }),
          },
          {
            type: 'put',
            key: moves.reassignment('t', 0),
            value: encodeReassignment({
              target: [added, b],
              original: [a, b],
              startedAtMs: 0,
              origin: 'admin',
            }),
          },
        ],
      );
      await flush();
      expect(log[1]).toEqual(['updated t configs=false partitions=0']);
      expect(watch.topics().get('t')?.partitions[0]).toMatchObject({
        replicas: [a, b, added],
        addingReplicas: [added],
        removingReplicas: [a],
      });
      expect(watch.topics().get('t')?.partitions[1].addingReplicas).toBeUndefined();
      // The record alone going away (a cancel elsewhere) is news too.
      await store.delete(moves.reassignment('t', 0));
      await flush();
      expect(log[2]).toEqual(['updated t configs=false partitions=0']);
      expect(watch.topics().get('t')?.partitions[0].addingReplicas).toBeUndefined();
      await watch.cancel();
    });

    it('keeps the last good state of an unreadable topic instead of reporting it deleted', async () => {
      await manager.createTopic({ name: 't', partitions: 1 });
      const updates: TopicsUpdate[] = [];
      const watch = await manager.watchTopics((u) => updates.push(u));
      const good = await store.get(keys.topic('t'));
      await store.put(keys.topic('t'), '{"broken": true}');
      await flush();
      expect(updates).toHaveLength(2);
      expect(updates[1].changes).toEqual([]);
      expect([...updates[1].unreadable]).toEqual(['t']);
      expect(updates[1].topics.get('t')?.topicId).toBe('topic-id-1');
      await store.put(keys.topic('t'), good!.value);
      await flush();
      expect([...watch.topics().keys()]).toEqual(['t']);
      expect(updates.at(-1)?.unreadable.size).toBe(0);
      await watch.cancel();
    });

    it('ignores other keys of the cluster', async () => {
      const updates: TopicsUpdate[] = [];
      const watch = await manager.watchTopics((u) => updates.push(u));
      await store.put(keys.broker(1), JSON.stringify({ id: 1, host: 'h', port: 1 }));
      await store.put(keys.producerIds, '{"nextProducerId":0}');
      await flush();
      expect(updates).toHaveLength(1);
      await watch.cancel();
    });
  });
});
