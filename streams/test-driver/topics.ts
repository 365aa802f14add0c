/** The driver's in-memory topics, and the typed input/output handles tests use. */
import type { RecordHeader } from '../../services/common/records';
import { StreamsError } from '../errors';
import type { Serde } from '../serdes';
import type { RawRecord } from '../runtime/task';

export interface LoggedRecord extends RawRecord {
  partition: number;
}

/** A topic as the driver keeps it: records by partition, plus the order they were written in. */
export class MemoryTopic {
  readonly partitions: RawRecord[][];
  /** Every record in write order (for reading output across partitions). */
  readonly written: LoggedRecord[] = [];
  /** How far output handles have read `written` (shared: reading consumes, as in Kafka's driver). */
  readPosition = 0;
  private roundRobin = 0;

  constructor(
    readonly name: string,
    readonly partitionCount: number,
  ) {
    this.partitions = Array.from({ length: partitionCount }, () => []);
  }

  nextRoundRobin(): number {
    return this.roundRobin++ % this.partitionCount;
  }

  append(partition: number, r: Omit<RawRecord, 'offset'>): RawRecord {
    if (!Number.isInteger(partition) || partition < 0 || partition >= this.partitionCount) {
      throw new StreamsError(
        'STATE',
        `topic ${this.name} has ${this.partitionCount} partition(s); partition ${partition} does not exist`,
      );
    }
    const record: RawRecord = { ...r, offset: this.partitions[partition].length };
    this.partitions[partition].push(record);
    this.written.push({ ...record, partition });
    return record;
  }
}

export interface TestRecord<K, V> {
  key: K;
  value: V;
  timestampMs: number;
  partition: number;
  headers: RecordHeader[];
}

export interface PipedRecord<K, V> {
  key: K | null;
  value: V | null;
  /** Default: the driver's wall clock. */
  timestampMs?: number;
  /** Default: murmur2 of the key bytes (round robin without a key), as the producer. */
  partition?: number;
  headers?: RecordHeader[];
}

export interface InputSink {
  pipe(
    topic: string,
    records: {
      key: Buffer | null;
      value: Buffer | null;
      timestampMs?: number;
      partition?: number;
      headers: RecordHeader[];
    }[],
  ): void;
}

/** Writes typed records to an input topic; the driver processes them before the call returns. */
export class TestInputTopic<K, V> {
  /** @internal */
  constructor(
    private readonly sink: InputSink,
    readonly topic: string,
    private readonly key: Serde<K>,
    private readonly value: Serde<V>,
  ) {}

  pipeInput(
    key: K | null,
    value: V | null,
    timestampMs?: number,
    options: { partition?: number; headers?: RecordHeader[] } = {},
  ): void {
    this.pipeRecords([{ key, value, timestampMs, ...options }]);
  }

  /** Writes all records first, then processes: tasks see them all and pick by head timestamp. */
  pipeRecords(records: PipedRecord<K, V>[]): void {
    this.sink.pipe(
      this.topic,
      records.map((r) => ({
        key: r.key === null ? null : this.key.serialize(r.key),
        value: r.value === null ? null : this.value.serialize(r.value),
        timestampMs: r.timestampMs,
        partition: r.partition,
        headers: r.headers ?? [],
      })),
    );
  }
}

/**
 * Reads, in write order, what the topology wrote to a topic since the last read. Reading consumes:
 * every handle of a topic shares one position.
 */
export class TestOutputTopic<K, V> {
  /** @internal */
  constructor(
    private readonly topicOf: () => MemoryTopic | undefined,
    readonly topic: string,
    private readonly key: Serde<K>,
    private readonly value: Serde<V>,
  ) {}

  readRecord(): TestRecord<K | null, V | null> | undefined {
    const t = this.topicOf();
    if (!t || t.readPosition >= t.written.length) return undefined;
    const r = t.written[t.readPosition++];
    return {
      key: r.key === null ? null : this.key.deserialize(r.key),
      value: r.value === null ? null : this.value.deserialize(r.value),
      timestampMs: r.timestampMs,
      partition: r.partition,
      headers: r.headers,
    };
  }

  readRecordsToList(): TestRecord<K | null, V | null>[] {
    const out: TestRecord<K | null, V | null>[] = [];
    for (let r = this.readRecord(); r; r = this.readRecord()) out.push(r);
    return out;
  }

  /** `[key, value]` pairs (value null: a tombstone). */
  readKeyValuesToList(): [K | null, V | null][] {
    return this.readRecordsToList().map((r) => [r.key, r.value]);
  }

  isEmpty(): boolean {
    const t = this.topicOf();
    return !t || t.readPosition >= t.written.length;
  }
}
