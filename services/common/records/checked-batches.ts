/**
 * Back-to-back batches as a fetch returns them, checked in full when they arrive (bounds, magic,
 * CRC, codec, the structure of every record) while record objects are built only when asked for.
 * A consumer that forwards or counts batches never pays for objects; one that reads records pays
 * once, and a malformed record is found before the consumer's position moves past it either way.
 */
import { TideError } from '../errors';
import { iterateBatches, openBatch, type DecodedRecord } from './codec';
import { CONTROL_BIT, lastOffsetOf, type BatchHeader } from './layout';
import {
  SectionCursor,
  checkRecordSection,
  readRecordSection,
  readRecords,
  visitRecordSection,
  type RecordVisitor,
} from './record-section';
import { AbortedFilter, controlTypeOf, type AbortedTransaction } from './control';

interface CheckedSection {
  header: BatchHeader;
  /** The records section, decompressed. */
  data: Buffer;
}

/** The records at or after `fromOffset` of batches that passed every check. */
export class CheckedRecords {
  private built: DecodedRecord[] | undefined;

  constructor(
    private readonly sections: readonly CheckedSection[],
    readonly fromOffset: number,
    /** How many records `records()` returns. */
    readonly count: number,
    /** The bytes of the batches that hold them, as stored (control batches between them included). */
    readonly bytes: Buffer,
    /** One past the last offset of the last batch; undefined when there are no records. */
    readonly endOffset: number | undefined,
  ) {}

  /** The records, built on the first call; keys and values are views into the fetched bytes. */
  records(): DecodedRecord[] {
    if (this.built) return this.built;
    const out: DecodedRecord[] = [];
    for (const { data, header } of this.sections) readRecordSection(data, header, this.fromOffset, out);
    this.built = out;
    return out;
  }

  /**
   * The same records in order, in arrays of at most `size` (only the last shorter), each built
   * when the iteration reaches it and not kept here; once `records()` has built them, slices of
   * those. A reader that finishes with a slice before taking the next keeps one slice's objects
   * alive instead of the whole fetch's, so they die in the young generation: a 1 MiB fetch of
   * small records is ~17,000 records, long enough to process that the garbage collector copies
   * them twice and promotes them.
   */
  *slices(size: number): Generator<DecodedRecord[], void, undefined> {
    if (!(size >= 1)) throw new RangeError(`slice size ${size} is below 1`);
    if (this.built) {
      for (let i = 0; i < this.built.length; i += size) yield this.built.slice(i, i + size);
      return;
    }
    let out: DecodedRecord[] = [];
    for (const { data, header } of this.sections) {
      const cursor = new SectionCursor(data);
      while (cursor.index < header.recordCount) {
        readRecords(cursor, header, this.fromOffset, size - out.length, out);
        if (out.length === size) {
          yield out;
          out = [];
        }
      }
    }
    if (out.length > 0) yield out;
  }

  /**
   * Visits the same records in order without building objects (headers are not read); once
   * `records()` has built them, from those.
   */
  forEach(visit: RecordVisitor): void {
    if (this.built) {
      for (const r of this.built) visit(r.offset, r.timestampMs, r.key, r.value);
      return;
    }
    for (const { data, header } of this.sections) visitRecordSection(data, header, this.fromOffset, visit);
  }
}

/**
 * Checks the batches of `buf` (whole batches only; trim a partial tail with `splitBatches`),
 * skipping control batches and batches wholly below `fromOffset` unread. Stops at the first batch
 * that fails: the batches before it are kept, and `failedAt` is the byte where the bad one begins.
 * With `aborted` (a read_committed fetch's aborted transactions), the records of aborted
 * transactions are skipped too (AbortedFilter, control.ts).
 */
export function checkBatches(
  buf: Buffer,
  fromOffset = -Infinity,
  aborted?: readonly AbortedTransaction[],
): { checked: CheckedRecords; error?: TideError; failedAt?: number } {
  const sections: CheckedSection[] = [];
  let count = 0;
  let firstAt = 0;
  let endAt = 0;
  let endOffset: number | undefined;
  let at = 0;
  const filter = aborted && aborted.length > 0 ? new AbortedFilter(aborted) : undefined;
  const result = (error?: TideError) => ({
    checked: new CheckedRecords(sections, fromOffset, count, buf.subarray(firstAt, endAt), endOffset),
    ...(error ? { error, failedAt: at } : {}),
  });
  try {
    // `at` stays on a batch while it is checked and moves on after, so it names the one that failed.
    for (const { header } of iterateBatches(buf)) {
      const next = at + header.sizeBytes;
      const control = (header.attributes & CONTROL_BIT) !== 0;
      const skipped = filter?.skips(header, control ? controlTypeOf(buf, at) : undefined) ?? false;
      if (lastOffsetOf(header) >= fromOffset && !control && !skipped) {
        const { data } = openBatch(buf, at, header);
        const kept = checkRecordSection(data, header, at, fromOffset);
        if (kept > 0) {
          if (sections.length === 0) firstAt = at;
          sections.push({ header, data });
          count += kept;
          endAt = next;
          endOffset = lastOffsetOf(header) + 1;
        }
      }
      at = next;
    }
  } catch (err) {
    if (!(err instanceof TideError)) throw err;
    return result(err);
  }
  return result();
}

/**
 * Decodes the records of all back-to-back batches in `buf`, skipping records below `fromOffset`
 * and control batches (transaction markers, which carry no user records). Every decoded batch is
 * CRC-checked; batches entirely below `fromOffset` are skipped unread. Throws the first failure.
 */
export function decodeRecords(
  buf: Buffer,
  fromOffset = -Infinity,
  aborted?: readonly AbortedTransaction[],
): DecodedRecord[] {
  const { checked, error } = checkBatches(buf, fromOffset, aborted);
  if (error) throw error;
  return checked.records();
}
