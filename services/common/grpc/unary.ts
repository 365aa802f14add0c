/**
 * Adapts a promise-returning handler to grpc-js's callback style, mapping errors at the edge and
 * recording each call's latency and result code when metrics are on.
 */
import type * as grpc from '@grpc/grpc-js';
import { TideError, toTideError } from '../errors';
import { toGrpcStatus } from './status';
import type { Logger } from '../logger';

/** Where a handler's outcome is reported: a logger, optionally with an RPC metrics observer. */
export type RpcEdge =
  Logger | { logger: Logger; observeRpc?: (method: string, code: string, seconds: number) => void };

export function edgeOf(edge: RpcEdge): {
  logger: Logger;
  observeRpc?: (method: string, code: string, seconds: number) => void;
} {
  return 'logger' in edge && !('child' in edge) ? edge : { logger: edge as Logger };
}

export function unary<Req, Res>(
  edge: RpcEdge,
  method: string,
  handler: (request: Req, metadata: grpc.Metadata, call: grpc.ServerUnaryCall<Req, Res>) => Promise<Res>,
): grpc.handleUnaryCall<Req, Res> {
  const { logger, observeRpc } = edgeOf(edge);
  return (call, callback) => {
    const started = observeRpc ? process.hrtime.bigint() : 0n;
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    handler(call.request, call.metadata, call).then(
      (response) => {
        observeRpc?.(method, 'OK', seconds());
        callback(null, response);
      },
      (err: unknown) => {
        if (!(err instanceof TideError)) logger.error({ err, method }, 'request failed unexpectedly');
        else logger.debug({ code: err.code, method, msg: err.message }, 'request rejected');
        observeRpc?.(method, toTideError(err).code, seconds());
        callback(toGrpcStatus(err));
      },
    );
  };
}
