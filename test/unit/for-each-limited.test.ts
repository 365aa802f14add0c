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

test('rejects with the first failure; an empty list resolves at once', async () => {
  await expect(
    forEachLimited([1, 2, 3], 2, async (i) => {
      if (i === 2) throw new Error('two failed');
    }),
  ).rejects.toThrow('two failed');
  await expect(forEachLimited([], 4, async () => undefined)).resolves.toBeUndefined();
});
