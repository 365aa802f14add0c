/**
 * Retry with exponential backoff and jitter, honouring `retriable` (modelled on kafkajs
 * src/retry). Only errors whose `retriable` property is `true` (TideError marks them from the
 * error-code table or the `tide-retriable` trailer) are retried; anything else — a bug, a
 * non-retriable Tide error, a TypeError — is rethrown at once.
 */
import type { Clock } from '../services/common/clock';
import { TideError } from '../services/common/errors';
import { clientClock } from './timers';

export interface RetryOptions {
  /** Total tries, the first included. 1 = no retry. */
  attempts: number;
  /** Delay before the second try. */
  initialBackoffMs: number;
  /** Cap on any one delay. */
  maxBackoffMs: number;
  /** 0..1: each delay is drawn uniformly from delay × [1 − jitter, 1 + jitter]. */
  jitter: number;
  /** Aborting stops waiting and rejects with the abort reason (or an Error). */
  signal?: AbortSignal;
}

export const DEFAULT_RETRY: RetryOptions = {
  attempts: 6,
  initialBackoffMs: 100,
  maxBackoffMs: 2_000,
  jitter: 0.2,
};

export interface RetryHooks {
  clock?: Clock;
  /** Called before each wait, e.g. to refresh metadata. Errors thrown here end the retry. */
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void | Promise<void>;
  /** Random source in [0, 1) (tests pass a constant). */
  random?: () => number;
}

/** True when the error says a retry may succeed. */
export function isRetriable(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { retriable?: unknown }).retriable === true;
}

/**
 * The delay before try number `attempt + 1` (attempt counts from 1): initial × 2^(attempt−1),
 * capped at maxBackoffMs, then jittered.
 */
export function backoffMs(
  attempt: number,
  options: Pick<RetryOptions, 'initialBackoffMs' | 'maxBackoffMs' | 'jitter'>,
  random: () => number = Math.random,
): number {
  const base = Math.min(options.maxBackoffMs, options.initialBackoffMs * 2 ** Math.max(0, attempt - 1));
  const spread = base * options.jitter;
  return Math.max(0, Math.round(base - spread + random() * 2 * spread));
}

/**
 * Runs `fn(attempt)` until it resolves, throws a non-retriable error, or `attempts` tries have
 * failed; then rethrows the last error as it was (a TideError keeps its code).
 */
export async function retry<T>(
  fn: (attempt: number) => Promise<T>,
  options: Partial<RetryOptions> = {},
  hooks: RetryHooks = {},
): Promise<T> {
  const opts = { ...DEFAULT_RETRY, ...options };
  const clock = hooks.clock ?? clientClock;
  for (let attempt = 1; ; attempt++) {
    throwIfAborted(opts.signal);
    try {
      return await fn(attempt);
    } catch (err) {
      if (!isRetriable(err) || attempt >= opts.attempts || opts.signal?.aborted) throw err;
      const delayMs = backoffMs(attempt, opts, hooks.random);
      if (hooks.onRetry) await hooks.onRetry(err, attempt, delayMs);
      await sleep(delayMs, clock, opts.signal);
    }
  }
}

/** Resolves after delayMs on the given clock; rejects early when the signal aborts. */
export function sleep(delayMs: number, clock: Clock = clientClock, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = (): void => {
      timer.cancel();
      reject(abortReason(signal!));
    };
    const timer = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, delayMs);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new TideError('UNKNOWN', 'aborted', { retriable: false });
}
