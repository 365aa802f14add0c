/**
 * The key digest of the cleaner's offset map: MurmurHash3_x86_128 (Austin Appleby's public-domain
 * algorithm, the 32-bit-lane variant, so it runs on plain JS int32 arithmetic without BigInt or
 * allocation). Kafka's SkimpyOffsetMap stores an MD5 digest of each key; MD5 through node:crypto
 * costs ~1.5 µs per call here, this ~0.05 µs, which is the difference between hashing being most
 * of a cleaning pass and a small part of it.
 *
 * Two different keys share a digest with probability ~2^-128 per pair (random keys): a cleaner
 * that saw a collision would drop the older key's records. Like MD5 in Kafka, this is not a defence
 * against keys crafted to collide.
 */

/** Words of one digest: 4 × u32 = 16 bytes. */
export const DIGEST_WORDS = 4;

// A module-level alias: inside vm contexts (jest), every global lookup such as `Math` goes through
// the context's interceptors and costs microseconds.
const imul = Math.imul;
const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

function word(buf: Uint8Array, p: number): number {
  return buf[p] | (buf[p + 1] << 8) | (buf[p + 2] << 16) | (buf[p + 3] << 24);
}

/**
 * MurmurHash3_x86_128 of buf[start, end) with `seed`; writes h1..h4 (as u32) to out[at..at+3].
 * Golden value: "The quick brown fox jumps over the lazy dog", seed 0 → 2f1583c3 ecee2c67 5d7bf66c
 * e5e91d2c.
 */
export function murmur3x86128(
  buf: Uint8Array,
  start: number,
  end: number,
  seed: number,
  out: Uint32Array,
  at = 0,
): void {
  const len = end - start;
  let h1 = seed | 0;
  let h2 = seed | 0;
  let h3 = seed | 0;
  let h4 = seed | 0;
  let p = start;
  const blocksEnd = start + (len & ~15);
  while (p < blocksEnd) {
    let k1 = word(buf, p);
    let k2 = word(buf, p + 4);
    let k3 = word(buf, p + 8);
    let k4 = word(buf, p + 12);
    p += 16;
    k1 = imul(rotl(imul(k1, C1), 15), C2);
    h1 ^= k1;
    h1 = (imul((rotl(h1, 19) + h2) | 0, 5) + 0x561ccd1b) | 0;
    k2 = imul(rotl(imul(k2, C2), 16), C3);
    h2 ^= k2;
    h2 = (imul((rotl(h2, 17) + h3) | 0, 5) + 0x0bcaa747) | 0;
    k3 = imul(rotl(imul(k3, C3), 17), C4);
    h3 ^= k3;
    h3 = (imul((rotl(h3, 15) + h4) | 0, 5) + 0x96cd1c35) | 0;
    k4 = imul(rotl(imul(k4, C4), 18), C1);
    h4 ^= k4;
    h4 = (imul((rotl(h4, 13) + h1) | 0, 5) + 0x32ac3b17) | 0;
  }
  const tail = len & 15;
  let k1 = 0;
  let k2 = 0;
  let k3 = 0;
  let k4 = 0;
  if (tail > 12) {
    for (let i = tail - 1; i >= 12; i--) k4 ^= buf[p + i] << ((i - 12) * 8);
    h4 ^= imul(rotl(imul(k4, C4), 18), C1);
  }
  if (tail > 8) {
    for (let i = Math.min(tail, 12) - 1; i >= 8; i--) k3 ^= buf[p + i] << ((i - 8) * 8);
    h3 ^= imul(rotl(imul(k3, C3), 17), C4);
  }
  if (tail > 4) {
    for (let i = Math.min(tail, 8) - 1; i >= 4; i--) k2 ^= buf[p + i] << ((i - 4) * 8);
    h2 ^= imul(rotl(imul(k2, C2), 16), C3);
  }
  if (tail > 0) {
    for (let i = Math.min(tail, 4) - 1; i >= 0; i--) k1 ^= buf[p + i] << (i * 8);
    h1 ^= imul(rotl(imul(k1, C1), 15), C2);
  }
  h1 ^= len;
  h2 ^= len;
  h3 ^= len;
  h4 ^= len;
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h3 = fmix(h3);
  h4 = fmix(h4);
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  out[at] = h1 >>> 0;
  out[at + 1] = h2 >>> 0;
  out[at + 2] = h3 >>> 0;
  out[at + 3] = h4 >>> 0;
}
