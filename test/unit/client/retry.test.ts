import { ManualClock } from '../../../services/common/clock';
import { TideError } from '../../../services/common/errors';
import { backoffMs, isRetriable, retry, sleep } from '../../../client/retry';

const flush = () => new Promise((r) => setImmediate(r));

describe('backoffMs', () => {
  const opts = { initialBackoffMs: 100, maxBackoffMs: 1_000, jitter: 0.2 };

  test('doubles from the initial delay and stops at the cap', () => {
    const mid = () => 0.5; // no jitter at the midpoint
    expect([1, 2, 3, 4, 5, 6].map((a) => backoffMs(a, opts, mid))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  test('jitter spreads each delay within ±jitter', () => {
    expect(backoffMs(2, opts, () => 0)).toBe(160);
    expect(backoffMs(2, opts, () => 0.999999)).toBe(240);
  });
});

describe('retry', () => {
  const fast = { attempts: 4, initialBackoffMs: 1, maxBackoffMs: 1, jitter: 0 };

  test('retries retriable errors until success', async () => {
    let calls = 0;
    const result = await retry(async () => {
      if (++calls < 3) throw new TideError('NOT_LEADER', 'moved');
      return 'ok';
    }, fast);
    expect(result).toBe('ok');
    expect(calls).toBe(3);
  });

  test('rethrows a non-retriable error at once, as it was', async () => {
    let calls = 0;
    const err = new TideError('UNKNOWN_TOPIC', 'nope');
    await expect(
      retry(async () => {
        calls++;
        throw err;
      }, fast),
    ).rejects.toBe(err);
    expect(calls).toBe(1);
  });

  test('plain errors (bugs) are never retried', async () => {
    let calls = 0;
    await expect(
      retry(async () => {
        calls++;
        throw new TypeError('bug');
      }, fast),
    ).rejects.toThrow(TypeError);
    expect(calls).toBe(1);
  });

  test('gives up after `attempts` tries with the last error', async () => {
    let calls = 0;
    await expect(
      retry(async () => {
        calls++;
        throw new TideError('BROKER_NOT_AVAILABLE', `try ${calls}`);
      }, fast),
    ).rejects.toMatchObject({ code: 'BROKER_NOT_AVAILABLE', message: 'try 4' });
    expect(calls).toBe(4);
  });

  test('waits the backoff on the given clock and calls onRetry first', async () => {
    const clock = new ManualClock();
    const seen: [string, number, number][] = [];
    let calls = 0;
    const done = retry(
      async () => {
        if (++calls < 3) throw new TideError('NOT_LEADER', 'moved');
        return calls;
      },
      { attempts: 5, initialBackoffMs: 100, maxBackoffMs: 1_000, jitter: 0 },
      {
        clock,
        onRetry: (err, attempt, delayMs) => void seen.push([(err as TideError).code, attempt, delayMs]),
      },
    );
    await flush();
    expect(calls).toBe(1);
    clock.advance(99);
    await flush();
    expect(calls).toBe(1);
    clock.advance(1);
    await flush();
    expect(calls).toBe(2);
    clock.advance(200);
    await expect(done).resolves.toBe(3);
    expect(seen).toEqual([
      ['NOT_LEADER', 1, 100],
      ['NOT_LEADER', 2, 200],
    ]);
  });

  test('an abort signal stops the wait', async () => {
    const clock = new ManualClock();
    const controller = new AbortController();
    const done = retry(
      async () => {
        throw new TideError('NOT_LEADER', 'moved');
      },
      { attempts: 5, initialBackoffMs: 1_000, maxBackoffMs: 1_000, jitter: 0, signal: controller.signal },
      { clock },
    );
    await flush();
    controller.abort(new Error('stop'));
    await expect(done).rejects.toThrow('stop');
  });

  test('isRetriable reads the retriable flag only', () => {
    expect(isRetriable(new TideError('NOT_LEADER', ''))).toBe(true);
    expect(isRetriable(new TideError('NOT_LEADER', '', { retriable: false }))).toBe(false);
    expect(isRetriable({ retriable: true })).toBe(true);
    expect(isRetriable(new Error('x'))).toBe(false);
    expect(isRetriable(undefined)).toBe(false);
  });

  test('sleep resolves after the delay', async () => {
    const clock = new ManualClock();
    let done = false;
    void sleep(50, clock).then(() => (done = true));
    clock.advance(49);
    await flush();
    expect(done).toBe(false);
    clock.advance(1);
    await flush();
    expect(done).toBe(true);
  });
});
