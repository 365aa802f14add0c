/**
 * helm/tide rendered as `helm template` would (test/helm/render.ts), for the default values and
 * the files in test/helm/values/: every object checked against the Kubernetes API schemas
 * (kubernetes-models), then what makes the cluster work asserted: names, ports, env the services
 * accept, volumes and claims, probes on the gRPC health service, replica counts, labels and
 * selectors, security contexts, disruption budgets, NOTES and the chart README.
 *
 * Not covered (no API server or helm binary here): admission and defaulting, strict unknown-field
 * checks beyond what is asserted, `helm lint`, and the chart actually running on a cluster.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { Certificate } from '@kubernetes-models/cert-manager/cert-manager.io/v1/Certificate';
import { Issuer } from '@kubernetes-models/cert-manager/cert-manager.io/v1/Issuer';
import { BROKER_CONFIG_SCHEMA } from '../../services/broker/config';
import { CONTROLLER_CONFIG_SCHEMA } from '../../services/controller/config';
import { envNameOf, type ConfigSchema } from '../../services/common/config';
import {
  CHART_DIR,
  envMap,
  find,
  renderChart,
  renderValues,
  type EnvVar,
  type K8sObject,
  type Rendered,
} from './render';

/** The coordinator's config schema, once services/group-coordinator/config.ts exists. */
function coordinatorSchema(): ConfigSchema | undefined {
  const file = path.join(__dirname, '..', '..', 'services', 'group-coordinator', 'config.ts');
  if (!fs.existsSync(file)) return undefined;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(file) as { COORDINATOR_CONFIG_SCHEMA: ConfigSchema }).COORDINATOR_CONFIG_SCHEMA;
}

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/StatefulSet': StatefulSet,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
  'cert-manager.io/v1/Certificate': Certificate,
  'cert-manager.io/v1/Issuer': Issuer,
};

const VALUE_SETS: Record<string, (string | Record<string, unknown>)[]> = {
  defaults: [],
  'external etcd': ['external-etcd.yaml'],
  'external etcd on TLS with a password': ['external-etcd-tls.yaml'],
  'five brokers': ['five-brokers.yaml'],
  'metrics and network policies': ['metrics-networkpolicy.yaml'],
  'TLS from cert-manager': ['tls-cert-manager.yaml'],
  'TLS from an existing Secret': ['tls-existing-secret.yaml'],
  'TLS from a ClusterIssuer': ['tls-cluster-issuer.yaml'],
  'auth, ACLs and quotas': ['auth-acls-quotas.yaml'],
  // The production starting point users copy: balancing on, replica moves throttled.
  'the production example': [path.join(CHART_DIR, 'values-production.yaml')],
};

/** Config keys the chart sets itself, per role. */
// Keys the chart sets itself (metricsPort from metrics.enabled/metrics.port).
const CHART_SET = [
  'host',
  'port',
  'advertisedHost',
  'etcdEndpoints',
  'clusterName',
  'logLevel',
  'metricsPort',
];

function workloads(r: Rendered): K8sObject[] {
  return r.objects.filter((o) => o.kind === 'StatefulSet' || o.kind === 'Deployment');
}

function container(workload: K8sObject, name?: string) {
  const containers = workload.spec.template.spec.containers as K8sObject[];
  return name ? containers.find((c) => c.name === name)! : containers[0];
}

