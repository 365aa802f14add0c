/**
 * The cleaner's key map (Kafka's SkimpyOffsetMap): a fixed-size open-addressing hash table from a
 * key's 16-byte digest (digest.ts) to the latest offset seen for that key. Keys themselves are not
 * stored, so the memory per key is fixed: 16 bytes of digest + 8 bytes of offset = 24 bytes per
 * slot, and a buffer of `memoryBytes` holds memoryBytes / 24 slots. The table is filled to at most
 * `loadFactor` of its slots (linear probing degrades near full); `isFull(n)` tells the cleaner that
 * n more keys may not fit, and it then cleans the prefix it has mapped (see clean-job.ts).
 *
 * Layout: one Uint32Array, 6 words per slot (the digest, then the offset's low and high words), so
 * a probe touches one cache line; a high word of 0xffffffff marks an empty slot. The table starts
 * small and doubles as keys arrive (see grow), up to the budget.
 */
import { assert } from '../../../common/assert';
import { DIGEST_WORDS, murmur3x86128 } from './digest';

/** Bytes one slot costs: the digest and the offset. */
export const OFFSET_MAP_SLOT_BYTES = DIGEST_WORDS * 4 + 8;
/** Fill the map up to this fraction of its slots (Kafka's log.cleaner.io.buffer.load.factor). */
export const DEFAULT_LOAD_FACTOR = 0.9;
const SLOT_WORDS = 6;
const TWO_32 = 0x1_0000_0000;
/** High offset word of an empty slot (offsets stay below 2^53, so their high word below 2^21). */
const EMPTY = 0xffff_ffff;
const INITIAL_SLOTS = 4096;
/** Below the budget the table doubles at this load (short probe runs); at the budget, loadFactor applies. */
const GROW_LOAD = 0.5;

function emptyTable(slots: number): Uint32Array {
  const table = new Uint32Array(slots * SLOT_WORDS);
  for (let at = 5; at < table.length; at += SLOT_WORDS) table[at] = EMPTY;
  return table;
}

/** Key digest → latest offset, in a fixed memory budget (see the header). */
export class OffsetMap {
  /** Slots the memory budget allows. */
  readonly slots: number;
  /** Most entries the map takes before isFull says so. */
  readonly maxEntries: number;
  /** Per slot: 4 digest words, then the offset as low and high u32 (high = EMPTY: no entry). */
  private table: Uint32Array;
  /** Slots of the current table: it starts small and doubles up to `slots`. */
  private tableSlots: number;
  private readonly scratch = new Uint32Array(DIGEST_WORDS);
  private entries = 0;
  private latest = -1;
  /** Slots probed by put/get beyond the first (a measure of clustering, for tests and stats). */
  probes = 0;

  constructor(memoryBytes: number, loadFactor = DEFAULT_LOAD_FACTOR) {
    const slots = Math.floor(memoryBytes / OFFSET_MAP_SLOT_BYTES);
    assert(slots >= 1, `offset map of ${memoryBytes} bytes holds no slot`);
    assert(loadFactor > 0 && loadFactor <= 1, `offset map load factor ${loadFactor}`);
    this.slots = slots;
    this.maxEntries = Math.max(1, Math.floor(slots * loadFactor));
    this.tableSlots = Math.min(slots, INITIAL_SLOTS);
    this.table = emptyTable(this.tableSlots);
  }

  /** Bytes the table uses now (it grows towards the budget as keys come). */
  get tableBytes(): number {
    return this.table.byteLength;
  }

  /** Distinct keys in the map. */
  get size(): number {
    return this.entries;
  }

  /** The largest offset put so far, -1 when empty. */
  get latestOffset(): number {
    return this.latest;
  }

  /** Fraction of maxEntries in use (Kafka's buffer utilisation). */
  get utilization(): number {
    return this.entries / this.maxEntries;
  }

  /** True when `more` new keys might not fit. */
  isFull(more = 1): boolean {
    return this.entries + more > this.maxEntries;
  }

  /** Records `offset` as the latest for the key buf[start, end). */
  put(key: Uint8Array, start: number, end: number, offset: number): void {
    murmur3x86128(key, start, end, 0, this.scratch);
    if (this.entries + 1 > this.tableSlots * GROW_LOAD && this.tableSlots < this.slots) this.grow();
    const slot = this.find(this.scratch);
    assert(slot >= 0, 'offset map overflow: put beyond its slots');
    const t = this.table;
    const at = slot * SLOT_WORDS;
    if (t[at + 5] === EMPTY) {
      t[at] = this.scratch[0];
      t[at + 1] = this.scratch[1];
      t[at + 2] = this.scratch[2];
      t[at + 3] = this.scratch[3];
      this.entries++;
    }
    t[at + 4] = offset % TWO_32;
    t[at + 5] = (offset - (offset % TWO_32)) / TWO_32;
    if (offset > this.latest) this.latest = offset;
  }

  /** The latest offset of the key buf[start, end), or -1 when the map has not seen it. */
  get(key: Uint8Array, start: number, end: number): number {
    murmur3x86128(key, start, end, 0, this.scratch);
    const slot = this.find(this.scratch);
    if (slot < 0) return -1;
    const at = slot * SLOT_WORDS;
    const high = this.table[at + 5];
    return high === EMPTY ? -1 : high * TWO_32 + this.table[at + 4];
  }

  clear(): void {
    this.tableSlots = Math.min(this.slots, INITIAL_SLOTS);
    this.table = emptyTable(this.tableSlots);
    this.entries = 0;
    this.latest = -1;
    this.probes = 0;
  }

  /**
   * Doubles the table (up to the budget) and re-inserts every entry by its stored digest. Keeping
   * the table no bigger than the keys need keeps it in the CPU caches: probing a 32 MiB table costs
   * a cache miss per lookup, a table sized for 100k keys (2.6 MiB) mostly does not.
   */
  private grow(): void {
    const old = this.table;
    this.tableSlots = Math.min(this.slots, this.tableSlots * 2);
    this.table = emptyTable(this.tableSlots);
    const digest = new Uint32Array(DIGEST_WORDS);
    for (let at = 0; at < old.length; at += SLOT_WORDS) {
      if (old[at + 5] === EMPTY) continue;
      digest[0] = old[at];
      digest[1] = old[at + 1];
      digest[2] = old[at + 2];
      digest[3] = old[at + 3];
      const to = this.find(digest) * SLOT_WORDS;
      this.table.set(old.subarray(at, at + SLOT_WORDS), to);
    }
  }

  /** The slot holding `digest`, or the empty slot where it would go (linear probing); -1 if neither. */
  private find(digest: Uint32Array): number {
    const t = this.table;
    const slots = this.tableSlots;
    let slot = digest[0] % slots;
    for (let tries = 0; tries < slots; tries++) {
      const at = slot * SLOT_WORDS;
      if (t[at + 5] === EMPTY) return slot;
      if (
        t[at] === digest[0] &&
        t[at + 1] === digest[1] &&
        t[at + 2] === digest[2] &&
        t[at + 3] === digest[3]
      )
        return slot;
      this.probes++;
      slot = slot + 1 === slots ? 0 : slot + 1;
    }
    return -1;
  }
}
