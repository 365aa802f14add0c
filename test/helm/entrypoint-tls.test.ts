/**
 * The chart's pods with TLS on (tls-cert-manager.yaml: the chart's own CA, client certificates
 * required), run outside Kubernetes like entrypoint.test.ts. The certificate cert-manager would
 * issue is made with openssl from the rendered Certificate's names and put where the Secret volume
 * would be. The cluster must then work over TLS only: the kubelet's plain-text gRPC probes answer on
 * the health port, the data port refuses plain text and clients without a certificate, and a
 * replicated topic (replication itself over mTLS) takes records and gives them back.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as grpc from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { Tide } from '../../client';
import { makeCa, makeLeaf } from '../harness/certs';
import { startEtcd, type EtcdProcess } from '../harness/etcd';
import { makeTempDir, waitFor } from '../harness/processes';
import { envMap, find, renderChart, type EnvVar, type K8sObject } from './render';
import { RenderedPods, podContainer } from './pods';

jest.setTimeout(90_000);

const NAMESPACE = 'default';
const rendered = renderChart({ namespace: NAMESPACE, values: ['tls-cert-manager.yaml'] });
const certificate = find(rendered, 'Certificate', 'tide');
const brokerContainer = podContainer(find(rendered, 'StatefulSet', 'tide-broker'), 'broker');
const controllerContainer = podContainer(find(rendered, 'Deployment', 'tide-controller'), 'controller');
const BROKER_PODS = ['tide-broker-0', 'tide-broker-1', 'tide-broker-2'];
const CONTROLLER_POD = 'tide-controller-7c9d5b6f4-x2k8q';
const ETCD_URLS = [0, 1, 2].map(
  (i) => `http://tide-etcd-${i}.tide-etcd-headless.${NAMESPACE}.svc.cluster.local:2379`,
);

let etcd: EtcdProcess;
let pods: RenderedPods;
let certs: string;
const clients: Tide[] = [];

/** What cert-manager writes into the Secret: the leaf for the rendered names, its key, the CA. */
function fillSecret(volumes: Record<string, string>): void {
  for (const [from, to] of [
    ['service.crt', 'tls.crt'],
    ['service.key', 'tls.key'],
    ['ca.crt', 'ca.crt'],
  ])
    fs.copyFileSync(path.join(certs, from), path.join(volumes.tls, to));
}

type HealthClient = grpc.Client & {
  Check(
    request: { service: string },
    callback: (err: grpc.ServiceError | null, res?: { status: string }) => void,
  ): void;
};
const Health = grpc.makeGenericClientConstructor(healthService as grpc.ServiceDefinition, 'Health');

/** grpc.health.v1.Health/Check in plain text, as the kubelet's gRPC probe calls it. */
function plainHealthCheck(address: string, serviceName: string): Promise<string> {
  const client = new Health(address, grpc.credentials.createInsecure()) as unknown as HealthClient;
  return new Promise<string>((resolve, reject) => {
    client.Check({ service: serviceName }, (err, res) => {
      client.close();
      if (err) reject(err);
      else resolve(String(res!.status));
    });
  });
}

function client(bootstrap: string, withCertificate: boolean): Tide {
  const tide = new Tide({
    bootstrap: [bootstrap],
    security: {
      tls: {
        caFile: path.join(certs, 'ca.crt'),
        ...(withCertificate
          ? { certFile: path.join(certs, 'alice.crt'), keyFile: path.join(certs, 'alice.key') }
          : {}),
      },
    },
  });
  clients.push(tide);
  return tide;
}

beforeAll(async () => {
  certs = makeTempDir('tide-chart-certs-');
  makeCa(certs, 'ca');
  makeLeaf(certs, 'ca', 'service', certificate.spec.commonName, {
    dns: certificate.spec.dnsNames,
    ips: certificate.spec.ipAddresses,
  });
  makeLeaf(certs, 'ca', 'alice', 'alice');
  etcd = await startEtcd();
  pods = new RenderedPods(NAMESPACE, { endpoint: etcd.endpoint, renderedUrls: ETCD_URLS });
  await pods.start(CONTROLLER_POD, controllerContainer, fillSecret);
  await Promise.all(BROKER_PODS.map((name) => pods.start(name, brokerContainer, fillSecret)));
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await pods?.stopAll();
  await etcd?.close();
  if (certs) fs.rmSync(certs, { recursive: true, force: true });
});

