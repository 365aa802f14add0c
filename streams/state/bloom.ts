/**
 * A Bloom filter over byte keys that grows with what it holds (a scalable Bloom filter: a new,
 * larger layer when the last is full), for the LMDB window store to answer "not there" without
 * reading LMDB: RocksDB, under Kafka Streams' stores, keeps one per file for the same reason.
 * It never forgets a key, so deleted keys are false positives, which only cost a read.
 */

/** Bits per key: with 7 probes, about 1 % false positives per layer. */
const BITS_PER_KEY = 10;
const PROBES = 7;
const FIRST_CAPACITY = 1 << 16;

class Layer {
  readonly bits: Uint32Array;
  /** The bit count is a power of two: a probe's bit is its hash masked. */
  private readonly mask: number;
  count = 0;

  constructor(readonly capacity: number) {
    const size = 2 ** Math.ceil(Math.log2(capacity * BITS_PER_KEY));
    this.mask = size - 1;
    this.bits = new Uint32Array(size / 32);
  }

  add(h1: number, h2: number): void {
    for (let i = 0; i < PROBES; i++) {
      const at = (h1 + Math.imul(i, h2)) & this.mask;
      this.bits[at >>> 5]! |= 1 << (at & 31);
    }
    this.count++;
  }

  has(h1: number, h2: number): boolean {
    for (let i = 0; i < PROBES; i++) {
      const at = (h1 + Math.imul(i, h2)) & this.mask;
      if ((this.bits[at >>> 5]! & (1 << (at & 31))) === 0) return false;
    }
    return true;
  }
}

export class ScalableBloomFilter {
  private readonly layers: Layer[] = [new Layer(FIRST_CAPACITY)];
  private h1 = 0;
  private h2 = 0;

  add(key: Buffer): void {
    this.hash(key);
    let last = this.layers[this.layers.length - 1]!;
    if (last.count >= last.capacity) {
      last = new Layer(last.capacity * 2);
      this.layers.push(last);
    }
    last.add(this.h1, this.h2);
  }

  /** false: `key` was never added. true: it may have been. */
  mightContain(key: Buffer): boolean {
    this.hash(key);
    for (const layer of this.layers) if (layer.has(this.h1, this.h2)) return true;
    return false;
  }

  /** Two independent 32-bit hashes of `key` (FNV-1a, and a multiplicative hash finished by murmur3's mix). */
  private hash(key: Buffer): void {
    let a = 0x811c9dc5;
    let b = 0x9747b28c;
    for (let i = 0; i < key.length; i++) {
      const byte = key[i]!;
      a = Math.imul(a ^ byte, 0x01000193);
      b = (Math.imul(b, 31) + byte) | 0;
    }
    b ^= b >>> 16;
    b = Math.imul(b, 0x85ebca6b);
    b ^= b >>> 13;
    b = Math.imul(b, 0xc2b2ae35);
    b ^= b >>> 16;
    this.h1 = a >>> 0;
    // An odd step, so the probes of one key never repeat a bit before they run out.
    this.h2 = (b | 1) >>> 0;
  }
}
