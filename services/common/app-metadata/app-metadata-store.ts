/**
 * Application metadata: small documents an application keeps in the metadata store under its
 * name (its consumer group id) — a streams application records its running topology here, and
 * each of its instances a status heartbeat. One key per entry:
 *
 *   /tide/<cluster>/applications/<encodeURIComponent(application)>/<key>
 *
 * Value bytes: `[format 1: u8][expiresAtMs: i64 BE, 0 = never][value]`. An entry written with a
 * TTL is attached to a lease of that TTL which nobody keeps alive, so it vanishes by itself unless
 * written again (the writer's heartbeat); the expiry is kept in the value only to be shown.
 * An entry's version is the store revision of its last write, so a put can compare-and-swap on it.
 */
import type { Clock } from '../clock';
import { TideError } from '../errors';
import { MetadataKeys } from '../metadata/keys';
import type { KeyValue, MetadataStore } from '../metadata/store';

/** Largest value accepted (etcd refuses requests above 1.5 MiB by default). */
export const APP_METADATA_VALUE_BYTES_MAX = 1024 * 1024;
/** Application names: any group id up to this length. */
const APPLICATION_CHARS_MAX = 249;
const KEY = /^[a-zA-Z0-9._-]{1,200}$/;
const FORMAT = 1;
const HEADER_BYTES = 9;

export interface AppMetadataEntry {
  application: string;
  key: string;
  value: Buffer;
  /** The store revision of the entry's last write. */
  version: number;
  /** 0: stays until deleted. */
  expiresAtMs: number;
}

export interface AppMetadataPut {
  application: string;
  key: string;
  value: Buffer;
  /** Write only if the entry's version is this (0: only if there is no entry). */
  expectedVersion?: number;
  /** > 0: the entry vanishes this long after the write unless written again. */
  ttlMs?: number;
}

export type AppMetadataPutResult =
  { applied: true; version: number } | { applied: false; current: AppMetadataEntry | undefined };

export function checkApplication(application: string): void {
  if (application.length === 0 || application.length > APPLICATION_CHARS_MAX) {
    throw new TideError(
      'INVALID_REQUEST',
      `application must be 1 to ${APPLICATION_CHARS_MAX} characters (its consumer group id), got ${application.length}`,
    );
  }
}

export function checkKey(key: string): void {
  if (!KEY.test(key)) {
    throw new TideError(
      'INVALID_REQUEST',
      `application metadata key ${JSON.stringify(key)} must be 1 to 200 characters of [a-zA-Z0-9._-]`,
    );
  }
}

export class AppMetadataStore {
  private readonly prefix: string;

  constructor(
    private readonly store: MetadataStore,
    clusterName: string,
    private readonly clock: Clock,
  ) {
    this.prefix = `${new MetadataKeys(clusterName).root}applications/`;
  }

  async put(p: AppMetadataPut): Promise<AppMetadataPutResult> {
    checkApplication(p.application);
    checkKey(p.key);
    if (p.value.length > APP_METADATA_VALUE_BYTES_MAX) {
      throw new TideError(
        'INVALID_REQUEST',
        `application metadata values are at most ${APP_METADATA_VALUE_BYTES_MAX} bytes, got ${p.value.length}`,
      );
    }
    const ttlMs = p.ttlMs ?? 0;
    if (!Number.isSafeInteger(ttlMs) || ttlMs < 0)
      throw new TideError(
        'INVALID_REQUEST',
        `ttl_ms must be 0 (no expiry) or a positive number, got ${ttlMs}`,
      );
    const key = this.keyOf(p.application, p.key);
    const value = encode(p.value, ttlMs > 0 ? this.clock.nowMs() + ttlMs : 0);
    // Nobody keeps the lease alive: it lapses ttlMs from now and takes the entry with it, unless
    // a later write moves the entry to a newer lease.
    const lease = ttlMs > 0 ? await this.store.grantLease(ttlMs) : undefined;
    const compares =
      p.expectedVersion === undefined
        ? []
        : [{ key, target: 'modRevision' as const, op: '=' as const, value: p.expectedVersion }];
    try {
      const result = await this.store.txn(
        compares,
        [{ type: 'put', key, value, lease: lease?.id }],
        [{ type: 'get', key }],
      );
      if (!result.succeeded) {
        await lease?.revoke();
        const kv = result.gets[0];
        return { applied: false, current: kv && this.entryOf(p.application, p.key, kv) };
      }
      lease?.release();
      return { applied: true, version: result.revision };
    } catch (err) {
      await lease?.revoke().catch(() => undefined);
      throw err;
    }
  }

  async get(application: string, key: string): Promise<AppMetadataEntry | undefined> {
    checkApplication(application);
    checkKey(key);
    const kv = await this.store.get(this.keyOf(application, key));
    return kv && this.entryOf(application, key, kv);
  }

  /** Entries of one application (or of all, when `application` is empty) whose key starts with `keyPrefix`. */
  async list(application: string, keyPrefix = ''): Promise<AppMetadataEntry[]> {
    if (application !== '') checkApplication(application);
    const range = await this.store.getPrefix(
      application === '' ? this.prefix : `${this.prefix}${encodeURIComponent(application)}/`,
    );
    const out: AppMetadataEntry[] = [];
    for (const kv of range.kvs) {
      const [app, key] = kv.key.slice(this.prefix.length).split('/');
      if (key === undefined || !key.startsWith(keyPrefix)) continue;
      const entry = this.entryOf(decodeURIComponent(app), key, kv);
      if (entry) out.push(entry);
    }
    return out;
  }

  /** Deletes one entry, or every entry of the application when `key` is empty; answers how many. */
  async delete(application: string, key = ''): Promise<number> {
    checkApplication(application);
    if (key !== '') return (await this.store.delete(this.keyOf(application, key))) ? 1 : 0;
    const prefix = `${this.prefix}${encodeURIComponent(application)}/`;
    const { kvs } = await this.store.getPrefix(prefix);
    if (kvs.length === 0) return 0;
    await this.store.txn([], [{ type: 'deletePrefix', prefix }]);
    return kvs.length;
  }

  private keyOf(application: string, key: string): string {
    return `${this.prefix}${encodeURIComponent(application)}/${key}`;
  }

  private entryOf(application: string, key: string, kv: KeyValue): AppMetadataEntry | undefined {
    const decoded = decode(kv.value);
    if (!decoded) return undefined;
    return {
      application,
      key,
      value: decoded.value,
      version: kv.modRevision,
      expiresAtMs: decoded.expiresAtMs,
    };
  }
}

function encode(value: Buffer, expiresAtMs: number): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES + value.length);
  out.writeUInt8(FORMAT, 0);
  out.writeBigInt64BE(BigInt(expiresAtMs), 1);
  value.copy(out, HEADER_BYTES);
  return out;
}

/** Undefined for bytes of an unknown format (a newer writer's): skipped, not a crash. */
function decode(bytes: Buffer): { value: Buffer; expiresAtMs: number } | undefined {
  if (bytes.length < HEADER_BYTES || bytes.readUInt8(0) !== FORMAT) return undefined;
  return { expiresAtMs: Number(bytes.readBigInt64BE(1)), value: bytes.subarray(HEADER_BYTES) };
}
