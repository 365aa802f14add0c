/**
 * The chart's pods, run outside Kubernetes: etcd (the test harness) plus two controllers and three
 * brokers started through the image's entry point with exactly the args and env of the rendered
 * pod specs (test/helm/pods.ts: DNS names → loopback, fixed ports → free ones, /data and /tmp →
 * temp folders, nothing else). The cluster must then work: broker ids come from the pod ordinals,
 * the probes' health services answer SERVING, a replicated topic takes records and gives them
 * back, SIGTERM moves a broker's leaderships away, and nothing is written outside the volumes.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as grpc from '@grpc/grpc-js';
import { service as healthService } from 'grpc-health-check';
import { Tide } from '../../client';
import { startEtcd, type EtcdProcess } from '../harness/etcd';
import { REPO_ROOT, waitFor } from '../harness/processes';
import { find, renderChart, type K8sObject } from './render';
import { ENTRYPOINT, RenderedPods, listTree, podContainer, type RunningPod } from './pods';

jest.setTimeout(90_000);

const NAMESPACE = 'default';
const rendered = renderChart({ namespace: NAMESPACE });
const brokerSts = find(rendered, 'StatefulSet', 'tide-broker');
const controllerDeployment = find(rendered, 'Deployment', 'tide-controller');
const brokerContainer = podContainer(brokerSts, 'broker');
const controllerContainer = podContainer(controllerDeployment, 'controller');
const CONTROLLER_PODS = ['tide-controller-7c9d5b6f4-x2k8q', 'tide-controller-7c9d5b6f4-p9zrt'];
const BROKER_PODS = ['tide-broker-0', 'tide-broker-1', 'tide-broker-2'];
const COORDINATOR_POD = 'tide-coordinator-6f7d8c9b5-q4w2e';
const ETCD_URLS = [0, 1, 2].map(
  (i) => `http://tide-etcd-${i}.tide-etcd-headless.${NAMESPACE}.svc.cluster.local:2379`,
);

let etcd: EtcdProcess;
let local: RenderedPods;
let tide: Tide | undefined;
const pods = new Map<string, RunningPod>();

async function startRenderedPod(name: string, container: K8sObject): Promise<RunningPod> {
  const pod = await local.start(name, container);
  pods.set(name, pod);
  return pod;
}

const changes = { get: (pod: string) => local.changes.get(pod) };
const dirs = { get: (pod: string) => local.dirs.get(pod) };

function cksumId(podName: string): number {
  const sum = Number(
    execFileSync('sh', ['-c', `printf '%s' "$1" | cksum | cut -d ' ' -f 1`, 'sh', podName]).toString(),
  );
  return sum % 2147483647;
}

type HealthClient = grpc.Client & {
  Check(
    request: { service: string },
    callback: (err: grpc.ServiceError | null, res?: { status: string }) => void,
  ): void;
};
const Health = grpc.makeGenericClientConstructor(healthService as grpc.ServiceDefinition, 'Health');

/** grpc.health.v1.Health/Check, as the kubelet's gRPC probe calls it. */
function healthCheck(address: string, serviceName: string): Promise<string> {
  const client = new Health(address, grpc.credentials.createInsecure()) as unknown as HealthClient;
  return new Promise<string>((resolve, reject) => {
    client.Check({ service: serviceName }, (err, res) => {
      client.close();
      if (err) reject(err);
      else resolve(String(res!.status));
    });
  });
}

beforeAll(async () => {
  etcd = await startEtcd();
  local = new RenderedPods(NAMESPACE, { endpoint: etcd.endpoint, renderedUrls: ETCD_URLS });
  for (const name of CONTROLLER_PODS) await startRenderedPod(name, controllerContainer);
  await Promise.all(BROKER_PODS.map((name) => startRenderedPod(name, brokerContainer)));
});

afterAll(async () => {
  await tide?.close().catch(() => undefined);
  await local?.stopAll();
  await etcd?.close();
});

test('the pods run the image entry point with the rendered args, changed only where one machine must', () => {
  expect(brokerContainer.command).toBeUndefined();
  expect(brokerContainer.args).toEqual(['broker']);
  expect(controllerContainer.args).toEqual(['controller']);
  expect(fs.statSync(ENTRYPOINT).mode & 0o111).not.toBe(0);
  for (const name of BROKER_PODS) {
    const changed = changes.get(name)!;
    expect(Object.keys(changed).sort()).toEqual([
      'TIDE_ADVERTISED_HOST',
      'TIDE_DATA_DIR',
      'TIDE_ETCD_ENDPOINTS',
      'TIDE_PORT',
    ]);
    // The advertised name is the pod's stable DNS name through the headless Service.
    expect(changed.TIDE_ADVERTISED_HOST[0]).toBe(
      `${name}.tide-broker-headless.${NAMESPACE}.svc.cluster.local`,
    );
    expect(changed.TIDE_DATA_DIR).toEqual(['/data/logs', path.join(dirs.get(name)!.volumes.data, 'logs')]);
  }
  for (const name of CONTROLLER_PODS) {
    // The pod IP is loopback already; only etcd and the port change.
    expect(Object.keys(changes.get(name)!).sort()).toEqual(['TIDE_ETCD_ENDPOINTS', 'TIDE_PORT']);
  }
});

