/**
 * FetchStreamMulti's sender: answers handed over in one turn of the event loop leave as one
 * message, a message never grows past max_bytes (unless one answer alone does), reservations are
 * given back once grpc-js has taken the message, and send() waits for a drain when grpc-js asks.
 */
import { EventEmitter } from 'events';
import { MultiPartitionSender } from '../../../services/broker/api/fetch-multi-sender';
import type { FetchResponse__Input } from '../../../services/common/grpc/generated/tide/v1/FetchResponse';

interface Written {
  partitions: FetchResponse__Input[];
}

class FakeCall extends EventEmitter {
  readonly written: Written[] = [];
  readonly callbacks: (() => void)[] = [];
  accept = true;
  write(message: Written, cb: () => void): boolean {
    this.written.push(message);
    this.callbacks.push(cb);
    return this.accept;
  }
}

const answer = (partition: number, bytes: number): FetchResponse__Input => ({
  topic: 't',
  partition,
  next_offset: 1,
  record_batches: Buffer.alloc(bytes),
});
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

function setUp(maxBytes = 1000) {
  const call = new FakeCall();
  let released = 0;
  const drainWaits: (() => void)[] = [];
  const sender = new MultiPartitionSender(
    call as never,
    maxBytes,
    (bytes) => (released += bytes),
    () => new Promise<void>((resolve) => drainWaits.push(resolve)),
    new AbortController().signal,
  );
  return { call, sender, released: () => released, drainWaits };
}

test('answers of one turn share a message; reservations come back when grpc-js took it', async () => {
  const { call, sender, released } = setUp();
  const sent = [
    sender.send(answer(0, 100), 10),
    sender.send(answer(1, 100), 20),
    sender.send(answer(0, 50), 30),
  ];
  expect(call.written).toHaveLength(0);
  await Promise.all(sent);
  expect(call.written.map((m) => m.partitions.map((p) => p.partition))).toEqual([[0, 1, 0]]);
  expect(released()).toBe(0);
  call.callbacks[0]();
  expect(released()).toBe(60);
});

test('a message is sent as soon as the next answer would take it past max_bytes', async () => {
  const { call, sender } = setUp(1000);
  void sender.send(answer(0, 600), 1);
  void sender.send(answer(1, 600), 1); // 1,200 > 1,000: the first leaves alone
  expect(call.written.map((m) => m.partitions.length)).toEqual([1]);
  void sender.send(answer(2, 400), 1); // exactly 1,000: leaves at once
  expect(call.written.map((m) => m.partitions.length)).toEqual([1, 2]);
  void sender.send(answer(3, 5000), 1); // larger than max_bytes alone: still sent
  expect(call.written.map((m) => m.partitions.length)).toEqual([1, 2, 1]);
  await nextTurn();
  expect(call.written).toHaveLength(3);
});

test('send() resolves only after the drain when grpc-js asked to wait', async () => {
  const { call, sender, drainWaits } = setUp();
  call.accept = false;
  let done = false;
  void sender.send(answer(0, 10), 1).then(() => (done = true));
  await nextTurn();
  await nextTurn();
  expect(call.written).toHaveLength(1);
  expect(done).toBe(false);
  drainWaits[0]();
  await nextTurn();
  expect(done).toBe(true);
});
