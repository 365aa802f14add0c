/**
 * Producer ids for idempotent producers, unique across the cluster and across restarts.
 *
 * `/tide/<cluster>/producer-ids` holds the first id no allocator has claimed. An allocator claims a
 * block [next, next + blockSize) with a compare-and-swap on that key's modRevision (or its absence
 * for the first block), then hands ids out of the block from memory. Ids of a block that was not
 * used up before a restart are skipped, never reused; ids start at 0 as in Kafka.
 */
import { AssertionError } from '../assert';
import { TideError } from '../errors';
import type { Logger } from '../logger';
import { MetadataKeys, decodeProducerIdBlock, encodeProducerIdBlock } from '../metadata/keys';
import type { Compare, MetadataStore } from '../metadata/store';

export const DEFAULT_PRODUCER_ID_BLOCK_SIZE = 1000;
/** CAS attempts per block before giving up (many allocators racing). */
export const DEFAULT_PRODUCER_ID_CLAIM_ATTEMPTS = 20;

export interface ProducerIdAllocatorOptions {
  store: MetadataStore;
  clusterName: string;
  logger: Logger;
  /** Ids claimed per metadata write; default DEFAULT_PRODUCER_ID_BLOCK_SIZE. */
  blockSize?: number;
  /** Compares added to every claim, e.g. "this controller still holds /controller". */
  fencing?: () => Compare[];
  claimAttempts?: number;
}

export class ProducerIdAllocator {
  private readonly keys: MetadataKeys;
  private readonly blockSize: number;
  private nextId = 0;
  private blockEnd = 0;
  /** One claim at a time; concurrent next() calls wait for it. */
  private claiming?: Promise<void>;

  constructor(private readonly options: ProducerIdAllocatorOptions) {
    this.keys = new MetadataKeys(options.clusterName);
    this.blockSize = options.blockSize ?? DEFAULT_PRODUCER_ID_BLOCK_SIZE;
    if (!Number.isSafeInteger(this.blockSize) || this.blockSize < 1) {
      throw new TideError(
        'INVALID_CONFIG',
        `producer id block size must be an integer >= 1 (got ${this.blockSize})`,
      );
    }
  }

  /** A producer id never handed out before in this cluster. Throws METADATA_UNAVAILABLE (retriable). */
  async next(): Promise<number> {
    while (this.nextId >= this.blockEnd) {
      this.claiming ??= this.claimBlock().finally(() => (this.claiming = undefined));
      await this.claiming;
    }
    return this.nextId++;
  }

  private async claimBlock(): Promise<void> {
    const { store } = this.options;
    const key = this.keys.producerIds;
    const attempts = this.options.claimAttempts ?? DEFAULT_PRODUCER_ID_CLAIM_ATTEMPTS;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      const kv = await store.get(key);
      const start = kv ? decodeProducerIdBlock(kv.value, key).nextProducerId : 0;
      const end = start + this.blockSize;
      if (!Number.isSafeInteger(end)) throw new AssertionError(`producer ids exhausted (next ${start})`);
      const guard: Compare = kv
        ? { key, target: 'modRevision', op: '=', value: kv.modRevision }
        : { key, target: 'createRevision', op: '=', value: 0 };
      const result = await store.txn(
        [guard, ...(this.options.fencing?.() ?? [])],
        [{ type: 'put', key, value: encodeProducerIdBlock({ nextProducerId: end }) }],
        [{ type: 'get', key }],
      );
      if (result.succeeded) {
        this.nextId = start;
        this.blockEnd = end;
        this.options.logger.info({ start, end }, 'claimed a producer id block');
        return;
      }
      const now = result.gets[0];
      if (kv ? now?.modRevision === kv.modRevision : now === undefined) {
        throw new TideError(
          'NOT_CONTROLLER',
          'could not claim producer ids: a fencing compare failed (this controller lost leadership)',
        );
      }
    }
    throw new TideError(
      'METADATA_UNAVAILABLE',
      `could not claim a producer id block after ${attempts} attempts (too much contention); retry`,
    );
  }
}
