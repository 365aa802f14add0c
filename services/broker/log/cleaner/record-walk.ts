/**
 * A cursor over the records of one RecordBatch v2 records section (uncompressed bytes), reading
 * only the fields the cleaner and the compacted-topic key check need:
 *
 *   length varint | attributes i8 | timestampDelta varlong | offsetDelta varint |
 *   keyLength varint (-1 = null) | key | valueLength varint (-1 = null) | value | headers...
 *
 * (all varints zigzag; layout in services/common/records/codec.ts). Nothing is copied or
 * allocated per record: the cursor's fields describe the current record as positions in `data`.
 * A record that overruns its length or the section throws TideError INVALID_RECORD.
 */
import { TideError } from '../../../common/errors';

export class RecordCursor {
  /** Position of the record's length varint. */
  start = 0;
  /** Position after the record. */
  end = 0;
  timestampDelta = 0;
  offsetDelta = 0;
  /** Position of the key-length varint: the bytes from here to `end` are copied as they are. */
  restStart = 0;
  /** Position of the key bytes (valid when keyLength >= 0). */
  keyStart = 0;
  /** -1 for a null key. */
  keyLength = 0;
  /** -1 for a null value (a tombstone). */
  valueLength = 0;
  /** Records read so far. */
  index = 0;

  private p: number;

  constructor(
    readonly data: Uint8Array,
    from: number,
    private readonly limit: number,
    private readonly count: number,
  ) {
    this.p = from;
  }

  /** Moves to the next record; false after the last. */
  next(): boolean {
    if (this.index === this.count) {
      if (this.p !== this.limit)
        this.fail(`${this.limit - this.p} bytes follow the last of ${this.count} records`);
      return false;
    }
    this.start = this.p;
    const length = this.varlong(this.limit);
    const end = this.p + length;
    if (length < 0 || end > this.limit) this.fail(`record length ${length} overruns the batch`);
    this.end = end;
    this.p++; // attributes
    this.timestampDelta = this.varlong(end);
    this.offsetDelta = this.varlong(end);
    this.restStart = this.p;
    this.keyLength = this.varlong(end);
    this.keyStart = this.p;
    if (this.keyLength < -1 || this.p + Math.max(this.keyLength, 0) > end)
      this.fail(`key length ${this.keyLength}`);
    this.p += Math.max(this.keyLength, 0);
    this.valueLength = this.varlong(end);
    if (this.valueLength < -1 || this.p + Math.max(this.valueLength, 0) > end)
      this.fail(`value length ${this.valueLength}`);
    this.p = end;
    this.index++;
    return true;
  }

  private varlong(end: number): number {
    const data = this.data;
    let raw = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.p >= end) this.fail('truncated varint');
      const byte = data[this.p++];
      raw += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) {
        return raw % 2 === 0 ? raw / 2 : -(raw + 1) / 2;
      }
      scale *= 128;
    }
    return this.fail('varint longer than 10 bytes');
  }

  private fail(why: string): never {
    throw new TideError('INVALID_RECORD', `record ${this.index}: ${why}`);
  }
}
