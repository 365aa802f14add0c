/**
 * Calls on one long-lived stream (services/common/grpc/stream-calls.ts), over a real grpc-js server
 * on a loopback port serving the TxnMarkers service with a scripted handler: answers matched to
 * their calls in any order on one stream, a failed call leaving the stream usable, timeouts on the
 * ManualClock, the in-flight cap, a server ending its streams, and the unary fallback for a server
 * without the stream method.
 */
import * as grpc from '@grpc/grpc-js';
import { ManualClock } from '../../../services/common/clock';
import { TideError } from '../../../services/common/errors';
import { silentLogger } from '../../../services/common/logger';
import { StreamCallsClient, StreamCallsServer } from '../../../services/common/grpc/stream-calls';
import { txnMarkersProto } from '../../../services/common/grpc/txn-markers-proto';
import type { TxnMarkersClient } from '../../../services/common/grpc/generated/tide/v1/internal/TxnMarkers';
import type { WriteTxnMarkersRequest } from '../../../services/common/grpc/generated/tide/v1/internal/WriteTxnMarkersRequest';
import type { WriteTxnMarkersRequest__Input } from '../../../services/common/grpc/generated/tide/v1/internal/WriteTxnMarkersRequest';
import type { WriteTxnMarkersResponse } from '../../../services/common/grpc/generated/tide/v1/internal/WriteTxnMarkersResponse';
import type { WriteTxnMarkersResponse__Input } from '../../../services/common/grpc/generated/tide/v1/internal/WriteTxnMarkersResponse';

const quiet = silentLogger();

/** A request whose producer id names the call; the answer echoes it as a result's producer id. */
const request = (id: number): WriteTxnMarkersRequest__Input => ({
  markers: [
    { producer_id: id, producer_epoch: 0, coordinator_epoch: 0, result: 'TXN_RESULT_COMMIT', partitions: [] },
  ],
});
const answerOf = (id: number): WriteTxnMarkersResponse__Input => ({
  results: [{ producer_id: id, topic: 't', partition: 0 }],
});

interface Harness {
  client: TxnMarkersClient;
  streamsOpened: () => number;
  unaryCalls: () => number;
  streams: StreamCallsServer<WriteTxnMarkersRequest, WriteTxnMarkersResponse__Input>;
  stop: () => void;
}

const harnesses: Harness[] = [];
afterEach(() => {
  for (const h of harnesses.splice(0)) h.stop();
});

