/**
 * The Admin application-metadata calls (Put/Get/List/DeleteApplicationMetadata), served by every
 * broker and controller straight against the metadata store, as the ACL and quota calls are. The
 * interceptor has already checked the caller's access to the application's group
 * (services/common/security/auth/rpc-access.ts); List answers are filtered there too.
 */
import type { Clock } from '../clock';
import { unary, type RpcEdge } from '../grpc/unary';
import type { AdminHandlers } from '../grpc/generated/tide/v1/Admin';
import type { ApplicationMetadata__Input } from '../grpc/generated/tide/v1/ApplicationMetadata';
import type { MetadataStore } from '../metadata/store';
import { AppMetadataStore, type AppMetadataEntry } from './app-metadata-store';

export type AppMetadataRpc =
  | 'PutApplicationMetadata'
  | 'GetApplicationMetadata'
  | 'ListApplicationMetadata'
  | 'DeleteApplicationMetadata';

function toWire(e: AppMetadataEntry, withValue = true): ApplicationMetadata__Input {
  return {
    application: e.application,
    key: e.key,
    value: withValue ? e.value : Buffer.alloc(0),
    version: e.version,
    expires_at_ms: e.expiresAtMs,
    value_bytes: e.value.length,
  };
}

export function appMetadataAdminHandlers(deps: {
  store: MetadataStore;
  clusterName: string;
  clock: Clock;
  edge: RpcEdge;
}): Pick<AdminHandlers, AppMetadataRpc> {
  const entries = new AppMetadataStore(deps.store, deps.clusterName, deps.clock);
  return {
    PutApplicationMetadata: unary(deps.edge, 'PutApplicationMetadata', async (req) => {
      const result = await entries.put({
        application: req.application,
        key: req.key,
        value: Buffer.from(req.value),
        expectedVersion: req.conditional ? Number(req.expected_version) : undefined,
        ttlMs: Number(req.ttl_ms),
      });
      return result.applied
        ? { applied: true, version: result.version }
        : { applied: false, version: 0, current: result.current && toWire(result.current) };
    }),
    GetApplicationMetadata: unary(deps.edge, 'GetApplicationMetadata', async (req) => {
      const entry = await entries.get(req.application, req.key);
      return entry ? { found: true, entry: toWire(entry) } : { found: false };
    }),
    ListApplicationMetadata: unary(deps.edge, 'ListApplicationMetadata', async (req) => {
      const list = await entries.list(req.application, req.key_prefix);
      return { entries: list.map((e) => toWire(e, req.include_values)) };
    }),
    DeleteApplicationMetadata: unary(deps.edge, 'DeleteApplicationMetadata', async (req) => ({
      deleted: await entries.delete(req.application, req.key),
    })),
  };
}
