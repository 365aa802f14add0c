/**
 * Quotas live in the metadata store beside the ACLs, one key per entity under
 * `/tide/<cluster>/quotas/`; QuotaCache mirrors the prefix through a watch, so every broker and
 * controller applies a change within the watch latency.
 */
import type { Clock } from '../../clock';
import type { Logger } from '../../logger';
import { MetadataKeys } from '../../metadata/keys';
import { mirrorPrefix, type PrefixMirror } from '../../metadata/prefix-mirror';
import type { MetadataStore } from '../../metadata/store';
import {
  checkQuotaValue,
  entityId,
  parseClientQuota,
  QuotaTable,
  type ClientQuota,
  type QuotaEntity,
  type QuotaKey,
} from './quota';

export function quotasPrefix(clusterName: string): string {
  return `${new MetadataKeys(clusterName).root}quotas/`;
}

function decode(value: Buffer): ClientQuota {
  return parseClientQuota(JSON.parse(value.toString('utf8')) as Record<string, unknown>);
}

export interface QuotaAlteration {
  entity: QuotaEntity;
  set: Partial<Record<QuotaKey, number>>;
  remove: QuotaKey[];
}

/** A filter part: undefined matches anything, '' matches an entity without that part. */
export interface QuotaFilter {
  user?: string;
  clientId?: string;
}

export class QuotaStore {
  private readonly prefix: string;

  constructor(
    private readonly store: MetadataStore,
    clusterName: string,
  ) {
    this.prefix = quotasPrefix(clusterName);
  }

  /** Applies each alteration atomically per entity (compare-and-swap on the key's revision). */
  async alter(alterations: QuotaAlteration[]): Promise<ClientQuota[]> {
    for (const a of alterations) {
      for (const [key, value] of Object.entries(a.set)) checkQuotaValue(key, value);
    }
    const out: ClientQuota[] = [];
    for (const alteration of alterations) {
      const after = await this.alterOne(alteration);
      if (after) out.push(after);
    }
    return out;
  }

  private async alterOne(alteration: QuotaAlteration): Promise<ClientQuota | undefined> {
    const key = this.prefix + entityId(alteration.entity);
    for (;;) {
      const kv = await this.store.get(key);
      const values = { ...(kv ? decode(kv.value).values : {}), ...alteration.set };
      for (const removed of alteration.remove) delete values[removed];
      const empty = Object.keys(values).length === 0;
      const result = await this.store.txn(
        [{ key, target: 'modRevision', op: '=', value: kv?.modRevision ?? 0 }],
        [
          empty
            ? { type: 'delete', key }
            : { type: 'put', key, value: JSON.stringify({ entity: alteration.entity, values }) },
        ],
      );
      if (result.succeeded) return empty ? undefined : { entity: alteration.entity, values };
    }
  }

  async list(filter: QuotaFilter = {}): Promise<ClientQuota[]> {
    const range = await this.store.getPrefix(this.prefix);
    const out: ClientQuota[] = [];
    for (const kv of range.kvs) {
      const quota = decodeOrUndefined(kv.value);
      if (quota && matches(filter, quota.entity)) out.push(quota);
    }
    return out;
  }
}

function matches(filter: QuotaFilter, entity: QuotaEntity): boolean {
  const part = (want: string | undefined, have: string | undefined) =>
    want === undefined || want === (have ?? '');
  return part(filter.user, entity.user) && part(filter.clientId, entity.clientId);
}

function decodeOrUndefined(value: Buffer): ClientQuota | undefined {
  try {
    return decode(value);
  } catch {
    return undefined;
  }
}

/** An always-current QuotaTable of the cluster. */
export class QuotaCache {
  private current = new QuotaTable([]);
  private mirror?: PrefixMirror;

  private constructor(private readonly logger: Logger) {}

  static async start(options: {
    store: MetadataStore;
    clusterName: string;
    clock: Clock;
    logger: Logger;
  }): Promise<QuotaCache> {
    const cache = new QuotaCache(options.logger);
    cache.mirror = await mirrorPrefix(
      {
        store: options.store,
        prefix: quotasPrefix(options.clusterName),
        clock: options.clock,
        logger: options.logger,
      },
      (update) => cache.replace(update.current),
    );
    return cache;
  }

  /** A fixed table (tests). */
  static of(quotas: ClientQuota[], logger: Logger): QuotaCache {
    const cache = new QuotaCache(logger);
    cache.current = new QuotaTable(quotas);
    return cache;
  }

  get table(): QuotaTable {
    return this.current;
  }

  async close(): Promise<void> {
    await this.mirror?.cancel();
  }

  private replace(current: ReadonlyMap<string, Buffer>): void {
    const next: ClientQuota[] = [];
    for (const [key, value] of current) {
      try {
        next.push(decode(value));
      } catch (err) {
        // A bad entry limits nobody; the others still apply.
        this.logger.warn({ err, key }, 'ignoring an unreadable quota in the metadata store');
      }
    }
    this.current = new QuotaTable(next);
  }
}