async function serve(
  handle: (request: WriteTxnMarkersRequest) => Promise<WriteTxnMarkersResponse__Input>,
  options: {
    withStream?: boolean;
    maxInFlight?: number;
    /** Replaces the stream method's handler. */
    streamHandler?: (call: grpc.ServerDuplexStream<unknown, unknown>) => void;
  } = {},
): Promise<Harness> {
  let streamsOpened = 0;
  let unaryCalls = 0;
  const streams = new StreamCallsServer<WriteTxnMarkersRequest, WriteTxnMarkersResponse__Input>({
    handle: (req) => handle(req),
    method: 'WriteTxnMarkers',
    logger: quiet,
    ...(options.maxInFlight ? { maxInFlight: options.maxInFlight } : {}),
  });
  const server = new grpc.Server();
  const unary: grpc.handleUnaryCall<WriteTxnMarkersRequest, WriteTxnMarkersResponse__Input> = (
    call,
    callback,
  ) => {
    unaryCalls++;
    handle(call.request).then(
      (res) => callback(null, res),
      (err: Error) => callback({ code: grpc.status.INTERNAL, details: err.message }),
    );
  };
  server.addService(txnMarkersProto().TxnMarkers.service, {
    WriteTxnMarkers: unary,
    ...(options.withStream === false
      ? {}
      : {
          WriteTxnMarkersStream: (call: Parameters<typeof streams.handler>[0]) => {
            streamsOpened++;
            if (options.streamHandler)
              options.streamHandler(call as grpc.ServerDuplexStream<unknown, unknown>);
            else streams.handler(call);
          },
        }),
  } as grpc.UntypedServiceImplementation);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  const client = new (txnMarkersProto().TxnMarkers)(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const h: Harness = {
    client,
    streams,
    streamsOpened: () => streamsOpened,
    unaryCalls: () => unaryCalls,
    stop: () => {
      client.close();
      server.forceShutdown();
    },
  };
  harnesses.push(h);
  return h;
}

function callsOn(h: Harness, clock = new ManualClock()) {
  return new StreamCallsClient<WriteTxnMarkersRequest__Input, WriteTxnMarkersResponse>({
    open: () => h.client.WriteTxnMarkersStream(),
    unary: (req, timeoutMs) =>
      new Promise((resolve, reject) =>
        h.client.WriteTxnMarkers(req, { deadline: new Date(Date.now() + timeoutMs) }, (err, res) =>
          err ? reject(err) : resolve(res!),
        ),
      ),
    clock,
    describe: 'WriteTxnMarkers in the test',
  });
}

const idOf = (res: WriteTxnMarkersResponse): number => res.results[0]!.producer_id;

/** Resolves handler calls when the test says, in any order. */
function gate() {
  const waiting = new Map<number, () => void>();
  const arrived: number[] = [];
  let onArrive: (() => void) | undefined;
  return {
    handle: (req: WriteTxnMarkersRequest) =>
      new Promise<WriteTxnMarkersResponse__Input>((resolve) => {
        const id = req.markers[0]!.producer_id;
        arrived.push(id);
        waiting.set(id, () => resolve(answerOf(id)));
        onArrive?.();
      }),
    release: (id: number) => waiting.get(id)!(),
    untilArrived: (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (arrived.length >= n) resolve();
        };
        onArrive = check;
        check();
      }),
  };
}

