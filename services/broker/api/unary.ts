/** Adapts a promise-returning handler to grpc-js's callback style, mapping errors at the edge. */
import type * as grpc from '@grpc/grpc-js';
import { TideError } from '../../common/errors';
import { toGrpcStatus } from '../../common/grpc/status';
import type { Logger } from '../../common/logger';

export function unary<Req, Res>(
  logger: Logger,
  method: string,
  handler: (request: Req, metadata: grpc.Metadata) => Promise<Res>,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    handler(call.request, call.metadata).then(
      (response) => callback(null, response),
      (err: unknown) => {
        if (!(err instanceof TideError)) logger.error({ err, method }, 'request failed unexpectedly');
        else logger.debug({ code: err.code, method, msg: err.message }, 'request rejected');
        callback(toGrpcStatus(err));
      },
    );
  };
}
