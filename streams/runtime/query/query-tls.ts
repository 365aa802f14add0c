/**
 * TLS of the interactive-query servers: one set of files per instance serves both sides, as every
 * instance of an application is both a server (to clients and the other instances) and a caller
 * (forwarding a key to its owner). The certificate is what the server presents and, when the
 * others require client certificates, what this instance presents to them; `caFile` is what
 * both trust.
 */
import {
  CLIENT_AUTH_MODES,
  type ClientAuthMode,
  type ClientTlsSettings,
  type ServerTlsSettings,
} from '../../../services/common/security/transport';
import { StreamsError } from '../../errors';

export interface QueryTlsOptions {
  /** This instance's certificate chain (PEM); its names must cover the advertised host. */
  certFile: string;
  keyFile: string;
  /** The CA the other instances' certificates chain to; without it, the system's roots. */
  caFile?: string;
  /**
   * Client certificates the server asks for: 'none' (default), 'request', or 'require' (mTLS:
   * only callers with a certificate from `caFile`; the instances present theirs).
   */
  clientAuth?: ClientAuthMode;
  /** The name the other instances' certificates must carry, when it is not the host dialled. */
  serverName?: string;
}

function checked(tls: QueryTlsOptions): QueryTlsOptions {
  if (!tls.certFile || !tls.keyFile) {
    throw new StreamsError(
      'TOPOLOGY',
      'queryServer.tls needs certFile and keyFile (PEM files of this instance)',
    );
  }
  if (tls.clientAuth !== undefined && !CLIENT_AUTH_MODES.includes(tls.clientAuth)) {
    throw new StreamsError(
      'TOPOLOGY',
      `queryServer.tls.clientAuth must be one of ${CLIENT_AUTH_MODES.join(', ')}, got ${String(tls.clientAuth)}`,
    );
  }
  return tls;
}

export function queryServerTlsSettings(tls: QueryTlsOptions | undefined): ServerTlsSettings | undefined {
  if (!tls) return undefined;
  const { certFile, keyFile, caFile, clientAuth } = checked(tls);
  return { certFile, keyFile, caFile, clientAuth: clientAuth ?? 'none' };
}

export function queryClientTlsSettings(tls: QueryTlsOptions | undefined): ClientTlsSettings | undefined {
  if (!tls) return undefined;
  const { certFile, keyFile, caFile, serverName } = checked(tls);
  return { enabled: true, certFile, keyFile, caFile, serverName };
}
