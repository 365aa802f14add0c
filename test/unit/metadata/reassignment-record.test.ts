/** The stored form of replica moves, which the controller writes and the brokers' topic watch reads. */
import { MetadataKeys } from '../../../services/common/metadata/keys';
import {
  ElasticKeys,
  decodeReassignment,
  encodeReassignment,
  parseReassignmentKey,
} from '../../../services/common/metadata/reassignment-record';

const keys = new ElasticKeys(new MetadataKeys('c1'));

describe('reassignment keys', () => {
  it('name a partition under reassignments/ and parse back', () => {
    const key = keys.reassignment('orders', 12);
    expect(key).toBe('/tide/c1/reassignments/orders/12');
    expect(parseReassignmentKey(keys, key)).toEqual({ topic: 'orders', partition: 12 });
  });

  it.each([
    '/tide/c1/reassignments/orders',
    '/tide/c1/reassignments/orders/01',
    '/tide/c1/reassignments/orders/x',
    '/tide/c1/reassignments/orders/1/2',
    '/tide/c1/partitions/orders/1',
    '/tide/c2/reassignments/orders/1',
  ])('ignore %s', (key) => {
    expect(parseReassignmentKey(keys, key)).toBeUndefined();
  });

  it('refuse a bad topic or partition when built', () => {
    expect(() => keys.reassignment('a/b', 0)).toThrow();
    expect(() => keys.reassignment('orders', -1)).toThrow();
  });
});

describe('reassignment records', () => {
  const record = { target: [3, 1], original: [1, 2], startedAtMs: 5, origin: 'balancer' as const };

  it('round-trip', () => {
    expect(decodeReassignment(encodeReassignment(record), 'k')).toEqual(record);
  });

  it.each([
    ['not JSON', '{', /not JSON/],
    ['a target broker twice', JSON.stringify({ ...record, target: [1, 1] }), /target must be/],
    ['an empty original', JSON.stringify({ ...record, original: [] }), /original must be/],
    ['an unknown origin', JSON.stringify({ ...record, origin: 'cron' }), /origin must be one of/],
    ['a negative start', JSON.stringify({ ...record, startedAtMs: -1 }), /startedAtMs/],
  ])('refuse %s, naming the key', (_what, value, message) => {
    expect(() => decodeReassignment(value, '/tide/c1/reassignments/t/0')).toThrow(message);
    expect(() => decodeReassignment(value, '/tide/c1/reassignments/t/0')).toThrow(/reassignments\/t\/0/);
  });
});
