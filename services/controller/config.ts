/**
 * The controller's configuration schema, loaded with services/common/config.ts's loadConfig
 * (defaults < JSON file < TIDE_* environment < flags). See docs/controller.md for the table.
 */
import type { ConfigOf, ConfigSchema } from '../common/config';
import { SERVICE_CONFIG_KEYS } from '../common/service-config-keys';
import { DEFAULT_CONTROLLER_LEASE_TTL_MS } from './election';
import { DEFAULT_LEADER_IMBALANCE_CHECK_INTERVAL_MS } from './reconciler';

export const DEFAULT_CONTROLLER_PORT = 9093;
export const DEFAULT_ETCD_ENDPOINTS = 'http://127.0.0.1:2379';

export const CONTROLLER_CONFIG_SCHEMA = {
  ...SERVICE_CONFIG_KEYS,
  controllerId: {
    type: 'int',
    default: 0,
    min: 0,
    max: 2 ** 31 - 1,
    doc: 'Id of this controller instance (shown as the active controller id); unique per instance.',
  },
  port: {
    type: 'int',
    default: DEFAULT_CONTROLLER_PORT,
    min: 0,
    max: 65535,
    doc: 'gRPC port; 0 picks a free one.',
  },
  advertisedHost: {
    type: 'string',
    default: '',
    doc: 'Host brokers connect to (written into the controller key); empty = host (127.0.0.1 when host is 0.0.0.0).',
  },
  etcdEndpoints: {
    type: 'string',
    default: DEFAULT_ETCD_ENDPOINTS,
    doc: 'Comma-separated etcd client URLs.',
  },
  leaderImbalanceCheckIntervalMs: {
    type: 'int',
    default: DEFAULT_LEADER_IMBALANCE_CHECK_INTERVAL_MS,
    min: 100,
    doc: 'How often leadership moves back to preferred replicas that are live and in sync.',
  },
  leaseTtlMs: {
    type: 'int',
    default: DEFAULT_CONTROLLER_LEASE_TTL_MS,
    min: 1000,
    doc: 'TTL of the lease holding the controller key: a standby takes over this long after the active controller stops answering etcd (etcd rounds up to whole seconds).',
  },
  defaultReplicationFactor: {
    type: 'int',
    default: 1,
    min: 1,
    doc: 'Replication factor of topics created without one.',
  },
  reassignmentCheckIntervalMs: {
    type: 'int',
    default: 500,
    min: 50,
    doc: 'How often the controller advances replica moves (adds replicas, hands over leadership once they are in sync, removes the old ones).',
  },
  maxConcurrentMoves: {
    type: 'int',
    default: 4,
    min: 1,
    doc: 'Partition moves a decommission or the balancer keeps in flight at once (moves an operator asks for are not limited).',
  },
  balancerEnabled: {
    type: 'bool',
    default: false,
    doc: 'Continuous balancing: the controller moves replicas and preferred leaders itself when brokers join, stay gone longer than balancerBrokerGraceMs, or their counts differ by more than balancerThresholdPercent (see docs/operations.md).',
  },
  balancerThresholdPercent: {
    type: 'int',
    default: 10,
    min: 1,
    max: 100,
    doc: 'Balancing starts when the replica or leader count of a broker differs from the average by more than this percentage (and by more than one).',
  },
  balancerBrokerGraceMs: {
    type: 'int',
    default: 300_000,
    min: 0,
    doc: 'How long a broker may be gone before the balancer re-creates its replicas on the other brokers.',
  },
} satisfies ConfigSchema;

export type ControllerConfig = ConfigOf<typeof CONTROLLER_CONFIG_SCHEMA>;

/** The etcd endpoints of a config, split and trimmed. */
export function etcdEndpointList(config: Pick<ControllerConfig, 'etcdEndpoints'>): string[] {
  return config.etcdEndpoints
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
}
