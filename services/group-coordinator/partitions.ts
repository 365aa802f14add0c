/**
 * Topic-partitions inside the coordinator: one string key per partition (`topic\0partition`, as
 * the client's tpKey), sets of them, and the wire form `TopicPartitions {topic, partitions[]}`.
 */
import { TideError } from '../common/errors';
import type { TopicPartitions__Input } from '../common/grpc/generated/tide/v1/TopicPartitions';

export interface TopicPartition {
  topic: string;
  partition: number;
}

const SEPARATOR = '\u0000';

export function tpKey(topic: string, partition: number): string {
  return `${topic}${SEPARATOR}${partition}`;
}

export function parseTpKey(key: string): TopicPartition {
  const at = key.lastIndexOf(SEPARATOR);
  return { topic: key.slice(0, at), partition: Number(key.slice(at + 1)) };
}

/** Sorts partition keys by topic, then partition number. */
export function compareTpKeys(a: string, b: string): number {
  const x = parseTpKey(a);
  const y = parseTpKey(b);
  return x.topic < y.topic ? -1 : x.topic > y.topic ? 1 : x.partition - y.partition;
}

export function sortedKeys(keys: Iterable<string>): string[] {
  return [...keys].sort(compareTpKeys);
}

/** Partition keys grouped per topic, topics and partitions sorted. */
export function toWire(keys: Iterable<string>): TopicPartitions__Input[] {
  const byTopic = new Map<string, number[]>();
  for (const key of keys) {
    const { topic, partition } = parseTpKey(key);
    let list = byTopic.get(topic);
    if (!list) byTopic.set(topic, (list = []));
    list.push(partition);
  }
  return [...byTopic.keys()]
    .sort()
    .map((topic) => ({ topic, partitions: byTopic.get(topic)!.sort((a, b) => a - b) }));
}

/** Validates and flattens wire TopicPartitions into keys. Throws INVALID_REQUEST naming `field`. */
export function fromWire(
  field: string,
  list: readonly { topic?: string; partitions?: readonly number[] }[] | undefined,
): string[] {
  const keys = new Set<string>();
  for (const entry of list ?? []) {
    if (!entry.topic) throw new TideError('INVALID_REQUEST', `${field}: every entry needs a topic`);
    for (const partition of entry.partitions ?? []) {
      if (!Number.isInteger(partition) || partition < 0)
        throw new TideError(
          'INVALID_REQUEST',
          `${field}: partition ${partition} of ${entry.topic} is not an index`,
        );
      keys.add(tpKey(entry.topic, partition));
    }
  }
  return [...keys];
}

/** "orders/0, orders/2" for logs and messages. */
export function describeKeys(keys: Iterable<string>): string {
  return sortedKeys(keys)
    .map((k) => {
      const { topic, partition } = parseTpKey(k);
      return `${topic}/${partition}`;
    })
    .join(', ');
}
