/**
 * A service's transport security, built once at start from its config and handed to everything
 * that listens or dials: the gRPC server, the calls to other brokers (replication, forwarding),
 * to the controller and to coordinators, and the etcd client.
 *
 * Internal calls present the service's own certificate (tlsCertFile) as their client certificate,
 * so with tlsClientAuth=request|require every Tide service is identified by its certificate.
 */
import * as grpc from '@grpc/grpc-js';
import type { Logger } from '../logger';
import { TideError } from '../errors';
import { bearerCallCredentials } from './bearer-token';
import { readCertSet } from './cert-files';
import type { SecurityConfig } from './config-keys';
import {
  channelCredentialsOf,
  serverCredentialsOf,
  type ClientAuthMode,
  type ClientTlsSettings,
  type ServerTlsSettings,
} from './transport';

/** What etcd3's client takes for TLS and password auth. */
export interface EtcdSecurity {
  credentials?: { rootCertificate: Buffer; privateKey?: Buffer; certChain?: Buffer };
  auth?: { username: string; password: string };
}

export interface ServiceSecurity {
  /** For the service's own listener. */
  server: grpc.ServerCredentials;
  /** For every call this service makes to another Tide service. */
  channel: grpc.ChannelCredentials;
  /** True when the listener uses TLS. */
  tls: boolean;
  etcd: EtcdSecurity;
  /** Stops the certificate file pollers. */
  close(): void;
}

/** Plain text everywhere: the default and `tide dev`. */
export function insecureServiceSecurity(): ServiceSecurity {
  return {
    server: grpc.ServerCredentials.createInsecure(),
    channel: grpc.credentials.createInsecure(),
    tls: false,
    etcd: {},
    close: () => undefined,
  };
}

export function serverTlsSettingsOf(config: SecurityConfig): ServerTlsSettings {
  return {
    certFile: config.tlsCertFile || undefined,
    keyFile: config.tlsKeyFile || undefined,
    caFile: config.tlsCaFile || undefined,
    clientAuth: config.tlsClientAuth as ClientAuthMode,
    refreshIntervalMs: config.tlsRefreshIntervalMs,
  };
}

/** Internal calls use TLS when the service's own listener does, presenting its certificate. */
export function internalClientTlsSettingsOf(config: SecurityConfig): ClientTlsSettings {
  return {
    enabled: !!config.tlsCertFile,
    certFile: config.tlsCertFile || undefined,
    keyFile: config.tlsKeyFile || undefined,
    caFile: config.tlsCaFile || undefined,
    serverName: config.tlsServerName || undefined,
    refreshIntervalMs: config.tlsRefreshIntervalMs,
  };
}

/** etcd3 options from the etcd* keys; read once (etcd3 has no certificate reload). */
export function etcdSecurityOf(config: SecurityConfig): EtcdSecurity {
  const security: EtcdSecurity = {};
  if (config.etcdCaFile || config.etcdCertFile) {
    const set = readCertSet({
      caFile: config.etcdCaFile || undefined,
      certFile: config.etcdCertFile || undefined,
      keyFile: config.etcdKeyFile || undefined,
    });
    // Without a CA file etcd3 needs some root; grpc-js falls back to the system roots on an empty one.
    security.credentials = {
      rootCertificate: set.ca ?? Buffer.alloc(0),
      ...(set.key ? { privateKey: set.key } : {}),
      ...(set.cert ? { certChain: set.cert } : {}),
    };
  }
  if (config.etcdUsername) security.auth = { username: config.etcdUsername, password: config.etcdPassword };
  return security;
}

/** Builds the service's security from its config; throws INVALID_CONFIG on unusable files. */
export function serviceSecurityOf(
  config: SecurityConfig & { internalTokenFile?: string },
  logger: Logger,
): ServiceSecurity {
  const server = serverCredentialsOf(serverTlsSettingsOf(config), logger);
  let channel;
  try {
    channel = channelCredentialsOf(internalClientTlsSettingsOf(config), logger);
    if (config.internalTokenFile) {
      if (!channel.secure) {
        throw new TideError(
          'INVALID_CONFIG',
          'internalTokenFile needs TLS (tlsCertFile and tlsKeyFile): a token is never sent in plain text',
        );
      }
      // The service's own token on every call it makes to another Tide service.
      const tokenCredentials = bearerCallCredentials({ tokenFile: config.internalTokenFile });
      channel = {
        ...channel,
        credentials: grpc.credentials.combineChannelCredentials(channel.credentials, tokenCredentials),
      };
    }
  } catch (err) {
    server.close();
    channel?.close();
    throw err;
  }
  const etcd = etcdSecurityOf(config);
  return {
    server: server.credentials,
    channel: channel.credentials,
    tls: server.secure,
    etcd,
    close: () => {
      server.close();
      channel.close();
    },
  };
}
