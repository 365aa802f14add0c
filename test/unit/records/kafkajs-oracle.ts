/**
 * kafkajs 2.2.4 as an independent RecordBatch v2 implementation for tests (see shared COMPAT.md).
 * kafkajs calls the v2 batch format "recordBatch v0". Test-only; Tide code must not import this.
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import { compressSync, uncompressSync } from 'snappy';

interface KafkajsEncoder {
  buffer: Buffer;
}
interface KafkajsDecoder {
  offset: number;
  buffer: Buffer;
}
type KafkajsHeaders = Record<string, Buffer | Buffer[]>;

/** A record as kafkajs's decoder returns it (64-bit numbers as strings). */
export interface KafkajsRecord {
  offset: string;
  timestamp: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: KafkajsHeaders;
}

export interface KafkajsBatch {
  firstOffset: string;
  firstTimestamp: string;
  maxTimestamp: string;
  partitionLeaderEpoch: number;
  lastOffsetDelta: number;
  producerId: string;
  producerEpoch: number;
  firstSequence: number;
  inTransaction: boolean;
  timestampType: number;
  records: KafkajsRecord[];
}

const Decoder = require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => KafkajsDecoder;
const Encoder = require('kafkajs/src/protocol/encoder') as new () => KafkajsEncoder & {
  writeVarInt(value: number): KafkajsEncoder;
  writeVarLong(value: number | bigint): KafkajsEncoder;
};
const batchDecoder = require('kafkajs/src/protocol/recordBatch/v0/decoder') as (
  d: KafkajsDecoder,
) => Promise<KafkajsBatch>;
const { RecordBatch } = require('kafkajs/src/protocol/recordBatch/v0') as {
  RecordBatch: (args: Record<string, unknown>) => Promise<KafkajsEncoder>;
};
const Record = require('kafkajs/src/protocol/recordBatch/record/v0') as (args: {
  offsetDelta: number;
  timestampDelta: number;
  key: Buffer | null;
  value: Buffer | null;
  headers?: KafkajsHeaders;
}) => KafkajsEncoder;
const kafkajs = require('kafkajs') as {
  CompressionTypes: { None: number; GZIP: number; Snappy: number };
  CompressionCodecs: Record<number, () => unknown>;
  Partitioners: {
    DefaultPartitioner: () => (args: {
      topic: string;
      partitionMetadata: { partitionId: number; leader: number }[];
      message: { key: Buffer };
    }) => number;
  };
};

/** kafkajs's crc32C (unsigned). */
export const kafkajsCrc32c = require('kafkajs/src/protocol/recordBatch/crc32C') as (buf: Buffer) => number;
/** kafkajs's Java-compatible murmur2 (signed 32-bit). */
export const kafkajsMurmur2 = require('kafkajs/src/producer/partitioners/default/murmur2') as (
  key: Buffer,
) => number;
export const KafkajsCompression = kafkajs.CompressionTypes;

const XERIAL_HEADER = Buffer.from('82534e41505059000000000100000001', 'hex');

/**
 * kafkajs has no built-in snappy; register one that writes the xerial framing Java clients use
 * (split into 32 KiB blocks, as snappy-java does) and reads raw or xerial-framed snappy.
 */
kafkajs.CompressionCodecs[kafkajs.CompressionTypes.Snappy] = () => ({
  async compress(encoder: KafkajsEncoder): Promise<Buffer> {
    const parts: Buffer[] = [XERIAL_HEADER];
    for (let at = 0; at < encoder.buffer.length; at += 32 * 1024) {
      const block = compressSync(encoder.buffer.subarray(at, at + 32 * 1024));
      const length = Buffer.alloc(4);
      length.writeInt32BE(block.length);
      parts.push(length, block);
    }
    return Buffer.concat(parts);
  },
  async decompress(buffer: Buffer): Promise<Buffer> {
    if (!buffer.subarray(0, 8).equals(XERIAL_HEADER.subarray(0, 8))) {
      return uncompressSync(buffer, { asBuffer: true }) as Buffer;
    }
    const parts: Buffer[] = [];
    for (let at = 16; at < buffer.length; at += 4 + buffer.readInt32BE(at)) {
      parts.push(
        uncompressSync(buffer.subarray(at + 4, at + 4 + buffer.readInt32BE(at)), {
          asBuffer: true,
        }) as Buffer,
      );
    }
    return Buffer.concat(parts);
  },
});

/** Decodes every batch in `buf` with kafkajs. */
export async function kafkajsDecode(buf: Buffer): Promise<KafkajsBatch[]> {
  const decoder = new Decoder(buf);
  const batches: KafkajsBatch[] = [];
  while (decoder.offset < buf.length) batches.push(await batchDecoder(decoder));
  return batches;
}

export interface KafkajsInput {
  key: Buffer | null;
  value: Buffer | null;
  headers?: KafkajsHeaders;
  timestampMs: number;
}

/** Encodes one batch with kafkajs; baseTimestamp is the first record's, as Tide and Java do. */
export async function kafkajsEncode(
  records: KafkajsInput[],
  fields: {
    compression: number;
    baseOffset: number;
    partitionLeaderEpoch: number;
    producerId: number;
    producerEpoch: number;
    baseSequence: number;
    transactional?: boolean;
  },
): Promise<Buffer> {
  const firstTimestamp = records[0].timestampMs;
  const encoded = records.map((r, i) =>
    Record({
      offsetDelta: i,
      timestampDelta: r.timestampMs - firstTimestamp,
      key: r.key,
      value: r.value,
      headers: r.headers,
    }),
  );
  const batch = await RecordBatch({
    compression: fields.compression,
    firstOffset: fields.baseOffset,
    firstTimestamp,
    maxTimestamp: Math.max(...records.map((r) => r.timestampMs)),
    partitionLeaderEpoch: fields.partitionLeaderEpoch,
    lastOffsetDelta: records.length - 1,
    transactional: fields.transactional ?? false,
    producerId: fields.producerId,
    producerEpoch: fields.producerEpoch,
    firstSequence: fields.baseSequence,
    records: encoded,
  });
  return Buffer.from(batch.buffer);
}

/** kafkajs's zigzag varint bytes. */
export function kafkajsVarint(value: number): Buffer {
  return Buffer.from(new Encoder().writeVarInt(value).buffer);
}

/** kafkajs's zigzag varlong bytes. */
export function kafkajsVarlong(value: number | bigint): Buffer {
  return Buffer.from(new Encoder().writeVarLong(value).buffer);
}

/** The partition kafkajs's DefaultPartitioner picks for `key`. */
export function kafkajsPartition(key: Buffer, partitionCount: number): number {
  const partitioner = kafkajs.Partitioners.DefaultPartitioner();
  const partitionMetadata = Array.from({ length: partitionCount }, (_, partitionId) => ({
    partitionId,
    leader: 0,
  }));
  return partitioner({ topic: 't', partitionMetadata, message: { key } });
}
