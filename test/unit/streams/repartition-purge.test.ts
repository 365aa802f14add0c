import type { DeletedRecords, RecordsToDelete } from '../../../client';
import { ManualClock } from '../../../services/common/clock';
import { silentLogger } from '../../../services/common/logger';
import { RepartitionPurger } from '../../../streams/runtime/purge';

const REPARTITION = 'app-counts-repartition';

/** A purger whose deleteRecords calls are recorded and settled by the test. */
function harness(intervalMs: number) {
  const clock = new ManualClock(1_000);
  // Counts the purger's timers that are still armed (neither fired nor cancelled).
  let armed = 0;
  const setTimer = clock.setTimeout.bind(clock);
  clock.setTimeout = (fn, delayMs) => {
    armed++;
    const timer = setTimer(() => {
      armed--;
      fn();
    }, delayMs);
    return { cancel: () => (armed--, timer.cancel()) };
  };
  const calls: { partitions: RecordsToDelete[]; settle: (err?: Error) => void }[] = [];
  const purger = new RepartitionPurger({
    deleteRecords: (partitions) =>
      new Promise<DeletedRecords[]>((resolve, reject) =>
        calls.push({
          partitions,
          settle: (err) =>
            err ? reject(err) : resolve(partitions.map((p) => ({ ...p, lowWatermark: p.offset }))),
        }),
      ),
    topics: new Set([REPARTITION]),
    intervalMs,
    clock,
    logger: silentLogger(),
  });
  const flush = () => new Promise((resolve) => setImmediate(resolve));
  return { purger, calls, advance: (ms: number) => clock.advance(ms), flush, pendingTimers: () => armed };
}

describe('repartition purge', () => {
  it('deletes only internal topics, up to the committed offsets, once per interval, one request at a time', async () => {
    const { purger, calls, advance, flush, pendingTimers } = harness(100);
    purger.committed([
      { topic: 'input', partition: 0, offset: 50 },
      { topic: REPARTITION, partition: 0, offset: 10 },
      { topic: REPARTITION, partition: 1, offset: 0 }, // nothing below 0
    ]);
    expect(calls.map((c) => c.partitions)).toEqual([[{ topic: REPARTITION, partition: 0, offset: 10 }]]);

    // Within the interval, and while a request is in flight: collected, not sent.
    purger.committed([{ topic: REPARTITION, partition: 0, offset: 20 }]);
    purger.committed([{ topic: REPARTITION, partition: 1, offset: 5 }]);
    purger.committed([{ topic: REPARTITION, partition: 0, offset: 15 }]); // older than 20: ignored
    expect(calls).toHaveLength(1);
    calls[0].settle();
    await flush();
    expect(purger.purges).toBe(1);

    // The interval has not passed: the collected offsets wait for it, with no further commit.
    expect(calls).toHaveLength(1);
    advance(99);
    expect(calls).toHaveLength(1);
    advance(1);
    expect(calls[1].partitions).toEqual([
      { topic: REPARTITION, partition: 0, offset: 20 },
      { topic: REPARTITION, partition: 1, offset: 5 },
    ]);
    calls[1].settle();
    await purger.close();
    advance(1_000);
    purger.committed([{ topic: REPARTITION, partition: 0, offset: 30 }]);
    expect(calls).toHaveLength(2); // closed: nothing more
    expect(pendingTimers()).toBe(0);
  });

  it('what is committed while a purge is in flight goes as soon as it ends, though nothing more is committed', async () => {
    const { purger, calls, flush } = harness(0);
    purger.committed([{ topic: REPARTITION, partition: 0, offset: 10 }]);
    purger.committed([{ topic: REPARTITION, partition: 2, offset: 4 }]); // the app's last commit
    calls[0].settle();
    await flush();
    expect(calls[1].partitions).toEqual([{ topic: REPARTITION, partition: 2, offset: 4 }]);
    calls[1].settle();
    await flush();
    expect(purger.purges).toBe(2);
    expect(calls).toHaveLength(2);
  });

  it('a failed purge is retried after a growing backoff; newer offsets win', async () => {
    const { purger, calls, advance, flush } = harness(0);
    purger.committed([
      { topic: REPARTITION, partition: 0, offset: 10 },
      { topic: REPARTITION, partition: 1, offset: 7 },
    ]);
    purger.committed([{ topic: REPARTITION, partition: 0, offset: 12 }]);
    calls[0].settle(new Error('NOT_LEADER'));
    await flush();
    expect(purger.purges).toBe(0);
    purger.committed([]); // a commit within the backoff sends nothing
    advance(499);
    expect(calls).toHaveLength(1);
    advance(1);
    expect(calls[1].partitions).toEqual([
      { topic: REPARTITION, partition: 0, offset: 12 },
      { topic: REPARTITION, partition: 1, offset: 7 },
    ]);
    calls[1].settle(new Error('NOT_LEADER'));
    await flush();
    advance(999);
    expect(calls).toHaveLength(2); // the second failure waits twice as long
    advance(1);
    expect(calls).toHaveLength(3);
    calls[2].settle();
    await purger.close();
    expect(purger.purges).toBe(1);
  });
});
