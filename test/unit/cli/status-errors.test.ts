import * as grpc from '@grpc/grpc-js';
import { fromGrpcError, requestTooLarge } from '../../../services/common/grpc/status';

describe('gRPC errors the CLI shows', () => {
  test("the server's size refusal is a non-retriable REQUEST_TOO_LARGE naming the limit and the setting", () => {
    const err = fromGrpcError({
      code: grpc.status.RESOURCE_EXHAUSTED,
      details: 'Received message larger than max (20971614 vs 16777216)',
    });
    expect(err.code).toBe('REQUEST_TOO_LARGE');
    expect(err.retriable).toBe(false);
    expect(err.message).toBe(
      "a request of 20971614 bytes exceeds the limit of 16777216 bytes; send smaller records or batches, or raise the broker's maxRequestBytes setting (TIDE_MAX_REQUEST_BYTES)",
    );
  });

  test("this side's size refusal names the client's option", () => {
    const err = requestTooLarge('Sent message larger than max (70000000 vs 67108864)');
    expect(err.message).toMatch(
      /70000000 bytes exceeds the limit of 67108864 bytes.*client's maxMessageBytes/,
    );
  });

  test('a trailer code is kept as it is', () => {
    const metadata = new grpc.Metadata();
    metadata.set('tide-error-code', 'REQUEST_TOO_LARGE');
    metadata.set('tide-retriable', 'false');
    const err = fromGrpcError({
      code: grpc.status.RESOURCE_EXHAUSTED,
      details: 'REQUEST_TOO_LARGE: too big',
      metadata,
    });
    expect(err).toMatchObject({ code: 'REQUEST_TOO_LARGE', message: 'too big', retriable: false });
  });

  test('an empty "Resolution note" is dropped', () => {
    const err = fromGrpcError({
      code: grpc.status.UNAVAILABLE,
      details:
        'No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:1. Resolution note: ',
    });
    expect(err.code).toBe('BROKER_NOT_AVAILABLE');
    expect(err.message).toBe(
      'No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:1',
    );
  });
});
