/**
 * The word count as a Kubernetes pod runs it (statefulset.yaml): settings from the environment,
 * the state directory on the pod's volume, static membership by pod name (the client's default
 * when KUBERNETES_SERVICE_HOST is set), Prometheus metrics on :9464, interactive queries on
 * QUERY_PORT advertised under the pod's stable name (with TLS from mounted files when
 * QUERY_TLS_CERT_FILE is set, and who may query what when QUERY_AUTH_ALLOW is set), and a clean close on SIGTERM (commit, checkpoint, a temporary leave)
 * so a rolling restart moves nothing and restores nothing.
 */
import * as http from 'node:http';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { Tide } from '../../../client';
import type { QueryAuthOptions, QueryTlsOptions, StreamsApp, StreamsAppOptions } from '../../../streams';
import { wordCount } from '../word-count';

export async function startPod(env: NodeJS.ProcessEnv): Promise<{ app: StreamsApp; stop(): Promise<void> }> {
  const tide = new Tide({ bootstrap: (env.TIDE_BOOTSTRAP ?? '127.0.0.1:9092').split(',') });
  const b = tide.streams({ applicationId: env.APPLICATION_ID ?? 'word-count' });
  wordCount(b);
  const app = b.app(b.build(), {
    stateDir: env.STATE_DIR ?? '/var/lib/streams',
    // Longer than a pod takes to restart: a restarted pod is back before its tasks would move.
    sessionTimeoutMs: Number(env.SESSION_TIMEOUT_MS ?? 60_000),
    queryServer: queryServerOf(env),
  });
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  app.registerMetrics(registry);
  const metrics = http.createServer((req, res) => {
    if (req.url !== '/metrics') return void res.writeHead(404).end();
    void registry
      .metrics()
      .then((text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text));
  });
  metrics.listen(Number(env.METRICS_PORT ?? 9464));
  await app.start();
  const stop = async (): Promise<void> => {
    await app.close();
    await tide.close();
    metrics.close();
  };
  return { app, stop };
}

/** Queries when QUERY_PORT is set, on every address, advertised as ADVERTISED_HOST (the pod's DNS name). */
export function queryServerOf(env: NodeJS.ProcessEnv): StreamsAppOptions['queryServer'] {
  if (!env.QUERY_PORT) return undefined;
  const tls: QueryTlsOptions | undefined = env.QUERY_TLS_CERT_FILE
    ? {
        certFile: env.QUERY_TLS_CERT_FILE,
        keyFile: env.QUERY_TLS_KEY_FILE ?? '',
        caFile: env.QUERY_TLS_CA_FILE,
        clientAuth: (env.QUERY_TLS_CLIENT_AUTH ?? 'none') as QueryTlsOptions['clientAuth'],
      }
    : undefined;
  return {
    host: '0.0.0.0',
    port: Number(env.QUERY_PORT),
    advertisedHost: env.ADVERTISED_HOST,
    tls,
    auth: queryAuthOf(env),
  };
}

/**
 * Query authentication when QUERY_AUTH_ALLOW is set (`principal=store,store;principal=*`):
 * service-account tokens checked against the cluster's JWKS (QUERY_AUTH_JWKS_FILE, _JWT_ISSUER,
 * _JWT_AUDIENCE), the pod's own projected token (QUERY_AUTH_TOKEN_FILE) for the calls it forwards,
 * and client certificates when QUERY_AUTH_MTLS is `subject` or `san`.
 */
export function queryAuthOf(env: NodeJS.ProcessEnv): QueryAuthOptions | undefined {
  if (!env.QUERY_AUTH_ALLOW) return undefined;
  const allow: Record<string, string[] | '*'> = {};
  for (const entry of env.QUERY_AUTH_ALLOW.split(';')) {
    const at = entry.lastIndexOf('=');
    if (at <= 0)
      throw new Error(`QUERY_AUTH_ALLOW: write principal=store,store or principal=*, not "${entry}"`);
    const stores = entry.slice(at + 1).trim();
    allow[entry.slice(0, at).trim()] = stores === '*' ? '*' : stores.split(',').map((x) => x.trim());
  }
  const mtls = env.QUERY_AUTH_MTLS;
  return {
    allow,
    ...(env.QUERY_AUTH_JWKS_FILE
      ? {
          jwt: {
            jwksFile: env.QUERY_AUTH_JWKS_FILE,
            issuer: env.QUERY_AUTH_JWT_ISSUER ?? '',
            audience: env.QUERY_AUTH_JWT_AUDIENCE ?? '',
          },
        }
      : {}),
    ...(env.QUERY_AUTH_TOKEN_FILE ? { tokenFile: env.QUERY_AUTH_TOKEN_FILE } : {}),
    ...(mtls === 'subject' || mtls === 'san'
      ? { mtls: { source: mtls, rules: env.QUERY_AUTH_MTLS_RULES } }
      : {}),
  };
}

if (require.main === module) {
  startPod(process.env).then(
    ({ stop }) => process.once('SIGTERM', () => void stop().then(() => process.exit(0))),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
