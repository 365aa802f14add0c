/**
 * The reassignment throttle's parts: the token bucket (steady rate, bounded burst, debt) and the
 * rule choosing whose fetches it limits (replicas a move adds, while they are out of the ISR).
 */
import { ManualClock } from '../../../services/common/clock';
import { ReassignmentThrottle, TokenBucket } from '../../../services/broker/replication/throttle';

describe('TokenBucket', () => {
  it('starts full, refills at its rate and never holds more than its burst', () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(10_000, clock, 2_000);
    expect(bucket.available()).toBe(2_000);
    bucket.take(1_500);
    expect(bucket.available()).toBe(500);
    clock.advance(100); // +1000
    expect(bucket.available()).toBe(1_500);
    clock.advance(10_000);
    expect(bucket.available()).toBe(2_000);
  });

  it('goes into debt for a read larger than it holds and is repaid before granting again', () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(1_000, clock, 100);
    bucket.take(600); // one large batch: 500 bytes of debt
    expect(bucket.available()).toBe(-500);
    expect(bucket.msUntilAvailable()).toBe(501);
    clock.advance(500);
    expect(bucket.available()).toBe(0);
    expect(bucket.msUntilAvailable()).toBe(1);
    clock.advance(1);
    expect(bucket.available()).toBe(1);
    expect(bucket.msUntilAvailable()).toBe(0);
  });

  it('keeps the long-run rate whatever the read sizes', () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(1_000_000, clock);
    let sent = 0;
    for (let ms = 0; ms < 10_000; ms++) {
      const grant = bucket.available();
      if (grant > 0) {
        const read = 300_000; // reads larger than the 100 KB burst
        bucket.take(read);
        sent += read;
      }
      clock.advance(1);
    }
    // 10 s at 1 MB/s, plus at most the first burst and one read of debt.
    expect(sent).toBeGreaterThanOrEqual(9_700_000);
    expect(sent).toBeLessThanOrEqual(10_000_000 + 100_000 + 300_000);
  });

  it('refuses a rate that is not positive', () => {
    expect(() => new TokenBucket(0, new ManualClock())).toThrow(/positive finite rate/);
  });
});

describe('ReassignmentThrottle', () => {
  const partition = (isr: number[]) => ({ topic: 'orders', partition: 0, isr });
  function throttle(bytesPerSecond: number, adding: number[] = [4]) {
    const clock = new ManualClock();
    const served: number[] = [];
    const t = new ReassignmentThrottle({
      bytesPerSecond,
      clock,
      addingReplicas: (topic, p) => (topic === 'orders' && p === 0 ? adding : undefined),
      onServed: (bytes) => served.push(bytes),
      burstBytes: 1_000,
    });
    return { t, clock, served };
  }

  it('applies only to a replica being added that is not in the ISR', () => {
    const { t } = throttle(1_000);
    expect(t.applies(partition([1, 2, 3]), 4)).toBe(true);
    expect(t.applies(partition([1, 2, 3, 4]), 4)).toBe(false); // caught up: in the ISR
    expect(t.applies(partition([1, 2]), 3)).toBe(false); // out of sync, but not a new copy
    expect(t.applies(partition([1, 2, 3]), 2)).toBe(false);
    expect(t.applies({ topic: 'other', partition: 0, isr: [1] }, 4)).toBe(false); // not moving
  });

  it('grants what the bucket holds to throttled replicas and the whole budget to the others', () => {
    const { t, clock } = throttle(1_000);
    expect(t.limit(partition([1, 2, 3]), 2, 5_000)).toBeUndefined();
    expect(t.limit(partition([1, 2, 3]), 4, 5_000)).toBe(1_000);
    expect(t.limit(partition([1, 2, 3]), 4, 300)).toBe(300);
    t.served(1_200);
    expect(t.limit(partition([1, 2, 3]), 4, 5_000)).toBe(0);
    expect(t.msUntilAvailable()).toBe(201);
    expect(t.limit(partition([1, 2, 3]), 2, 5_000)).toBeUndefined(); // ISR members never wait
    clock.advance(300);
    expect(t.limit(partition([1, 2, 3]), 4, 5_000)).toBe(100);
  });

  it('with no limit (0), grants the whole budget and still counts the bytes', () => {
    const { t, served } = throttle(0);
    expect(t.limit(partition([1, 2, 3]), 4, 5_000)).toBe(5_000);
    t.served(4_000);
    t.served(0);
    expect(served).toEqual([4_000]);
    expect(t.msUntilAvailable()).toBe(0);
  });

  it('refuses a negative or fractional rate', () => {
    expect(() => throttle(-1)).toThrow(/integer >= 0/);
    expect(() => throttle(1.5)).toThrow(/integer >= 0/);
  });
});
