import type { Clock, Timer } from '../../services/common/clock';

/** Resolves when `promise` settles or after `ms`, whichever is first; the timer never outlives it. */
export async function within(promise: Promise<unknown>, ms: number, clock: Clock): Promise<void> {
  let timer: Timer | undefined;
  try {
    await Promise.race([
      promise.then(
        () => undefined,
        () => undefined,
      ),
      new Promise<void>((resolve) => (timer = clock.setTimeout(resolve, ms))),
    ]);
  } finally {
    timer?.cancel();
  }
}
