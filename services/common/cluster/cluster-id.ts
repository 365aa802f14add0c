/**
 * The cluster id: chosen once, by whichever process first finds none (create-if-absent), then read
 * by everyone. Kafka's format: 16 random bytes in base64url (22 characters).
 */
import { randomBytes } from 'crypto';
import { MetadataKeys, decodeClusterId } from '../metadata/keys';
import type { MetadataStore } from '../metadata/store';

export function randomClusterId(): string {
  return randomBytes(16).toString('base64url');
}

/** The cluster's id, creating it if there is none yet. Concurrent callers all get the same id. */
export async function ensureClusterId(
  store: MetadataStore,
  clusterName: string,
  newId: () => string = randomClusterId,
): Promise<string> {
  const key = new MetadataKeys(clusterName).clusterId;
  const candidate = decodeClusterId(newId(), 'new cluster id');
  const result = await store.txn(
    [{ key, target: 'createRevision', op: '=', value: 0 }],
    [{ type: 'put', key, value: candidate }],
    [{ type: 'get', key }],
  );
  return result.succeeded ? candidate : decodeClusterId(result.gets[0]!.value, key);
}

/** The cluster's id, or undefined before any process has created it. */
export async function readClusterId(store: MetadataStore, clusterName: string): Promise<string | undefined> {
  const key = new MetadataKeys(clusterName).clusterId;
  const kv = await store.get(key);
  return kv && decodeClusterId(kv.value, key);
}
