/** The pure decisions: when to roll a segment and which segments retention deletes. */
import { planRetention, type RetentionSegment } from '../../../services/broker/log/retention';
import { rollReason } from '../../../services/broker/log/roll';

describe('rollReason', () => {
  const config = { segmentBytes: 1000, segmentMs: 60_000 };
  const now = 1_000_000;
  it.each([
    {
      name: 'empty segment takes anything',
      seg: { assignedBytes: 0, rollingTimestampMs: undefined },
      batch: { sizeBytes: 5000, lastOffset: 10 },
      expected: undefined,
    },
    {
      name: 'fits exactly',
      seg: { assignedBytes: 900, rollingTimestampMs: now },
      batch: { sizeBytes: 100, lastOffset: 10 },
      expected: undefined,
    },
    {
      name: 'one byte over',
      seg: { assignedBytes: 901, rollingTimestampMs: now },
      batch: { sizeBytes: 100, lastOffset: 10 },
      expected: 'size',
    },
    {
      name: 'age exactly segmentMs',
      seg: { assignedBytes: 10, rollingTimestampMs: now - 60_000 },
      batch: { sizeBytes: 100, lastOffset: 10 },
      expected: undefined,
    },
    {
      name: 'age past segmentMs',
      seg: { assignedBytes: 10, rollingTimestampMs: now - 60_001 },
      batch: { sizeBytes: 100, lastOffset: 10 },
      expected: 'age',
    },
    {
      name: 'relative offset overflow',
      seg: { assignedBytes: 10, rollingTimestampMs: now },
      batch: { sizeBytes: 100, lastOffset: 2 ** 32 },
      expected: 'offset-overflow',
    },
    {
      name: 'relative offset at the limit',
      seg: { assignedBytes: 10, rollingTimestampMs: now },
      batch: { sizeBytes: 100, lastOffset: 2 ** 32 - 1 },
      expected: undefined,
    },
  ])('$name', ({ seg, batch, expected }) => {
    expect(rollReason({ baseOffset: 0, ...seg }, batch, config, now)).toBe(expected);
  });

  it('never by age with segmentMs -1', () => {
    expect(
      rollReason(
        { baseOffset: 0, assignedBytes: 1, rollingTimestampMs: 0 },
        { sizeBytes: 1, lastOffset: 1 },
        { segmentBytes: 1000, segmentMs: -1 },
        now,
      ),
    ).toBeUndefined();
  });

  it('position overflow when segmentBytes allows 4 GiB', () => {
    const huge = { segmentBytes: 2 ** 32 - 1, segmentMs: -1 };
    expect(
      rollReason(
        { baseOffset: 0, assignedBytes: 2 ** 32 - 100, rollingTimestampMs: now },
        { sizeBytes: 100, lastOffset: 1 },
        huge,
        now,
      ),
    ).toBe('size');
    expect(
      rollReason(
        { baseOffset: 0, assignedBytes: 2 ** 32 - 100, rollingTimestampMs: now },
        { sizeBytes: 99, lastOffset: 1 },
        huge,
        now,
      ),
    ).toBeUndefined();
  });
});

describe('planRetention', () => {
  const now = 10_000_000;
  // Four segments of 100 bytes, newest timestamps 1000 ms apart; the last is active.
  const segs = (activeBytes = 100): RetentionSegment[] => [
    { baseOffset: 0, sizeBytes: 100, largestTimestampMs: now - 4000, endOffset: 10 },
    { baseOffset: 10, sizeBytes: 100, largestTimestampMs: now - 3000, endOffset: 20 },
    { baseOffset: 20, sizeBytes: 100, largestTimestampMs: now - 2000, endOffset: 30 },
    { baseOffset: 30, sizeBytes: activeBytes, largestTimestampMs: now - 1000, endOffset: 40 },
  ];
  it.each([
    {
      name: 'nothing configured',
      cfg: { retentionMs: -1, retentionBytes: -1 },
      max: undefined,
      expected: { deleteCount: 0, rollActive: false },
    },
    {
      name: 'time: two expired',
      cfg: { retentionMs: 2500, retentionBytes: -1 },
      max: undefined,
      expected: { deleteCount: 2, rollActive: false },
    },
    {
      name: 'time: boundary is not expired',
      cfg: { retentionMs: 3000, retentionBytes: -1 },
      max: undefined,
      expected: { deleteCount: 1, rollActive: false },
    },
    {
      name: 'time: all expired rolls the active one',
      cfg: { retentionMs: 500, retentionBytes: -1 },
      max: undefined,
      expected: { deleteCount: 4, rollActive: true },
    },
    {
      name: 'time: all expired but bounded by max offset',
      cfg: { retentionMs: 500, retentionBytes: -1 },
      max: 20,
      expected: { deleteCount: 2, rollActive: false },
    },
    {
      name: 'size: 400 bytes, keep >= 250',
      cfg: { retentionMs: -1, retentionBytes: 250 },
      max: undefined,
      expected: { deleteCount: 1, rollActive: false },
    },
    {
      name: 'size: keep >= 200',
      cfg: { retentionMs: -1, retentionBytes: 200 },
      max: undefined,
      expected: { deleteCount: 2, rollActive: false },
    },
    {
      name: 'size: 0 never deletes the active one',
      cfg: { retentionMs: -1, retentionBytes: 0 },
      max: undefined,
      expected: { deleteCount: 3, rollActive: false },
    },
    {
      name: 'time then size',
      cfg: { retentionMs: 3500, retentionBytes: 150 },
      max: undefined,
      expected: { deleteCount: 2, rollActive: false },
    },
  ])('$name', ({ cfg, max, expected }) => {
    expect(planRetention(segs(), cfg, now, max)).toMatchObject(expected);
  });

  it('an empty active segment is not rolled for time retention', () => {
    expect(planRetention(segs(0), { retentionMs: 500, retentionBytes: -1 }, now)).toMatchObject({
      deleteCount: 3,
      rollActive: false,
    });
  });
});
