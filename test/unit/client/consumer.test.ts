import {
  OFFSET_RECORDS,
  encodeBatch,
  readBatchHeader,
  writeBatchCrc,
} from '../../../services/common/records';
import * as recordSection from '../../../services/common/records/record-section';
import { Cluster } from '../../../client/cluster';
import { Consumer, type ConsumerOptions } from '../../../client/consumer';
import { FETCH_YIELD_INTERVAL_MS } from '../../../client/consumer/fetcher';
import type { ConsumerBatch } from '../../../client/types';
import { FakeCluster, type FakePartition } from './fake-broker';

jest.setTimeout(10_000);

const TOPIC = 'c';
const T0 = 1_700_000_000_000;

/** Appends `batches` batches of `perBatch` records; record at offset o has value `v<o>` and timestamp T0 + o. */
function fill(p: FakePartition, batches: number, perBatch: number): void {
  for (let b = 0; b < batches; b++) {
    const first = p.nextOffset;
    const records = Array.from({ length: perBatch }, (_, i) => ({
      key: null,
      value: Buffer.from(`v${first + i}`),
      timestampMs: T0 + first + i,
    }));
    p.append(encodeBatch(records));
  }
}

/** Reads from `consumer.batches()` until `count` records arrived; returns their offsets per partition. */
async function take(
  consumer: Consumer,
  count: number,
): Promise<{ offsets: number[]; batches: ConsumerBatch[] }> {
  const offsets: number[] = [];
  const batches: ConsumerBatch[] = [];
  if (count === 0) return { offsets, batches };
  for await (const batch of consumer.batches()) {
    batches.push(batch);
    for (const r of batch.records) {
      expect(r.value!.toString()).toBe(`v${r.offset}`);
      offsets.push(r.offset);
    }
    if (offsets.length >= count) break;
  }
  return { offsets, batches };
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from }, (_, i) => from + i);
}

