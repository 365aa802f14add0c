/**
 * The throttle arithmetic of client quotas on a ManualClock: the windowed rate, the delay that
 * brings a caller back to its bound, and a greedy caller held to its quota.
 */
import { ManualClock } from '../../../services/common/clock';
import { WindowedRate } from '../../../services/common/security/quota/rate';

const OPTIONS = { sampleMs: 1000, samples: 11 };

it('does not throttle a caller within its bound', () => {
  const clock = new ManualClock(0);
  const rate = new WindowedRate(OPTIONS);
  rate.record(500, clock.nowMs());
  expect(rate.throttleMs(1000, clock.nowMs())).toBe(0);
  expect(rate.rate(clock.nowMs())).toBe(500);
});

it('holds an over-quota caller until its usage, spread at the bound, has taken the time', () => {
  const clock = new ManualClock(0);
  const rate = new WindowedRate(OPTIONS);
  rate.record(3000, clock.nowMs());
  // 3000 units at 1000/s take 3 s from the first sample.
  expect(rate.throttleMs(1000, clock.nowMs())).toBe(3000);
  clock.advance(2000);
  expect(rate.throttleMs(1000, clock.nowMs())).toBe(1000);
  clock.advance(1000);
  expect(rate.throttleMs(1000, clock.nowMs())).toBe(0);
  expect(rate.rate(clock.nowMs())).toBeCloseTo(1000, 6);
});

it('uses the time since the first sample, so a new caller bursts one sample window at most', () => {
  const clock = new ManualClock(10_000);
  const rate = new WindowedRate(OPTIONS);
  rate.record(1000, clock.nowMs());
  expect(rate.throttleMs(1000, clock.nowMs())).toBe(0);
  rate.record(1, clock.nowMs());
  expect(rate.throttleMs(1000, clock.nowMs())).toBe(1001);
  clock.advance(400);
  expect(rate.throttleMs(1000, clock.nowMs())).toBe(601);
});

it('forgets samples older than the window', () => {
  const clock = new ManualClock(0);
  const rate = new WindowedRate(OPTIONS);
  rate.record(50_000, clock.nowMs());
  expect(rate.throttleMs(1000, clock.nowMs())).toBe(50_000);
  clock.advance(12_000);
  expect(rate.rate(clock.nowMs())).toBe(0);
  expect(rate.throttleMs(1000, clock.nowMs())).toBe(0);
});

it('holds a greedy caller to within 1 % of its bound over 10 s', () => {
  const clock = new ManualClock(1_000_000);
  const rate = new WindowedRate(OPTIONS);
  const bound = 512 * 1024;
  const start = clock.nowMs();
  let sent = 0;
  // Send 64 KiB, wait the throttle (plus 1 ms of "network"), repeat: what the interceptor makes
  // a stream do.
  while (clock.nowMs() - start < 10_000) {
    rate.record(64 * 1024, clock.nowMs());
    sent += 64 * 1024;
    clock.advance(rate.throttleMs(bound, clock.nowMs()) + 1);
  }
  const measured = (sent * 1000) / (clock.nowMs() - start);
  expect(Math.abs(measured - bound) / bound).toBeLessThan(0.01);
});

it('keeps the bound after the oldest samples roll out of the window', () => {
  const clock = new ManualClock(0);
  const rate = new WindowedRate(OPTIONS);
  const bound = 1000;
  let sent = 0;
  while (clock.nowMs() < 30_000) {
    rate.record(100, clock.nowMs());
    sent += 100;
    clock.advance(rate.throttleMs(bound, clock.nowMs()) + 1);
  }
  const windowStart = clock.nowMs();
  const sentBefore = sent;
  while (clock.nowMs() - windowStart < 10_000) {
    rate.record(100, clock.nowMs());
    sent += 100;
    clock.advance(rate.throttleMs(bound, clock.nowMs()) + 1);
  }
  const measured = ((sent - sentBefore) * 1000) / (clock.nowMs() - windowStart);
  expect(Math.abs(measured - bound) / bound).toBeLessThan(0.05);
});

it('refuses nonsense window options', () => {
  expect(() => new WindowedRate({ sampleMs: 0, samples: 11 })).toThrow(RangeError);
});
