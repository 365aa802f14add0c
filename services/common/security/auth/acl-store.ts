/**
 * ACLs live in the metadata store, one key per binding under `/tide/<cluster>/acls/`, so every
 * broker, controller and coordinator sees the same set; AclCache mirrors the prefix through a
 * watch, so a change applies everywhere within the watch latency (well under a second).
 */
import type { Clock } from '../../clock';
import type { Logger } from '../../logger';
import { MetadataKeys } from '../../metadata/keys';
import { mirrorPrefix, type PrefixMirror } from '../../metadata/prefix-mirror';
import type { MetadataStore } from '../../metadata/store';
import { aclId, filterMatches, parseAclBinding, type AclBinding, type AclFilter } from './acl';

export function aclsPrefix(clusterName: string): string {
  return `${new MetadataKeys(clusterName).root}acls/`;
}

function decode(value: Buffer): AclBinding {
  return parseAclBinding(JSON.parse(value.toString('utf8')) as Record<string, unknown>);
}

/** Reads and writes the bindings of one cluster. */
export class AclStore {
  private readonly prefix: string;

  constructor(
    private readonly store: MetadataStore,
    clusterName: string,
  ) {
    this.prefix = aclsPrefix(clusterName);
  }

  /** Adds the bindings (adding an existing one changes nothing); returns how many were new. */
  async create(bindings: AclBinding[]): Promise<number> {
    let created = 0;
    for (const acl of bindings) {
      const key = this.prefix + aclId(acl);
      const result = await this.store.txn(
        [{ key, target: 'createRevision', op: '=', value: 0 }],
        [{ type: 'put', key, value: JSON.stringify(acl) }],
      );
      if (result.succeeded) created++;
    }
    return created;
  }

  async list(filter: AclFilter = {}): Promise<AclBinding[]> {
    const range = await this.store.getPrefix(this.prefix);
    const out: AclBinding[] = [];
    for (const kv of range.kvs) {
      const acl = decodeOrUndefined(kv.value);
      if (acl && filterMatches(filter, acl)) out.push(acl);
    }
    return out;
  }

  /** Deletes every binding matching one of the filters; returns the deleted bindings. */
  async delete(filters: AclFilter[]): Promise<AclBinding[]> {
    const all = await this.list();
    const doomed = all.filter((acl) => filters.some((filter) => filterMatches(filter, acl)));
    for (const acl of doomed) await this.store.delete(this.prefix + aclId(acl));
    return doomed;
  }
}

function decodeOrUndefined(value: Buffer): AclBinding | undefined {
  try {
    return decode(value);
  } catch {
    return undefined;
  }
}

/** An always-current copy of the cluster's bindings; listeners hear of every change. */
export class AclCache {
  private bindings: AclBinding[] = [];
  private readonly listeners = new Set<() => void>();
  private mirror?: PrefixMirror;

  private constructor(private readonly logger: Logger) {}

  static async start(options: {
    store: MetadataStore;
    clusterName: string;
    clock: Clock;
    logger: Logger;
  }): Promise<AclCache> {
    const cache = new AclCache(options.logger);
    cache.mirror = await mirrorPrefix(
      {
        store: options.store,
        prefix: aclsPrefix(options.clusterName),
        clock: options.clock,
        logger: options.logger,
      },
      (update) => cache.replace(update.current),
    );
    return cache;
  }

  /** A fixed set (tests, and services whose authorization is off). */
  static of(bindings: AclBinding[], logger: Logger): AclCache {
    const cache = new AclCache(logger);
    cache.bindings = bindings;
    return cache;
  }

  get acls(): readonly AclBinding[] {
    return this.bindings;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await this.mirror?.cancel();
  }

  private replace(current: ReadonlyMap<string, Buffer>): void {
    const next: AclBinding[] = [];
    for (const [key, value] of current) {
      try {
        next.push(decode(value));
      } catch (err) {
        // A bad binding grants nothing; the others still apply.
        this.logger.warn({ err, key }, 'ignoring an unreadable ACL in the metadata store');
      }
    }
    this.bindings = next;
    for (const listener of this.listeners) listener();
  }
}