describe('Consumer', () => {
  let fake: FakeCluster;
  let cluster: Cluster;
  let p0: FakePartition;
  let p1: FakePartition;
  const consumers: Consumer[] = [];

  beforeEach(async () => {
    fake = await FakeCluster.start(2);
    [p0, p1] = fake.createTopic(TOPIC, 2, 0);
    fill(p0, 4, 5); // offsets 0..19
    fill(p1, 2, 5); // offsets 0..9
    cluster = new Cluster({ bootstrap: fake.bootstrap, unknownTopicWaitMs: 50 });
  });

  afterEach(async () => {
    for (const c of consumers.splice(0)) await c.close();
    cluster.close();
    await fake.stop();
  });

  function consumer(options: ConsumerOptions = {}): Consumer {
    const c = new Consumer(cluster, { retry: { initialBackoffMs: 5, maxBackoffMs: 20 }, ...options });
    consumers.push(c);
    return c;
  }

  test('reads from an offset inside a batch, skipping the records before it', async () => {
    const c = consumer();
    c.assign([{ topic: TOPIC, partition: 0, offset: 7 }]);
    const { offsets, batches } = await take(c, 13);
    expect(offsets).toEqual(range(7, 20));
    expect(batches[0].records[0].offset).toBe(7);
    expect(batches[batches.length - 1]).toMatchObject({
      topic: TOPIC,
      partition: 0,
      highWatermark: 20,
      nextOffset: 20,
    });
    expect(c.position({ topic: TOPIC, partition: 0 })).toBe(20);
  });

  test('a partition added after the metadata was cached is read, not refused (a group assigns new partitions before the watch brings them)', async () => {
    const c = consumer({ autoOffsetReset: 'earliest' });
    c.assign([{ topic: TOPIC, partition: 0, offset: 19 }]);
    await take(c, 1); // the topic's metadata (2 partitions) is cached now
    const [, , p2, p3] = fake.growTopic(TOPIC, 4);
    fill(p2, 1, 3);
    fill(p3, 1, 2);
    c.assign([
      { topic: TOPIC, partition: 0 },
      { topic: TOPIC, partition: 2 }, // from autoOffsetReset: a ListOffsets to its leader
      { topic: TOPIC, partition: 3, offset: 0 }, // a committed offset: straight to the stream
    ]);
    const { batches } = await take(c, 5);
    expect(batches.map((b) => b.partition).sort()).toEqual([2, 3]);
  });

  test('the record iterator yields full records and keeps delivering new data', async () => {
    const c = consumer();
    c.assign([{ topic: TOPIC, partition: 1, offset: 8 }]);
    const seen: { offset: number; topic: string; partition: number; timestampMs: number }[] = [];
    for await (const r of c) {
      seen.push({ offset: r.offset, topic: r.topic, partition: r.partition, timestampMs: r.timestampMs });
      if (r.offset === 9) fill(p1, 1, 3); // arrives while the stream is open
      if (seen.length === 5) break;
    }
    expect(seen.map((r) => r.offset)).toEqual([8, 9, 10, 11, 12]);
    expect(seen[0]).toEqual({ offset: 8, topic: TOPIC, partition: 1, timestampMs: T0 + 8 });
    expect(c.position({ topic: TOPIC, partition: 1 })).toBe(13);
  });

  test('more partitions of one leader than a FetchStream may name are split over several streams', async () => {
    const many = fake.createTopic('many', 2_500, 0);
    fill(many[0], 1, 2);
    fill(many[1_999], 1, 2);
    fill(many[2_499], 1, 2);
    const c = consumer();
    c.assign(many.map((_, partition) => ({ topic: 'many', partition, offset: 0 })));
    const { batches } = await take(c, 6);
    expect(batches.map((b) => b.partition).sort((a, b) => a - b)).toEqual([0, 1_999, 2_499]);
    const sizes = fake.fetchStreamRequests
      .filter((r) => r.positions[0]?.topic === 'many')
      .map((r) => r.positions.length);
    expect(sizes.sort((a, b) => a - b)).toEqual([500, 1_000, 1_000]);
  });

  test('several partitions of one leader share one stream', async () => {
    const c = consumer();
    c.assign([
      { topic: TOPIC, partition: 0, offset: 15 },
      { topic: TOPIC, partition: 1, offset: 5 },
    ]);
    const { batches } = await take(c, 10);
    const byPartition = (p: number) =>
      batches.filter((b) => b.partition === p).flatMap((b) => b.records.map((r) => r.offset));
    expect(byPartition(0)).toEqual(range(15, 20));
    expect(byPartition(1)).toEqual(range(5, 10));
    expect(fake.fetchStreamsOpened).toBe(1);
    expect(fake.fetchStreamMultiCalls).toBe(1); // the stream whose messages carry many partitions
  });

  test('a broker without FetchStreamMulti (an older version) is read through FetchStream', async () => {
    fake.fetchStreamMulti = false;
    const c = consumer();
    c.assign([
      { topic: TOPIC, partition: 0, offset: 15 },
      { topic: TOPIC, partition: 1, offset: 5 },
    ]);
    const { offsets } = await take(c, 10);
    expect(offsets.sort((a, b) => a - b)).toEqual([...range(5, 10), ...range(15, 20)].sort((a, b) => a - b));
    expect(fake.fetchStreamMultiCalls).toBe(1);
    c.seek({ topic: TOPIC, partition: 0 }, 10); // a new stream: straight to FetchStream this time
    const again = await take(c, 5);
    expect(again.offsets.slice(0, 5)).toEqual(range(10, 15));
    expect(fake.fetchStreamMultiCalls).toBe(1);
    expect(fake.fetchStreamsOpened).toBe(2);
  });

  test('seek drops buffered data and continues from the new offset', async () => {
    const c = consumer();
    c.assign([{ topic: TOPIC, partition: 0, offset: 0 }]);
    const first = await take(c, 1);
    expect(first.offsets[0]).toBe(0);
    c.seek({ topic: TOPIC, partition: 0 }, 12);
    expect(c.position({ topic: TOPIC, partition: 0 })).toBe(12);
    const after = await take(c, 8);
    expect(after.offsets).toEqual(range(12, 20));
  });

  test('pause stops a partition, resume continues at its position without gaps or duplicates', async () => {
    const c = consumer();
    const tp0 = { topic: TOPIC, partition: 0 };
    const tp1 = { topic: TOPIC, partition: 1 };
    c.assign([
      { ...tp0, offset: 0 },
      { ...tp1, offset: 0 },
    ]);
    c.pause([tp0]);
    expect(c.paused()).toEqual([tp0]);
    const whilePaused = await take(c, 10);
    expect(whilePaused.batches.every((b) => b.partition === 1)).toBe(true);
    c.resume([tp0]);
    fill(p1, 1, 2);
    const after = await take(c, 22);
    const p0Offsets = after.batches
      .filter((b) => b.partition === 0)
      .flatMap((b) => b.records.map((r) => r.offset));
    const p1Offsets = after.batches
      .filter((b) => b.partition === 1)
      .flatMap((b) => b.records.map((r) => r.offset));
    expect(p0Offsets).toEqual(range(0, 20));
    expect(p1Offsets).toEqual([10, 11]);
  });

  test('seekToBeginning, seekToEnd and seekToTimestamp resolve offsets with ListOffsets', async () => {
    const c = consumer();
    const tp = { topic: TOPIC, partition: 0 };
    c.assign([{ ...tp, offset: 10 }]);
    await c.seekToEnd([tp]);
    expect(c.position(tp)).toBe(20);
    await c.seekToTimestamp(T0 + 13, [tp]);
    expect(c.position(tp)).toBe(13);
    expect((await take(c, 2)).offsets.slice(0, 2)).toEqual([13, 14]);
    await c.seekToTimestamp(T0 + 1_000, [tp]); // no record that late: the end
    expect(c.position(tp)).toBe(20);
    await c.seekToBeginning();
    expect(c.position(tp)).toBe(0);
    expect((await take(c, 3)).offsets.slice(0, 3)).toEqual([0, 1, 2]);
  });

  test("autoOffsetReset 'earliest' restarts an out-of-range partition at the log start", async () => {
    const c = consumer({ autoOffsetReset: 'earliest' });
    c.assign([{ topic: TOPIC, partition: 1, offset: 500 }]);
    expect((await take(c, 10)).offsets).toEqual(range(0, 10));
  });

  test("autoOffsetReset 'latest' restarts an out-of-range partition at the end", async () => {
    const c = consumer({ autoOffsetReset: 'latest' });
    const tp = { topic: TOPIC, partition: 1 };
    c.assign([{ ...tp, offset: 500 }]);
    const reading = take(c, 2);
    while (c.position(tp) !== 10) await new Promise((r) => setTimeout(r, 5));
    fill(p1, 1, 2);
    expect((await reading).offsets).toEqual([10, 11]);
  });

  test('a partition assigned without an offset starts per autoOffsetReset', async () => {
    const c = consumer({ autoOffsetReset: 'earliest' });
    c.assign([{ topic: TOPIC, partition: 1 }]);
    expect((await take(c, 10)).offsets).toEqual(range(0, 10));
  });

  test("autoOffsetReset 'none' surfaces OFFSET_OUT_OF_RANGE; a seek recovers", async () => {
    const c = consumer({ autoOffsetReset: 'none' });
    const tp = { topic: TOPIC, partition: 1 };
    c.assign([{ ...tp, offset: 500 }]);
    await expect(take(c, 1)).rejects.toMatchObject({
      code: 'OFFSET_OUT_OF_RANGE',
      context: { topic: TOPIC, partition: 1 },
    });
    c.seek(tp, 8);
    expect((await take(c, 2)).offsets).toEqual([8, 9]);
  });

  test('a partial trailing batch is dropped and read again whole', async () => {
    fake.cutFetchAfterBytes = 30;
    const c = consumer();
    c.assign([{ topic: TOPIC, partition: 0, offset: 3 }]);
    expect((await take(c, 17)).offsets).toEqual(range(3, 20));
  });

  test('a broker that moves past a cut batch makes the consumer reopen from that batch', async () => {
    fake.cutFetchAfterBytes = 30;
    fake.skipCutBatch = true;
    const c = consumer();
    c.assign([{ topic: TOPIC, partition: 0, offset: 0 }]);
    expect((await take(c, 20)).offsets).toEqual(range(0, 20));
    expect(fake.fetchStreamsOpened).toBeGreaterThan(1);
  });

  test('a broken fetch stream is reopened where it stopped', async () => {
    const c = consumer();
    c.assign([{ topic: TOPIC, partition: 0, offset: 0 }]);
    const first = await take(c, 20);
    expect(first.offsets).toEqual(range(0, 20));
    fake.brokers[0].breakFetchStreams();
    await new Promise((r) => setTimeout(r, 20));
    fill(p0, 1, 3);
    expect((await take(c, 3)).offsets).toEqual([20, 21, 22]);
    expect(fake.fetchStreamsOpened).toBeGreaterThan(1);
  });

  test('NOT_LEADER: metadata is refreshed and the partition is read from its new leader', async () => {
    const c = consumer();
    c.assign([{ topic: TOPIC, partition: 0, offset: 0 }]);
    await take(c, 20);
    p0.leader = 1;
    fake.brokers[0].breakFetchStreams(); // the reconnect goes to broker 0, which says NOT_LEADER
    fill(p0, 1, 2);
    expect((await take(c, 2)).offsets).toEqual([20, 21]);
    expect(fake.fetchStreamRequests.length).toBeGreaterThanOrEqual(2);
  });

  test('a batch that fails its CRC is refetched, then surfaced as CORRUPT_MESSAGE', async () => {
    const stored = p1.batches[1].bytes;
    stored[stored.length - 1] ^= 0xff; // corrupt on the broker's "disk": every refetch fails too
    const c = consumer({ retry: { attempts: 3, initialBackoffMs: 1, maxBackoffMs: 1 } });
    c.assign([{ topic: TOPIC, partition: 1, offset: 0 }]);
    const seen: number[] = [];
    const err = await (async () => {
      for await (const b of c.batches()) seen.push(...b.records.map((r) => r.offset));
    })().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CORRUPT_MESSAGE', context: { topic: TOPIC, partition: 1 } });
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    expect(fake.fetchStreamsOpened).toBeGreaterThanOrEqual(3);
    expect(c.position({ topic: TOPIC, partition: 1 })).toBe(5);
  });

  test('batches count and carry their bytes; records are built on first read', async () => {
    const build = jest.spyOn(recordSection, 'readRecordSection');
    const c = consumer();
    c.assign([{ topic: TOPIC, partition: 0, offset: 7 }]);
    let counted = 0;
    const firstBaseOffsets: number[] = [];
    const batches: ConsumerBatch[] = [];
    for await (const b of c.batches()) {
      batches.push(b);
      firstBaseOffsets.push(readBatchHeader(b.recordBatches, 0).baseOffset);
      counted += b.recordCount;
      if (counted >= 13) break;
    }
    expect(build).not.toHaveBeenCalled();
    expect(batches[0].records.map((r) => r.offset)).toEqual(range(7, 7 + batches[0].recordCount));
    const calls = build.mock.calls.length;
    expect(calls).toBeGreaterThan(0);
    expect(batches[0].records).toBe(batches[0].records);
    expect(build).toHaveBeenCalledTimes(calls);
    build.mockRestore();
    expect(counted).toBe(13);
    expect(firstBaseOffsets[0]).toBe(5); // the stored batch 5..9 that holds offset 7
    expect(c.position({ topic: TOPIC, partition: 0 })).toBe(20);
  });

  test('a malformed record under a valid CRC stops the partition before its batch', async () => {
    const stored = p1.batches[1].bytes; // offsets 5..9
    stored.writeUInt16BE(0xfe01, OFFSET_RECORDS); // the first record claims more bytes than there are
    writeBatchCrc(stored);
    const c = consumer();
    c.assign([{ topic: TOPIC, partition: 1, offset: 0 }]);
    let counted = 0;
    const err = await (async () => {
      for await (const b of c.batches()) counted += b.recordCount; // records never read
    })().catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'INVALID_RECORD', context: { topic: TOPIC, partition: 1, offset: 5 } });
    expect(counted).toBe(5);
    expect(c.position({ topic: TOPIC, partition: 1 })).toBe(5);
  });

  test('unary fetch reads one partition from an offset, independent of the assignment', async () => {
    const c = consumer();
    const r = await c.fetch({ topic: TOPIC, partition: 0 }, 6, { maxBytes: 1 });
    expect(r.records.map((x) => x.offset)).toEqual([6, 7, 8, 9]);
    expect(r).toMatchObject({
      topic: TOPIC,
      partition: 0,
      highWatermark: 20,
      logStartOffset: 0,
      nextOffset: 10,
    });
    await expect(c.fetch({ topic: TOPIC, partition: 0 }, 99)).rejects.toMatchObject({
      code: 'OFFSET_OUT_OF_RANGE',
      retriable: false,
    });
  });

  test('operations on an unassigned partition are refused', () => {
    const c = consumer();
    expect(() => c.seek({ topic: TOPIC, partition: 0 }, 1)).toThrow(/not assigned/);
  });

  test('close ends the iterators', async () => {
    const c = consumer();
    c.assign([{ topic: TOPIC, partition: 0, offset: 20 }]);
    const iterating = (async () => {
      let n = 0;
      for await (const _batch of c.batches()) n++;
      return n;
    })();
    await new Promise((r) => setTimeout(r, 20));
    await c.close();
    await expect(iterating).resolves.toBe(0);
  });

  test('handing out buffered chunks lets the event loop turn at least every FETCH_YIELD_INTERVAL_MS', async () => {
    fill(p0, 200, 5); // offsets 20..1019: with maxBytes 1, a chunk per stored batch
    const c = consumer({ maxBytes: 1 });
    c.assign([{ topic: TOPIC, partition: 0, offset: 0 }]);
    const it = c.batches()[Symbol.asyncIterator]();
    let read = (await it.next()).value!.recordCount;
    // Let the stream buffer the rest before reading on.
    for (let waited = 0; waited < 5_000 && fake.fetchStreamRequests.length === 0; waited += 10) {
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, 300));
    let chunks = 0;
    // At these chunks an immediate is scheduled; each notes how many chunks were handed out before it ran.
    const waits = new Map<number, number | undefined>([20, 50, 80].map((at) => [at, undefined]));
    while (read < 1_020) {
      const { value } = await it.next();
      read += value!.recordCount;
      chunks++;
      if (waits.has(chunks)) {
        const at = chunks;
        setImmediate(() => waits.set(at, chunks - at));
      }
      // 3 ms of synchronous work per chunk, as an application's processing would be.
      const until = performance.now() + 3;
      while (performance.now() < until);
    }
    await it.return?.(undefined);
    expect(chunks).toBeGreaterThan(100);
    // Each ran within ~10 ms of work (a few chunks), not once the buffer was empty.
    for (const waited of waits.values()) {
      expect(waited).toBeLessThanOrEqual(Math.ceil(FETCH_YIELD_INTERVAL_MS / 3) + 1);
    }
  });
});
