/**
 * Calls any RPC by its proto-loader definition with a plain grpc-js client and reports how it
 * ended: the first response (streams are then cancelled), an error status with Tide's trailers,
 * or still open after `openMs` (a stream that has nothing to send yet).
 */
import * as grpc from '@grpc/grpc-js';
import type { ProtoMethod } from './proto-methods';

export type CallOutcome =
  | { kind: 'ok'; response: Record<string, unknown> }
  | { kind: 'open' }
  | { kind: 'error'; code: grpc.status; details: string; tideCode?: string };

export function bearer(token: string | undefined): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (token) metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

export function callRpc(
  client: grpc.Client,
  method: ProtoMethod,
  request: object,
  metadata: grpc.Metadata,
  options: { openMs?: number } = {},
): Promise<CallOutcome> {
  const def = method.definition;
  const serialize = def.requestSerialize as (value: object) => Buffer;
  const deserialize = def.responseDeserialize as (bytes: Buffer) => Record<string, unknown>;
  const deadline = Date.now() + 15_000;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: CallOutcome, call?: { cancel(): void }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
      if (call && outcome.kind !== 'error') call.cancel();
    };
    const onError = (err: grpc.ServiceError) =>
      finish({
        kind: 'error',
        code: err.code,
        details: err.details,
        tideCode: err.metadata?.get('tide-error-code')[0] as string | undefined,
      });
    let call: { cancel(): void } | undefined;
    const timer = setTimeout(() => finish({ kind: 'open' }, call), options.openMs ?? 3_000);
    if (!method.requestStream && !method.responseStream) {
      call = client.makeUnaryRequest(
        method.path,
        serialize,
        deserialize,
        request,
        metadata,
        { deadline },
        (err, res) => (err ? onError(err) : finish({ kind: 'ok', response: res! })),
      );
      return;
    }
    if (!method.requestStream) {
      const stream = client.makeServerStreamRequest(method.path, serialize, deserialize, request, metadata, {
        deadline,
      });
      call = stream;
      stream.on('data', (res: Record<string, unknown>) => finish({ kind: 'ok', response: res }, stream));
      stream.on('error', onError);
      stream.on('end', () => finish({ kind: 'open' }));
      return;
    }
    if (!method.responseStream) {
      const stream = client.makeClientStreamRequest(
        method.path,
        serialize,
        deserialize,
        metadata,
        { deadline },
        (err, res) => (err ? onError(err) : finish({ kind: 'ok', response: res! })),
      );
      call = stream;
      stream.write(request);
      return;
    }
    const stream = client.makeBidiStreamRequest(method.path, serialize, deserialize, metadata, { deadline });
    call = stream;
    stream.on('data', (res: Record<string, unknown>) => finish({ kind: 'ok', response: res }, stream));
    stream.on('error', onError);
    stream.on('end', () => finish({ kind: 'open' }));
    stream.write(request);
  });
}
