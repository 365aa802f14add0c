/** Types of the pure-JS `lz4js` package (LZ4 frame format, as Kafka's lz4 codec writes it). */
declare module 'lz4js' {
  /** Compresses `src` into one LZ4 frame. */
  export function compress(src: Uint8Array, maxSize?: number): Uint8Array;
  /** Decompresses one LZ4 frame. */
  export function decompress(src: Uint8Array, maxSize?: number): Uint8Array;
}
