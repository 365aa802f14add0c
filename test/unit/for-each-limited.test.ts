import { forEachLimited } from '../../services/common/for-each-limited';

test('runs every item, starting them in order, never more than the limit at once', async () => {
  const started: number[] = [];
  let inFlight = 0;
  let peak = 0;
  await forEachLimited(
    Array.from({ length: 50 }, (_, i) => i),
    7,
    async (i) => {
      started.push(i);
      peak = Math.max(peak, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, (i * 7) % 5));
      inFlight--;
    },
  );
  expect(started).toEqual(Array.from({ length: 50 }, (_, i) => i));
  expect(peak).toBe(7);
  expect(inFlight).toBe(0);
});

test('after a failure no item is started; it rejects once the calls in flight settled', async () => {
  const started: number[] = [];
  let settled = 0;
  await expect(
    forEachLimited([1, 2, 3, 4, 5, 6], 2, async (i) => {
      started.push(i);
      if (i === 2) throw new Error('two failed');
      await new Promise((resolve) => setTimeout(resolve, 5));
      settled++;
    }),
  ).rejects.toThrow('two failed');
  expect(started).toEqual([1, 2]);
  expect(settled).toBe(1);
});

test('an empty list resolves at once', async () => {
  await expect(forEachLimited([], 4, async () => undefined)).resolves.toBeUndefined();
});
