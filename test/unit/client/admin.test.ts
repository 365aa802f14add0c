import { Tide } from '../../../client';
import { TideError } from '../../../services/common/errors';
import { FakeCluster } from './fake-broker';

jest.setTimeout(10_000);

describe('Admin (through the Tide facade)', () => {
  let fake: FakeCluster;
  let tide: Tide;

  beforeEach(async () => {
    fake = await FakeCluster.start(2);
    tide = new Tide({ bootstrap: fake.bootstrap, clientId: 'test' });
  });

  afterEach(async () => {
    await tide.close();
    await fake.stop();
  });

  test('create, list, describe, alter and delete a topic', async () => {
    const admin = tide.admin();
    const created = await admin.createTopic('orders', { partitions: 3, configs: { 'retention.ms': '1000' } });
    expect(created.name).toBe('orders');
    expect(created.partitions.map((p) => p.partition)).toEqual([0, 1, 2]);
    expect(await admin.listTopics()).toEqual(['orders']);
    const details = await admin.describeTopic('orders');
    expect(details.topic.partitions).toHaveLength(3);
    expect(details.configs).toContainEqual({ name: 'retention.ms', value: '604800000', isDefault: true });
    expect(details.status[0]).toEqual({
      partition: 0,
      logStartOffset: 0,
      highWatermark: 0,
      lastStableOffset: 0,
      logEndOffset: 0,
      sizeBytes: 0,
      dirtyRatio: 0,
    });
    expect(await admin.describeConfigs('orders')).toHaveLength(1);
    expect(await admin.alterConfigs('orders', { set: { 'retention.ms': '5' } })).toEqual([
      { name: 'retention.ms', value: '5', isDefault: false },
    ]);
    await admin.deleteTopic('orders');
    expect(await admin.listTopics()).toEqual([]);
  });

  test('errors come back as TideErrors with the broker code and retriable flag', async () => {
    const admin = tide.admin();
    await admin.createTopic('dup', { partitions: 1 });
    const err = await admin.createTopic('dup', { partitions: 1 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TideError);
    expect(err).toMatchObject({
      code: 'TOPIC_ALREADY_EXISTS',
      retriable: false,
      message: 'topic dup already exists',
    });
    await expect(admin.alterConfigs('dup', { set: { bogus: 'x' } })).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
    });
    await expect(admin.deleteTopic('nope')).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC' });
    await expect(admin.createTopic('bad', { partitions: 0 })).rejects.toMatchObject({
      code: 'INVALID_PARTITIONS',
    });
  });

  test('deleteRecords goes to each partition leader and answers the low watermarks', async () => {
    const [p0, p1] = fake.createTopic('purged', 2, 0);
    p1.leader = 1; // a request for partition 1 sent to broker 0 would fail NOT_LEADER
    p0.nextOffset = 50;
    p1.nextOffset = 20;
    const deleted = await tide.admin().deleteRecords([
      { topic: 'purged', partition: 0, offset: 30 },
      { topic: 'purged', partition: 1, offset: -1 },
    ]);
    expect(deleted).toEqual([
      { topic: 'purged', partition: 0, lowWatermark: 30 },
      { topic: 'purged', partition: 1, lowWatermark: 20 },
    ]);
    expect([p0.logStartOffset, p1.logStartOffset]).toEqual([30, 20]);
    await expect(
      tide.admin().deleteRecords([{ topic: 'purged', partition: 0, offset: 51 }]),
    ).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
  });

  test('describeCluster and metadata', async () => {
    fake.createTopic('m', 2, 1);
    const admin = tide.admin();
    const described = await admin.describeCluster();
    expect(described).toMatchObject({ clusterId: 'fake', controllerId: 0 });
    expect(described.brokers.map((b) => b.address).sort()).toEqual(fake.bootstrap.sort());
    const meta = await admin.metadata(['m']);
    expect(meta.topics[0].partitions.map((p) => p.leader)).toEqual([1, 1]);
  });

  test('a producer and a consumer from one Tide share its connections; close() closes them all', async () => {
    await tide.admin().createTopic('shared', { partitions: 1 });
    const producer = tide.producer({ lingerMs: 0 });
    const consumer = tide.consumer({ autoOffsetReset: 'earliest' });
    await producer.send('shared', { key: 'k', value: 'hello', headers: { h: 'v' } });
    consumer.assign([{ topic: 'shared', partition: 0 }]);
    for await (const record of consumer) {
      expect(record).toMatchObject({ topic: 'shared', partition: 0, offset: 0 });
      expect(record.key!.toString()).toBe('k');
      expect(record.value!.toString()).toBe('hello');
      expect(record.headers.map((h) => [h.key, h.value!.toString()])).toEqual([['h', 'v']]);
      break;
    }
    expect(producer.cluster).toBe(consumer.cluster);
  });
});
