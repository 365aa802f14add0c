/**
 * gRPC clients of other instances' query servers (StreamsQuery), one channel per endpoint, calls
 * with local_only (the callee answers from its own tasks, never forwards again). A failure to reach
 * an instance, or its STORE_NOT_AVAILABLE, comes back as a retriable StreamsError NOT_AVAILABLE;
 * other errors as they are.
 */
import * as grpc from '@grpc/grpc-js';
import { channelOptions } from '../../../services/common/grpc/server';
import type { Logger } from '../../../services/common/logger';
import { channelCredentialsOf, type Credentials } from '../../../services/common/security/transport';
import { bearerCallCredentials } from '../../../services/common/security/bearer-token';
import { fromGrpcError } from '../../../services/common/grpc/status';
import { streamsProto } from '../../../services/common/grpc/streams-proto';
import type { StreamsQueryClient } from '../../../services/common/grpc/generated/tide/v1/StreamsQuery';
import type { StoreGetResponse } from '../../../services/common/grpc/generated/tide/v1/StoreGetResponse';
import type { StoreAllResponse } from '../../../services/common/grpc/generated/tide/v1/StoreAllResponse';
import type { WindowFetchResponse } from '../../../services/common/grpc/generated/tide/v1/WindowFetchResponse';
import { StreamsError } from '../../errors';
import { queryClientTlsSettings, type QueryTlsOptions } from './query-tls';
import type { EntryBytes, GetResult, WindowBytes } from './router';

const CALL_TIMEOUT_MS = 10_000;

export class QueryClients {
  private readonly clients = new Map<string, StreamsQueryClient>();
  private readonly credentials: Credentials<grpc.ChannelCredentials>;

  /**
   * `tls`: the query servers' settings (every instance of an application has the same);
   * `tokenFile`: this instance's bearer token toward the others (queryServer.auth).
   */
  constructor(
    private readonly applicationId: string,
    tls: QueryTlsOptions | undefined,
    logger: Logger,
    tokenFile?: string,
  ) {
    const channel = channelCredentialsOf(queryClientTlsSettings(tls), logger);
    // A token is never sent in plain text; the server refuses `auth` without `tls` at its start.
    this.credentials =
      tokenFile && channel.secure
        ? {
            ...channel,
            credentials: grpc.credentials.combineChannelCredentials(
              channel.credentials,
              bearerCallCredentials({ tokenFile }),
            ),
          }
        : channel;
  }

  async get(endpoint: string, store: string, key: Buffer, allowStale = false): Promise<GetResult> {
    const r = await this.call<StoreGetResponse>(endpoint, (c, o, cb) =>
      c.Get(
        { application_id: this.applicationId, store, key, local_only: true, allow_stale: allowStale },
        o,
        cb,
      ),
    );
    return {
      found: r.found,
      value: Buffer.from(r.value),
      timestampMs: Number(r.timestamp_ms),
      servedBy: r.served_by,
    };
  }

  async all(endpoint: string, store: string): Promise<EntryBytes[]> {
    const r = await this.call<StoreAllResponse>(endpoint, (c, o, cb) =>
      c.All({ application_id: this.applicationId, store, local_only: true, limit: 0 }, o, cb),
    );
    return entriesOf(r);
  }

  async range(endpoint: string, store: string, from: Buffer, to: Buffer): Promise<EntryBytes[]> {
    const r = await this.call<StoreAllResponse>(endpoint, (c, o, cb) =>
      c.Range(
        { application_id: this.applicationId, store, from_key: from, to_key: to, local_only: true, limit: 0 },
        o,
        cb,
      ),
    );
    return entriesOf(r);
  }

  async windows(
    endpoint: string,
    store: string,
    key: Buffer,
    fromMs: number,
    toMs: number,
    allowStale = false,
  ): Promise<{ windows: WindowBytes[]; servedBy: string }> {
    const r = await this.call<WindowFetchResponse>(endpoint, (c, o, cb) =>
      c.FetchWindows(
        {
          application_id: this.applicationId,
          store,
          key,
          from_ms: fromMs,
          to_ms: toMs,
          local_only: true,
          allow_stale: allowStale,
        },
        o,
        cb,
      ),
    );
    return {
      windows: r.windows.map((w) => ({
        startMs: Number(w.start_ms),
        endMs: Number(w.end_ms),
        value: Buffer.from(w.value),
        timestampMs: Number(w.timestamp_ms),
      })),
      servedBy: r.served_by,
    };
  }

  close(): void {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
    this.credentials.close();
  }

  private client(endpoint: string): StreamsQueryClient {
    let c = this.clients.get(endpoint);
    if (!c) {
      const Ctor = streamsProto().StreamsQuery;
      c = new Ctor(endpoint, this.credentials.credentials, channelOptions());
      this.clients.set(endpoint, c);
    }
    return c;
  }

  private call<Res>(
    endpoint: string,
    fn: (
      c: StreamsQueryClient,
      options: grpc.CallOptions,
      cb: (err: grpc.ServiceError | null, res?: Res) => void,
    ) => unknown,
  ): Promise<Res> {
    return new Promise<Res>((resolve, reject) => {
      fn(this.client(endpoint), { deadline: Date.now() + CALL_TIMEOUT_MS }, (err, res) => {
        if (!err) return resolve(res!);
        const e = fromGrpcError(err);
        if (e.retriable || e.code === 'STORE_NOT_AVAILABLE') {
          reject(new StreamsError('NOT_AVAILABLE', `instance ${endpoint}: ${e.message}`, { cause: e }));
        } else {
          reject(e);
        }
      });
    });
  }
}

/** All's and Range's answer as bytes. */
function entriesOf(r: StoreAllResponse): EntryBytes[] {
  return r.entries.map((e) => ({
    key: Buffer.from(e.key),
    value: Buffer.from(e.value),
    timestampMs: Number(e.timestamp_ms),
  }));
}
