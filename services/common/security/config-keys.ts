/**
 * Security config keys every Tide service has (spread into SERVICE_CONFIG_KEYS), so
 * TIDE_TLS_CERT_FILE and friends mean the same thing for a broker, a controller and a coordinator.
 * All empty by default: no TLS, no etcd credentials, exactly the behaviour before security.
 */
import type { ConfigSchema } from '../config';
import { DEFAULT_CERT_REFRESH_INTERVAL_MS } from './cert-files';
import { CLIENT_AUTH_MODES } from './transport';

export const SECURITY_CONFIG_KEYS = {
  tlsCertFile: {
    type: 'string',
    default: '',
    doc: 'PEM certificate chain of this service; setting it (with tlsKeyFile) turns TLS on for its listener and for its calls to other Tide services. Re-read when it changes.',
  },
  tlsKeyFile: { type: 'string', default: '', doc: 'PEM private key of tlsCertFile.' },
  tlsCaFile: {
    type: 'string',
    default: '',
    doc: "PEM CA bundle: the service trusts peers' certificates that chain to it (other services' and, with tlsClientAuth, clients'). Empty = the system roots.",
  },
  tlsClientAuth: {
    type: 'string',
    default: 'none',
    oneOf: CLIENT_AUTH_MODES,
    doc: 'Client certificates: none; request (checked when sent, so token clients still connect); require (mTLS only).',
  },
  tlsServerName: {
    type: 'string',
    default: '',
    doc: "Name this service expects in other Tide services' certificates when it calls them; empty = the host it dials.",
  },
  tlsRefreshIntervalMs: {
    type: 'int',
    default: DEFAULT_CERT_REFRESH_INTERVAL_MS,
    min: 0,
    doc: 'How often the TLS files (and the etcd* ones) are checked for a change (cert-manager rotation); 0 = read once.',
  },
  etcdCaFile: {
    type: 'string',
    default: '',
    doc: "PEM CA bundle that etcd's certificate chains to (https:// endpoints).",
  },
  etcdCertFile: { type: 'string', default: '', doc: 'PEM client certificate for etcd client-cert auth.' },
  etcdKeyFile: { type: 'string', default: '', doc: 'PEM private key of etcdCertFile.' },
  etcdUsername: { type: 'string', default: '', doc: 'etcd user (etcd password auth); empty = none.' },
  etcdPassword: { type: 'string', default: '', secret: true, doc: 'Password of etcdUsername.' },
} satisfies ConfigSchema;

/** The values of SECURITY_CONFIG_KEYS in a service's config. */
export interface SecurityConfig {
  tlsCertFile: string;
  tlsKeyFile: string;
  tlsCaFile: string;
  tlsClientAuth: string;
  tlsServerName: string;
  tlsRefreshIntervalMs: number;
  etcdCaFile: string;
  etcdCertFile: string;
  etcdKeyFile: string;
  etcdUsername: string;
  etcdPassword: string;
}
