/**
 * The runtime's sends (outputs, repartition and changelog records) collected per topic and handed
 * to the producer in one `sendBatch` call per topic per synchronous stretch of processing — a
 * fetched chunk's records, a punctuation, a commit's flush — instead of one `send` (and its
 * promise and settlement) per record. The producer batches records for the wire either way; what
 * this saves is the per-record call and promise in the application.
 *
 * Records go out at the end of the current turn (a microtask), or at once with `flush()`: the
 * runtime flushes before it waits for its sends to be acknowledged, so a commit never counts on
 * records still held here. Order within a topic is the order of `add`.
 */
import type { BatchMetadata, ProducerRecord } from '../../client/types';

/** Called with the record's offset once the producer has it acknowledged. */
export type OnAcked = (offset: number) => void;

interface TopicSends {
  records: ProducerRecord[];
  /** Index-aligned with `records`; undefined where the sender does not need the offset. */
  acked: (OnAcked | undefined)[];
}

export class SendBatcher {
  private pending = new Map<string, TopicSends>();
  private scheduled = false;

  constructor(
    private readonly sendBatch: (topic: string, records: ProducerRecord[]) => Promise<BatchMetadata>,
    /** Receives each producer call's promise (the runtime counts them to wait for acknowledgements). */
    private readonly track: (sent: Promise<unknown>) => void,
  ) {}

  add(topic: string, record: ProducerRecord, onAcked?: OnAcked): void {
    let sends = this.pending.get(topic);
    if (!sends) this.pending.set(topic, (sends = { records: [], acked: [] }));
    sends.records.push(record);
    sends.acked.push(onAcked);
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => this.flush());
    }
  }

  /** Hands everything held to the producer now. */
  flush(): void {
    this.scheduled = false;
    if (this.pending.size === 0) return;
    const pending = this.pending;
    this.pending = new Map();
    for (const [topic, { records, acked }] of pending) {
      this.track(
        this.sendBatch(topic, records).then((md) => {
          for (let i = 0; i < acked.length; i++) acked[i]?.(md.offsets[i]);
        }),
      );
    }
  }

  /** Drops what is held (its transaction was aborted). */
  clear(): void {
    this.pending.clear();
  }
}
