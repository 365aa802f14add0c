/**
 * OffsetIndex and TimeIndex: lookups (table-driven), truncation, sanity checks on load, and the
 * on-disk bytes (golden).
 */
import { OffsetIndex } from '../../../services/broker/log/offset-index';
import { TimeIndex } from '../../../services/broker/log/time-index';
import { decodeOffsetCheckpoint, encodeOffsetCheckpoint } from '../../../services/broker/log/checkpoint';

function offsetIndex(base: number, entries: Array<[number, number]>): OffsetIndex {
  const index = new OffsetIndex(base);
  for (const [offset, position] of entries) index.append(offset, position);
  return index;
}

describe('OffsetIndex', () => {
  const index = offsetIndex(100, [
    [105, 4096],
    [230, 8208],
    [400, 12_500],
  ]);

  it.each([
    { target: 100, expected: { offset: 100, position: 0 } },
    { target: 104, expected: { offset: 100, position: 0 } },
    { target: 105, expected: { offset: 105, position: 4096 } },
    { target: 229, expected: { offset: 105, position: 4096 } },
    { target: 230, expected: { offset: 230, position: 8208 } },
    { target: 10_000, expected: { offset: 400, position: 12_500 } },
    { target: 50, expected: { offset: 100, position: 0 } },
  ])('lookup($target) is the last entry at or below it', ({ target, expected }) => {
    expect(index.lookup(target)).toEqual(expected);
  });

  it('golden bytes: u32 relative offset + u32 position, big-endian, no header', () => {
    const golden = offsetIndex(100, [
      [105, 4096],
      [230, 8208],
    ]);
    expect(golden.toBytes().toString('hex')).toBe('00000005' + '00001000' + '00000082' + '00002010');
  });

  it('grows past its initial capacity and round-trips through its bytes', () => {
    const big = new OffsetIndex(0);
    for (let i = 1; i <= 1000; i++) big.append(i * 3, i * 100);
    const loaded = OffsetIndex.fromBytes(0, Buffer.from(big.toBytes()), 1_000_000);
    expect(loaded).toBeInstanceOf(OffsetIndex);
    expect((loaded as OffsetIndex).entryCount).toBe(1000);
    expect((loaded as OffsetIndex).lookup(1500)).toEqual({ offset: 1500, position: 50_000 });
  });

  it.each([
    {
      name: 'truncateToOffset(230) keeps entries below 230',
      run: (i: OffsetIndex) => i.truncateToOffset(230),
      left: 1,
    },
    { name: 'truncateToOffset(231) keeps 230', run: (i: OffsetIndex) => i.truncateToOffset(231), left: 2 },
    { name: 'truncateToOffset(0) empties', run: (i: OffsetIndex) => i.truncateToOffset(0), left: 0 },
    {
      name: 'truncateToPosition(8208) drops the entry at 8208',
      run: (i: OffsetIndex) => i.truncateToPosition(8208),
      left: 1,
    },
    {
      name: 'truncateToPosition(99999) keeps all',
      run: (i: OffsetIndex) => i.truncateToPosition(99_999),
      left: 3,
    },
  ])('$name', ({ run, left }) => {
    const copy = offsetIndex(100, [
      [105, 4096],
      [230, 8208],
      [400, 12_500],
    ]);
    run(copy);
    expect(copy.entryCount).toBe(left);
  });

  it('refuses entries that do not increase (a bug)', () => {
    const i = offsetIndex(0, [[5, 100]]);
    expect(() => i.append(5, 200)).toThrow(/assertion failed/);
    expect(() => i.append(6, 100)).toThrow(/assertion failed/);
  });

  const entry = (rel: number, pos: number): Buffer => {
    const b = Buffer.alloc(8);
    b.writeUInt32BE(rel, 0);
    b.writeUInt32BE(pos, 4);
    return b;
  };
  it.each([
    { name: 'partial entry', bytes: Buffer.concat([entry(1, 10), Buffer.alloc(3)]), why: /multiple of 8/ },
    {
      name: 'offsets going back',
      bytes: Buffer.concat([entry(5, 10), entry(4, 20)]),
      why: /relative offsets not increasing/,
    },
    {
      name: 'positions going back',
      bytes: Buffer.concat([entry(5, 20), entry(6, 10)]),
      why: /positions not increasing/,
    },
    { name: 'position beyond the log', bytes: entry(5, 5000), why: /beyond the log file/ },
    { name: 'zero position entry', bytes: entry(0, 0), why: /positions not increasing/ },
  ])('fromBytes rejects $name', ({ bytes, why }) => {
    expect(OffsetIndex.fromBytes(0, bytes, 4096)).toMatch(why);
  });
});

