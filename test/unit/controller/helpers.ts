import { ManualClock } from '../../../services/common/clock';
import { TideError } from '../../../services/common/errors';
import { silentLogger } from '../../../services/common/logger';
import { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';

export const CLUSTER = 'test';

export function setup(): {
  clock: ManualClock;
  store: EmbeddedMetadataStore;
  logger: ReturnType<typeof silentLogger>;
} {
  const clock = new ManualClock();
  return { clock, store: new EmbeddedMetadataStore({ clock }), logger: silentLogger() };
}

/** Lets queued microtasks and immediates run (watch deliveries, lease listeners). */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The TideError a promise rejects with (fails the test if it resolves or throws something else). */
export async function rejection(promise: Promise<unknown>): Promise<TideError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof TideError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}