test('broker ids are the pod ordinals; controller ids are derived from the pod names', async () => {
  tide = new Tide({ bootstrap: [pods.get('tide-broker-1')!.address] });
  const cluster = (await waitFor(
    async () => {
      const c = await tide!.admin().describeCluster();
      return c.brokers.length === 3 ? c : undefined;
    },
    { timeoutMs: 20_000, what: 'three registered brokers' },
  ))!;
  const byId = new Map(cluster.brokers.map((b) => [b.id, b.address]));
  BROKER_PODS.forEach((name, ordinal) => expect(byId.get(ordinal)).toBe(pods.get(name)!.address));
  const controllerIds = CONTROLLER_PODS.map(cksumId);
  expect(new Set(controllerIds).size).toBe(2);
  expect(controllerIds).toContain(cluster.controllerId);
  for (const name of CONTROLLER_PODS) {
    const id = cksumId(name);
    expect(pods.get(name)!.output()).toMatch(new RegExp(`Tide controller ${id} (active|standing by)`));
  }
});

test("the probes' health services answer SERVING on the probed port", async () => {
  const probes = (c: K8sObject) =>
    ['startupProbe', 'readinessProbe', 'livenessProbe'].map(
      (p) => c[p].grpc as { port: number; service: string },
    );
  for (const name of BROKER_PODS) {
    const port = pods.get(name)!.address.split(':')[1];
    for (const probe of probes(brokerContainer)) {
      expect(String(probe.port)).toBe(changes.get(name)!.TIDE_PORT[0]);
      expect(await healthCheck(`127.0.0.1:${port}`, probe.service)).toBe('SERVING');
    }
  }
  // Standby or active: a controller is ready.
  for (const name of CONTROLLER_PODS) {
    const port = pods.get(name)!.address.split(':')[1];
    for (const probe of probes(controllerContainer))
      expect(await healthCheck(`127.0.0.1:${port}`, probe.service)).toBe('SERVING');
  }
});

test('a replicated topic takes records and gives them back', async () => {
  const admin = tide!.admin();
  // No replication factor given: the chart's default (3, capped at the broker count) applies.
  const topic = await admin.createTopic('orders', { partitions: 3 });
  for (const p of topic.partitions) expect(p.replicas.sort()).toEqual([0, 1, 2]);
  const producer = tide!.producer({ acks: 'all' });
  const sent = await Promise.all(
    Array.from({ length: 60 }, (_, i) => producer.send('orders', { key: `k${i % 6}`, value: `v${i}` })),
  );
  await producer.close();
  const consumer = tide!.consumer({ autoOffsetReset: 'earliest' });
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

test('SIGTERM (after preStop) moves the broker leaderships away, and the broker exits cleanly in the grace period', async () => {
  const admin = tide!.admin();
  const leaders = async () => (await admin.describeTopic('orders')).topic.partitions.map((p) => p.leader);
  // Leaders spread over the brokers; stop the leader of partition 0.
  const victim = (await leaders())[0];
  const pod = pods.get(`tide-broker-${victim}`)!;
  const grace = brokerSts.spec.template.spec.terminationGracePeriodSeconds as number;
  const started = Date.now();
  expect(await pod.stop('SIGTERM')).toBe(0);
  expect(Date.now() - started).toBeLessThan(grace * 1000);
  expect(pod.output()).not.toMatch(/controlled shutdown failed/);
  const after = await waitFor(
    async () => {
      const l = await leaders();
      return l.every((id) => id !== victim && id >= 0) ? l : undefined;
    },
    { timeoutMs: 15_000, what: 'leaders on the remaining brokers' },
  );
  expect(after).not.toContain(victim);
  // The StatefulSet starts the pod again on its volume; later pods (the coordinator, which waits
  // for min(3, broker.replicas) brokers before creating __consumer_offsets) see all three.
  await startRenderedPod(`tide-broker-${victim}`, brokerContainer);
});

test('nothing is written outside the volumes (the root filesystem is read-only in the pod)', () => {
  for (const name of [...BROKER_PODS, ...CONTROLLER_PODS]) {
    const { cwd, volumes } = dirs.get(name)!;
    expect({ name, workdir: listTree(cwd) }).toEqual({ name, workdir: [] });
    if (volumes.data) expect(listTree(volumes.data)).toContain('logs');
  }
});

// The coordinator is being built alongside: run its pod once its command exists in dist/.
const coordinatorBuilt = fs.existsSync(path.join(REPO_ROOT, 'dist', 'cli', 'commands', 'coordinator.js'));
(coordinatorBuilt ? test : test.skip)(
  'a coordinator runs with the rendered args and env and answers its probes',
  async () => {
    const container = podContainer(find(rendered, 'Deployment', 'tide-coordinator'), 'coordinator');
    const pod = await startRenderedPod(COORDINATOR_POD, container);
    expect(Object.keys(changes.get(COORDINATOR_POD)!).sort()).toEqual(['--etcd', '--port']);
    expect(pod.address).toBe(`127.0.0.1:${changes.get(COORDINATOR_POD)!['--port'][1]}`);
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe'])
      expect(await healthCheck(pod.address, container[probe].grpc.service)).toBe('SERVING');
    expect(listTree(dirs.get(COORDINATOR_POD)!.cwd)).toEqual([]);
  },
);
