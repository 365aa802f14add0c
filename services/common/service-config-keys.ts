/** Config keys every Tide service (broker, controller, coordinator) has, with the same meaning. */
import type { ConfigSchema } from './config';
import { DEFAULT_CONNECTION_LIMITS, type ConnectionLimits } from './grpc/server';
import { SECURITY_CONFIG_KEYS } from './security/config-keys';
import { AUTH_CONFIG_KEYS } from './security/auth/auth-config-keys';

export const SERVICE_CONFIG_KEYS = {
  host: { type: 'string', default: '127.0.0.1', doc: 'Address the gRPC server binds.' },
  clusterName: {
    type: 'string',
    default: 'tide',
    doc: 'Names the metadata key space, so clusters can share an etcd.',
  },
  logLevel: {
    type: 'string',
    default: 'info',
    oneOf: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
    doc: 'pino log level.',
  },
  metricsPort: {
    type: 'int',
    default: -1,
    min: -1,
    max: 65535,
    doc: 'HTTP port of the Prometheus endpoint /metrics; -1 = off, 0 = any free port.',
  },
  healthPort: {
    type: 'int',
    default: -1,
    min: -1,
    max: 65535,
    doc: 'A plain-text port serving only grpc.health.v1.Health, for probes that cannot speak TLS (the kubelet gRPC probe); -1 = off, 0 = any free port.',
  },
  connectionIdleTimeoutMs: {
    type: 'int',
    default: DEFAULT_CONNECTION_LIMITS.idleTimeoutMs,
    min: 0,
    doc: 'A client connection with no call for this long is closed (Kafka connections.max.idle.ms); 0 = never.',
  },
  keepaliveTimeMs: {
    type: 'int',
    default: DEFAULT_CONNECTION_LIMITS.keepaliveTimeMs,
    min: 0,
    doc: 'The server pings a connection silent for this long, and closes it when the ping goes unanswered for keepaliveTimeoutMs; 0 = no pings.',
  },
  keepaliveTimeoutMs: {
    type: 'int',
    default: DEFAULT_CONNECTION_LIMITS.keepaliveTimeoutMs,
    min: 1,
    doc: 'How long a keepalive ping may go unanswered before the connection is closed.',
  },
  maxStreamsPerConnection: {
    type: 'int',
    default: DEFAULT_CONNECTION_LIMITS.maxStreamsPerConnection,
    min: 0,
    doc: 'Concurrent calls (HTTP/2 streams) per client connection; 0 = no limit.',
  },
  maxConnectionsPerPeer: {
    type: 'int',
    default: DEFAULT_CONNECTION_LIMITS.maxConnectionsPerPeer,
    min: 0,
    doc: 'Open connections per client IP address; a connection past the cap is closed at once; 0 = no limit.',
  },
  ...SECURITY_CONFIG_KEYS,
  ...AUTH_CONFIG_KEYS,
} satisfies ConfigSchema;

/** The gRPC server's connection handling from a service's config. */
export function connectionLimitsOf(config: {
  connectionIdleTimeoutMs: number;
  keepaliveTimeMs: number;
  keepaliveTimeoutMs: number;
  maxStreamsPerConnection: number;
  maxConnectionsPerPeer: number;
}): ConnectionLimits {
  return {
    idleTimeoutMs: config.connectionIdleTimeoutMs,
    keepaliveTimeMs: config.keepaliveTimeMs,
    keepaliveTimeoutMs: config.keepaliveTimeoutMs,
    maxStreamsPerConnection: config.maxStreamsPerConnection,
    maxConnectionsPerPeer: config.maxConnectionsPerPeer,
  };
}
