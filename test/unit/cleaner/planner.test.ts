/** The cleaner's pure decisions: cleanable range and dirty ratio, segment groups, the throttle, the checkpoint format. */
import {
  cleanableRange,
  groupSegments,
  type SegmentSummary,
} from '../../../services/broker/log/cleaner/planner';
import { Throttler } from '../../../services/broker/log/cleaner/throttle';
import {
  decodeCleanerCheckpoint,
  encodeCleanerCheckpoint,
} from '../../../services/broker/log/cleaner-checkpoint';

/** Segments of 100 offsets and 1000 bytes each: bases 0, 100, ... ; the last is active. */
function segments(
  count: number,
  timestamps: number[] = [],
  firstTimestamps: number[] = [],
): SegmentSummary[] {
  return Array.from({ length: count }, (_, i) => ({
    baseOffset: i * 100,
    endOffset: (i + 1) * 100,
    sizeBytes: 1000,
    largestTimestampMs: timestamps[i] ?? 0,
    firstTimestampMs: firstTimestamps[i] ?? timestamps[i] ?? 0,
  }));
}

const base = { logStartOffset: 0, recoveryPoint: 400, nowMs: 1_000_000, minCompactionLagMs: 0 };

describe('cleanableRange', () => {
  it('never cleaned: everything below the active segment is dirty', () => {
    expect(cleanableRange({ ...base, segments: segments(5), checkpoint: undefined })).toEqual({
      firstDirtyOffset: 0,
      firstUncleanableOffset: 400,
      cleanableCount: 4,
      cleanBytes: 0,
      dirtyBytes: 4000,
      dirtyRatio: 1,
      overdueMs: 0,
    });
  });

  it('splits clean and dirty at the checkpoint', () => {
    const c = cleanableRange({ ...base, segments: segments(5), checkpoint: 300 });
    expect(c).toMatchObject({ firstDirtyOffset: 300, cleanBytes: 3000, dirtyBytes: 1000, dirtyRatio: 0.25 });
  });

  it('counts the segment holding a mid-segment checkpoint as dirty', () => {
    const c = cleanableRange({ ...base, segments: segments(5), checkpoint: 250 });
    expect(c).toMatchObject({ cleanBytes: 2000, dirtyBytes: 2000, dirtyRatio: 0.5 });
  });

  it.each([
    ['the recovery point', { recoveryPoint: 200 }, 200, 2],
    ['the high watermark (rounded down to a segment boundary)', { maxOffset: 250 }, 200, 2],
    ['the active segment', { recoveryPoint: 10_000 }, 400, 4],
  ])('stops at %s', (_what, extra, firstUncleanable, count) => {
    const c = cleanableRange({ ...base, ...extra, segments: segments(5), checkpoint: undefined });
    expect(c.firstUncleanableOffset).toBe(firstUncleanable);
    expect(c.cleanableCount).toBe(count);
  });

  it('keeps segments holding records newer than min.compaction.lag.ms', () => {
    const c = cleanableRange({
      ...base,
      minCompactionLagMs: 1000,
      segments: segments(5, [10, 998_999, 999_500, 999_999, 0]),
      checkpoint: undefined,
    });
    expect(c).toMatchObject({ firstUncleanableOffset: 200, cleanableCount: 2 });
  });

  describe('max.compaction.lag.ms', () => {
    // now = 1,000,000; lag 10,000: a dirty segment whose first record is before 990,000 is overdue.
    const lagged = { ...base, maxCompactionLagMs: 10_000 };
    const firsts = [900_000, 985_000, 995_000, 999_000, 999_500];

    it('is overdue by how far the oldest cleanable dirty segment is past the lag', () => {
      const c = cleanableRange({ ...lagged, segments: segments(5, [], firsts), checkpoint: undefined });
      expect(c.overdueMs).toBe(90_000);
    });

    it('counts dirty segments only: a cleaned old segment makes nothing overdue', () => {
      const c = cleanableRange({ ...lagged, segments: segments(5, [], firsts), checkpoint: 100 });
      expect(c.overdueMs).toBe(5_000);
      expect(
        cleanableRange({ ...lagged, segments: segments(5, [], firsts), checkpoint: 200 }).overdueMs,
      ).toBe(0);
    });

    it('counts cleanable segments only: the active one and those above the bounds wait', () => {
      // Only the active segment is old: it rolls first (roll.ts), then it counts.
      const activeOld = [999_000, 999_000, 999_000, 999_000, 1];
      expect(
        cleanableRange({ ...lagged, segments: segments(5, [], activeOld), checkpoint: undefined }).overdueMs,
      ).toBe(0);
      expect(
        cleanableRange({
          ...lagged,
          maxOffset: 100,
          segments: segments(5, [], [999_000, 1, 1, 1, 1]),
          checkpoint: undefined,
        }).overdueMs,
      ).toBe(0);
    });

    it('is never overdue without a limit, or without a timestamp', () => {
      expect(
        cleanableRange({ ...base, segments: segments(5, [], firsts), checkpoint: undefined }).overdueMs,
      ).toBe(0);
      expect(
        cleanableRange({ ...lagged, segments: segments(5, [], [-1, -1, -1, -1, -1]), checkpoint: undefined })
          .overdueMs,
      ).toBe(0);
    });
  });

  it('restarts from the log start for a checkpoint below it or beyond the active segment', () => {
    expect(
      cleanableRange({ ...base, logStartOffset: 200, segments: segments(5), checkpoint: 100 })
        .firstDirtyOffset,
    ).toBe(200);
    expect(cleanableRange({ ...base, segments: segments(5), checkpoint: 9999 }).firstDirtyOffset).toBe(0);
  });

  it('has nothing cleanable with a single (active) segment', () => {
    expect(cleanableRange({ ...base, segments: segments(1), checkpoint: undefined })).toMatchObject({
      cleanableCount: 0,
      dirtyRatio: 0,
    });
  });
});

