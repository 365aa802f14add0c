/**
 * gRPC transport credentials from TLS settings: the one place that turns certificate files into
 * server and channel credentials. Without settings everything stays plain-text HTTP/2 (the default,
 * and `tide dev`), exactly as before security existed.
 *
 * Both sides use ReloadingCertProvider, so a rotated certificate is used by the next handshake:
 * servers present it to new connections, channels present (and trust) it on their next connect.
 */
import * as tls from 'tls';
import * as grpc from '@grpc/grpc-js';
import { TideError } from '../errors';
import type { Logger } from '../logger';
import { withServerCipherOrder } from './cipher-order';
import {
  DEFAULT_CERT_REFRESH_INTERVAL_MS,
  ReloadingCertProvider,
  readCertSet,
  type CertFilePaths,
} from './cert-files';

/** Whether a server asks connecting clients for a certificate (mTLS). */
export type ClientAuthMode = 'none' | 'request' | 'require';

export const CLIENT_AUTH_MODES: readonly ClientAuthMode[] = ['none', 'request', 'require'];

/** A server's TLS: on when certFile is set. */
export interface ServerTlsSettings extends CertFilePaths {
  /**
   * none: no client certificate asked; request: asked and checked against caFile when given
   * (token clients need none); require: a client without a certificate from caFile is refused
   * during the handshake.
   */
  clientAuth: ClientAuthMode;
  refreshIntervalMs?: number;
}

/** A caller's TLS: on when `enabled`. */
export interface ClientTlsSettings extends CertFilePaths {
  enabled: boolean;
  /**
   * The name the server's certificate must carry, when it differs from the host dialled (a
   * `kubectl port-forward` to 127.0.0.1 reaching a pod whose certificate names its Service).
   */
  serverName?: string;
  refreshIntervalMs?: number;
}

/** Credentials plus the file pollers behind them, stopped by close(). */
export interface Credentials<C> {
  credentials: C;
  /** True when the credentials encrypt (TLS). */
  secure: boolean;
  close(): void;
}

/** Server credentials: plain text without certFile, else TLS with reloading certificates. */
export function serverCredentialsOf(
  settings: ServerTlsSettings | undefined,
  logger: Logger,
): Credentials<grpc.ServerCredentials> {
  if (!settings?.certFile && !settings?.keyFile) {
    if (settings && settings.clientAuth !== 'none') {
      throw new TideError(
        'INVALID_CONFIG',
        `tlsClientAuth=${settings.clientAuth} needs TLS: set tlsCertFile and tlsKeyFile (and tlsCaFile for the client CA)`,
      );
    }
    return { credentials: grpc.ServerCredentials.createInsecure(), secure: false, close: () => undefined };
  }
  if (settings.clientAuth !== 'none' && !settings.caFile) {
    throw new TideError(
      'INVALID_CONFIG',
      `tlsClientAuth=${settings.clientAuth} needs the CA that signs client certificates: set tlsCaFile`,
    );
  }
  const provider = new ReloadingCertProvider(settings, {
    refreshIntervalMs: settings.refreshIntervalMs ?? DEFAULT_CERT_REFRESH_INTERVAL_MS,
    logger: logger.child({ component: 'tls-server' }),
  });
  // grpc-js 1.14 declares (caProvider, identityProvider, require) but passes its first argument on
  // as the identity provider and its second as the CA provider; this call follows what it does.
  // The TLS integration test fails if that ever changes.
  const credentials = withServerCipherOrder(
    grpc.experimental.createCertificateProviderServerCredentials(
      provider,
      settings.clientAuth === 'none' ? null : provider,
      settings.clientAuth === 'require',
    ),
  );
  return { credentials, secure: true, close: () => provider.close() };
}

/** Channel credentials: plain text unless enabled; TLS trusting caFile (or the system roots). */
export function channelCredentialsOf(
  settings: ClientTlsSettings | undefined,
  logger: Logger,
): Credentials<grpc.ChannelCredentials> {
  if (!settings?.enabled) {
    return { credentials: grpc.credentials.createInsecure(), secure: false, close: () => undefined };
  }
  const serverName = settings.serverName;
  const verify: grpc.VerifyOptions = serverName
    ? { checkServerIdentity: (_host, cert) => tls.checkServerIdentity(serverName, cert) }
    : {};
  if (!settings.caFile) {
    // System roots: nothing of ours to reload but the client pair, read once.
    const set = readCertSet(settings);
    return {
      credentials: grpc.credentials.createSsl(null, set.key ?? null, set.cert ?? null, verify),
      secure: true,
      close: () => undefined,
    };
  }
  const provider = new ReloadingCertProvider(settings, {
    refreshIntervalMs: settings.refreshIntervalMs ?? DEFAULT_CERT_REFRESH_INTERVAL_MS,
    logger: logger.child({ component: 'tls-client' }),
  });
  const credentials = grpc.experimental.createCertificateProviderChannelCredentials(
    provider,
    settings.certFile ? provider : null,
    verify,
  );
  return { credentials, secure: true, close: () => provider.close() };
}
