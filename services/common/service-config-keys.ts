/** Config keys every Tide service (broker, controller, coordinator) has, with the same meaning. */
import type { ConfigSchema } from './config';

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
} satisfies ConfigSchema;
