/**
 * The client's calls to the transaction coordinator: routed like group calls
 * (group/coordinator-client.ts) — a transactional id hashes to the same shards as a group id, so
 * FindCoordinator with it names the owner — straight to the coordinator, or through the control
 * broker's relay. Retries on retriable errors (the coordinator moving or loading, a previous
 * transaction still completing), finding the coordinator again after NOT_COORDINATOR.
 *
 * EndTxn, once per transaction, goes on one long-lived EndTxnStream per coordinator the client
 * reaches directly (a unary call is a new HTTP/2 stream on both ends); through a broker's relay,
 * and with a coordinator that lacks the stream, it is the unary EndTxn.
 */
import * as grpc from '@grpc/grpc-js';
import { TideError } from '../../services/common/errors';
import { transactionsProto } from '../../services/common/grpc/transactions-proto';
import { StreamCallsClient } from '../../services/common/grpc/stream-calls';
import type { TransactionCoordinatorClient } from '../../services/common/grpc/generated/tide/v1/TransactionCoordinator';
import type { EndTxnRequest__Input } from '../../services/common/grpc/generated/tide/v1/EndTxnRequest';
import type { EndTxnResponse } from '../../services/common/grpc/generated/tide/v1/EndTxnResponse';
import type { Invoke } from '../net/broker-calls';
import {
  COORDINATOR_ERRORS,
  DEFAULT_COORDINATOR_RETRY,
  type CoordinatorClient,
} from '../group/coordinator-client';
import { retry, type RetryOptions } from '../retry';

export class TxnCalls {
  private readonly clients = new Map<string, TransactionCoordinatorClient>();
  private readonly endStreams = new Map<string, StreamCallsClient<EndTxnRequest__Input, EndTxnResponse>>();

  constructor(
    private readonly coordinators: CoordinatorClient,
    private readonly retryOptions: Partial<RetryOptions> = DEFAULT_COORDINATOR_RETRY,
  ) {}

  /** A unary call to the coordinator of `routeKey` (the transactional id, or the group for offsets). */
  call<T>(routeKey: string, invoke: Invoke<TransactionCoordinatorClient, T>): Promise<T> {
    const calls = this.coordinators.cluster.calls;
    return this.routed(routeKey, (address) => calls.call(this.client(address, false), invoke), invoke);
  }

  /** EndTxn for `request.transactional_id`: on the coordinator's EndTxnStream, retried like `call`. */
  endTxn(request: EndTxnRequest__Input & { transactional_id: string }): Promise<EndTxnResponse> {
    const timeoutMs = this.coordinators.cluster.calls.requestTimeoutMs;
    return this.routed(
      request.transactional_id,
      (address) => this.endStream(address).call(request, timeoutMs),
      (c, o, cb) => c.EndTxn(request, o, cb),
    );
  }

  /**
   * `direct` at the coordinator of `routeKey`, or `viaBroker` through the control broker's relay;
   * retried, forgetting the coordinator after NOT_COORDINATOR and its kin.
   */
  private routed<T>(
    routeKey: string,
    direct: (address: string) => Promise<T>,
    viaBroker: Invoke<TransactionCoordinatorClient, T>,
  ): Promise<T> {
    const cluster = this.coordinators.cluster;
    return retry(
      async () => {
        try {
          const target = await this.coordinators.target(routeKey);
          if (!target.relayed) return await direct(target.address);
          return await cluster.withControlBroker((address) =>
            cluster.calls.call(this.client(address, true), viaBroker),
          );
        } catch (err) {
          if (COORDINATOR_ERRORS.has((err as TideError).code)) this.coordinators.forget(routeKey);
          throw err;
        }
      },
      this.retryOptions,
      { clock: cluster.clock },
    );
  }

  /** Ends the EndTxn streams (calls in flight fail). */
  close(): void {
    for (const stream of this.endStreams.values()) stream.close();
    this.endStreams.clear();
  }

  private endStream(address: string): StreamCallsClient<EndTxnRequest__Input, EndTxnResponse> {
    let stream = this.endStreams.get(address);
    if (!stream) {
      const cluster = this.coordinators.cluster;
      const client = this.client(address, false);
      stream = new StreamCallsClient<EndTxnRequest__Input, EndTxnResponse>({
        open: () => client.EndTxnStream(),
        unary: (request, timeoutMs) =>
          cluster.calls.call<TransactionCoordinatorClient, EndTxnResponse>(
            client,
            (c, o, cb) => c.EndTxn(request, o, cb),
            timeoutMs,
          ),
        clock: cluster.clock,
        describe: `EndTxn at coordinator ${address}`,
      });
      this.endStreams.set(address, stream);
    }
    return stream;
  }

  /** A client on the channel the group calls use (a coordinator's, or the broker pool's). */
  private client(address: string, broker: boolean): TransactionCoordinatorClient {
    const key = `${broker ? 'broker' : 'coordinator'}:${address}`;
    let client = this.clients.get(key);
    if (!client) {
      const channel = broker
        ? this.coordinators.brokerClient(address).getChannel()
        : this.coordinators.client(address).getChannel();
      const Client = transactionsProto().TransactionCoordinator;
      // Shares the channel: never closed here (the coordinator client or the pool closes it).
      client = new Client(address, grpc.credentials.createInsecure(), { channelOverride: channel });
      this.clients.set(key, client);
    }
    return client;
  }
}
