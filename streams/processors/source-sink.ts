/** Sources hand records to the topology; sinks serialize them to a topic. */
import type { Processor } from '../processor';
import type { Change } from '../record';
import { windowedInnerSerde, windowedKeyBytes, type Serde, type Windowed } from '../serdes';
import type { InternalProcessorContext, SinkPartitioner } from '../runtime/internal-context';
import { processorOf } from './common';

export function sourceProcessor(): Processor<unknown, unknown> {
  return processorOf((record, ctx) => ctx.forward(record));
}

export interface SinkOptions {
  topic: string;
  key?: Serde<unknown>;
  value?: Serde<unknown>;
  partitioner?: SinkPartitioner;
  /** Table sinks write the change's new value (null: a tombstone). */
  fromTable: boolean;
  /** Repartition sinks of table groupings write the whole change (old and new). */
  changeSerde?: Serde<Change<unknown>>;
}

/**
 * The key's bytes: those it was read with when they still hold (for a windowed key, its inner
 * key's; `inner` is the serde's inner serde when it is Serdes.windowed).
 */
function keyBytesOf(
  key: unknown,
  serde: Serde<unknown>,
  inner: Serde<unknown> | undefined,
  ctx: InternalProcessorContext,
): Buffer {
  const read = ctx.sourceKeyBytes(key, serde);
  if (read) return read;
  if (inner) {
    const w = key as Windowed<unknown>;
    const innerRead = ctx.sourceKeyBytes(w.key, inner);
    if (innerRead) return windowedKeyBytes(innerRead, w.window);
  }
  return serde.serialize(key);
}

export function sinkProcessor(o: SinkOptions): Processor<unknown, unknown> {
  const innerKey = o.key && windowedInnerSerde(o.key);
  return processorOf<unknown, unknown>((record, ctx) => {
    const value = o.fromTable ? (record.value as Change<unknown>).newValue : record.value;
    let valueBytes: Buffer | null;
    if (o.changeSerde) valueBytes = o.changeSerde.serialize(record.value as Change<unknown>);
    else valueBytes = value === null || value === undefined ? null : o.value!.serialize(value);
    const key = record.key;
    const keyBytes = key === null || key === undefined ? null : keyBytesOf(key, o.key!, innerKey, ctx);
    const partitions = ctx.collector.partitionsOf(o.topic);
    const partition = o.partitioner?.(record.key, value, partitions);
    ctx.collector.send({
      topic: o.topic,
      key: keyBytes,
      value: valueBytes,
      timestampMs: record.timestamp,
      headers: record.headers,
      partition,
    });
  });
}