describe('groupSegments', () => {
  it('groups consecutive segments up to the byte limit', () => {
    const s = [300, 300, 300, 900, 100, 100].map((sizeBytes, i) => ({
      baseOffset: i * 10,
      endOffset: i * 10 + 10,
      sizeBytes,
    }));
    expect(groupSegments(s, 1000)).toEqual([
      [0, 3],
      [3, 5],
      [5, 6],
    ]);
  });

  it('keeps a group within u32 relative offsets', () => {
    const s = [
      { baseOffset: 0, endOffset: 2 ** 31, sizeBytes: 1 },
      { baseOffset: 2 ** 31, endOffset: 2 ** 32 + 5, sizeBytes: 1 },
    ];
    expect(groupSegments(s, 1e9)).toEqual([
      [0, 1],
      [1, 2],
    ]);
  });
});

describe('Throttler', () => {
  it('sleeps so that each check interval averages the limit', () => {
    let now = 0;
    const slept: number[] = [];
    const t = new Throttler(
      1000,
      () => now,
      (ms) => {
        slept.push(ms);
        now += ms;
      },
      100,
    );
    t.maybeThrottle(50); // at 0 ms: too early to check
    now = 100;
    t.maybeThrottle(250); // 300 bytes in 100 ms at 1000 B/s should take 300 ms
    expect(slept).toEqual([200]);
    now += 100;
    t.maybeThrottle(50); // 50 bytes in 100 ms: under the limit
    expect(slept).toEqual([200]);
    expect(t.throttledMs).toBe(200);
  });

  it('does nothing without a limit', () => {
    const t = new Throttler(
      -1,
      () => 0,
      () => {
        throw new Error('slept');
      },
    );
    t.maybeThrottle(1e12);
    expect(t.limited).toBe(false);
  });
});

describe('cleaner checkpoint file', () => {
  it('has a fixed text format with a CRC (golden bytes)', () => {
    const bytes = encodeCleanerCheckpoint({ firstDirtyOffset: 1200, nextDeleteHorizonMs: -1 });
    expect(bytes.toString('ascii')).toBe('v1 1200 -1 fa28f086\n');
    expect(decodeCleanerCheckpoint(bytes)).toEqual({ firstDirtyOffset: 1200, nextDeleteHorizonMs: -1 });
    expect(
      decodeCleanerCheckpoint(
        encodeCleanerCheckpoint({ firstDirtyOffset: 7, nextDeleteHorizonMs: 1_700_000_000_000 }),
      ),
    ).toEqual({
      firstDirtyOffset: 7,
      nextDeleteHorizonMs: 1_700_000_000_000,
    });
  });

  it.each([
    ['a flipped digit', (s: string) => s.replace('1200', '1300')],
    ['no newline', (s: string) => s.trimEnd()],
    ['another version', (s: string) => s.replace('v1', 'v2')],
  ])('rejects %s', (_what, damage) => {
    const text = encodeCleanerCheckpoint({ firstDirtyOffset: 1200, nextDeleteHorizonMs: -1 }).toString(
      'ascii',
    );
    expect(typeof decodeCleanerCheckpoint(Buffer.from(damage(text), 'ascii'))).toBe('string');
  });
});
