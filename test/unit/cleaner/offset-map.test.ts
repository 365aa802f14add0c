/** The cleaner's key digest (golden values) and its fixed-size key → offset map. */
import { murmur3x86128 } from '../../../services/broker/log/cleaner/digest';
import { OFFSET_MAP_SLOT_BYTES, OffsetMap } from '../../../services/broker/log/cleaner/offset-map';

function hex(input: string | Buffer, seed = 0): string {
  const buf = typeof input === 'string' ? Buffer.from(input) : input;
  const out = new Uint32Array(4);
  murmur3x86128(buf, 0, buf.length, seed, out);
  return [...out].map((w) => w.toString(16).padStart(8, '0')).join('');
}

describe('murmur3x86128', () => {
  it.each([
    // Reference values of MurmurHash3_x86_128 (smhasher), h1..h4 as hex.
    ['', 0, '00000000000000000000000000000000'],
    ['The quick brown fox jumps over the lazy dog', 0, '2f1583c3ecee2c675d7bf66ce5e91d2c'],
  ])('hashes %j with seed %d', (input, seed, expected) => {
    expect(hex(input, seed)).toBe(expected);
  });

  it('covers every tail length and respects the range it is given', () => {
    const data = Buffer.from(Array.from({ length: 80 }, (_, i) => (i * 31 + 7) & 0xff));
    const seen = new Set<string>();
    for (let len = 0; len <= 40; len++) {
      const padded = Buffer.concat([Buffer.from([1, 2, 3]), data.subarray(0, len), Buffer.from([9])]);
      const out = new Uint32Array(4);
      murmur3x86128(padded, 3, 3 + len, 0, out);
      expect([...out].map((w) => w.toString(16).padStart(8, '0')).join('')).toBe(hex(data.subarray(0, len)));
      seen.add(hex(data.subarray(0, len)));
    }
    expect(seen.size).toBe(41);
  });
});

describe('OffsetMap', () => {
  const key = (s: string): Buffer => Buffer.from(s);

  it('keeps the latest offset per key and answers -1 for unknown keys', () => {
    const map = new OffsetMap(1024);
    map.put(key('a'), 0, 1, 5);
    map.put(key('b'), 0, 1, 6);
    map.put(key('a'), 0, 1, 9);
    expect(map.get(key('a'), 0, 1)).toBe(9);
    expect(map.get(key('b'), 0, 1)).toBe(6);
    expect(map.get(key('c'), 0, 1)).toBe(-1);
    expect(map.size).toBe(2);
    expect(map.latestOffset).toBe(9);
  });

  it('looks keys up by the byte range given, not the whole buffer', () => {
    const map = new OffsetMap(1024);
    const buf = Buffer.from('xxkeyxx');
    map.put(buf, 2, 5, 42);
    expect(map.get(key('key'), 0, 3)).toBe(42);
  });

  it('sizes itself from its memory budget (24 bytes per slot) and reports when full', () => {
    const map = new OffsetMap(100 * OFFSET_MAP_SLOT_BYTES, 0.9);
    expect(map.slots).toBe(100);
    expect(map.maxEntries).toBe(90);
    for (let i = 0; i < 89; i++) map.put(key(`k${i}`), 0, `k${i}`.length, i);
    expect(map.isFull(1)).toBe(false);
    expect(map.isFull(2)).toBe(true);
    map.put(key('k89'), 0, 3, 89);
    expect(map.isFull()).toBe(true);
    for (let i = 0; i < 90; i++) expect(map.get(key(`k${i}`), 0, `k${i}`.length)).toBe(i);
    expect(map.utilization).toBe(1);
  });

  it('holds 200,000 distinct keys in its budget without confusing any two', () => {
    const n = 200_000;
    const map = new OffsetMap(Math.ceil(n / 0.9 + 10) * OFFSET_MAP_SLOT_BYTES);
    const buf = Buffer.alloc(16);
    for (let i = 0; i < n; i++) {
      const len = buf.write(`key-${i}`);
      map.put(buf, 0, len, i);
    }
    expect(map.size).toBe(n);
    const wrong: number[] = [];
    for (let i = 0; i < n; i++) if (map.get(buf, 0, buf.write(`key-${i}`)) !== i) wrong.push(i);
    expect(wrong).toEqual([]);
    for (let i = n; i < n + 10_000; i++) if (map.get(buf, 0, buf.write(`key-${i}`)) !== -1) wrong.push(i);
    expect(wrong).toEqual([]);
  });

  it('clear() empties it', () => {
    const map = new OffsetMap(1024);
    map.put(key('a'), 0, 1, 1);
    map.clear();
    expect(map.size).toBe(0);
    expect(map.get(key('a'), 0, 1)).toBe(-1);
  });
});

describe('OffsetMap growth', () => {
  it('starts small, grows towards its budget and keeps every entry across growth', () => {
    const map = new OffsetMap(1_000_000 * OFFSET_MAP_SLOT_BYTES);
    const initial = map.tableBytes;
    expect(initial).toBeLessThan(1_000_000 * OFFSET_MAP_SLOT_BYTES);
    const buf = Buffer.alloc(16);
    for (let i = 0; i < 50_000; i++) map.put(buf, 0, buf.write(`g${i}`), i * 3);
    expect(map.tableBytes).toBeGreaterThan(initial);
    expect(map.tableBytes).toBeLessThanOrEqual(1_000_000 * OFFSET_MAP_SLOT_BYTES);
    const wrong: number[] = [];
    for (let i = 0; i < 50_000; i++) if (map.get(buf, 0, buf.write(`g${i}`)) !== i * 3) wrong.push(i);
    expect(wrong).toEqual([]);
  });

  it('stores offsets above 2^32 exactly', () => {
    const map = new OffsetMap(1024);
    const big = 2 ** 52 + 7;
    map.put(Buffer.from('k'), 0, 1, big);
    expect(map.get(Buffer.from('k'), 0, 1)).toBe(big);
  });
});