describe('TimeIndex', () => {
  function timeIndex(entries: Array<[number, number]>): TimeIndex {
    const index = new TimeIndex(100);
    for (const [ts, offset] of entries) index.maybeAppend(ts, offset);
    return index;
  }

  it('golden bytes: i64 timestamp + u32 relative offset, big-endian, no header', () => {
    const index = timeIndex([
      [1000, 100],
      [2000, 230],
    ]);
    expect(index.toBytes().toString('hex')).toBe(
      '00000000000003e8' + '00000000' + '00000000000007d0' + '00000082',
    );
  });

  it.each([
    { name: 'smaller timestamp', ts: 1500, offset: 300, added: false },
    { name: 'equal timestamp', ts: 2000, offset: 300, added: false },
    { name: 'larger timestamp', ts: 2500, offset: 300, added: true },
    { name: 'negative (no timestamp)', ts: -1, offset: 300, added: false },
  ])('maybeAppend with a $name', ({ ts, offset, added }) => {
    const index = timeIndex([
      [1000, 100],
      [2000, 230],
    ]);
    expect(index.maybeAppend(ts, offset)).toBe(added);
  });

  it.each([
    { ts: 999, expected: undefined },
    { ts: 1000, expected: undefined },
    { ts: 1001, expected: { timestampMs: 1000, offset: 100 } },
    { ts: 2000, expected: { timestampMs: 1000, offset: 100 } },
    { ts: 5000, expected: { timestampMs: 2000, offset: 230 } },
  ])('lastEntryBefore($ts)', ({ ts, expected }) => {
    const index = timeIndex([
      [1000, 100],
      [2000, 230],
    ]);
    expect(index.lastEntryBefore(ts)).toEqual(expected);
  });

  it('truncateToOffset drops entries at and above the offset', () => {
    const index = timeIndex([
      [1000, 100],
      [2000, 230],
    ]);
    index.truncateToOffset(230);
    expect(index.lastEntry()).toEqual({ timestampMs: 1000, offset: 100 });
  });

  const entry = (ts: number, rel: number): Buffer => {
    const b = Buffer.alloc(12);
    b.writeBigInt64BE(BigInt(ts), 0);
    b.writeUInt32BE(rel, 8);
    return b;
  };
  it.each([
    { name: 'partial entry', bytes: Buffer.alloc(13), why: /multiple of 12/ },
    {
      name: 'timestamps not increasing',
      bytes: Buffer.concat([entry(5, 1), entry(5, 2)]),
      why: /timestamps not increasing/,
    },
    {
      name: 'offsets not increasing',
      bytes: Buffer.concat([entry(5, 2), entry(6, 2)]),
      why: /offsets not increasing/,
    },
    { name: 'offset beyond the segment', bytes: entry(5, 50), why: /beyond the segment/ },
  ])('fromBytes rejects $name', ({ bytes, why }) => {
    expect(TimeIndex.fromBytes(100, bytes, 140)).toMatch(why);
  });
});

describe('offset checkpoint file', () => {
  it('golden bytes', () => {
    expect(encodeOffsetCheckpoint(42).toString('ascii')).toBe('v1 42 ab9217f4\n');
    expect(decodeOffsetCheckpoint(encodeOffsetCheckpoint(42))).toBe(42);
  });
  it.each([
    { name: 'empty', text: '' },
    { name: 'bad crc', text: 'v1 42 00000000\n' },
    { name: 'other version', text: 'v2 42 00000000\n' },
    { name: 'torn', text: encodeOffsetCheckpoint(12345).toString('ascii').slice(0, 6) },
  ])('rejects $name', ({ text }) => {
    expect(typeof decodeOffsetCheckpoint(Buffer.from(text, 'ascii'))).toBe('string');
  });
});
