/**
 * The serde of a table change on a repartition topic (KTable.groupBy): both the old and the new
 * value travel, so the aggregation downstream can subtract the one and add the other.
 * Layout: flags (1 byte: 1 = new present, 2 = old present), new length (4 bytes BE), new, old.
 */
import type { Change } from '../record';
import type { Serde } from '../serdes';
import { StreamsError } from '../errors';

export function changeSerde<V>(inner: Serde<V>): Serde<Change<V>> {
  return {
    name: `change(${inner.name})`,
    serialize(change: Change<V>): Buffer {
      const n = change.newValue === null ? Buffer.alloc(0) : inner.serialize(change.newValue);
      const o = change.oldValue === null ? Buffer.alloc(0) : inner.serialize(change.oldValue);
      const head = Buffer.allocUnsafe(5);
      head.writeUInt8((change.newValue === null ? 0 : 1) | (change.oldValue === null ? 0 : 2), 0);
      head.writeUInt32BE(n.length, 1);
      return Buffer.concat([head, n, o]);
    },
    deserialize(bytes: Buffer): Change<V> {
      if (bytes.length < 5)
        throw new StreamsError('SERDE', `a table change has at least 5 bytes, got ${bytes.length}`);
      const flags = bytes.readUInt8(0);
      const n = bytes.readUInt32BE(1);
      if (5 + n > bytes.length)
        throw new StreamsError('SERDE', `a table change is cut short (${bytes.length} bytes)`);
      return {
        newValue: flags & 1 ? inner.deserialize(bytes.subarray(5, 5 + n)) : null,
        oldValue: flags & 2 ? inner.deserialize(bytes.subarray(5 + n)) : null,
      };
    },
  };
}
