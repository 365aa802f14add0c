/**
 * The Admin quota calls (AlterClientQuotas, DescribeClientQuotas), served by every broker and
 * controller against the metadata store; every service's QuotaCache hears the change through its
 * watch. The interceptor has already checked alter/describe on the cluster; changes are audited.
 */
import type * as grpc from '@grpc/grpc-js';
import { TideError } from '../../errors';
import type { Logger } from '../../logger';
import type { MetadataStore } from '../../metadata/store';
import { unary, type RpcEdge } from '../../grpc/unary';
import type { AdminHandlers } from '../../grpc/generated/tide/v1/Admin';
import type { ClientQuota__Input } from '../../grpc/generated/tide/v1/ClientQuota';
import type { QuotaEntity as QuotaEntityWire } from '../../grpc/generated/tide/v1/QuotaEntity';
import { PRINCIPAL_HEADER } from '../auth/auth-interceptor';
import { entityOf, isQuotaKey, QUOTA_KEYS, type ClientQuota, type QuotaKey } from './quota';
import { QuotaStore, type QuotaAlteration, type QuotaFilter } from './quota-store';

export type QuotaRpc = 'AlterClientQuotas' | 'DescribeClientQuotas';

function keyOf(key: string): QuotaKey {
  if (!isQuotaKey(key)) {
    throw new TideError('INVALID_REQUEST', `unknown quota ${key}; use one of ${QUOTA_KEYS.join(', ')}`);
  }
  return key;
}

function toWire(quota: ClientQuota): ClientQuota__Input {
  return {
    entity: { user: quota.entity.user ?? '', client_id: quota.entity.clientId ?? '' },
    values: Object.entries(quota.values).map(([key, value]) => ({ key, value })),
  };
}

function filterOf(wire: QuotaEntityWire | null | undefined): QuotaFilter {
  const filter: QuotaFilter = {};
  if (wire?.user) filter.user = wire.user;
  if (wire?.client_id) filter.clientId = wire.client_id;
  return filter;
}

function caller(metadata: grpc.Metadata): string {
  const value = metadata.get(PRINCIPAL_HEADER)[0];
  return typeof value === 'string' ? value : 'ANONYMOUS';
}

export function quotaAdminHandlers(deps: {
  store: MetadataStore;
  clusterName: string;
  edge: RpcEdge;
  audit: Logger;
}): Pick<AdminHandlers, QuotaRpc> {
  const quotas = new QuotaStore(deps.store, deps.clusterName);
  return {
    AlterClientQuotas: unary(deps.edge, 'AlterClientQuotas', async (req, metadata) => {
      if (req.alterations.length === 0)
        throw new TideError('INVALID_REQUEST', 'give at least one quota alteration');
      const alterations: QuotaAlteration[] = req.alterations.map((a) => {
        const set: QuotaAlteration['set'] = {};
        for (const v of a.set) set[keyOf(v.key)] = v.value;
        const remove = a.remove.map(keyOf);
        if (Object.keys(set).length === 0 && remove.length === 0)
          throw new TideError('INVALID_REQUEST', 'a quota alteration sets or removes at least one key');
        return { entity: entityOf(a.entity?.user, a.entity?.client_id), set, remove };
      });
      const after = await quotas.alter(alterations);
      deps.audit.info({ principal: caller(metadata), alterations }, 'client quotas altered');
      return { quotas: after.map(toWire) };
    }),
    DescribeClientQuotas: unary(deps.edge, 'DescribeClientQuotas', async (req) => ({
      quotas: (await quotas.list(filterOf(req.filter))).map(toWire),
    })),
  };
}
