/**
 * An instance's query server: StreamsQuery (streams.proto) on `queryServer.host:port`, with the
 * standard health service and reflection of streams.proto, so `grpcurl` and clients in any
 * language can query the application through any instance. Plain text unless `tls` is set: then
 * TLS with certificates reloaded from disk when they change (cert-manager rotation), and with
 * `clientAuth: 'require'` only callers whose certificate chains to `caFile` get in (mTLS); the
 * instances call each other with the same files (query-tls.ts). With `auth`, every call but
 * health and reflection is authenticated and checked against the allow list (query-auth.ts).
 */
import type { Logger } from '../../../services/common/logger';
import { serverCredentialsOf, type Credentials } from '../../../services/common/security/transport';
import type * as grpc from '@grpc/grpc-js';
import { startServer, stopServer, type TideServer } from '../../../services/common/grpc/server';
import { streamsPackageDefinition, streamsProto } from '../../../services/common/grpc/streams-proto';
import { unary } from '../../../services/common/grpc/unary';
import type { StreamsQueryHandlers } from '../../../services/common/grpc/generated/tide/v1/StreamsQuery';
import { StreamsError } from '../../errors';
import { queryServerTlsSettings, type QueryTlsOptions } from './query-tls';
import { QueryAccess, type QueryAuthOptions } from './query-auth';
import type { EntryBytes, QueryRouter } from './router';

export interface QueryServerOptions {
  /** Address to bind. Default 127.0.0.1. */
  host?: string;
  /** Port to bind; 0 (the default) picks a free one. */
  port?: number;
  /** The host other instances and clients reach this one at. Default `host`. */
  advertisedHost?: string;
  /** TLS for this server and for this instance's calls to the others (they share the settings). */
  tls?: QueryTlsOptions;
  /** Who may query which stores (needs `tls`); without it every caller TLS lets in may read all. */
  auth?: QueryAuthOptions;
}

export interface InstanceView {
  endpoint: string;
  activeTasks: string[];
  standbyTasks: string[];
}

export class QueryServer {
  private server?: TideServer;
  private credentials?: Credentials<grpc.ServerCredentials>;
  private endpointValue = '';
  private access?: QueryAccess;

  constructor(
    private readonly applicationId: string,
    private readonly router: QueryRouter,
    private readonly instances: () => InstanceView[],
    private readonly logger: Logger,
  ) {}

  /** `host:port` as advertised ('' before start). */
  get endpoint(): string {
    return this.endpointValue;
  }

  async start(options: QueryServerOptions): Promise<string> {
    const host = options.host ?? '127.0.0.1';
    this.access = QueryAccess.of(options.auth, options.tls, this.logger);
    this.credentials = serverCredentialsOf(queryServerTlsSettings(options.tls), this.logger);
    this.server = await startServer({
      host,
      port: options.port ?? 0,
      credentials: this.credentials.credentials,
      register: (server) => server.addService(streamsProto().StreamsQuery.service, this.handlers()),
      reflection: streamsPackageDefinition(),
    });
    this.server.health.setStatus('', 'SERVING');
    this.endpointValue = `${options.advertisedHost ?? host}:${this.server.port}`;
    this.logger.info(
      { endpoint: this.endpointValue, tls: this.credentials.secure, auth: !!this.access },
      'query server listening',
    );
    return this.endpointValue;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await stopServer(server.server, 1_000);
    this.credentials?.close();
    this.credentials = undefined;
  }

  private check(applicationId: string): void {
    if (applicationId && applicationId !== this.applicationId) {
      throw new StreamsError(
        'STORE',
        `this instance runs application ${this.applicationId}, not ${applicationId}`,
      );
    }
  }

  private handlers(): StreamsQueryHandlers {
    const edge = this.logger;
    return {
      Get: unary(edge, 'Get', async (req, _metadata, call) => {
        this.access?.check(call, 'Get', req.store);
        this.check(req.application_id);
        const r = await this.router.get(req.store, Buffer.from(req.key), req.local_only, req.allow_stale);
        return { found: r.found, value: r.value, timestamp_ms: r.timestampMs, served_by: r.servedBy };
      }),
      All: unary(edge, 'All', async (req, _metadata, call) => {
        this.access?.check(call, 'All', req.store);
        this.check(req.application_id);
        const entries = await this.router.all(req.store, req.local_only, req.limit, req.allow_stale);
        return entriesResponse(entries);
      }),
      Range: unary(edge, 'Range', async (req, _metadata, call) => {
        this.access?.check(call, 'Range', req.store);
        this.check(req.application_id);
        const entries = await this.router.range(
          req.store,
          Buffer.from(req.from_key),
          Buffer.from(req.to_key),
          req.local_only,
          req.limit,
          req.allow_stale,
        );
        return entriesResponse(entries);
      }),
      FetchWindows: unary(edge, 'FetchWindows', async (req, _metadata, call) => {
        this.access?.check(call, 'FetchWindows', req.store);
        this.check(req.application_id);
        const r = await this.router.windows(
          req.store,
          Buffer.from(req.key),
          Number(req.from_ms),
          Number(req.to_ms),
          req.local_only,
          req.allow_stale,
        );
        return {
          windows: r.windows.map((w) => ({
            start_ms: w.startMs,
            end_ms: w.endMs,
            value: w.value,
            timestamp_ms: w.timestampMs,
          })),
          served_by: r.servedBy,
        };
      }),
      DescribeInstances: unary(edge, 'DescribeInstances', async (req, _metadata, call) => {
        this.access?.check(call, 'DescribeInstances', undefined);
        this.check(req.application_id);
        return {
          instances: this.instances().map((i) => ({
            endpoint: i.endpoint,
            active_tasks: i.activeTasks,
            standby_tasks: i.standbyTasks,
          })),
        };
      }),
    };
  }
}

/** All's and Range's answer. */
function entriesResponse(entries: EntryBytes[]) {
  return { entries: entries.map((e) => ({ key: e.key, value: e.value, timestamp_ms: e.timestampMs })) };
}