test('the pods get the TLS env, the certificate volume and the health port, changed only where one machine must', () => {
  for (const name of BROKER_PODS) {
    expect(Object.keys(pods.changes.get(name)!).sort()).toEqual([
      'TIDE_ADVERTISED_HOST',
      'TIDE_DATA_DIR',
      'TIDE_ETCD_ENDPOINTS',
      'TIDE_HEALTH_PORT',
      'TIDE_PORT',
      'TIDE_TLS_CA_FILE',
      'TIDE_TLS_CERT_FILE',
      'TIDE_TLS_KEY_FILE',
    ]);
  }
  const env = envMap(brokerContainer.env as EnvVar[]);
  expect(env.TIDE_TLS_SERVER_NAME).toBe(`tide.${NAMESPACE}.svc`);
  expect(env.TIDE_TLS_CLIENT_AUTH).toBe('require');
});

test("the kubelet's plain-text probes answer SERVING on the health port", async () => {
  const probes = (c: K8sObject) =>
    ['startupProbe', 'readinessProbe', 'livenessProbe'].map(
      (p) => c[p].grpc as { port: number; service: string },
    );
  for (const [name, container] of [
    ...BROKER_PODS.map((n) => [n, brokerContainer] as const),
    [CONTROLLER_POD, controllerContainer] as const,
  ]) {
    const [renderedPort, localPort] = pods.changes.get(name)!.TIDE_HEALTH_PORT;
    for (const probe of probes(container)) {
      expect(String(probe.port)).toBe(renderedPort);
      const status = await waitFor(
        async () => {
          const s = await plainHealthCheck(`127.0.0.1:${localPort}`, probe.service);
          return s === 'SERVING' ? s : undefined;
        },
        { timeoutMs: 20_000, what: `${name} ${probe.service || 'overall'} SERVING` },
      );
      expect(status).toBe('SERVING');
    }
  }
});

test('the data port refuses plain text and clients without a certificate', async () => {
  const address = pods.pods.get('tide-broker-0')!.address;
  await expect(plainHealthCheck(address, '')).rejects.toBeDefined();
  const anonymous = client(address, false);
  const err = (await anonymous
    .admin()
    .describeCluster()
    .catch((e: unknown) => e)) as { code?: string };
  expect(['TLS_FAILED', 'BROKER_NOT_AVAILABLE']).toContain(err.code);
});

test('a replicated topic takes records and gives them back over mTLS', async () => {
  const tide = client(pods.pods.get('tide-broker-1')!.address, true);
  const admin = tide.admin();
  await waitFor(async () => ((await admin.describeCluster()).brokers.length === 3 ? true : undefined), {
    timeoutMs: 20_000,
    what: 'three registered brokers',
  });
  const topic = await admin.createTopic('orders', { partitions: 3, replicationFactor: 3 });
  for (const p of topic.partitions) expect([...p.replicas].sort()).toEqual([0, 1, 2]);
  const producer = tide.producer({ acks: 'all' });
  const sent = await Promise.all(
    Array.from({ length: 60 }, (_, i) => producer.send('orders', { key: `k${i % 6}`, value: `v${i}` })),
  );
  await producer.close();
  const consumer = tide.consumer({ autoOffsetReset: 'earliest' });
  const got: string[] = [];
  for (let p = 0; p < 3; p++) {
    let offset = 0;
    const expected = sent.filter((m) => m.partition === p).length;
    while (offset < expected) {
      const result = await consumer.fetch({ topic: 'orders', partition: p }, offset, { maxWaitMs: 1000 });
      for (const r of result.records) got.push(r.value!.toString());
      offset = result.nextOffset;
    }
  }
  await consumer.close();
  expect(got.sort()).toEqual(Array.from({ length: 60 }, (_, i) => `v${i}`).sort());
});
