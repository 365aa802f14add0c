import { AssertionError } from '../../../services/common/assert';
import { TideError } from '../../../services/common/errors';
import {
  MetadataKeys,
  decodeBrokerRecord,
  decodeClusterId,
  decodeControllerRecord,
  decodePartitionState,
  decodeProducerIdBlock,
  decodeTopicRecord,
  encodeBrokerRecord,
  encodeControllerRecord,
  encodePartitionState,
  encodeProducerIdBlock,
  encodeTopicRecord,
  type PartitionState,
  type TopicRecord,
} from '../../../services/common/metadata/keys';

const KEY = '/tide/c/some/key';

function decodeError(fn: () => unknown): TideError {
  try {
    fn();
  } catch (err) {
    if (err instanceof TideError) return err;
    throw err;
  }
  throw new Error('expected a TideError');
}

describe('MetadataKeys', () => {
  const keys = new MetadataKeys('prod-1');

  it('lays out the key space under /tide/<cluster>/', () => {
    expect(keys.root).toBe('/tide/prod-1/');
    expect(keys.broker(3)).toBe('/tide/prod-1/brokers/3');
    expect(keys.controller).toBe('/tide/prod-1/controller');
    expect(keys.topic('orders')).toBe('/tide/prod-1/topics/orders');
    expect(keys.partition('orders', 7)).toBe('/tide/prod-1/partitions/orders/7');
    expect(keys.partitionsOf('orders')).toBe('/tide/prod-1/partitions/orders/');
    expect(keys.producerIds).toBe('/tide/prod-1/producer-ids');
    expect(keys.clusterId).toBe('/tide/prod-1/cluster-id');
  });

  it("keeps one topic's partition prefix from matching another topic", () => {
    expect(keys.partition('ab', 0).startsWith(keys.partitionsOf('a'))).toBe(false);
  });

  it.each([
    ['/tide/prod-1/brokers/3', { kind: 'broker', brokerId: 3 }],
    ['/tide/prod-1/topics/a.b', { kind: 'topic', topic: 'a.b' }],
    ['/tide/prod-1/partitions/a.b/12', { kind: 'partition', topic: 'a.b', partition: 12 }],
    ['/tide/prod-1/controller', { kind: 'controller' }],
    ['/tide/prod-1/producer-ids', { kind: 'producerIds' }],
    ['/tide/prod-1/cluster-id', { kind: 'clusterId' }],
    ['/tide/prod-2/topics/a', undefined],
    ['/tide/prod-1/brokers/03', undefined],
    ['/tide/prod-1/brokers/x', undefined],
    ['/tide/prod-1/partitions/a/01', undefined],
    ['/tide/prod-1/partitions/a', undefined],
    ['/tide/prod-1/topics/a/b', undefined],
    ['/tide/prod-1/coordinators/g1', undefined],
  ])('parses %s', (key, expected) => {
    expect(keys.parse(key)).toEqual(expected);
  });

  it.each(['', 'a/b', 'a b', '.', '..', 'x'.repeat(65)])('rejects cluster name %j', (name) => {
    expect(() => new MetadataKeys(name)).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }) as Error,
    );
  });

  it('asserts on names that could escape their key segment', () => {
    expect(() => keys.topic('a/b')).toThrow(AssertionError);
    expect(() => keys.broker(-1)).toThrow(AssertionError);
    expect(() => keys.partition('a', 1.5)).toThrow(AssertionError);
  });
});

