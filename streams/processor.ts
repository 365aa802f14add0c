/**
 * The processor API: what every node of a topology implements, and the context it runs in.
 * DSL operations are built from these; users can add their own with `stream.process(...)`.
 */
import type { RecordOrigin, StreamRecord } from './record';
import type { StateStore } from './state/stores';

export type PunctuationType = 'streamTime' | 'wallClock';

export interface Cancellable {
  cancel(): void;
}

export interface ProcessorContext {
  readonly applicationId: string;
  /** `<subtopology>_<partition>`, as Kafka Streams names tasks. */
  readonly taskId: string;
  readonly partition: number;
  /** The highest event time this task has processed (-1 before the first record). */
  streamTime(): number;
  /** Wall-clock time (the virtual clock in the test driver). */
  wallClockTime(): number;
  /** The topic/partition/offset of the input record being processed (absent in punctuations). */
  origin(): RecordOrigin | undefined;
  /** Sends a record to every child, or to the named child only. */
  forward<K, V>(record: StreamRecord<K, V>, child?: string): void;
  getStateStore<S extends StateStore>(name: string): S;
  /**
   * Calls `callback(time)` every `intervalMs` of stream time (when records advance it) or of wall
   * time. Stream-time punctuations fire once per elapsed interval boundary, not once per record.
   */
  schedule(intervalMs: number, type: PunctuationType, callback: (timestamp: number) => void): Cancellable;
  /** Counts a record dropped because its window had closed (the dropped-late metric). */
  recordDroppedLate(): void;
}

export interface Processor<KIn, VIn> {
  init?(context: ProcessorContext): void;
  process(record: StreamRecord<KIn, VIn>): void;
  close?(): void;
}

export type ProcessorSupplier<KIn, VIn> = () => Processor<KIn, VIn>;

/** Reads a table's current value for a key (tables that are joined or looked up). */
export type ValueGetter<K, V> = (key: K) => { value: V; timestamp: number } | null;
