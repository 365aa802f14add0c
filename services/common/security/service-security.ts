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
  type Credentials,
  type ClientTlsSettings,
  type ServerTlsSettings,
} from './transport';

/** What the etcd client takes for TLS and password auth (services/common/metadata/etcd/calls.ts). */
export interface EtcdSecurity {
  /** The files as read at start: etcd3 needs them to know it speaks TLS. */
  credentials?: { rootCertificate: Buffer; privateKey?: Buffer; certChain?: Buffer };
  /** What connections are made with: re-reads the files when they change (with a CA file). */
  channelCredentials?: grpc.ChannelCredentials;
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

/**
 * The etcd client's security from the etcd* keys. With a CA file the files are polled like the
 * listener's (tlsRefreshIntervalMs) and new connections to etcd use the newest; without one the
 * system roots are trusted and the client pair is read once.
 */
export function etcdSecurityOf(config: SecurityConfig, logger: Logger): Credentials<EtcdSecurity> {
  const security: EtcdSecurity = {};
  let close = (): void => undefined;
  if (config.etcdCaFile || config.etcdCertFile) {
    const files = {
      caFile: config.etcdCaFile || undefined,
      certFile: config.etcdCertFile || undefined,
      keyFile: config.etcdKeyFile || undefined,
    };
    const set = readCertSet(files);
    // Without a CA file etcd3 needs some root; grpc-js falls back to the system roots on an empty one.
    security.credentials = {
      rootCertificate: set.ca ?? Buffer.alloc(0),
      ...(set.key ? { privateKey: set.key } : {}),
      ...(set.cert ? { certChain: set.cert } : {}),
    };
    if (files.caFile) {
      const channel = channelCredentialsOf(
        { enabled: true, ...files, refreshIntervalMs: config.tlsRefreshIntervalMs },
        logger.child({ component: 'etcd-tls' }),
      );
      security.channelCredentials = channel.credentials;
      close = channel.close;
    }
  }
  if (config.etcdUsername) security.auth = { username: config.etcdUsername, password: config.etcdPassword };
  return { credentials: security, secure: !!security.credentials, close };
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
  let etcd: Credentials<EtcdSecurity>;
  try {
    etcd = etcdSecurityOf(config, logger);
  } catch (err) {
    server.close();
    channel.close();
    throw err;
  }
  return {
    server: server.credentials,
    channel: channel.credentials,
    tls: server.secure,
    etcd: etcd.credentials,
    close: () => {
      server.close();
      channel.close();
      etcd.close();
    },
  };
}
