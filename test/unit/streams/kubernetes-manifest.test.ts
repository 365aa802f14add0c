/**
 * The streams StatefulSet of docs/streams.md (examples/streams/kubernetes/statefulset.yaml):
 * valid against the Kubernetes API schemas (kubernetes-models), shown verbatim in the docs, and
 * wired as a rolling restart without a rebalance needs — a volume at the state directory, stable
 * pod names for static membership, a session timeout longer than a restart, time to close cleanly.
 * The app's entry point (main.ts) is type-checked by being imported here.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseAllDocuments } from 'yaml';
import { Service } from 'kubernetes-models/v1/Service';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { queryAuthOf, queryServerOf, startPod } from '../../../examples/streams/kubernetes/main';

const ROOT = path.join(__dirname, '..', '..', '..');
const FILE = path.join(ROOT, 'examples', 'streams', 'kubernetes', 'statefulset.yaml');
const text = fs.readFileSync(FILE, 'utf8');
const docs = parseAllDocuments(text).map((d) => d.toJS() as { kind: string; metadata: { name: string } });

it('is valid Kubernetes', () => {
  expect(docs.map((d) => d.kind)).toEqual(['Service', 'StatefulSet']);
  new Service(docs[0] as never).validate();
  new StatefulSet(docs[1] as never).validate();
});

it('keeps state and identity across a rolling restart', () => {
  const sts = new StatefulSet(docs[1] as never);
  const pod = sts.spec!.template.spec!;
  const app = pod.containers[0];
  const env = Object.fromEntries((app.env ?? []).map((e) => [e.name, e.value]));
  const mount = app.volumeMounts!.find((m) => m.name === 'state')!;
  expect(env.STATE_DIR).toBe(mount.mountPath);
  expect(sts.spec!.volumeClaimTemplates!.map((v) => v.metadata!.name)).toEqual(['state']);
  expect(sts.spec!.updateStrategy!.type).toBe('RollingUpdate');
  expect(Number(env.SESSION_TIMEOUT_MS)).toBeGreaterThanOrEqual(30_000);
  expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(30);
  expect(pod.securityContext!.fsGroup).toBe(pod.securityContext!.runAsUser);
  // The headless Service the StatefulSet names gives the pods their stable names.
  expect(docs[0].metadata.name).toBe(sts.spec!.serviceName);
  expect(typeof startPod).toBe('function');
});

it("serves queries at the pod's stable name, with TLS from mounted files when set", () => {
  const sts = new StatefulSet(docs[1] as never);
  const app = sts.spec!.template.spec!.containers[0];
  const env = Object.fromEntries((app.env ?? []).map((e) => [e.name, e.value]));
  expect(env.ADVERTISED_HOST).toBe(`$(POD_NAME).${sts.spec!.serviceName}`);
  expect(app.env!.find((e) => e.name === 'POD_NAME')!.valueFrom!.fieldRef!.fieldPath).toBe('metadata.name');
  const port = Number(env.QUERY_PORT);
  expect(app.ports!.find((p) => p.name === 'query')!.containerPort).toBe(port);
  expect(queryServerOf({ ...env, ADVERTISED_HOST: 'word-count-0.word-count' } as NodeJS.ProcessEnv)).toEqual({
    host: '0.0.0.0',
    port,
    advertisedHost: 'word-count-0.word-count',
    tls: undefined,
  });
  expect(
    queryServerOf({
      QUERY_PORT: '7070',
      QUERY_TLS_CERT_FILE: '/tls/tls.crt',
      QUERY_TLS_KEY_FILE: '/tls/tls.key',
      QUERY_TLS_CA_FILE: '/tls/ca.crt',
      QUERY_TLS_CLIENT_AUTH: 'require',
    })?.tls,
  ).toEqual({
    certFile: '/tls/tls.crt',
    keyFile: '/tls/tls.key',
    caFile: '/tls/ca.crt',
    clientAuth: 'require',
  });
  expect(queryServerOf({})).toBeUndefined();
});

it('maps QUERY_AUTH_* to who may query what', () => {
  expect(queryAuthOf({})).toBeUndefined();
  expect(
    queryAuthOf({
      QUERY_AUTH_ALLOW: 'system:serviceaccount:apps:word-count=*; system:serviceaccount:web:*=counts, views',
      QUERY_AUTH_JWKS_FILE: '/auth/jwks.json',
      QUERY_AUTH_JWT_ISSUER: 'https://kubernetes.default.svc.cluster.local',
      QUERY_AUTH_JWT_AUDIENCE: 'tide-queries',
      QUERY_AUTH_TOKEN_FILE: '/var/run/secrets/tide/token',
    }),
  ).toEqual({
    allow: {
      'system:serviceaccount:apps:word-count': '*',
      'system:serviceaccount:web:*': ['counts', 'views'],
    },
    jwt: {
      jwksFile: '/auth/jwks.json',
      issuer: 'https://kubernetes.default.svc.cluster.local',
      audience: 'tide-queries',
    },
    tokenFile: '/var/run/secrets/tide/token',
  });
  expect(queryAuthOf({ QUERY_AUTH_ALLOW: 'CN=a=*', QUERY_AUTH_MTLS: 'subject' })).toEqual({
    allow: { 'CN=a': '*' },
    mtls: { source: 'subject', rules: undefined },
  });
  expect(() => queryAuthOf({ QUERY_AUTH_ALLOW: 'alice' })).toThrow(
    /write principal=store,store or principal=\*/,
  );
});

it('is the manifest docs/streams.md shows', () => {
  const guide = fs.readFileSync(path.join(ROOT, 'docs', 'streams.md'), 'utf8');
  expect(guide).toContain('```yaml\n' + text + '```');
});
