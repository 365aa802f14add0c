/**
 * The sending side of FetchStreamMulti: the partition loops of one stream hand their answers here,
 * and answers ready together leave as one message of up to max_bytes (as Kafka's fetch response
 * carries many partitions). An answer waits at most until the event loop has run the I/O callbacks
 * of its turn (setImmediate), so the reads that completed in the same turn share a message and a
 * long poll that wakes alone is sent at once. A message is sent as soon as the next answer would
 * take it past max_bytes; a single answer larger than that goes alone (as on FetchStream).
 *
 * Each answer's byte reservation is given back once its message has been handed to HTTP/2, and
 * send() resolves once the message has been written (after the call drained, when grpc-js asked to
 * wait), which is the backpressure the loops feel, as with FetchStream's one write per answer.
 */
import type * as grpc from '@grpc/grpc-js';
import type { FetchResponse__Input } from '../../common/grpc/generated/tide/v1/FetchResponse';
import type { FetchStreamMultiResponse__Input } from '../../common/grpc/generated/tide/v1/FetchStreamMultiResponse';

/** Where a FetchStream partition loop sends an answer; resolves when the loop may go on. */
export interface FetchAnswerSink {
  send(response: FetchResponse__Input, reserved: number): Promise<void>;
}

type MultiCall = grpc.ServerWritableStream<unknown, FetchStreamMultiResponse__Input>;

/** The bytes an answer adds to a message (its batches; the other fields are a few dozen bytes). */
function answerBytes(response: FetchResponse__Input): number {
  const batches = response.record_batches;
  return batches instanceof Uint8Array ? batches.length : 0;
}

export class MultiPartitionSender implements FetchAnswerSink {
  private parts: FetchResponse__Input[] = [];
  private partsBytes = 0;
  private reserved = 0;
  private sent: (() => void)[] = [];
  private scheduled = false;

  constructor(
    private readonly call: MultiCall,
    private readonly maxBytes: number,
    private readonly release: (bytes: number) => void,
    private readonly drained: () => Promise<void>,
    private readonly signal: AbortSignal,
  ) {}

  send(response: FetchResponse__Input, reserved: number): Promise<void> {
    const bytes = answerBytes(response);
    if (this.parts.length > 0 && this.partsBytes + bytes > this.maxBytes) this.flush();
    this.parts.push(response);
    this.partsBytes += bytes;
    this.reserved += reserved;
    const done = new Promise<void>((resolve) => this.sent.push(resolve));
    if (this.partsBytes >= this.maxBytes) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
    return done;
  }

  private flush(): void {
    if (this.parts.length === 0) return;
    const partitions = this.parts;
    const reserved = this.reserved;
    const sent = this.sent;
    this.parts = [];
    this.partsBytes = 0;
    this.reserved = 0;
    this.sent = [];
    const resume = () => {
      for (const resolve of sent) resolve();
    };
    if (this.signal.aborted) {
      this.release(reserved);
      return resume();
    }
    if (this.call.write({ partitions }, () => this.release(reserved))) return resume();
    void this.drained().then(resume);
  }
}
