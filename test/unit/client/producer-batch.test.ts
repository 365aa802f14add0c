import { BatchResult, SendSink, incrementSequence } from '../../../client/producer/batch';
import type { BatchMetadata, RecordMetadata } from '../../../client/types';

describe('incrementSequence', () => {
  test.each([
    [0, 1, 1],
    [10, 5, 15],
    [0x7fffffff - 5, 5, 0x7fffffff],
    [0x7fffffff - 5, 6, 0],
    [0x7fffffff, 1, 0],
    [0x7fffffff - 1, 10, 8],
  ])('%i + %i wraps like Kafka to %i', (seq, inc, expected) => {
    expect(incrementSequence(seq, inc)).toBe(expected);
  });
});

describe('BatchResult', () => {
  const result = new BatchResult('t', 6, [
    { index: 0, count: 2, partition: 1, firstOffset: 10 },
    { index: 2, count: 1, partition: 0, firstOffset: 7 },
    { index: 3, count: 3, partition: 1, firstOffset: 12 },
  ]);

  test('per-record lookups from ranges', () => {
    expect([0, 1, 2, 3, 4, 5].map((i) => result.partitionOf(i))).toEqual([1, 1, 0, 1, 1, 1]);
    expect([0, 1, 2, 3, 4, 5].map((i) => result.offsetOf(i))).toEqual([10, 11, 7, 12, 13, 14]);
    expect(() => result.offsetOf(6)).toThrow(RangeError);
  });

  test('typed arrays are built on demand and index-aligned', () => {
    expect([...result.partitions]).toEqual([1, 1, 0, 1, 1, 1]);
    expect([...result.offsets]).toEqual([10, 11, 7, 12, 13, 14]);
    expect(result.offsets).toBe(result.offsets);
  });

  test('acks none ranges give -1 offsets', () => {
    const none = new BatchResult('t', 2, [{ index: 0, count: 2, partition: 0, firstOffset: -1 }]);
    expect([...none.offsets]).toEqual([-1, -1]);
    expect(none.offsetOf(1)).toBe(-1);
  });
});

describe('SendSink', () => {
  test('a batch sink resolves once every record is accounted for, ranges sorted by index', async () => {
    let resolved: BatchMetadata | undefined;
    const sink = new SendSink(
      't',
      5,
      false,
      null,
      (r) => (resolved = r),
      () => undefined,
    );
    sink.complete(2, 3, 100, 2, -1);
    expect(resolved).toBeUndefined();
    sink.complete(0, 0, 40, 3, -1);
    expect(resolved).toBeDefined();
    expect(resolved!.ranges.map((r) => r.index)).toEqual([0, 3]);
    expect([...resolved!.offsets]).toEqual([40, 41, 42, 100, 101]);
  });

  test('a failure settles the sink once; later completions are ignored', () => {
    const errors: unknown[] = [];
    let value: RecordMetadata | undefined;
    const sink = new SendSink(
      't',
      1,
      true,
      (v) => (value = v),
      null,
      (e) => errors.push(e),
    );
    sink.fail(new Error('boom'));
    sink.complete(0, 0, 1, 1, -1);
    sink.fail(new Error('again'));
    expect(errors).toHaveLength(1);
    expect(value).toBeUndefined();
    expect(sink.settled).toBe(true);
  });

  test('a single sink reports the log append time when the broker sets one', () => {
    let value: RecordMetadata | undefined;
    const sink = new SendSink(
      't',
      1,
      true,
      (v) => (value = v),
      null,
      () => undefined,
    );
    sink.timestampMs = 5;
    sink.complete(3, 0, 9, 1, 1234);
    expect(value).toEqual({ topic: 't', partition: 3, offset: 9, timestampMs: 1234 });
  });
});
