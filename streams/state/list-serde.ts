/**
 * A list of values through one value serde: [u32 count] then [u32 length][bytes] per value. The
 * stream–stream join stores keep every value seen at one (key, timestamp), so their changelog and
 * LMDB records are lists of the join side's values.
 */
import { StreamsError } from '../errors';
import type { Serde } from '../serdes';

export function listSerde<T>(inner: Serde<T>): Serde<T[]> {
  return {
    name: `list(${inner.name})`,
    serialize(values: T[]): Buffer {
      const parts = values.map((v) => inner.serialize(v));
      const out = Buffer.allocUnsafe(4 + parts.reduce((n, p) => n + 4 + p.length, 0));
      out.writeUInt32BE(parts.length, 0);
      let at = 4;
      for (const p of parts) {
        out.writeUInt32BE(p.length, at);
        p.copy(out, at + 4);
        at += 4 + p.length;
      }
      return out;
    },
    deserialize(bytes: Buffer): T[] {
      const fail = () =>
        new StreamsError('SERDE', `serde list(${inner.name}) could not read ${bytes.length} bytes`);
      if (bytes.length < 4) throw fail();
      const count = bytes.readUInt32BE(0);
      const out: T[] = [];
      let at = 4;
      for (let i = 0; i < count; i++) {
        if (at + 4 > bytes.length) throw fail();
        const length = bytes.readUInt32BE(at);
        if (at + 4 + length > bytes.length) throw fail();
        out.push(inner.deserialize(bytes.subarray(at + 4, at + 4 + length)));
        at += 4 + length;
      }
      if (at !== bytes.length) throw fail();
      return out;
    },
  };
}