function matches(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

function podLabels(workload: K8sObject): Record<string, string> {
  return workload.spec.template.metadata.labels;
}

describe.each(Object.entries(VALUE_SETS))('with %s values', (_name, values) => {
  let r: Rendered;
  beforeAll(() => {
    r = renderChart({ values });
  });

  test('every object is valid against the Kubernetes API schema', () => {
    expect(r.objects.length).toBeGreaterThan(0);
    for (const object of r.objects) {
      const Model = MODELS[`${object.apiVersion}/${object.kind}`];
      if (!Model) throw new Error(`no schema for ${object.apiVersion} ${object.kind}`);
      expect(() => new Model(object as never).validate()).not.toThrow();
      expect(object.metadata.namespace).toBe('default');
      expect(object.metadata.labels?.['app.kubernetes.io/instance']).toBe('tide');
    }
  });

  test('names are unique per kind', () => {
    const names = r.objects.map((o) => `${o.kind}/${o.metadata.name}`);
    expect(new Set(names).size).toBe(names.length);
  });

  test('selectors match their pods, and each Service selects exactly one workload', () => {
    for (const w of workloads(r)) {
      expect(matches(w.spec.selector.matchLabels, podLabels(w))).toBe(true);
      expect(Object.keys(w.spec.selector.matchLabels).sort()).toEqual([
        'app.kubernetes.io/component',
        'app.kubernetes.io/instance',
        'app.kubernetes.io/name',
      ]);
    }
    for (const svc of r.objects.filter((o) => o.kind === 'Service')) {
      const selected = workloads(r).filter((w) => matches(svc.spec.selector, podLabels(w)));
      expect(selected.map((w) => w.metadata.name)).toHaveLength(1);
      // Named target ports exist on the selected pods.
      const ports = (selected[0].spec.template.spec.containers as K8sObject[]).flatMap((c) =>
        (c.ports ?? []).map((p: { name: string }) => p.name),
      );
      for (const p of svc.spec.ports) expect(ports).toContain(p.targetPort);
    }
    for (const pdb of r.objects.filter((o) => o.kind === 'PodDisruptionBudget')) {
      const selected = workloads(r).filter((w) => matches(pdb.spec.selector.matchLabels, podLabels(w)));
      expect(selected).toHaveLength(1);
      expect(pdb.spec.maxUnavailable).toBe(1);
    }
  });

  test('StatefulSets name an existing headless Service that publishes not-ready pods', () => {
    for (const sts of r.objects.filter((o) => o.kind === 'StatefulSet')) {
      const svc = find(r, 'Service', sts.spec.serviceName);
      expect(svc.spec.clusterIP).toBe('None');
      expect(svc.spec.publishNotReadyAddresses).toBe(true);
      expect(matches(svc.spec.selector, podLabels(sts))).toBe(true);
    }
  });

  test('every pod is non-root with a read-only root filesystem, no capabilities, RuntimeDefault seccomp', () => {
    for (const w of workloads(r)) {
      const pod = w.spec.template.spec;
      expect(pod.securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 10001,
        runAsGroup: 10001,
        fsGroup: 10001,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(pod.automountServiceAccountToken).toBe(false);
      // Service links would inject TIDE_PORT=tcp://... for a Service named "tide", which Tide's
      // config loader rejects (unknown or malformed TIDE_* variable).
      expect(pod.enableServiceLinks).toBe(false);
      for (const c of pod.containers as K8sObject[]) {
        expect(c.securityContext).toEqual({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          privileged: false,
          capabilities: { drop: ['ALL'] },
        });
        expect(c.resources.requests).toBeDefined();
        expect(c.resources.limits.memory).toBeDefined();
      }
    }
  });

  test('Tide containers get only TIDE_* variables their service accepts', () => {
    const schemas: Record<string, ConfigSchema | undefined> = {
      broker: BROKER_CONFIG_SCHEMA,
      controller: CONTROLLER_CONFIG_SCHEMA,
      coordinator: coordinatorSchema(),
    };
    for (const w of workloads(r)) {
      const role = podLabels(w)['app.kubernetes.io/component'];
      if (role === 'etcd') continue;
      const schema = schemas[role];
      if (!schema) continue; // the coordinator before it lands
      const accepted = new Set(Object.keys(schema).map(envNameOf));
      // TIDE_METRICS_PORT (metrics.enabled) is the seam for services that do not serve metrics yet.
      if (!('metricsPort' in schema)) accepted.add('TIDE_METRICS_PORT');
      const names = (container(w).env as { name: string }[])
        .map((e) => e.name)
        .filter((n) => n.startsWith('TIDE_'));
      for (const n of names)
        expect({ role, n, accepted: accepted.has(n) }).toEqual({ role, n, accepted: true });
      expect(new Set(names).size).toBe(names.length);
    }
  });

  test('Tide services are probed on the gRPC health service of their port (the health-only port with TLS)', () => {
    for (const w of workloads(r)) {
      const role = podLabels(w)['app.kubernetes.io/component'];
      if (role === 'etcd') continue;
      const c = container(w);
      const grpcPort = c.ports.find((p: { name: string }) => p.name === 'grpc').containerPort;
      const healthPort = envMap(c.env as EnvVar[]).TIDE_HEALTH_PORT;
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
        expect(c[probe].grpc.port).toBe(healthPort === undefined ? grpcPort : Number(healthPort));
        expect(typeof c[probe].grpc.service).toBe('string');
      }
    }
  });
});

describe('TLS', () => {
  const VOLUME_DIR = '/etc/tide/tls';

  function tideContainers(r: Rendered): { role: string; w: K8sObject; c: K8sObject }[] {
    return workloads(r)
      .map((w) => ({ role: podLabels(w)['app.kubernetes.io/component'], w, c: container(w) }))
      .filter((x) => x.role !== 'etcd');
  }

  function secretOfTlsVolume(w: K8sObject): string | undefined {
    const volumes = w.spec.template.spec.volumes as { name: string; secret?: { secretName: string } }[];
    return volumes.find((v) => v.name === 'tls')?.secret?.secretName;
  }

  test('is off by default: no TLS env, no certificate volume, no cert-manager objects', () => {
    const r = renderChart();
    for (const { w, c } of tideContainers(r)) {
      expect(Object.keys(envMap(c.env as EnvVar[])).filter((n) => /TLS|HEALTH_PORT/.test(n))).toEqual([]);
      expect(secretOfTlsVolume(w)).toBeUndefined();
    }
    expect(r.objects.filter((o) => o.apiVersion.startsWith('cert-manager.io/'))).toEqual([]);
  });

  test('with cert-manager and no issuer: a private CA, and one certificate every service uses', () => {
    const r = renderChart({ values: ['tls-cert-manager.yaml'] });
    const cert = find(r, 'Certificate', 'tide');
    const ca = find(r, 'Certificate', 'tide-ca');
    const caIssuer = find(r, 'Issuer', 'tide-ca');
    expect(find(r, 'Issuer', 'tide-selfsigned').spec.selfSigned).toEqual({});
    expect(ca.spec.isCA).toBe(true);
    expect(ca.spec.issuerRef).toEqual({ name: 'tide-selfsigned', kind: 'Issuer', group: 'cert-manager.io' });
    expect(caIssuer.spec.ca.secretName).toBe(ca.spec.secretName);
    expect(cert.spec.issuerRef).toEqual({ name: 'tide-ca', kind: 'Issuer', group: 'cert-manager.io' });
    // Presented as server and, to other services under clientAuth=require, as client certificate.
    expect(cert.spec.usages).toEqual(expect.arrayContaining(['server auth', 'client auth']));
    expect(cert.spec.dnsNames).toEqual(expect.arrayContaining(['tide.example.com', 'localhost']));
    expect(cert.spec.ipAddresses).toEqual(['127.0.0.1']);
    const names = cert.spec.dnsNames as string[];
    const covers = (host: string) =>
      names.some(
        (n) =>
          n === host ||
          (n.startsWith('*.') && host.endsWith(n.slice(1)) && !host.slice(0, -n.length + 1).includes('.')),
      );
    for (const { role, w, c } of tideContainers(r)) {
      const env = envMap(c.env as EnvVar[]);
      expect(secretOfTlsVolume(w)).toBe(cert.spec.secretName);
      const mount = (c.volumeMounts as { name: string; mountPath: string; readOnly?: boolean }[]).find(
        (m) => m.name === 'tls',
      );
      expect(mount).toEqual({ name: 'tls', mountPath: VOLUME_DIR, readOnly: true });
      expect({
        role,
        cert: env.TIDE_TLS_CERT_FILE,
        key: env.TIDE_TLS_KEY_FILE,
        ca: env.TIDE_TLS_CA_FILE,
      }).toEqual({
        role,
        cert: `${VOLUME_DIR}/tls.crt`,
        key: `${VOLUME_DIR}/tls.key`,
        ca: `${VOLUME_DIR}/ca.crt`,
      });
      expect(env.TIDE_TLS_CLIENT_AUTH).toBe('require');
      // Peers are dialled by pod IP or pod DNS name; the certificate must carry the name checked.
      expect(covers(env.TIDE_TLS_SERVER_NAME!)).toBe(true);
      if (role === 'broker') {
        const advertised = env.TIDE_ADVERTISED_HOST!.replace('$(POD_NAME)', 'tide-broker-4');
        expect({ advertised, covered: covers(advertised) }).toEqual({ advertised, covered: true });
      }
    }
    // The port-forward recipe trusts the CA from the Secret; grpcurl too.
    expect(r.notes).toContain(
      "kubectl --namespace default get secret tide-tls -o jsonpath='{.data.ca\\.crt}' | base64 -d > tide-ca.crt",
    );
    expect(r.notes).toContain('grpcurl -cacert tide-ca.crt 127.0.0.1:9092 list');
    expect(r.notes).not.toContain('-plaintext');
    expect(r.notes).toMatch(/TIDE_TLS_CERT and TIDE_TLS_KEY/);
    // The client Service's in-cluster names, for clients inside the cluster.
    for (const host of ['tide', 'tide.default.svc', 'tide.default.svc.cluster.local'])
      expect(covers(host)).toBe(true);
  });

  test('with an existing Secret: no cert-manager objects, the Secret is mounted', () => {
    const r = renderChart({ values: ['tls-existing-secret.yaml'] });
    expect(r.objects.filter((o) => o.apiVersion.startsWith('cert-manager.io/'))).toEqual([]);
    for (const { w, c } of tideContainers(r)) {
      expect(secretOfTlsVolume(w)).toBe('tide-certs');
      expect(envMap(c.env as EnvVar[]).TIDE_TLS_CLIENT_AUTH).toBe('none');
    }
  });

  test('with a ClusterIssuer: one Certificate from it, no chart-made CA', () => {
    const r = renderChart({ values: ['tls-cluster-issuer.yaml'] });
    const certs = r.objects.filter((o) => o.kind === 'Certificate');
    expect(certs.map((o) => o.metadata.name)).toEqual(['tide']);
    expect(certs[0].spec.issuerRef).toEqual({
      name: 'letsencrypt-internal',
      kind: 'ClusterIssuer',
      group: 'cert-manager.io',
    });
    expect(r.objects.filter((o) => o.kind === 'Issuer')).toEqual([]);
  });

  test('TLS without a certificate source is refused with a message that says what to set', () => {
    expect(() => renderChart({ values: [{ tls: { enabled: true } }] })).toThrow(
      /tls.existingSecret.*tls.certManager.enabled/,
    );
    expect(() => renderChart({ values: [{ tls: { clientAuth: 'sometimes' } }] })).toThrow();
  });
});

describe('auth, ACLs and quotas', () => {
  const tideWorkloads = (r: Rendered) =>
    workloads(r).filter((w) => podLabels(w)['app.kubernetes.io/component'] !== 'etcd');

  test('every Tide service gets the auth settings, files and the projected service-account token', () => {
    const r = renderChart({ values: ['auth-acls-quotas.yaml'] });
    expect(tideWorkloads(r)).toHaveLength(3);
    for (const w of tideWorkloads(r)) {
      const c = container(w);
      const env = envMap(c.env as EnvVar[]);
      expect(env).toMatchObject({
        TIDE_AUTH_MTLS: 'true',
        TIDE_AUTH_MTLS_PRINCIPAL_RULES: 'RULE:^CN=([^,]+).*$/$1/L,DEFAULT',
        TIDE_AUTH_JWKS_FILE: '/etc/tide/auth/jwks/jwks.json',
        TIDE_AUTH_JWT_ISSUER: 'https://kubernetes.default.svc.cluster.local',
        TIDE_AUTH_JWT_AUDIENCE: 'tide',
        TIDE_AUTH_STATIC_TOKENS_FILE: '/etc/tide/auth/static/tokens',
        TIDE_AUTHORIZATION: 'acl',
        TIDE_SUPER_USERS: 'admin',
        TIDE_INTERNAL_PRINCIPALS: 'tide.default.svc,system:serviceaccount:default:tide',
        TIDE_INTERNAL_TOKEN_FILE: '/etc/tide/auth/sa/token',
      });
      expect(env.TIDE_QUOTAS).toBeUndefined();
      const mounts = c.volumeMounts as { name: string; mountPath: string }[];
      const volumes = w.spec.template.spec.volumes as K8sObject[];
      for (const [name, dir] of [
        ['auth-jwks', '/etc/tide/auth/jwks'],
        ['auth-static-tokens', '/etc/tide/auth/static'],
        ['auth-sa-token', '/etc/tide/auth/sa'],
      ]) {
        expect(mounts).toContainEqual({ name, mountPath: dir, readOnly: true });
        expect(volumes.map((v) => v.name)).toContain(name);
      }
      const byName = (n: string) => volumes.find((v) => v.name === n)!;
      expect(byName('auth-jwks').configMap).toEqual({
        name: 'cluster-jwks',
        items: [{ key: 'jwks.json', path: 'jwks.json' }],
      });
      expect(byName('auth-static-tokens').secret.secretName).toBe('tide-dev-tokens');
      expect(byName('auth-sa-token').projected.sources[0].serviceAccountToken).toEqual({
        audience: 'tide',
        expirationSeconds: 3600,
        path: 'token',
      });
    }
  });

  test('a post-install/post-upgrade Job applies the declared ACLs and quotas with the release image', () => {
    const r = renderChart({ values: ['auth-acls-quotas.yaml'] });
    const job = find(r, 'Job', 'tide-bootstrap');
    expect(job.metadata.annotations).toEqual({
      'helm.sh/hook': 'post-install,post-upgrade',
      'helm.sh/hook-weight': '0',
      'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
    });
    const pod = job.spec.template.spec;
    expect(pod.restartPolicy).toBe('Never');
    expect(pod.automountServiceAccountToken).toBe(false);
    const c = pod.containers[0] as K8sObject;
    const broker = container(
      r.objects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'tide-broker')!,
    );
    expect(c.image).toBe(broker.image);
    expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(envMap(c.env as EnvVar[])).toEqual({
      TIDE_BOOTSTRAP: 'tide.default.svc:9092',
      TIDE_TLS_CA: '/etc/tide/tls/ca.crt',
      // With mTLS the Job is the service certificate's principal, an internal (super) principal.
      TIDE_TLS_CERT: '/etc/tide/tls/tls.crt',
      TIDE_TLS_KEY: '/etc/tide/tls/tls.key',
    });
    const script = (c.args as string[])[0]!;
    const lines = script.split('\n').map((l) => l.trim());
    expect(lines).toContain(
      "tide acls add --principal 'system:serviceaccount:shop:orders' --topic 'orders.' --operation 'write' --operation 'describe' --prefixed",
    );
    expect(lines).toContain("tide acls add --principal 'billing' --group 'billing' --operation 'read'");
    expect(lines).toContain("tide acls add --principal 'ops' --cluster --operation 'describe'");
    expect(lines).toContain(
      "tide quotas set --user 'system:serviceaccount:shop:orders' 'max_streams=20' 'producer_byte_rate=1048576'",
    );
    expect(lines).toContain("tide quotas set --user '<default>' 'request_rate=200'");
    expect(lines).toContain("tide quotas set --client-id 'batch' 'consumer_byte_rate=524288'");
    // Waits for the brokers before the first call (the hook runs while they start).
    expect(lines.findIndex((l) => l.startsWith('until tide cluster describe'))).toBeLessThan(
      lines.findIndex((l) => l.startsWith('tide acls add')),
    );
  });

  test('no Job and no auth env with the default values', () => {
    const r = renderChart({});
    expect(r.objects.filter((o) => o.kind === 'Job')).toEqual([]);
    for (const w of tideWorkloads(r)) {
      const names = (container(w).env as EnvVar[]).map((e) => e.name);
      expect(names.filter((n) => /AUTH|PRINCIPALS|SUPER_USERS|INTERNAL_TOKEN|QUOTAS/.test(n))).toEqual([]);
    }
  });

  test('a Job authenticating by service-account token when mTLS is off', () => {
    const r = renderChart({
      values: [
        'auth-acls-quotas.yaml',
        {
          auth: { mtls: { enabled: false } },
          quotas: [{ user: 'a', values: { request_rate: 5 } }],
          acls: [],
        },
      ],
    });
    const c = find(r, 'Job', 'tide-bootstrap').spec.template.spec.containers[0] as K8sObject;
    const env = envMap(c.env as EnvVar[]);
    expect(env.TIDE_TOKEN_FILE).toBe('/etc/tide/auth/sa/token');
    expect(env.TIDE_TLS_CERT).toBeUndefined();
  });

  test('refuses settings that cannot work, saying what to set', () => {
    expect(() => renderChart({ values: [{ auth: { mtls: { enabled: true } } }] })).toThrow(
      /needs tls.enabled/,
    );
    expect(() =>
      renderChart({
        values: ['tls-cert-manager.yaml', { tls: { clientAuth: 'none' }, auth: { mtls: { enabled: true } } }],
      }),
    ).toThrow(/tls.clientAuth request or require/);
    expect(() =>
      renderChart({
        values: [
          'auth-acls-quotas.yaml',
          { auth: { internalPrincipals: [], serviceAccountToken: { enabled: false } } },
        ],
      }),
    ).toThrow(/needs auth.internalPrincipals/);
    expect(() =>
      renderChart({ values: ['auth-acls-quotas.yaml', { auth: { jwt: { issuer: '' } } }] }),
    ).toThrow(/needs auth.jwt.issuer and auth.jwt.audience/);
    expect(() =>
      renderChart({
        values: [
          'auth-acls-quotas.yaml',
          {
            auth: {
              mtls: { enabled: false },
              serviceAccountToken: { enabled: false },
              internalPrincipals: ['x'],
            },
          },
        ],
      }),
    ).toThrow(/applied by a Job that authenticates/);
    expect(() => renderChart({ values: [{ acls: [{ principal: 'a', operations: ['read'] }] }] })).toThrow(
      /names no resource/,
    );
    expect(() => renderChart({ values: [{ quotas: [{ user: 'a', values: { bytes: 1 } }] }] })).toThrow();
    expect(() => renderChart({ values: [{ quotas: [{ values: { request_rate: 1 } }] }] })).toThrow();
    expect(() =>
      renderChart({ values: [{ acls: [{ principal: "it's", operations: ['read'], topic: 't' }] }] }),
    ).toThrow();
  });
});

