import type { DeletedRecords, RecordsToDelete } from '../../../client';
import { silentLogger } from '../../../services/common/logger';
import { RepartitionPurger } from '../../../streams/runtime/purge';

const REPARTITION = 'app-counts-repartition';

/** A purger whose deleteRecords calls are recorded and settled by the test. */
function harness(intervalMs: number) {
  let now = 1_000;
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
    nowMs: () => now,
    logger: silentLogger(),
  });
  const flush = () => new Promise((resolve) => setImmediate(resolve));
  return { purger, calls, advance: (ms: number) => (now += ms), flush };
}

describe('repartition purge', () => {
  it('deletes only internal topics, up to the committed offsets, once per interval, one request at a time', async () => {
    const { purger, calls, advance, flush } = harness(100);
    purger.committed([
      { topic: 'input', partition: 0, offset: 50 },
      { topic: REPARTITION, partition: 0, offset: 10 },
      { topic: REPARTITION, partition: 1, offset: 0 }, // nothing below 0
    ]);
    expect(calls.map((c) => c.partitions)).toEqual([[{ topic: REPARTITION, partition: 0, offset: 10 }]]);

    // Within the interval, and while a request is in flight: collected, not sent.
    purger.committed([{ topic: REPARTITION, partition: 0, offset: 20 }]);
    purger.committed([{ topic: REPARTITION, partition: 1, offset: 5 }]);
    advance(100);
    purger.committed([{ topic: REPARTITION, partition: 0, offset: 15 }]); // older than 20: ignored
    expect(calls).toHaveLength(1);
    calls[0].settle();
    await flush();
    expect(purger.purges).toBe(1);

    purger.committed([]);
    expect(calls[1].partitions).toEqual([
      { topic: REPARTITION, partition: 0, offset: 20 },
      { topic: REPARTITION, partition: 1, offset: 5 },
    ]);
    calls[1].settle();
    await purger.close();
    advance(1_000);
    purger.committed([{ topic: REPARTITION, partition: 0, offset: 30 }]);
    expect(calls).toHaveLength(2); // closed: nothing more
  });

  it('a failed purge goes again with the next commit; newer offsets win', async () => {
    const { purger, calls, advance, flush } = harness(0);
    purger.committed([
      { topic: REPARTITION, partition: 0, offset: 10 },
      { topic: REPARTITION, partition: 1, offset: 7 },
    ]);
    purger.committed([{ topic: REPARTITION, partition: 0, offset: 12 }]);
    calls[0].settle(new Error('NOT_LEADER'));
    await flush();
    expect(purger.purges).toBe(0);
    advance(1);
    purger.committed([]);
    expect(calls[1].partitions).toEqual([
      { topic: REPARTITION, partition: 0, offset: 12 },
      { topic: REPARTITION, partition: 1, offset: 7 },
    ]);
    calls[1].settle();
    await purger.close();
    expect(purger.purges).toBe(1);
  });
});
