/**
 * LeaderEpochCache: the checkpoint's golden bytes (CRC checked against kafkajs' CRC32C), decoding
 * of damaged files, and Kafka's rules for assign / endOffsetFor / truncation as tables.
 */
import { kafkajsCrc32c as crc32cOracle } from '../records/kafkajs-oracle';
import {
  LeaderEpochCache,
  decodeLeaderEpochCheckpoint,
  encodeLeaderEpochCheckpoint,
  type EpochEntry,
} from '../../../services/broker/log/leader-epoch-cache';

const entries = (...pairs: [number, number][]): EpochEntry[] =>
  pairs.map(([epoch, startOffset]) => ({ epoch, startOffset }));

describe('leader-epoch-checkpoint bytes', () => {
  it('encodes the documented example byte for byte', () => {
    const bytes = encodeLeaderEpochCheckpoint(entries([0, 0], [3, 120]));
    expect(bytes.toString('ascii')).toBe('v1 2 f168aaf6\n0 0\n3 120\n');
    const body = Buffer.from('0 0\n3 120\n', 'ascii');
    expect((crc32cOracle(body) >>> 0).toString(16)).toBe('f168aaf6');
  });

  it('an empty cache is a header with an empty body', () => {
    expect(encodeLeaderEpochCheckpoint([]).toString('ascii')).toBe('v1 0 00000000\n');
    expect(decodeLeaderEpochCheckpoint(Buffer.from('v1 0 00000000\n'))).toEqual([]);
  });

  it('round-trips', () => {
    const list = entries([0, 0], [2, 17], [7, 2 ** 40], [2 ** 31 - 1, 2 ** 53 - 1]);
    expect(decodeLeaderEpochCheckpoint(encodeLeaderEpochCheckpoint(list))).toEqual(list);
  });

  it.each([
    ['no newline', 'v1 2 f168aaf6'],
    ['unknown version', 'v2 2 f168aaf6\n0 0\n3 120\n'],
    ['crc mismatch (a digit changed)', 'v1 2 f168aaf6\n0 0\n3 121\n'],
    ['count mismatch', 'v1 3 f168aaf6\n0 0\n3 120\n'],
    ['missing last newline', 'v1 2 f168aaf6\n0 0\n3 120'],
    ['garbage header', 'hello\n'],
  ])('rejects %s', (_name, text) => {
    expect(typeof decodeLeaderEpochCheckpoint(Buffer.from(text, 'ascii'))).toBe('string');
  });

  it('rejects entries that do not strictly increase, even with a valid CRC', () => {
    const forged = encodeLeaderEpochCheckpoint(entries([3, 0], [2, 10]));
    expect(decodeLeaderEpochCheckpoint(forged)).toMatch(/not strictly increasing/);
  });
});

describe('assign (Kafka LeaderEpochFileCache.assign)', () => {
  it.each<{
    name: string;
    before: [number, number][];
    assign: [number, number];
    after: [number, number][];
    changed: boolean;
  }>([
    { name: 'first entry', before: [], assign: [0, 0], after: [[0, 0]], changed: true },
    {
      name: 'newer epoch appends',
      before: [[0, 0]],
      assign: [2, 10],
      after: [
        [0, 0],
        [2, 10],
      ],
      changed: true,
    },
    {
      name: 'same epoch, later offset: no change',
      before: [
        [0, 0],
        [2, 10],
      ],
      assign: [2, 15],
      after: [
        [0, 0],
        [2, 10],
      ],
      changed: false,
    },
    {
      name: 'same epoch, same offset: no change',
      before: [[2, 10]],
      assign: [2, 10],
      after: [[2, 10]],
      changed: false,
    },
    {
      name: 'same epoch, earlier offset: moves it back',
      before: [
        [0, 0],
        [2, 10],
      ],
      assign: [2, 5],
      after: [
        [0, 0],
        [2, 5],
      ],
      changed: true,
    },
    { name: 'negative epoch ignored', before: [[0, 0]], assign: [-1, 5], after: [[0, 0]], changed: false },
    {
      name: 'older epoch removes the newer entries (non-monotonic input)',
      before: [
        [1, 0],
        [3, 10],
      ],
      assign: [2, 10],
      after: [
        [1, 0],
        [2, 10],
      ],
      changed: true,
    },
    {
      name: 'newer epoch at an offset below the latest start replaces what starts at or after it',
      before: [
        [1, 0],
        [3, 10],
      ],
      assign: [4, 8],
      after: [
        [1, 0],
        [4, 8],
      ],
      changed: true,
    },
  ])('$name', ({ before, assign, after, changed }) => {
    const cache = new LeaderEpochCache(entries(...before));
    expect(cache.assign(assign[0], assign[1])).toBe(changed);
    expect(cache.entries()).toEqual(entries(...after));
  });
});

