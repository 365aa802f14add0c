import type { BatchMetadata, ProducerRecord } from '../../../client/types';
import { SendBatcher } from '../../../streams/runtime/send-batcher';

/** A producer stand-in: records each call, answers offsets from 100 per topic. */
function fakeProducer() {
  const calls: { topic: string; values: string[] }[] = [];
  const next = new Map<string, number>();
  const sendBatch = (topic: string, records: ProducerRecord[]): Promise<BatchMetadata> => {
    calls.push({ topic, values: records.map((r) => String(r.value)) });
    const first = next.get(topic) ?? 100;
    next.set(topic, first + records.length);
    const offsets = Float64Array.from(records, (_r, i) => first + i);
    return Promise.resolve({ topic, count: records.length, offsets } as unknown as BatchMetadata);
  };
  return { calls, sendBatch };
}

describe('SendBatcher', () => {
  test('one producer call per topic per turn, in add order, with each offset handed back', async () => {
    const { calls, sendBatch } = fakeProducer();
    const tracked: Promise<unknown>[] = [];
    const batcher = new SendBatcher(sendBatch, (p) => tracked.push(p));
    const offsets: number[] = [];
    batcher.add('out', { value: 'a' });
    batcher.add('log', { value: 'x' }, (o) => offsets.push(o));
    batcher.add('out', { value: 'b' });
    batcher.add('log', { value: 'y' }, (o) => offsets.push(o));
    expect(calls).toEqual([]); // held until the end of the turn
    await Promise.resolve();
    expect(calls).toEqual([
      { topic: 'out', values: ['a', 'b'] },
      { topic: 'log', values: ['x', 'y'] },
    ]);
    await Promise.all(tracked);
    expect(offsets).toEqual([100, 101]);
    batcher.add('out', { value: 'c' });
    await Promise.resolve();
    expect(calls.at(-1)).toEqual({ topic: 'out', values: ['c'] });
    expect(tracked).toHaveLength(3);
  });

  test('flush() hands records over at once (before the runtime waits for acknowledgements); clear() drops them', async () => {
    const { calls, sendBatch } = fakeProducer();
    const batcher = new SendBatcher(sendBatch, () => undefined);
    batcher.add('out', { value: 'a' });
    batcher.flush();
    expect(calls).toEqual([{ topic: 'out', values: ['a'] }]);
    batcher.add('out', { value: 'aborted' });
    batcher.clear();
    await Promise.resolve();
    expect(calls).toHaveLength(1); // the scheduled turn found nothing
  });
});