describe('default values', () => {
  let r: Rendered;
  beforeAll(() => {
    r = renderChart();
  });

  test('render the whole cluster', () => {
    expect(r.objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual(
      [
        'Deployment/tide-controller',
        'Deployment/tide-coordinator',
        'PodDisruptionBudget/tide-broker',
        'PodDisruptionBudget/tide-controller',
        'PodDisruptionBudget/tide-coordinator',
        'PodDisruptionBudget/tide-etcd',
        'Service/tide',
        'Service/tide-broker-headless',
        'Service/tide-controller-headless',
        'Service/tide-coordinator-headless',
        'Service/tide-etcd-headless',
        'ServiceAccount/tide',
        'StatefulSet/tide-broker',
        'StatefulSet/tide-etcd',
      ].sort(),
    );
  });

  test('brokers: 3, ids from the ordinal, advertised by stable DNS name, data on a claim per broker', () => {
    const sts = find(r, 'StatefulSet', 'tide-broker');
    expect(sts.spec.replicas).toBe(3);
    expect(sts.spec.podManagementPolicy).toBe('Parallel');
    const c = container(sts, 'broker');
    expect(c.image).toBe('tide:0.1.0');
    expect(c.args).toEqual(['broker']);
    expect(c.command).toBeUndefined(); // the image's entry point derives TIDE_BROKER_ID
    const env = envMap(c.env);
    const etcd = [0, 1, 2].map(
      (i) => `http://tide-etcd-${i}.tide-etcd-headless.default.svc.cluster.local:2379`,
    );
    expect(env).toEqual({
      POD_NAME: undefined,
      POD_NAMESPACE: undefined,
      TIDE_CLUSTER_NAME: 'tide',
      TIDE_LOG_LEVEL: 'info',
      TIDE_HOST: '0.0.0.0',
      TIDE_PORT: '9092',
      TIDE_ADVERTISED_HOST: '$(POD_NAME).tide-broker-headless.default.svc.cluster.local',
      TIDE_DATA_DIR: '/data/logs',
      TIDE_ETCD_ENDPOINTS: etcd.join(','),
      TIDE_DEFAULT_REPLICATION_FACTOR: '3',
    });
    expect(c.env.find((e: { name: string }) => e.name === 'POD_NAME').valueFrom).toEqual({
      fieldRef: { fieldPath: 'metadata.name' },
    });
    // $(POD_NAME) is expanded by Kubernetes only when POD_NAME is defined earlier in the list.
    const names = c.env.map((e: { name: string }) => e.name);
    expect(names.indexOf('POD_NAME')).toBeLessThan(names.indexOf('TIDE_ADVERTISED_HOST'));
    expect(c.ports).toEqual([{ name: 'grpc', containerPort: 9092, protocol: 'TCP' }]);
    expect(c.volumeMounts).toEqual([
      { name: 'data', mountPath: '/data' },
      { name: 'tmp', mountPath: '/tmp' },
    ]);
    expect(env.TIDE_DATA_DIR!.startsWith('/data/')).toBe(true);
    expect(sts.spec.template.spec.volumes).toEqual([{ name: 'tmp', emptyDir: {} }]);
    expect(sts.spec.volumeClaimTemplates).toEqual([
      {
        metadata: {
          name: 'data',
          labels: {
            'app.kubernetes.io/name': 'tide',
            'app.kubernetes.io/instance': 'tide',
            'app.kubernetes.io/component': 'broker',
          },
        },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Gi' } } },
      },
    ]);
  });

  test('brokers: ready once registered and serving (tide.v1.Broker), controlled shutdown has time', () => {
    const sts = find(r, 'StatefulSet', 'tide-broker');
    const c = container(sts, 'broker');
    expect(c.startupProbe).toMatchObject({
      grpc: { port: 9092, service: 'tide.v1.Broker' },
      failureThreshold: 120,
    });
    expect(c.readinessProbe).toMatchObject({ grpc: { port: 9092, service: 'tide.v1.Broker' } });
    expect(c.livenessProbe).toMatchObject({ grpc: { port: 9092, service: '' } });
    expect(c.lifecycle.preStop.exec.command).toEqual(['/bin/sh', '-c', 'sleep 5']);
    expect(sts.spec.template.spec.terminationGracePeriodSeconds).toBe(120);
    expect(sts.spec.updateStrategy).toEqual({ type: 'RollingUpdate' });
  });

  test('client and headless broker Services', () => {
    const client = find(r, 'Service', 'tide');
    expect(client.spec.type).toBe('ClusterIP');
    expect(client.spec.clusterIP).toBeUndefined();
    expect(client.spec.ports).toEqual([
      { name: 'grpc', port: 9092, targetPort: 'grpc', protocol: 'TCP', appProtocol: 'grpc' },
    ]);
    const headless = find(r, 'Service', 'tide-broker-headless');
    expect(headless.spec.ports.map((p: { port: number }) => p.port)).toEqual([9092]);
  });

  test('controllers: 2, advertising the pod IP, ready while standing by', () => {
    const d = find(r, 'Deployment', 'tide-controller');
    expect(d.spec.replicas).toBe(2);
    expect(d.spec.strategy.rollingUpdate).toEqual({ maxUnavailable: 0, maxSurge: 1 });
    const c = container(d, 'controller');
    expect(c.args).toEqual(['controller']);
    const env = envMap(c.env);
    expect(env).toMatchObject({
      TIDE_HOST: '0.0.0.0',
      TIDE_PORT: '9093',
      TIDE_DEFAULT_REPLICATION_FACTOR: '3',
    });
    expect(env.TIDE_ETCD_ENDPOINTS).toBe(
      envMap(container(find(r, 'StatefulSet', 'tide-broker')).env).TIDE_ETCD_ENDPOINTS,
    );
    expect(c.env.find((e: { name: string }) => e.name === 'TIDE_ADVERTISED_HOST').valueFrom).toEqual({
      fieldRef: { fieldPath: 'status.podIP' },
    });
    // A standby serves "" but not tide.v1.Controller: probing the overall status keeps it ready.
    expect(c.readinessProbe.grpc).toEqual({ port: 9093, service: '' });
    expect(c.ports).toEqual([{ name: 'grpc', containerPort: 9093, protocol: 'TCP' }]);
  });

  test('coordinators: 2, `coordinator --port 9094 --etcd ...`', () => {
    const d = find(r, 'Deployment', 'tide-coordinator');
    expect(d.spec.replicas).toBe(2);
    const c = container(d, 'coordinator');
    const etcd = envMap(container(find(r, 'StatefulSet', 'tide-broker')).env).TIDE_ETCD_ENDPOINTS;
    expect(c.args).toEqual(['coordinator', '--port', '9094', '--etcd', etcd]);
    expect(c.ports[0]).toEqual({ name: 'grpc', containerPort: 9094, protocol: 'TCP' });
    expect(c.readinessProbe.grpc).toEqual({ port: 9094, service: '' });
    // __consumer_offsets waits for every broker, up to Kafka's 3.
    expect(envMap(c.env).TIDE_OFFSETS_TOPIC_REPLICATION_FACTOR).toBe('3');
  });

  test('etcd: 3 members that find each other by stable names, with the flags Tide needs', () => {
    const sts = find(r, 'StatefulSet', 'tide-etcd');
    expect(sts.spec.replicas).toBe(3);
    expect(sts.spec.podManagementPolicy).toBe('Parallel');
    const c = container(sts, 'etcd');
    const domain = 'tide-etcd-headless.default.svc.cluster.local';
    expect(c.args).toEqual(
      expect.arrayContaining([
        '--name=$(POD_NAME)',
        `--advertise-client-urls=http://$(POD_NAME).${domain}:2379`,
        `--initial-advertise-peer-urls=http://$(POD_NAME).${domain}:2380`,
        `--initial-cluster=${[0, 1, 2].map((i) => `tide-etcd-${i}=http://tide-etcd-${i}.${domain}:2380`).join(',')}`,
        '--max-txn-ops=10001',
        '--max-request-bytes=4194304',
      ]),
    );
    expect(c.volumeMounts).toEqual([{ name: 'data', mountPath: '/var/run/etcd' }]);
    expect(c.args).toContain('--data-dir=/var/run/etcd/data');
    expect(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe('8Gi');
    expect(c.readinessProbe.httpGet).toEqual({ path: '/health', port: 'etcd-metrics' });
  });

  test('NOTES show the port-forward recipe and mention proxy routing', () => {
    expect(r.notes).toContain('kubectl --namespace default port-forward svc/tide 9092');
    expect(r.notes).toContain('npx tide topics list --bootstrap 127.0.0.1:9092');
    expect(r.notes).toMatch(/proxy\s+routing/i);
    // Consumer groups work through the same forward (the broker relays group calls).
    expect(r.notes).toContain('npx tide consume demo --group g1 --bootstrap 127.0.0.1:9092');
    expect(r.notes).toContain('grpcurl -plaintext 127.0.0.1:9092 list');
  });

  test('no NetworkPolicy or ServiceMonitor unless asked, no metrics port', () => {
    expect(r.objects.filter((o) => o.kind === 'NetworkPolicy' || o.kind === 'ServiceMonitor')).toEqual([]);
    for (const w of workloads(r))
      for (const c of w.spec.template.spec.containers as K8sObject[])
        expect((c.env ?? []).map((e: { name: string }) => e.name)).not.toContain('TIDE_METRICS_PORT');
  });
});

describe('release names', () => {
  test('a release not named tide prefixes its objects, and every reference follows', () => {
    const r = renderChart({ name: 'orders', namespace: 'streaming' });
    const sts = find(r, 'StatefulSet', 'orders-tide-broker');
    expect(sts.spec.serviceName).toBe('orders-tide-broker-headless');
    const env = envMap(container(sts).env);
    expect(env.TIDE_ADVERTISED_HOST).toBe(
      '$(POD_NAME).orders-tide-broker-headless.streaming.svc.cluster.local',
    );
    expect(env.TIDE_ETCD_ENDPOINTS!.split(',')[0]).toBe(
      'http://orders-tide-etcd-0.orders-tide-etcd-headless.streaming.svc.cluster.local:2379',
    );
    expect(find(r, 'Service', 'orders-tide').metadata.namespace).toBe('streaming');
    expect(r.notes).toContain('port-forward svc/orders-tide 9092');
    expect(sts.spec.template.spec.serviceAccountName).toBe('orders-tide');
  });

  test('fullnameOverride replaces the prefix', () => {
    const r = renderChart({ values: [{ fullnameOverride: 'log' }] });
    expect(find(r, 'StatefulSet', 'log-broker').spec.serviceName).toBe('log-broker-headless');
    expect(find(r, 'Service', 'log').spec.ports[0].port).toBe(9092);
  });
});

describe('external etcd', () => {
  test('no bundled etcd; every service uses the given endpoints', () => {
    const r = renderChart({ values: ['external-etcd.yaml'] });
    const endpoints = 'http://etcd-a.db.svc:2379,http://etcd-b.db.svc:2379,http://etcd-c.db.svc:2379';
    expect(r.objects.filter((o) => o.metadata.name.includes('etcd'))).toEqual([]);
    expect(envMap(container(find(r, 'StatefulSet', 'tide-broker')).env).TIDE_ETCD_ENDPOINTS).toBe(endpoints);
    expect(envMap(container(find(r, 'Deployment', 'tide-controller')).env).TIDE_ETCD_ENDPOINTS).toBe(
      endpoints,
    );
    expect(container(find(r, 'Deployment', 'tide-coordinator')).args).toEqual([
      'coordinator',
      '--port',
      '9094',
      '--etcd',
      endpoints,
    ]);
    expect(r.notes).toContain('external etcd');
  });

  test('on TLS with a password: every service mounts the Secret and reads the user from the other', () => {
    const r = renderChart({ values: ['external-etcd-tls.yaml'] });
    for (const [kind, name] of [
      ['StatefulSet', 'tide-broker'],
      ['Deployment', 'tide-controller'],
      ['Deployment', 'tide-coordinator'],
    ] as const) {
      const workload = find(r, kind, name);
      const c = container(workload);
      expect(envMap(c.env)).toMatchObject({
        TIDE_ETCD_CA_FILE: '/etc/tide/etcd-tls/ca.crt',
        TIDE_ETCD_CERT_FILE: '/etc/tide/etcd-tls/tls.crt',
        TIDE_ETCD_KEY_FILE: '/etc/tide/etcd-tls/tls.key',
      });
      const fromSecret = (env: string) => c.env.find((e: EnvVar) => e.name === env)?.valueFrom;
      expect(fromSecret('TIDE_ETCD_USERNAME')).toEqual({
        secretKeyRef: { name: 'etcd-client-auth', key: 'user' },
      });
      expect(fromSecret('TIDE_ETCD_PASSWORD')).toEqual({
        secretKeyRef: { name: 'etcd-client-auth', key: 'password' },
      });
      expect(c.volumeMounts).toContainEqual({
        name: 'etcd-tls',
        mountPath: '/etc/tide/etcd-tls',
        readOnly: true,
      });
      expect(workload.spec.template.spec.volumes).toContainEqual({
        name: 'etcd-tls',
        secret: { secretName: 'etcd-client-tls', defaultMode: 0o440 },
      });
    }
    // Only the CA when etcd takes no client certificates.
    const caOnly = renderChart({
      values: ['external-etcd-tls.yaml', { etcd: { external: { tls: { certKey: '' } } } }],
    });
    const env = envMap(container(find(caOnly, 'Deployment', 'tide-controller')).env);
    expect(env.TIDE_ETCD_CA_FILE).toBe('/etc/tide/etcd-tls/ca.crt');
    expect('TIDE_ETCD_CERT_FILE' in env).toBe(false);
  });

  test('etcd TLS or auth without external endpoints, or TLS to http:// endpoints, fails saying why', () => {
    expect(() => renderChart({ values: [{ etcd: { external: { tls: { existingSecret: 's' } } } }] })).toThrow(
      /etcd.external.tls and etcd.external.auth are for an external etcd: set etcd.external.endpoints too/,
    );
    expect(() =>
      renderChart({
        values: ['external-etcd.yaml', { etcd: { external: { tls: { existingSecret: 's' } } } }],
      }),
    ).toThrow(/etcd.external.tls.existingSecret needs https:\/\/ endpoints, got http:\/\/etcd-a.db.svc:2379/);
  });
});

describe('five brokers', () => {
  let r: Rendered;
  beforeAll(() => {
    r = renderChart({ values: ['five-brokers.yaml'] });
  });

  test('replica counts, claim size and class, tuned config as env without exponent notation', () => {
    const sts = find(r, 'StatefulSet', 'tide-broker');
    expect(sts.spec.replicas).toBe(5);
    expect(find(r, 'Deployment', 'tide-controller').spec.replicas).toBe(3);
    expect(sts.spec.volumeClaimTemplates[0].spec).toEqual({
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'fast-ssd',
      resources: { requests: { storage: '500Gi' } },
    });
    const env = envMap(container(sts).env);
    expect(env).toMatchObject({
      TIDE_LEASE_TTL_MS: '15000',
      TIDE_MAX_REQUEST_BYTES: '33554432',
      TIDE_REPLICA_LAG_TIME_MAX_MS: '20000',
      TIDE_DEFAULT_REPLICATION_FACTOR: '3',
    });
    expect(envMap(container(find(r, 'Deployment', 'tide-controller')).env).TIDE_LEASE_TTL_MS).toBe('5000');
    expect(container(sts).resources).toEqual({
      requests: { cpu: '2', memory: '4Gi' },
      limits: { memory: '8Gi' },
    });
  });
});

describe('metrics and network policies', () => {
  let r: Rendered;
  beforeAll(() => {
    r = renderChart({ values: ['metrics-networkpolicy.yaml'] });
  });

  test('metrics port on every Tide container and headless Service, and the ServiceMonitor scrapes them', () => {
    const tide = workloads(r).filter((w) => podLabels(w)['app.kubernetes.io/component'] !== 'etcd');
    expect(tide).toHaveLength(3);
    for (const w of tide) {
      const c = container(w);
      expect(c.ports).toContainEqual({ name: 'metrics', containerPort: 9464, protocol: 'TCP' });
      expect(envMap(c.env).TIDE_METRICS_PORT).toBe('9464');
    }
    const sm = find(r, 'ServiceMonitor', 'tide');
    expect(sm.metadata.labels.release).toBe('kube-prometheus-stack');
    expect(sm.spec.endpoints).toEqual([{ port: 'metrics', path: '/metrics', interval: '15s' }]);
    const scraped = r.objects.filter(
      (o) =>
        o.kind === 'Service' &&
        matches(sm.spec.selector.matchLabels, o.metadata.labels) &&
        sm.spec.selector.matchExpressions[0].values.includes(
          o.metadata.labels['app.kubernetes.io/component'],
        ) &&
        o.spec.ports.some((p: { name: string }) => p.name === 'metrics'),
    );
    expect(scraped.map((s) => s.metadata.name).sort()).toEqual([
      'tide-broker-headless',
      'tide-controller-headless',
      'tide-coordinator-headless',
    ]);
  });

  test('network policies: release pods reach each other, labelled clients reach brokers, monitoring scrapes', () => {
    const policies = r.objects.filter((o) => o.kind === 'NetworkPolicy');
    expect(policies.map((p) => p.metadata.name).sort()).toEqual([
      'tide-broker',
      'tide-controller',
      'tide-coordinator',
      'tide-etcd',
    ]);
    for (const p of policies) {
      const selected = workloads(r).filter((w) => matches(p.spec.podSelector.matchLabels, podLabels(w)));
      expect(selected).toHaveLength(1);
      expect(p.spec.ingress[0].from).toEqual([
        {
          podSelector: {
            matchLabels: { 'app.kubernetes.io/name': 'tide', 'app.kubernetes.io/instance': 'tide' },
          },
        },
      ]);
    }
    const broker = find(r, 'NetworkPolicy', 'tide-broker');
    expect(broker.spec.ingress[1]).toEqual({
      ports: [{ port: 'grpc', protocol: 'TCP' }],
      from: [{ podSelector: { matchLabels: { 'tide-client': 'true' } } }],
    });
    expect(broker.spec.ingress[2]).toEqual({
      ports: [{ port: 'metrics', protocol: 'TCP' }],
      from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
    });
    // Controllers are reached only by Tide's own pods (and metrics).
    expect(find(r, 'NetworkPolicy', 'tide-controller').spec.ingress).toHaveLength(2);
  });

  test('allowExternal opens the client port to everyone', () => {
    const open = renderChart({
      values: ['metrics-networkpolicy.yaml', { networkPolicy: { allowExternal: true } }],
    });
    expect(find(open, 'NetworkPolicy', 'tide-broker').spec.ingress[1]).toEqual({
      ports: [{ port: 'grpc', protocol: 'TCP' }],
    });
  });
});

describe('values', () => {
  test('every broker, controller and coordinator config key maps to the TIDE_* name the service reads', () => {
    const configOf = (schema: ConfigSchema, exclude: string[]) =>
      Object.fromEntries(
        Object.entries(schema)
          .filter(([k]) => !exclude.includes(k))
          .map(([k, spec]) => [k, spec.default]),
      );
    const broker = configOf(BROKER_CONFIG_SCHEMA, [
      ...CHART_SET,
      'brokerId',
      'advertisedPort',
      'dataDir',
      'defaultReplicationFactor',
    ]);
    const controller = configOf(CONTROLLER_CONFIG_SCHEMA, [
      ...CHART_SET,
      'controllerId',
      'defaultReplicationFactor',
    ]);
    const r = renderChart({ values: [{ broker: { config: broker }, controller: { config: controller } }] });
    const brokerEnv = envMap(container(find(r, 'StatefulSet', 'tide-broker')).env);
    for (const [key, value] of Object.entries(broker)) expect(brokerEnv[envNameOf(key)]).toBe(String(value));
    const controllerEnv = envMap(container(find(r, 'Deployment', 'tide-controller')).env);
    for (const [key, value] of Object.entries(controller))
      expect(controllerEnv[envNameOf(key)]).toBe(String(value));
    const coordinatorConfig = coordinatorSchema();
    if (coordinatorConfig) {
      const coordinator = configOf(coordinatorConfig, [
        ...CHART_SET,
        'metricsPort',
        'coordinatorId',
        'bootstrap',
      ]);
      const rc = renderChart({ values: [{ coordinator: { config: coordinator } }] });
      const env = envMap(container(find(rc, 'Deployment', 'tide-coordinator')).env);
      for (const [key, value] of Object.entries(coordinator)) expect(env[envNameOf(key)]).toBe(String(value));
    }
  });

  test('the replication factor is capped at the broker count', () => {
    const r = renderChart({ values: [{ broker: { replicas: 1 } }] });
    expect(envMap(container(find(r, 'StatefulSet', 'tide-broker')).env).TIDE_DEFAULT_REPLICATION_FACTOR).toBe(
      '1',
    );
    expect(
      envMap(container(find(r, 'Deployment', 'tide-controller')).env).TIDE_DEFAULT_REPLICATION_FACTOR,
    ).toBe('1');
  });

  test('persistence off gives emptyDir volumes; storageClass "-" asks for no class', () => {
    const r = renderChart({
      values: [{ broker: { persistence: { enabled: false } }, etcd: { persistence: { storageClass: '-' } } }],
    });
    const broker = find(r, 'StatefulSet', 'tide-broker');
    expect(broker.spec.volumeClaimTemplates).toBeUndefined();
    expect(broker.spec.template.spec.volumes).toContainEqual({ name: 'data', emptyDir: {} });
    expect(find(r, 'StatefulSet', 'tide-etcd').spec.volumeClaimTemplates[0].spec.storageClassName).toBe('');
  });

  test('the coordinator can be left out', () => {
    const r = renderChart({
      values: [{ coordinator: { enabled: false }, networkPolicy: { enabled: true } }],
    });
    expect(r.objects.filter((o) => o.metadata.name.includes('coordinator'))).toEqual([]);
    expect(r.notes).not.toContain('group coordinator(s)');
  });

  test('the schema rejects unknown keys, bad types, and config keys the chart sets', () => {
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ brokers: { replicas: 3 } }, /Additional property brokers is not allowed/],
      [{ broker: { replicas: 'three' } }, /broker\.replicas: Invalid type/],
      [{ broker: { replicas: 0 } }, /broker\.replicas/],
      [{ logLevel: 'verbose' }, /logLevel/],
      [{ broker: { config: { brokerId: 4 } } }, /broker\.config/],
      [{ broker: { config: { 'segment.bytes': 1 } } }, /broker\.config/],
      [{ controller: { config: { etcdEndpoints: 'http://x:2379' } } }, /controller\.config/],
      [{ coordinator: { config: { coordinatorId: 'c1' } } }, /coordinator\.config/],
      [{ coordinator: { config: { bootstrap: 'b:9092' } } }, /coordinator\.config/],
      [{ etcd: { external: { endpoints: ['etcd:2379'] } } }, /etcd\.external\.endpoints/],
      [{ metrics: { serviceMonitor: { interval: 'often' } } }, /interval/],
    ];
    for (const [values, message] of bad) {
      expect(() => renderValues({ values: [values] })).toThrow(message);
    }
  });

  test('a ServiceMonitor without metrics fails with a message that says what to do', () => {
    expect(() => renderChart({ values: [{ metrics: { serviceMonitor: { enabled: true } } }] })).toThrow(
      /metrics.serviceMonitor.enabled needs metrics.enabled=true/,
    );
  });

  test('a null in a values file removes a default, as in Helm', () => {
    const values = renderValues({
      values: [{ broker: { podAnnotations: { a: 'b' } } }, { broker: { nodeSelector: null } }],
    });
    const broker = values.broker as Record<string, unknown>;
    expect(broker.podAnnotations).toEqual({ a: 'b' });
    expect('nodeSelector' in broker).toBe(false);
    expect(broker.replicas).toBe(3);
  });
});

