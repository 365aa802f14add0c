/**
 * The internal token: a random secret chosen once per cluster (create-if-absent in the metadata
 * store, like the cluster id) that Tide's own services present, in the `tide-internal-token` call
 * header, to write internal topics. Brokers refuse client produce to internal topics without it
 * (INTERNAL_TOPIC), as Kafka lets only the group coordinator write `__consumer_offsets`. Clients
 * never see it: only processes with access to the metadata store can read it. This is not
 * authentication (ACLs and mTLS come later); it keeps a well-formed forged commit or a stray
 * producer out of a topic whose records the coordinator trusts.
 */
import { randomBytes } from 'crypto';
import { MetadataKeys } from '../metadata/keys';
import type { MetadataStore } from '../metadata/store';

/** The cluster's internal token, creating it if there is none yet; concurrent callers agree. */
export async function ensureInternalToken(store: MetadataStore, clusterName: string): Promise<string> {
  const key = new MetadataKeys(clusterName).internalToken;
  const candidate = randomBytes(24).toString('base64url');
  const result = await store.txn(
    [{ key, target: 'createRevision', op: '=', value: 0 }],
    [{ type: 'put', key, value: candidate }],
    [{ type: 'get', key }],
  );
  return result.succeeded ? candidate : result.gets[0]!.value.toString();
}