describe('endOffsetFor (Kafka LeaderEpochFileCache.endOffsetFor)', () => {
  // Epoch 1 wrote [0, 10), epoch 3 [10, 25), epoch 6 [25, LEO=40).
  const cache = new LeaderEpochCache(entries([1, 0], [3, 10], [6, 25]));
  const leo = 40;
  it.each<[string, number, { epoch: number; endOffset: number } | undefined]>([
    ['the latest epoch ends at the LEO', 6, { epoch: 6, endOffset: 40 }],
    ['a known older epoch ends where the next starts', 3, { epoch: 3, endOffset: 25 }],
    ['the first epoch', 1, { epoch: 1, endOffset: 10 }],
    [
      'an unknown epoch between known ones: the largest below, the next start',
      4,
      { epoch: 3, endOffset: 25 },
    ],
    ['an unknown epoch between 1 and 3', 2, { epoch: 1, endOffset: 10 }],
    ['older than every entry: itself, the first start offset', 0, { epoch: 0, endOffset: 0 }],
    ['newer than every entry: unknown', 7, undefined],
    ['NO_EPOCH: unknown', -1, undefined],
  ])('%s (epoch %i)', (_name, epoch, expected) => {
    expect(cache.endOffsetFor(epoch, leo)).toEqual(expected);
  });

  it('an empty cache knows nothing', () => {
    expect(new LeaderEpochCache().endOffsetFor(0, 5)).toBeUndefined();
  });
});

describe('truncation', () => {
  it.each<[number, [number, number][], boolean]>([
    [
      40,
      [
        [1, 0],
        [3, 10],
        [6, 25],
      ],
      false,
    ],
    [
      25,
      [
        [1, 0],
        [3, 10],
      ],
      true,
    ],
    [
      26,
      [
        [1, 0],
        [3, 10],
        [6, 25],
      ],
      false,
    ],
    [10, [[1, 0]], true],
    [0, [], true],
  ])('truncateFromEnd(%i)', (offset, after, changed) => {
    const cache = new LeaderEpochCache(entries([1, 0], [3, 10], [6, 25]));
    expect(cache.truncateFromEnd(offset)).toBe(changed);
    expect(cache.entries()).toEqual(entries(...after));
  });

  it.each<[number, [number, number][], boolean]>([
    [
      0,
      [
        [1, 0],
        [3, 10],
        [6, 25],
      ],
      false,
    ],
    [
      5,
      [
        [1, 5],
        [3, 10],
        [6, 25],
      ],
      true,
    ],
    [
      10,
      [
        [3, 10],
        [6, 25],
      ],
      true,
    ],
    [
      12,
      [
        [3, 12],
        [6, 25],
      ],
      true,
    ],
    [30, [[6, 30]], true],
  ])('truncateFromStart(%i)', (offset, after, changed) => {
    const cache = new LeaderEpochCache(entries([1, 0], [3, 10], [6, 25]));
    expect(cache.truncateFromStart(offset)).toBe(changed);
    expect(cache.entries()).toEqual(entries(...after));
  });
});