describe('metadata values', () => {
  const topic: TopicRecord = {
    topicId: 'AbCdEfGhIjKlMnOpQrStUv',
    partitions: 3,
    replicationFactor: 2,
    configs: { 'retention.ms': '1000' },
    createdAtMs: 1_700_000_000_000,
    internal: false,
  };
  const partition: PartitionState = {
    leader: 2,
    leaderEpoch: 4,
    partitionEpoch: 9,
    replicas: [2, 1],
    isr: [2],
  };

  it('round-trips every record type', () => {
    expect(decodeTopicRecord(encodeTopicRecord(topic), KEY)).toEqual(topic);
    expect(decodePartitionState(Buffer.from(encodePartitionState(partition)), KEY)).toEqual(partition);
    const broker = { id: 1, host: 'broker-1.tide', port: 9092, rack: 'zone-a' };
    expect(decodeBrokerRecord(encodeBrokerRecord(broker), KEY)).toEqual(broker);
    expect(decodeBrokerRecord(encodeBrokerRecord({ id: 0, host: 'h', port: 1 }), KEY)).toEqual({
      id: 0,
      host: 'h',
      port: 1,
    });
    expect(decodeProducerIdBlock(encodeProducerIdBlock({ nextProducerId: 5000 }), KEY)).toEqual({
      nextProducerId: 5000,
    });
    expect(decodeControllerRecord(encodeControllerRecord({ controllerId: 1, epoch: 3 }), KEY)).toEqual({
      controllerId: 1,
      epoch: 3,
    });
    expect(decodeClusterId(Buffer.from('x-Y_z1'), KEY)).toBe('x-Y_z1');
  });

  it('ignores unknown fields, so newer writers may add some', () => {
    expect(decodePartitionState(JSON.stringify({ ...partition, lastCaughtUpMs: 5 }), KEY)).toEqual(partition);
  });

  it.each([
    ['not JSON', 'leader=1', /not JSON/],
    ['an array', '[1,2]', /not a JSON object/],
    [
      'leader not a replica',
      { ...partition, leader: 3 },
      /field leader must be -1 or one of replicas \[2,1\] \(got 3\)/,
    ],
    ['isr not within replicas', { ...partition, isr: [2, 5] }, /field isr must be a subset of replicas/],
    [
      'duplicate replicas',
      { ...partition, replicas: [2, 2] },
      /field replicas must be a list of distinct broker ids/,
    ],
    [
      'no replicas',
      { ...partition, replicas: [], isr: [], leader: -1 },
      /field replicas must be a non-empty list/,
    ],
    ['negative epoch', { ...partition, leaderEpoch: -1 }, /field leaderEpoch/],
    [
      'string epoch',
      { ...partition, partitionEpoch: '1' },
      /field partitionEpoch must be an integer in 0\.\.2147483647 \(got "1"\)/,
    ],
    ['missing field', { leader: 1, replicas: [1], isr: [1] }, /field leaderEpoch .*got nothing/],
  ])('rejects a partition state that is %s, naming the key and field', (_what, value, message) => {
    const err = decodeError(() =>
      decodePartitionState(typeof value === 'string' ? value : JSON.stringify(value), KEY),
    );
    expect(err.message).toContain(`malformed metadata at ${KEY}`);
    expect(err.message).toMatch(message);
    expect(err.retriable).toBe(false);
  });

  it.each([
    ['zero partitions', { ...topic, partitions: 0 }, /field partitions/],
    [
      'a non-string config',
      { ...topic, configs: { 'retention.ms': 1000 } },
      /field configs must be an object of string values/,
    ],
    ['internal as a string', { ...topic, internal: 'no' }, /field internal must be true or false/],
    ['a topic id with a slash', { ...topic, topicId: 'a/b' }, /field topicId/],
  ])('rejects a topic record with %s', (_what, value, message) => {
    expect(decodeError(() => decodeTopicRecord(JSON.stringify(value), KEY)).message).toMatch(message);
  });

  it.each([
    ['port 0', { id: 1, host: 'h', port: 0 }, /field port/],
    ['an empty host', { id: 1, host: '', port: 1 }, /field host/],
    ['a numeric rack', { id: 1, host: 'h', port: 1, rack: 3 }, /field rack must be a string/],
  ])('rejects a broker record with %s', (_what, value, message) => {
    expect(decodeError(() => decodeBrokerRecord(JSON.stringify(value), KEY)).message).toMatch(message);
  });

  it('rejects a malformed cluster id and producer id block', () => {
    expect(decodeError(() => decodeClusterId('has space', KEY)).message).toMatch(/cluster id/);
    expect(decodeError(() => decodeProducerIdBlock('{"nextProducerId":-1}', KEY)).message).toMatch(
      /nextProducerId/,
    );
  });

  it('asserts instead of writing a value no reader would accept', () => {
    expect(() => encodePartitionState({ ...partition, leader: 9 })).toThrow(AssertionError);
    expect(() => encodeTopicRecord({ ...topic, replicationFactor: 0 })).toThrow(AssertionError);
  });
});
