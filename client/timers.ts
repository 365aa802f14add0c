/**
 * The client's default clock. Unlike the services' `systemClock`, one-shot timers are kept
 * referenced: a linger timer or a retry backoff is pending work, and a script awaiting
 * `producer.send()` must not exit under it. Periodic housekeeping (request-timeout sweeps) is
 * unreferenced so an idle client never holds the process open.
 */
import type { Clock } from '../services/common/clock';

export const clientClock: Clock = {
  nowMs: () => Date.now(),
  setTimeout(fn, delayMs) {
    const handle = setTimeout(fn, delayMs);
    return { cancel: () => clearTimeout(handle) };
  },
  setInterval(fn, intervalMs) {
    const handle = setInterval(fn, intervalMs);
    handle.unref?.();
    return { cancel: () => clearInterval(handle) };
  },
};