describe('chart README', () => {
  /** Leaf paths of values.yaml: maps that hold free-form content count as one value. */
  function leaves(value: unknown, prefix = ''): string[] {
    const opaque = new Set([
      'config',
      'resources',
      'podSecurityContext',
      'containerSecurityContext',
      'podAnnotations',
      'nodeSelector',
      'affinity',
      'annotations',
      'labels',
    ]);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return [prefix];
    return Object.entries(value).flatMap(([k, v]) => {
      const p = prefix ? `${prefix}.${k}` : k;
      return opaque.has(k) ? [p] : leaves(v, p);
    });
  }

  test('lists every value with its default', () => {
    const readme = fs.readFileSync(path.join(CHART_DIR, 'README.md'), 'utf8');
    const rows = new Map<string, string>();
    for (const m of readme.matchAll(/^\| `([^`]+)` \| `([^`]*)` \|/gm)) rows.set(m[1], m[2]);
    const defaults = renderValues();
    const documented = leaves(defaults);
    expect(documented.length).toBeGreaterThan(50);
    for (const key of documented) {
      const value = key.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], defaults);
      expect({ key, default: rows.get(key) }).toEqual({ key, default: JSON.stringify(value) });
    }
    expect([...rows.keys()].filter((k) => !documented.includes(k))).toEqual([]);
  });
});

test('the production example throttles replica moves on every broker and balances', () => {
  const r = renderChart({ values: VALUE_SETS['the production example'] });
  const env = (kind: string, component: string) =>
    envMap(
      container(
        r.objects.find(
          (o) => o.kind === kind && o.metadata.labels?.['app.kubernetes.io/component'] === component,
        )!,
      ).env as EnvVar[],
    );
  expect(env('StatefulSet', 'broker').TIDE_REASSIGNMENT_THROTTLE_BYTES_PER_SECOND).toBe('52428800');
  expect(env('Deployment', 'controller').TIDE_BALANCER_ENABLED).toBe('true');
});
