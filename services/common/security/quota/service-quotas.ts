/**
 * A service's quota enforcement, built at start from its config: the quota interceptor (placed
 * after the auth interceptor, whose `tide-principal` header it reads) and the QuotaCache behind it.
 */
import type * as grpc from '@grpc/grpc-js';
import type { Clock } from '../../clock';
import type { Logger } from '../../logger';
import type { MetadataStore } from '../../metadata/store';
import { QuotaCache } from './quota-store';
import { quotaInterceptor, type QuotaInterceptor } from './quota-interceptor';

export interface ServiceQuotas {
  interceptors: grpc.ServerInterceptor[];
  interceptor?: QuotaInterceptor;
  close(): Promise<void>;
}

export const NO_QUOTAS: ServiceQuotas = { interceptors: [], close: async () => undefined };

/** `quotas` = on | off | auto (on when the service authenticates its callers). */
export function quotasEnabled(setting: string, authenticated: boolean): boolean {
  return setting === 'on' || (setting === 'auto' && authenticated);
}

export async function startServiceQuotas(
  config: { quotas: string; clusterName: string },
  deps: { store: MetadataStore; clock: Clock; logger: Logger; authenticated: boolean },
): Promise<ServiceQuotas> {
  if (!quotasEnabled(config.quotas, deps.authenticated)) return NO_QUOTAS;
  const logger = deps.logger.child({ component: 'quotas' });
  const cache = await QuotaCache.start({
    store: deps.store,
    clusterName: config.clusterName,
    clock: deps.clock,
    logger,
  });
  const interceptor = quotaInterceptor({
    quotas: () => cache.table,
    authenticated: deps.authenticated,
    clock: deps.clock,
  });
  logger.info({ authenticated: deps.authenticated }, 'client quotas on');
  return {
    interceptors: [interceptor.interceptor],
    interceptor,
    close: async () => {
      interceptor.close();
      await cache.close();
    },
  };
}
