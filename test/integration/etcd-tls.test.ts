/**
 * A real etcd on TLS with client-certificate and password auth, a real `tide controller` on it,
 * and a rotation of every certificate involved: etcd's server certificate moves to a new CA, it
 * then trusts only client certificates of that CA, and the files the controller reads are
 * rewritten in place (as cert-manager rewrites a mounted Secret). After an etcd restart the
 * controller reconnects, authenticates again and creates topics, with no restart of its own; a
 * client that kept the files read at its start is refused.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Etcd3 } from 'etcd3';
import { systemClock } from '../../services/common/clock';
import { silentLogger } from '../../services/common/logger';
import { EtcdMetadataStore } from '../../services/common/metadata/etcd';
import { ControllerClient } from '../../services/common/cluster/controller-client';
import { BrokerRegistry } from '../../services/common/cluster/broker-registry';
import { MetadataKeys } from '../../services/common/metadata/keys';
import { SECURITY_CONFIG_KEYS, type SecurityConfig } from '../../services/common/security/config-keys';
import { etcdSecurityOf, type EtcdSecurity } from '../../services/common/security/service-security';
import { makeCa, makeLeaf } from '../harness/certs';
import { startEtcd, type EtcdProcess } from '../harness/etcd';
import { makeTempDir, startTide, waitFor, type TideProcess } from '../harness/processes';

jest.setTimeout(90_000);

const CLUSTER = 'etcd-tls';
const PASSWORD = 'root-secret';
const REFRESH_MS = 200;
const keys = new MetadataKeys(CLUSTER);

let certs: string;
let live: string;
let etcd: EtcdProcess;
let controller: TideProcess | undefined;
const closers: Array<() => unknown> = [];

/** Paths of the files etcd and the services read; rotate() rewrites them. */
const files = () => ({
  etcdCert: path.join(live, 'etcd.crt'),
  etcdKey: path.join(live, 'etcd.key'),
  etcdTrust: path.join(live, 'etcd-trust.pem'),
  clientCa: path.join(live, 'client-ca.pem'),
  clientCert: path.join(live, 'client.crt'),
  clientKey: path.join(live, 'client.key'),
});

/** Puts generation `gen`'s files in place; each written whole under a temp name, then renamed. */
function install(gen: 1 | 2): void {
  const f = files();
  const put = (target: string, source: string) => {
    fs.copyFileSync(path.join(certs, source), `${target}.tmp`);
    fs.renameSync(`${target}.tmp`, target);
  };
  put(f.etcdCert, `etcd${gen}.crt`);
  put(f.etcdKey, `etcd${gen}.key`);
  put(f.etcdTrust, `ca${gen}.crt`);
  put(f.clientCa, `ca${gen}.crt`);
  put(f.clientKey, `client${gen}.key`);
  put(f.clientCert, `client${gen}.crt`);
}

function securityConfig(): SecurityConfig {
  const defaults = Object.fromEntries(
    Object.entries(SECURITY_CONFIG_KEYS).map(([key, spec]) => [key, spec.default]),
  ) as unknown as SecurityConfig;
  const f = files();
  return {
    ...defaults,
    etcdCaFile: f.clientCa,
    etcdCertFile: f.clientCert,
    etcdKeyFile: f.clientKey,
    etcdUsername: 'root',
    etcdPassword: PASSWORD,
    tlsRefreshIntervalMs: REFRESH_MS,
  };
}

function storeWith(security: EtcdSecurity): EtcdMetadataStore {
  const store = new EtcdMetadataStore({ endpoints: [etcd.endpoint], logger: silentLogger(), security });
  closers.push(() => store.close());
  return store;
}

