/**
 * Repartitioning: a sink to the internal topic `<app>-<name>-<suffix>` and a source reading it
 * back. The source starts a new subtopology, whose tasks see each key on the partition its new
 * key hashes to.
 */
import type { Serde } from '../serdes';
import { sinkProcessor, sourceProcessor } from '../processors/source-sink';
import type { Change } from '../record';
import type { InternalBuilder } from './internal-builder';

export interface RepartitionSpec {
  /** The user's name the topic is made from. */
  name: string;
  suffix: string;
  parent: string;
  key: Serde<unknown> | undefined;
  value: Serde<unknown> | undefined;
  partitions?: number;
  /** Table groupings send the whole change (old and new values). */
  changeSerde?: Serde<Change<unknown>>;
  /** Why the repartition is needed, for the missing-serde message. */
  reason: string;
}

/** Adds the sink and the source; returns the source node's name. */
export function addRepartition(b: InternalBuilder, spec: RepartitionSpec): string {
  const topic = b.internalTopic(spec.name, spec.suffix, spec.partitions);
  const hint = `${spec.reason} repartitions through ${topic}; pass { key, value } serdes to it`;
  b.requireSerde(spec.key, `the key of ${topic}`, hint);
  if (!spec.changeSerde) b.requireSerde(spec.value, `the value of ${topic}`, hint);
  const sinkName = `${spec.name}-${spec.suffix}-sink`;
  const sourceName = `${spec.name}-${spec.suffix}-source`;
  const valueSerde = spec.changeSerde ?? spec.value;
  b.addNode({
    name: sinkName,
    kind: 'sink',
    operation: 'repartition',
    parents: [spec.parent],
    stores: [],
    stateful: false,
    sink: { topic, key: spec.key, value: valueSerde, internal: true, partitions: spec.partitions },
    create: () =>
      sinkProcessor({
        topic,
        key: spec.key,
        value: spec.value,
        fromTable: false,
        changeSerde: spec.changeSerde,
      }),
  });
  b.addNode({
    name: sourceName,
    kind: 'source',
    operation: 'repartition',
    parents: [],
    stores: [],
    stateful: false,
    source: { topics: [topic], key: spec.key, value: valueSerde, internal: true, global: false },
    create: sourceProcessor,
  });
  b.addSourceTopic(topic, sourceName);
  return sourceName;
}
