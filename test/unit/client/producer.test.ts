import { ManualClock } from '../../../services/common/clock';
import { TideError } from '../../../services/common/errors';
import { CompressionCodec, compressionOf, readBatchHeader } from '../../../services/common/records';
import { Cluster } from '../../../client/cluster';
import { Producer, type ProducerOptions } from '../../../client/producer';
import { partitionForKey } from '../../../client/producer/partitioner';
import { FakeCluster, waitFor } from './fake-broker';

const TOPIC = 't';
jest.setTimeout(10_000);

describe('Producer', () => {
  let fake: FakeCluster;
  let cluster: Cluster;
  const producers: Producer[] = [];

  beforeEach(async () => {
    fake = await FakeCluster.start(2);
    fake.createTopic(TOPIC, 3, 0);
    cluster = new Cluster({ bootstrap: fake.bootstrap, unknownTopicWaitMs: 50 });
  });

  afterEach(async () => {
    for (const p of producers.splice(0)) await p.close().catch(() => undefined);
    cluster.close();
    await fake.stop();
  });

  function producer(options: ProducerOptions = {}): Producer {
    const p = new Producer(cluster, { retry: { initialBackoffMs: 1, maxBackoffMs: 5 }, ...options });
    producers.push(p);
    return p;
  }

  test('send resolves with the partition and offset of each record, in order', async () => {
    const p = producer({ lingerMs: 0 });
    const a = await p.send(TOPIC, { key: null, value: 'a', partition: 1 });
    const b = await p.send(TOPIC, { value: Buffer.from('b'), partition: 1 });
    expect(a).toMatchObject({ topic: TOPIC, partition: 1, offset: 0 });
    expect(b).toMatchObject({ topic: TOPIC, partition: 1, offset: 1 });
    const stored = fake.partition(TOPIC, 1).records();
    expect(stored.map((r) => r.value!.toString())).toEqual(['a', 'b']);
    expect(fake.produced(TOPIC).every((e) => e.via === 'stream' && e.acks === 'ACKS_ALL')).toBe(true);
  });

  test('sendBatch returns index-aligned partitions and offsets, one promise for the call', async () => {
    const p = producer();
    const values = Array.from({ length: 100 }, (_, i) => Buffer.from(`v${i}`));
    const result = await p.sendBatch(TOPIC, values, { partition: 2 });
    expect(result.count).toBe(100);
    expect([...result.partitions].every((x) => x === 2)).toBe(true);
    expect([...result.offsets]).toEqual(values.map((_, i) => i));
    expect(
      fake
        .partition(TOPIC, 2)
        .records()
        .map((r) => r.value!.toString()),
    ).toEqual(values.map((v) => v.toString()));
  });

  test('records wait lingerMs before they are sent, then go as one batch', async () => {
    const clock = new ManualClock();
    const p = producer({ lingerMs: 50, clock });
    await p.connect();
    await cluster.topicMetadata(TOPIC);
    const sends = [0, 1, 2].map((i) => p.send(TOPIC, { value: `r${i}`, partition: 0 }));
    await new Promise((r) => setTimeout(r, 20));
    expect(fake.produced(TOPIC)).toHaveLength(0);
    clock.advance(49);
    await new Promise((r) => setTimeout(r, 20));
    expect(fake.produced(TOPIC)).toHaveLength(0);
    clock.advance(1);
    const results = await Promise.all(sends);
    expect(results.map((r) => r.offset)).toEqual([0, 1, 2]);
    expect(fake.produced(TOPIC)).toHaveLength(1);
    expect(fake.produced(TOPIC)[0].recordCount).toBe(3);
  });

  test('a batch that reaches batchBytes is sent without waiting for linger', async () => {
    const clock = new ManualClock();
    const p = producer({ lingerMs: 60_000, batchBytes: 1024, clock });
    const value = Buffer.alloc(100, 1);
    const sending = p.sendBatch(
      TOPIC,
      Array.from({ length: 25 }, () => value),
      { partition: 0 },
    );
    await waitFor(() => fake.produced(TOPIC).length >= 2, 5_000, 'full batches to be sent');
    for (const e of fake.produced(TOPIC)) {
      expect(e.recordCount).toBeGreaterThan(1);
      expect(e.bytes).toBeLessThanOrEqual(1024); // never past batchBytes: the next record starts a new batch
    }
    clock.advance(60_000); // the partial last batch goes when its linger expires
    const result = await sending;
    expect([...result.offsets]).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  test('flush sends lingering batches at once', async () => {
    const clock = new ManualClock();
    const p = producer({ lingerMs: 60_000, clock });
    const sending = p.send(TOPIC, { value: 'x', partition: 0 });
    await p.flush();
    await expect(sending).resolves.toMatchObject({ offset: 0 });
  });

  test('at most maxInFlight batches per partition are outstanding, and offsets keep call order', async () => {
    const release = fake.hold();
    const p = producer({ lingerMs: 0, batchBytes: 200, maxInFlight: 2 });
    const value = Buffer.alloc(150, 7);
    const sends = Array.from({ length: 6 }, (_, i) =>
      p.send(TOPIC, { value, partition: 0, headers: { i: String(i) } }),
    );
    await waitFor(() => fake.produced(TOPIC).length === 2, 5_000, 'two batches in flight');
    await new Promise((r) => setTimeout(r, 30));
    expect(fake.produced(TOPIC)).toHaveLength(2);
    release();
    const results = await Promise.all(sends);
    expect(results.map((r) => r.offset)).toEqual([0, 1, 2, 3, 4, 5]);
    const stored = fake.partition(TOPIC, 0).records();
    expect(stored.map((r) => r.headers[0].value!.toString())).toEqual(['0', '1', '2', '3', '4', '5']);
    const sequences = fake.produced(TOPIC).map((e) => e.baseSequence);
    expect(sequences).toEqual([...sequences].sort((a, b) => a - b));
  });

  test('NOT_LEADER: refreshes metadata and resends to the new leader', async () => {
    const p = producer({ lingerMs: 0 });
    await p.send(TOPIC, { value: 'before', partition: 0 });
    fake.partition(TOPIC, 0).leader = 1; // broker 0 now answers NOT_LEADER
    const metadataBefore = fake.metadataRequests;
    const moved = await p.send(TOPIC, { value: 'after', partition: 0 });
    expect(moved.offset).toBe(1);
    expect(fake.metadataRequests).toBeGreaterThan(metadataBefore);
    const log = fake.produced(TOPIC, 0);
    expect(log.map((e) => e.broker)).toEqual([0, 0, 1]);
  });

  test('an idempotent retry resends the same sequence and the broker keeps one copy', async () => {
    const p = producer({ lingerMs: 0 });
    fake.faults.push({ errorAfterAppend: { code: 'REQUEST_TIMED_OUT', retriable: true } });
    const r = await p.sendBatch(
      TOPIC,
      ['a', 'b', 'c'].map((v) => ({ value: v })),
      { partition: 0 },
    );
    expect([...r.offsets]).toEqual([0, 1, 2]);
    const log = fake.produced(TOPIC, 0);
    expect(log).toHaveLength(2);
    expect(log[1].producerId).toBe(log[0].producerId);
    expect(log[1].baseSequence).toBe(log[0].baseSequence);
    expect(fake.partition(TOPIC, 0).records()).toHaveLength(3);
  });

  test('a broken stream fails in-flight batches over to a retry on a new stream', async () => {
    const p = producer({ lingerMs: 0 });
    fake.faults.push({ breakStream: { append: true } });
    const r = await p.send(TOPIC, { value: 'once', partition: 0 });
    expect(r.offset).toBe(0);
    expect(fake.partition(TOPIC, 0).records()).toHaveLength(1);
    expect(fake.produced(TOPIC, 0)).toHaveLength(2);
  });

  test('a request unanswered for requestTimeoutMs fails its stream and is resent (deduplicated)', async () => {
    const p = producer({ lingerMs: 0, requestTimeoutMs: 100 });
    fake.faults.push({ blackhole: true });
    const r = await p.send(TOPIC, { value: 'slow', partition: 0 });
    expect(r.offset).toBe(0);
    const log = fake.produced(TOPIC, 0);
    expect(log).toHaveLength(2);
    expect(log[1].baseSequence).toBe(log[0].baseSequence);
    expect(fake.partition(TOPIC, 0).records()).toHaveLength(1);
  });

  test('OUT_OF_ORDER_SEQUENCE fails that batch and later ones of the partition; the partition then starts over', async () => {
    const release = fake.hold();
    const p = producer({ lingerMs: 0, batchBytes: 100, maxInFlight: 1 });
    fake.faults.push({ error: { code: 'OUT_OF_ORDER_SEQUENCE', retriable: false } });
    const value = Buffer.alloc(120, 1);
    const first = p.send(TOPIC, { value, partition: 0 });
    await waitFor(() => fake.produced(TOPIC).length === 1);
    const second = p.send(TOPIC, { value, partition: 0 }); // queued behind the failing one
    const other = p.send(TOPIC, { value, partition: 1 });
    release();
    await expect(first).rejects.toMatchObject({ code: 'OUT_OF_ORDER_SEQUENCE', retriable: false });
    await expect(second).rejects.toThrow(/earlier batch of t\/0 failed/);
    await expect(other).resolves.toMatchObject({ partition: 1, offset: 0 });
    const after = await p.send(TOPIC, { value, partition: 0 });
    expect(after.offset).toBe(0);
    const log = fake.produced(TOPIC, 0);
    expect(log).toHaveLength(2);
    expect(log[1].baseSequence).toBe(0);
    expect(log[1].producerId).not.toBe(log[0].producerId);
  });

  test('keyed records go to murmur2 partitions (Kafka-compatible)', async () => {
    const p = producer();
    const keys = ['foobar', 'key1', 'user-42', '21', 'a-little-bit-long-string'];
    const r = await p.sendBatch(
      TOPIC,
      keys.map((key) => ({ key, value: key })),
    );
    expect([...r.partitions]).toEqual([0, 2, 1, 0, 2]); // docs COMPAT.md vectors for 3 partitions
    expect([...r.partitions]).toEqual(keys.map((k) => partitionForKey(Buffer.from(k), 3)));
  });

  test('null keys stick to one partition until its batch closes, then switch', async () => {
    const randoms = [0.1, 0.5, 0.9, 0.5];
    const p = producer({ lingerMs: 60_000, batchBytes: 300, random: () => randoms.shift() ?? 0 });
    const value = Buffer.alloc(100, 2);
    const r = await Promise.all([
      p.sendBatch(
        TOPIC,
        Array.from({ length: 9 }, () => value),
      ),
      p.flush(),
    ]).then(([x]) => x);
    const partitions = [...r.partitions];
    // 3 records of ~110 bytes fill a 300-byte batch: runs of 3 per partition, switching each time
    expect(partitions).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2]);
  });

  test('explicit partition beats the key; a partition out of range is UNKNOWN_PARTITION', async () => {
    const p = producer({ lingerMs: 0 });
    await expect(p.send(TOPIC, { key: 'foobar', value: 'v', partition: 2 })).resolves.toMatchObject({
      partition: 2,
    });
    await expect(p.send(TOPIC, { value: 'v', partition: 3 })).rejects.toMatchObject({
      code: 'UNKNOWN_PARTITION',
    });
  });

  test('a partition added after the metadata was cached is sent to, not refused at once', async () => {
    const p = producer({ lingerMs: 0 });
    await p.send(TOPIC, { value: 'v', partition: 0 }); // caches the topic with 3 partitions
    fake.growTopic(TOPIC, 5);
    await expect(p.send(TOPIC, { value: 'new', partition: 4 })).resolves.toMatchObject({ partition: 4 });
    const batch = await p.sendBatch(TOPIC, [
      { value: 'x', partition: 3 },
      { value: 'y', partition: 4 },
    ]);
    expect([...batch.partitions]).toEqual([3, 4]);
    expect(
      fake
        .partition(TOPIC, 4)
        .records()
        .map((r) => r.value!.toString()),
    ).toEqual(['new', 'y']);
    await expect(p.send(TOPIC, { value: 'v', partition: 5 })).rejects.toMatchObject({
      code: 'UNKNOWN_PARTITION',
    });
  });

  test('acks none resolves once written, with offset -1, and the broker still gets the records', async () => {
    const p = producer({ acks: 'none', lingerMs: 0 });
    const r = await p.send(TOPIC, { value: 'fire', partition: 0 });
    expect(r.offset).toBe(-1);
    const batch = await p.sendBatch(TOPIC, [Buffer.from('x'), Buffer.from('y')], { partition: 0 });
    expect([...batch.offsets]).toEqual([-1, -1]);
    await waitFor(() => fake.partition(TOPIC, 0).records().length === 3);
    expect(fake.produced(TOPIC).every((e) => e.acks === 'ACKS_NONE' && e.producerId === -1)).toBe(true);
  });

  test('idempotence requires acks all', () => {
    expect(() => new Producer(cluster, { acks: 'leader', idempotence: true })).toThrow(TideError);
    expect(() => producer({ acks: 'leader' })).not.toThrow();
  });

  test('backpressure: send waits while maxBufferedBytes are unacknowledged', async () => {
    const release = fake.hold();
    const p = producer({ lingerMs: 0, batchBytes: 1024, maxBufferedBytes: 4096 });
    const value = Buffer.alloc(500, 3);
    const first = p.sendBatch(
      TOPIC,
      Array.from({ length: 8 }, () => value),
      { partition: 0 },
    );
    await waitFor(() => fake.produced(TOPIC).length > 0);
    let secondAccepted = false;
    const second = p.sendBatch(TOPIC, [value], { partition: 0 });
    void p.ready().then(() => (secondAccepted = true));
    await new Promise((r) => setTimeout(r, 30));
    expect(p.bufferedBytes).toBeGreaterThanOrEqual(4096);
    expect(p.bufferedBytes).toBeLessThan(4096 + 1024);
    expect(secondAccepted).toBe(false);
    release();
    const [a, b] = await Promise.all([first, second]);
    expect(b.offsets[0]).toBe(a.offsets[7] + 1);
    expect(secondAccepted).toBe(true);
    expect(p.bufferedBytes).toBe(0);
  });

  test('ready() waits while calls queue behind the producer identity (what Tide Streams paces itself by)', async () => {
    let releaseInit!: () => void;
    fake.holdInitProducerId = new Promise((resolve) => (releaseInit = resolve));
    const p = producer({ lingerMs: 0 });
    const sent = p.sendBatch(TOPIC, [Buffer.from('a'), Buffer.from('b')], { partition: 0 });
    let ready = false;
    void p.ready().then(() => (ready = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(ready).toBe(false);
    expect(fake.produced(TOPIC)).toHaveLength(0);
    releaseInit();
    await waitFor(() => ready);
    expect((await sent).offsets).toHaveLength(2);
  });

  test('a non-retriable broker error rejects with its code; a retriable one is retried until it succeeds', async () => {
    const p = producer({ lingerMs: 0 });
    fake.faults.push({ error: { code: 'MESSAGE_TOO_LARGE', retriable: false, message: 'too big' } });
    const err = await p.send(TOPIC, { value: 'v', partition: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TideError);
    expect(err).toMatchObject({
      code: 'MESSAGE_TOO_LARGE',
      retriable: false,
      context: { topic: TOPIC, partition: 0 },
    });
    fake.faults.push({ error: { code: 'NOT_ENOUGH_REPLICAS', retriable: true }, times: 2 });
    await expect(p.send(TOPIC, { value: 'v', partition: 0 })).resolves.toMatchObject({ offset: 0 });
  });

  test('retries are bounded by retry.attempts', async () => {
    const p = producer({ lingerMs: 0, retry: { attempts: 3, initialBackoffMs: 1, maxBackoffMs: 1 } });
    fake.faults.push({ error: { code: 'NOT_ENOUGH_REPLICAS', retriable: true }, times: 10 });
    await expect(p.send(TOPIC, { value: 'v', partition: 0 })).rejects.toMatchObject({
      code: 'NOT_ENOUGH_REPLICAS',
    });
    expect(fake.produced(TOPIC, 0)).toHaveLength(3);
  });

  test('retries go on until the delivery timeout (no try count by default), then fail with the last error', async () => {
    const p = producer({ lingerMs: 0, deliveryTimeoutMs: 1_500 });
    fake.faults.push({ error: { code: 'NOT_ENOUGH_REPLICAS', retriable: true }, times: 100_000 });
    const err = await p.send(TOPIC, { value: 'v', partition: 0 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'NOT_ENOUGH_REPLICAS', retriable: false });
    expect(String((err as Error).message)).toContain('delivery timeout of 1500 ms');
    // More than the old budget of 10 tries: the time bounds the retries, not a count.
    expect(fake.produced(TOPIC, 0).length).toBeGreaterThan(10);
    fake.faults.length = 0;
  });

  test('when the metadata moves a partition, in-flight batches go to the new leader at once', async () => {
    const p = producer({ lingerMs: 0 });
    await p.send(TOPIC, { value: 'first', partition: 0 }); // leader 0
    const release = fake.holdBroker(0); // the leader pauses with the next batches in flight
    const sends = ['a', 'b', 'c'].map((value) => p.send(TOPIC, { value, partition: 0 }));
    await waitFor(() => fake.produced(TOPIC, 0).length >= 2);
    fake.partition(TOPIC, 0).leader = 1;
    await cluster.refresh([TOPIC]); // what the metadata watch delivers
    const results = await Promise.all(sends); // no request timeout, no release of broker 0
    expect(results.map((r) => r.offset)).toEqual([1, 2, 3]);
    expect(fake.produced(TOPIC, 0).some((e) => e.broker === 1)).toBe(true);
    release();
    expect(
      fake
        .partition(TOPIC, 0)
        .records()
        .map((r) => r.value!.toString()),
    ).toEqual(['first', 'a', 'b', 'c']);
  });

  test('unknown topics fail with UNKNOWN_TOPIC after the metadata wait', async () => {
    const p = producer();
    await expect(p.send('nope', { value: 'v' })).rejects.toMatchObject({ code: 'UNKNOWN_TOPIC' });
  });

  test('gzip batches carry the codec in their attributes', async () => {
    const p = producer({ compression: 'gzip', lingerMs: 0 });
    await p.sendBatch(
      TOPIC,
      Array.from({ length: 50 }, () => ({ value: 'compress me please' })),
      { partition: 0 },
    );
    const batch = fake.partition(TOPIC, 0).batches[0].bytes;
    expect(compressionOf(readBatchHeader(batch).attributes)).toBe(CompressionCodec.Gzip);
    expect(fake.partition(TOPIC, 0).records()).toHaveLength(50);
  });

  test('close flushes and later sends are refused', async () => {
    const p = producer({ lingerMs: 60_000 });
    const pending = p.send(TOPIC, { value: 'last', partition: 0 });
    await p.close();
    await expect(pending).resolves.toMatchObject({ offset: 0 });
    await expect(p.send(TOPIC, { value: 'late' })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });
});
