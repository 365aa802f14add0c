/**
 * A service's authentication and authorization, built at start from its config: the server
 * interceptor its gRPC listener runs, and the ACL cache behind it. With every auth key at its
 * default there is no interceptor at all, so a service without security pays nothing per call.
 */
import type * as grpc from '@grpc/grpc-js';
import type { Clock } from '../../clock';
import { TideError } from '../../errors';
import type { Logger } from '../../logger';
import type { MetadataStore } from '../../metadata/store';
import { AclCache } from './acl-store';
import type { AuthConfig } from './auth-config-keys';
import { authInterceptor, type AuthInterceptor } from './auth-interceptor';
import { Authenticator, readStaticTokens, type AuthenticatorSettings } from './authenticator';
import { Authorizer } from './authorizer';
import { JwtVerifier } from './jwt';
import { parsePrincipalRules } from './principal-mapping';

export interface ServiceAuth {
  /** For startServer's `interceptors`; empty when security is off. */
  interceptors: grpc.ServerInterceptor[];
  /** Undefined when security is off. */
  interceptor?: AuthInterceptor;
  close(): Promise<void>;
}

export const NO_AUTH: ServiceAuth = { interceptors: [], close: async () => undefined };

export function principalList(text: string): Set<string> {
  return new Set(
    text
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
  );
}

/** The authenticator of a config; throws INVALID_CONFIG on unusable settings or files. */
export function authenticatorOf(
  config: AuthConfig & { tlsClientAuth?: string; tlsCertFile?: string },
): Authenticator {
  const settings: AuthenticatorSettings = {};
  if ((config.authJwksFile || config.authStaticTokensFile) && config.tlsCertFile === '') {
    throw new TideError(
      'INVALID_CONFIG',
      'token authentication (authJwksFile, authStaticTokensFile) needs TLS: set tlsCertFile and tlsKeyFile (clients never send a token in plain text)',
    );
  }
  if (config.authMtls) {
    if (config.tlsClientAuth === 'none') {
      throw new TideError(
        'INVALID_CONFIG',
        'authMtls needs client certificates: set tlsClientAuth to request or require (and tlsCaFile)',
      );
    }
    settings.mtls = {
      source: config.authMtlsPrincipalSource === 'san' ? 'san' : 'subject',
      rules: parsePrincipalRules(config.authMtlsPrincipalRules),
    };
  }
  if (config.authJwksFile) {
    settings.jwt = {
      verifier: new JwtVerifier({
        jwksFile: config.authJwksFile,
        issuer: config.authJwtIssuer,
        audience: config.authJwtAudience,
      }),
      principalClaim: config.authJwtPrincipalClaim || 'sub',
    };
  }
  if (config.authStaticTokensFile) settings.staticTokens = readStaticTokens(config.authStaticTokensFile);
  return new Authenticator(settings);
}

export type ServiceAuthConfig = AuthConfig & {
  clusterName: string;
  tlsClientAuth?: string;
  tlsCertFile?: string;
};

/** Builds the service's auth; reads the ACLs once before returning when authorization is on. */
export async function startServiceAuth(
  config: ServiceAuthConfig,
  deps: { store: MetadataStore; clock: Clock; logger: Logger },
): Promise<ServiceAuth> {
  const authenticator = authenticatorOf(config);
  const aclsOn = config.authorization === 'acl';
  const internalPrincipals = principalList(config.internalPrincipals);
  if (aclsOn && internalPrincipals.size === 0) {
    throw new TideError(
      'INVALID_CONFIG',
      "authorization=acl needs internalPrincipals: the principals of Tide's brokers, controllers and coordinators (their certificate or token principals)",
    );
  }
  if (aclsOn && !authenticator.enabled) {
    throw new TideError(
      'INVALID_CONFIG',
      'authorization=acl needs an authentication mechanism (authMtls, authJwksFile or authStaticTokensFile): every caller would be ANONYMOUS',
    );
  }
  if (!authenticator.enabled && internalPrincipals.size === 0) return NO_AUTH;
  const logger = deps.logger.child({ component: 'auth' });
  const acls = aclsOn
    ? await AclCache.start({ store: deps.store, clusterName: config.clusterName, clock: deps.clock, logger })
    : AclCache.of([], logger);
  const authorizer = new Authorizer({
    enabled: aclsOn,
    superUsers: principalList(config.superUsers),
    internalPrincipals,
    acls,
  });
  const interceptor = authInterceptor({ authenticator, authorizer, audit: auditLogger(deps.logger) });
  logger.info(
    {
      authorization: config.authorization,
      mtls: config.authMtls,
      jwt: !!config.authJwksFile,
      staticTokens: !!config.authStaticTokensFile,
    },
    'authentication on',
  );
  return {
    interceptors: [interceptor.interceptor],
    interceptor,
    close: async () => {
      interceptor.close();
      await acls.close();
    },
  };
}

/** The audit log: denied calls and ACL changes, under its own logger name. */
export function auditLogger(logger: Logger): Logger {
  return logger.child({ name: 'audit' });
}
