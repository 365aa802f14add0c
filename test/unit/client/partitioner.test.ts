import { murmur2, partitionForKey } from '../../../client/producer/partitioner';
import { kafkajsMurmur2, kafkajsPartition, seededRandom } from '../records/kafkajs-oracle';

// From shared COMPAT.md (computed with kafkajs 2.2.4's DefaultPartitioner).
const VECTORS: [string, number, number, number][] = [
  ['21', 0, 0, 40],
  ['foobar', 0, 6, 66],
  ['a-little-bit-long-string', 2, 8, 12],
  ['key1', 2, 8, 40],
  ['user-42', 1, 4, 60],
  ['', 0, 9, 81],
  ['ü-utf8', 2, 2, 6],
];

describe('partitionForKey', () => {
  test.each(VECTORS)('key %j -> %d of 3, %d of 12, %d of 100', (key, p3, p12, p100) => {
    const bytes = Buffer.from(key, 'utf8');
    expect(partitionForKey(bytes, 3)).toBe(p3);
    expect(partitionForKey(bytes, 12)).toBe(p12);
    expect(partitionForKey(bytes, 100)).toBe(p100);
  });

  test('random keys land where kafkajs DefaultPartitioner puts them', () => {
    const random = seededRandom(42);
    for (let i = 0; i < 2000; i++) {
      const key = Buffer.alloc(Math.floor(random() * 40));
      for (let j = 0; j < key.length; j++) key[j] = Math.floor(random() * 256);
      const partitionCount = 1 + Math.floor(random() * 200);
      expect(murmur2(key)).toBe(kafkajsMurmur2(key));
      expect(partitionForKey(key, partitionCount)).toBe(kafkajsPartition(key, partitionCount));
    }
  });

  test('murmur2 is a signed 32-bit integer, as in Java', () => {
    const hashes = Array.from({ length: 200 }, (_, i) => murmur2(Buffer.from(`key-${i}`)));
    expect(hashes.every((h) => Number.isInteger(h) && h >= -(2 ** 31) && h < 2 ** 31)).toBe(true);
    expect(hashes.some((h) => h < 0)).toBe(true);
  });

  test.each([0, -1, 1.5, NaN])('refuses partition count %d', (count) => {
    expect(() => partitionForKey(Buffer.from('k'), count)).toThrow(RangeError);
  });
});
