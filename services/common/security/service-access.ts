/**
 * Everything a service's gRPC listener checks per call, built at start from its config:
 * authentication and authorization (auth/), then client quotas (quota/), in that order in the
 * interceptor chain (the quota interceptor reads the principal the auth interceptor sets).
 */
import type { Clock } from '../clock';
import type { Logger } from '../logger';
import type { MetadataStore } from '../metadata/store';
import { startServiceAuth, type ServiceAuth, type ServiceAuthConfig } from './auth/service-auth';
import type { QuotaInterceptor } from './quota/quota-interceptor';
import { startServiceQuotas } from './quota/service-quotas';

export interface ServiceAccess extends ServiceAuth {
  /** Undefined when client quotas are off (config key `quotas`). */
  quotas?: QuotaInterceptor;
}

/** Reads the ACLs and quotas once before returning. */
export async function startServiceAccess(
  config: ServiceAuthConfig,
  deps: { store: MetadataStore; clock: Clock; logger: Logger },
): Promise<ServiceAccess> {
  const auth = await startServiceAuth(config, deps);
  let quotas;
  try {
    quotas = await startServiceQuotas(
      { quotas: config.quotas, clusterName: config.clusterName },
      { ...deps, authenticated: auth.interceptor !== undefined },
    );
  } catch (err) {
    await auth.close();
    throw err;
  }
  if (!quotas.interceptor) return auth;
  return {
    interceptors: [...auth.interceptors, ...quotas.interceptors],
    ...(auth.interceptor ? { interceptor: auth.interceptor } : {}),
    quotas: quotas.interceptor,
    close: async () => {
      await quotas.close();
      await auth.close();
    },
  };
}