describe('StreamCallsClient and StreamCallsServer', () => {
  test('many calls share one stream; each gets its own answer, whatever the order', async () => {
    const g = gate();
    const h = await serve(g.handle);
    const calls = callsOn(h);
    const results = [1, 2, 3, 4, 5].map((id) => calls.call(request(id), 10_000));
    await g.untilArrived(5);
    for (const id of [4, 2, 5, 1, 3]) g.release(id);
    expect((await Promise.all(results)).map(idOf)).toEqual([1, 2, 3, 4, 5]);
    expect(h.streamsOpened()).toBe(1);
    expect(h.unaryCalls()).toBe(0);
    calls.close();
  });

  test("a failed call gets the handler's typed error and the stream serves the next call", async () => {
    const h = await serve(async (req) => {
      const id = req.markers[0]!.producer_id;
      if (id === 7) throw new TideError('PRODUCER_FENCED', 'a newer epoch of producer 7 exists');
      return answerOf(id);
    });
    const calls = callsOn(h);
    const failed = await calls.call(request(7), 10_000).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(TideError);
    expect((failed as TideError).code).toBe('PRODUCER_FENCED');
    expect((failed as TideError).message).toContain('producer 7');
    expect(idOf(await calls.call(request(8), 10_000))).toBe(8);
    expect(h.streamsOpened()).toBe(1);
    calls.close();
  });

  test('a call with no answer within its timeout fails REQUEST_TIMED_OUT (retriable); a late answer is dropped', async () => {
    const g = gate();
    const h = await serve(g.handle);
    const clock = new ManualClock();
    const calls = callsOn(h, clock);
    const late = calls.call(request(1), 500);
    await g.untilArrived(1);
    clock.advance(500);
    const err = (await late.catch((e: unknown) => e)) as TideError;
    expect(err.code).toBe('REQUEST_TIMED_OUT');
    expect(err.retriable).toBe(true);
    g.release(1);
    const next = calls.call(request(2), 10_000);
    await g.untilArrived(2);
    g.release(2);
    expect(idOf(await next)).toBe(2);
    calls.close();
  });

  test('a server ending its streams fails the calls in flight retriably and refuses new streams', async () => {
    const g = gate();
    const h = await serve(g.handle);
    const calls = callsOn(h);
    const pending = calls.call(request(1), 10_000);
    await g.untilArrived(1);
    h.streams.closeStreams();
    const err = (await pending.catch((e: unknown) => e)) as TideError;
    expect(err).toBeInstanceOf(TideError);
    expect(err.retriable).toBe(true);
    const again = (await calls.call(request(2), 10_000).catch((e: unknown) => e)) as TideError;
    expect(again.retriable).toBe(true);
    expect(h.streamsOpened()).toBe(2);
    calls.close();
  });

  test('beyond the in-flight cap a call is answered TOO_MANY_STREAMS at once, retriable', async () => {
    const g = gate();
    const h = await serve(g.handle, { maxInFlight: 2 });
    const calls = callsOn(h);
    const first = [calls.call(request(1), 10_000), calls.call(request(2), 10_000)];
    await g.untilArrived(2);
    const over = (await calls.call(request(3), 10_000).catch((e: unknown) => e)) as TideError;
    expect(over.code).toBe('TOO_MANY_STREAMS');
    expect(over.retriable).toBe(true);
    g.release(1);
    g.release(2);
    expect((await Promise.all(first)).map(idOf)).toEqual([1, 2]);
    calls.close();
  });

  test('a server without the stream method: calls in flight and later ones go through the unary call', async () => {
    const h = await serve(async (req) => answerOf(req.markers[0]!.producer_id), { withStream: false });
    const calls = callsOn(h);
    const results = await Promise.all([1, 2, 3].map((id) => calls.call(request(id), 10_000)));
    expect(results.map(idOf)).toEqual([1, 2, 3]);
    expect(idOf(await calls.call(request(4), 10_000))).toBe(4);
    expect(h.unaryCalls()).toBe(4);
    calls.close();
  });

  test('credentials expiring on an answered stream fail its calls retriably; refused at open, not retriable', async () => {
    // The auth interceptor ends a stream UNAUTHENTICATED when its token expires (and refuses one
    // whose token is bad from the start): this server answers one call per stream, then ends it so.
    let opened = 0;
    const h = await serve(async () => answerOf(0), {
      streamHandler: (call) => {
        const first = ++opened === 1;
        let seen = 0;
        call.on('data', (m: { call_id: number }) => {
          if (first && ++seen === 1) call.write({ call_id: m.call_id, response: answerOf(m.call_id) });
          else
            call.emit('error', {
              code: grpc.status.UNAUTHENTICATED,
              details: first ? 'the credential has expired' : 'bad token',
            });
        });
      },
    });
    const calls = callsOn(h);
    expect(idOf(await calls.call(request(1), 10_000))).toBe(1);
    const expired = (await calls.call(request(2), 10_000).catch((e: unknown) => e)) as TideError;
    expect(expired.code).toBe('AUTHENTICATION_FAILED');
    expect(expired.retriable).toBe(true);
    const refused = (await calls.call(request(3), 10_000).catch((e: unknown) => e)) as TideError;
    expect(refused.code).toBe('AUTHENTICATION_FAILED');
    expect(refused.retriable).toBe(false);
    calls.close();
  });

  test('close fails the calls in flight and every later call', async () => {
    const g = gate();
    const h = await serve(g.handle);
    const calls = callsOn(h);
    const pending = calls.call(request(1), 10_000);
    await g.untilArrived(1);
    calls.close();
    expect(((await pending.catch((e: unknown) => e)) as TideError).code).toBe('BROKER_NOT_AVAILABLE');
    expect(((await calls.call(request(2), 10_000).catch((e: unknown) => e)) as TideError).code).toBe(
      'BROKER_NOT_AVAILABLE',
    );
  });
});
