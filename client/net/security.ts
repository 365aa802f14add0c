/**
 * The client's security options turned into gRPC channel credentials: TLS (trusting a CA file or
 * the system roots, optionally presenting a client certificate for mTLS) and a bearer token (JWT,
 * Kubernetes service-account token or static development token) sent on every call.
 */
import * as grpc from '@grpc/grpc-js';
import { TideError } from '../../services/common/errors';
import type { Logger } from '../../services/common/logger';
import { channelCredentialsOf } from '../../services/common/security/transport';
import { bearerCallCredentials } from '../../services/common/security/bearer-token';

export interface TlsOptions {
  /** PEM CA bundle the brokers' certificates chain to; default the system roots. */
  caFile?: string;
  /** PEM client certificate (mTLS), with keyFile. Re-read when it changes. */
  certFile?: string;
  keyFile?: string;
  /** Name the broker certificates must carry when it is not the host dialled (port-forward). */
  serverName?: string;
  /** How often the files are checked for a change; default 30 s. */
  refreshIntervalMs?: number;
}

export interface ClientSecurityOptions {
  /** TLS: true for the system roots, or the files to use. Default plain text. */
  tls?: boolean | TlsOptions;
  /** A bearer token sent on every call (needs TLS). */
  token?: string;
  /** A file holding the bearer token, re-read when it changes (service-account tokens). */
  tokenFile?: string;
}

/** The channel credentials for these options, or undefined for plain text; close() stops file polling. */
export function clientCredentialsOf(
  options: ClientSecurityOptions,
  logger: Logger,
): { credentials?: grpc.ChannelCredentials; close(): void } {
  const tls = options.tls === true ? {} : options.tls || undefined;
  const wantsToken = !!(options.token || options.tokenFile);
  if (!tls) {
    if (wantsToken) {
      throw new TideError(
        'INVALID_CONFIG',
        'a bearer token is only sent over TLS: add --tls-ca (or tls: true for the system roots)',
      );
    }
    return { close: () => undefined };
  }
  const channel = channelCredentialsOf({ enabled: true, ...tls }, logger);
  const credentials = wantsToken
    ? grpc.credentials.combineChannelCredentials(channel.credentials, bearerCallCredentials(options))
    : channel.credentials;
  return { credentials, close: () => channel.close() };
}
