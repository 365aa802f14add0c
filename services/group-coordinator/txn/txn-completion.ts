/**
 * Ending a transaction everywhere it wrote: a COMMIT or ABORT marker on every partition
 * (TxnMarkers.WriteTxnMarkers at each partition's leader, carrying the bumped epoch and this
 * coordinator's shard epoch), the groups' partitions of `__consumer_offsets` included, then, once
 * every marker is written, each consumer group's coordinator is told to apply the marker to its
 * pending offsets (TxnOffsets.CompleteTxnOffsets). Resolves once all of it is done.
 *
 * Retries until done or cancelled (the shard was lost: its next owner resumes the Prepare state):
 * a retriable error (no leader, leader moved, not enough replicas, a broker or coordinator down or
 * moving) waits with backoff and looks the leader or coordinator up again. A partition whose topic
 * no longer exists is dropped (its data is gone). PRODUCER_FENCED from a leader means it already
 * holds a newer epoch of the producer (a later transaction or InitTransactions wrote there), so
 * this transaction is closed there: it counts as done.
 */
import * as grpc from '@grpc/grpc-js';
import { TideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { fromGrpcError, fromWireError } from '../../common/grpc/status';
import { ClientCache } from '../../common/grpc/client-cache';
import { INTERNAL_TOKEN_HEADER } from '../../common/grpc/routing-headers';
import { txnInternalProto } from '../../common/grpc/transactions-proto';
import type { TxnMarkersClient } from '../../common/grpc/generated/tide/v1/internal/TxnMarkers';
import type { TxnOffsetsClient } from '../../common/grpc/generated/tide/v1/internal/TxnOffsets';
import type { WriteTxnMarkersResponse } from '../../common/grpc/generated/tide/v1/internal/WriteTxnMarkersResponse';
import type { WriteTxnMarkersRequest__Input } from '../../common/grpc/generated/tide/v1/internal/WriteTxnMarkersRequest';
import { StreamCallsClient } from '../../common/grpc/stream-calls';
import { systemClock, type Clock } from '../../common/clock';
import type { CoordinatorRecord } from '../../common/cluster/coordinator-shards';
import { Cluster, ROUTING_ERRORS } from '../../../client/cluster';
import { parseTpKey } from '../partitions';

export interface TxnEnding {
  transactionalId: string;
  producerId: number;
  /** The bumped epoch (the Prepare state's). */
  producerEpoch: number;
  coordinatorEpoch: number;
  commit: boolean;
  partitions: readonly string[];
  groups: readonly string[];
}

export interface TxnCompletion {
  /** Writes every marker and group outcome; rejects only when `cancelled()` turns true. */
  complete(ending: TxnEnding, cancelled: () => boolean): Promise<void>;
}

/** One attempt at a set of partitions: the ones still to do, and the first error seen. */
export interface MarkerWriter {
  write(ending: TxnEnding, partitions: readonly string[]): Promise<{ left: string[]; error?: TideError }>;
}

export interface GroupOutcomeWriter {
  complete(ending: TxnEnding, group: string): Promise<void>;
}

export const COMPLETION_BACKOFF_MS = 100;
export const COMPLETION_BACKOFF_MAX_MS = 5_000;
/** How long a leader may take to replicate a marker (WriteTxnMarkersRequest.timeout_ms). */
export const MARKER_TIMEOUT_MS = 15_000;

/** Retries `markers` and `groups` until everything is done or `cancelled()`. */
export class RetryingCompletion implements TxnCompletion {
  constructor(
    private readonly markers: MarkerWriter,
    private readonly groups: GroupOutcomeWriter,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async complete(ending: TxnEnding, cancelled: () => boolean): Promise<void> {
    let partitions = [...ending.partitions];
    let groups = [...ending.groups];
    for (let attempt = 0; ; attempt++) {
      if (cancelled())
        throw new TideError(
          'NOT_COORDINATOR',
          `transaction ${ending.transactionalId}: this coordinator lost its shard while writing markers; its new owner completes it`,
        );
      let error: TideError | undefined;
      if (partitions.length > 0) {
        const result = await this.markers
          .write(ending, partitions)
          .catch((err: unknown) => ({ left: partitions, error: fromGrpcError(err) }));
        partitions = result.left;
        error = result.error;
      }
      const left: string[] = [];
      // A group's coordinator applies the outcome of its offsets on being told the marker is in
      // its `__consumer_offsets` partition: tell it only once every marker is written.
      if (partitions.length > 0) left.push(...groups);
      else
        for (const group of groups) {
          try {
            await this.groups.complete(ending, group);
          } catch (err) {
            left.push(group);
            error ??= fromGrpcError(err);
          }
        }
      groups = left;
      if (partitions.length === 0 && groups.length === 0) return;
      const delayMs = Math.min(COMPLETION_BACKOFF_MAX_MS, COMPLETION_BACKOFF_MS * 2 ** Math.min(attempt, 10));
      const log = attempt >= 3 ? this.logger.warn.bind(this.logger) : this.logger.debug.bind(this.logger);
      log(
        {
          err: error,
          transactionalId: ending.transactionalId,
          partitions: partitions.length,
          groups,
          delayMs,
        },
        'transaction markers not all written yet; retrying',
      );
      await new Promise<void>((resolve) => this.clock.setTimeout(resolve, delayMs));
    }
  }
}

/**
 * WriteTxnMarkers to the partitions' leaders, one request per leader, on one long-lived
 * WriteTxnMarkersStream per leader (WriteTxnMarkers with a broker that lacks it).
 */
export class TideMarkerWriter implements MarkerWriter {
  /** Clients on the pool's broker channels: never closed here (that would close the channel). */
  private readonly clients = new Map<string, TxnMarkersClient>();
  private readonly streams = new Map<
    string,
    StreamCallsClient<WriteTxnMarkersRequest__Input, WriteTxnMarkersResponse>
  >();

  constructor(
    private readonly cluster: Cluster,
    private readonly internalToken: string,
    private readonly credentials: grpc.ChannelCredentials,
    private readonly partitionCount: (topic: string) => number | undefined,
    private readonly logger: Logger,
  ) {}

  async write(
    ending: TxnEnding,
    partitions: readonly string[],
  ): Promise<{ left: string[]; error?: TideError }> {
    const byLeader = new Map<string, string[]>();
    const left: string[] = [];
    let error: TideError | undefined;
    for (const key of partitions) {
      const { topic, partition } = parseTpKey(key);
      const count = this.partitionCount(topic);
      if (count === undefined || partition >= count) {
        this.logger.warn(
          { transactionalId: ending.transactionalId, topic, partition },
          'a partition of the transaction no longer exists; no marker for it',
        );
        continue;
      }
      try {
        const leader = await this.cluster.leaderAddress(topic, partition);
        let list = byLeader.get(leader);
        if (!list) byLeader.set(leader, (list = []));
        list.push(key);
      } catch (err) {
        left.push(key);
        error ??= fromGrpcError(err);
      }
    }
    await Promise.all(
      [...byLeader].map(async ([leader, keys]) => {
        try {
          const response = await this.send(leader, ending, keys);
          const failed = new Map<string, TideError>();
          for (const r of response.results) {
            if (!r.error?.code) continue;
            failed.set(`${r.topic}\u0000${r.partition}`, fromWireError(r.error));
          }
          for (const key of keys) {
            const err = failed.get(key);
            if (!err) continue;
            if (err.code === 'PRODUCER_FENCED') {
              this.logger.warn(
                {
                  transactionalId: ending.transactionalId,
                  partition: key.replace('\u0000', '/'),
                  msg: err.message,
                },
                'the leader holds a newer epoch of the producer; the transaction is closed there',
              );
              continue;
            }
            if (ROUTING_ERRORS.has(err.code)) this.cluster.invalidate(parseTpKey(key).topic);
            left.push(key);
            error ??= err;
          }
        } catch (err) {
          const e = fromGrpcError(err);
          for (const key of keys) this.cluster.invalidate(parseTpKey(key).topic);
          left.push(...keys);
          error ??= e;
        }
      }),
    );
    return { left, error };
  }

  private client(address: string): TxnMarkersClient {
    let client = this.clients.get(address);
    if (!client) {
      client = new (txnInternalProto().TxnMarkers)(address, this.credentials, {
        channelOverride: this.cluster.pool.broker(address).getChannel(),
      });
      this.clients.set(address, client);
    }
    return client;
  }

  private metadata(): grpc.Metadata {
    const metadata = new grpc.Metadata();
    metadata.set(INTERNAL_TOKEN_HEADER, this.internalToken);
    return metadata;
  }

  private stream(leader: string) {
    let stream = this.streams.get(leader);
    if (!stream) {
      stream = new StreamCallsClient<WriteTxnMarkersRequest__Input, WriteTxnMarkersResponse>({
        open: () => this.client(leader).WriteTxnMarkersStream(this.metadata()),
        unary: (request, timeoutMs) =>
          new Promise<WriteTxnMarkersResponse>((resolve, reject) =>
            this.client(leader).WriteTxnMarkers(
              request,
              this.metadata(),
              { deadline: new Date(Date.now() + timeoutMs) },
              (err, res) => (err ? reject(err) : resolve(res as WriteTxnMarkersResponse)),
            ),
          ),
        clock: systemClock,
        describe: `WriteTxnMarkers at ${leader}`,
      });
      this.streams.set(leader, stream);
    }
    return stream;
  }

  private send(leader: string, ending: TxnEnding, keys: string[]): Promise<WriteTxnMarkersResponse> {
    return this.stream(leader).call(
      {
        markers: [
          {
            producer_id: ending.producerId,
            producer_epoch: ending.producerEpoch,
            coordinator_epoch: ending.coordinatorEpoch,
            result: ending.commit ? 'TXN_RESULT_COMMIT' : 'TXN_RESULT_ABORT',
            partitions: keys.map((k) => parseTpKey(k)),
          },
        ],
        timeout_ms: MARKER_TIMEOUT_MS,
      },
      MARKER_TIMEOUT_MS + 5_000,
    );
  }
}

/**
 * CompleteTxnOffsets at the group's coordinator: in process when this instance owns the group,
 * else over gRPC to the owner the metadata store names.
 */
export class TideGroupOutcomeWriter implements GroupOutcomeWriter {
  private readonly clients = new ClientCache<TxnOffsetsClient>(
    (address) => new (txnInternalProto().TxnOffsets)(address, this.credentials),
  );

  constructor(
    private readonly local: (group: string, ending: TxnEnding) => Promise<void> | undefined,
    private readonly ownerOf: (group: string) => Promise<CoordinatorRecord>,
    private readonly credentials: grpc.ChannelCredentials,
    private readonly internalToken: string,
  ) {}

  async complete(ending: TxnEnding, group: string): Promise<void> {
    const here = this.local(group, ending);
    if (here) return here;
    const owner = await this.ownerOf(group);
    const metadata = new grpc.Metadata();
    metadata.set(INTERNAL_TOKEN_HEADER, this.internalToken);
    await new Promise<void>((resolve, reject) =>
      this.clients.get(`${owner.host}:${owner.port}`).CompleteTxnOffsets(
        {
          group_id: group,
          producer_id: ending.producerId,
          producer_epoch: ending.producerEpoch,
          commit: ending.commit,
        },
        metadata,
        { deadline: new Date(Date.now() + 30_000) },
        (err) => (err ? reject(fromGrpcError(err)) : resolve()),
      ),
    );
  }

  close(): void {
    this.clients.close();
  }
}