beforeAll(async () => {
  certs = makeTempDir('tide-etcd-certs-');
  live = makeTempDir('tide-etcd-live-');
  for (const gen of [1, 2] as const) {
    makeCa(certs, `ca${gen}`);
    makeLeaf(certs, `ca${gen}`, `etcd${gen}`, 'etcd');
    makeLeaf(certs, `ca${gen}`, `client${gen}`, 'tide-service');
  }
  install(1);
  const f = files();
  etcd = await startEtcd({ tls: { certFile: f.etcdCert, keyFile: f.etcdKey, trustedCaFile: f.etcdTrust } });

  // Password auth on: the root user, then auth (etcd refuses to enable it without root).
  const admin = new Etcd3({
    hosts: etcd.endpoint,
    credentials: {
      rootCertificate: fs.readFileSync(f.clientCa),
      certChain: fs.readFileSync(f.clientCert),
      privateKey: fs.readFileSync(f.clientKey),
    },
  });
  try {
    await admin.user('root').create(PASSWORD);
    await admin.role('root').create();
    await admin.user('root').addRole('root');
    await admin.auth.authEnable({});
  } finally {
    admin.close();
  }
});

afterAll(async () => {
  await controller?.stop('SIGTERM');
  for (const close of closers.reverse()) await close();
  await etcd?.close();
  fs.rmSync(certs, { recursive: true, force: true });
  fs.rmSync(live, { recursive: true, force: true });
});

it('a controller keeps working on etcd across a rotation of every certificate and CA', async () => {
  const f = files();
  controller = await startTide(
    ['controller', '--id', '1', '--port', '0', '--etcd', etcd.endpoint, '--cluster-name', CLUSTER],
    {
      env: {
        TIDE_ETCD_CA_FILE: f.clientCa,
        TIDE_ETCD_CERT_FILE: f.clientCert,
        TIDE_ETCD_KEY_FILE: f.clientKey,
        TIDE_ETCD_USERNAME: 'root',
        TIDE_ETCD_PASSWORD: PASSWORD,
        TIDE_TLS_REFRESH_INTERVAL_MS: String(REFRESH_MS),
      },
    },
  );
  const reloading = etcdSecurityOf(securityConfig(), silentLogger());
  closers.push(reloading.close);
  const store = storeWith(reloading.credentials);
  // What the etcd client had before: the files as read at start, nothing re-read.
  const fixed = storeWith({
    credentials: reloading.credentials.credentials,
    auth: reloading.credentials.auth,
  });
  const registry = new BrokerRegistry({
    store,
    clusterName: CLUSTER,
    clock: systemClock,
    logger: silentLogger(),
    leaseTtlMs: 10_000,
  });
  const broker = await registry.register({ id: 1, host: '127.0.0.1', port: 9001 });
  closers.push(() => broker.close());
  const client = new ControllerClient({
    store,
    clusterName: CLUSTER,
    logger: silentLogger(),
    clock: systemClock,
  });
  closers.push(() => client.close());

  // Written by the controller: it reaches etcd.
  const created = async (name: string): Promise<boolean> => {
    try {
      await client.createTopic({
        name,
        partitions: 2,
        replicationFactor: 1,
        configs: {},
        validateOnly: false,
      });
    } catch (err) {
      // An earlier attempt may have landed after its caller gave up.
      if ((err as { code?: string }).code !== 'TOPIC_ALREADY_EXISTS') return false;
    }
    return (await store.get(keys.partition(name, 1))) !== undefined;
  };
  expect(await created('before')).toBe(true);
  expect(await fixed.get(keys.partition('before', 0))).toBeDefined();

  install(2);
  // Both clients poll every REFRESH_MS; give them a few rounds, then make every connection new
  // (and every password-auth token void: etcd's simple tokens live in its memory).
  await new Promise((resolve) => setTimeout(resolve, REFRESH_MS * 5));
  await etcd.restart();

  await waitFor(() => created('after'), {
    timeoutMs: 30_000,
    what: 'the controller to create a topic through the rotated certificates',
  });
  await expect(fixed.get(keys.partition('after', 0))).rejects.toMatchObject({
    code: 'METADATA_UNAVAILABLE',
  });
  expect(controller.child.exitCode).toBeNull();
  // The controller never stopped leading: the same process, still active.
  expect(controller.output()).not.toMatch(/lost|resigned/i);
});
