/**
 * Calls `fn` for every item with at most `limit` calls in flight, starting them in order; resolves
 * when all have finished, rejects with the first failure (the calls already started still run).
 */
export async function forEachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}
