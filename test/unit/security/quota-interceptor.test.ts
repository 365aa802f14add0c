/**
 * The quota interceptor on a real in-process gRPC server (the Broker service with stand-in
 * handlers) and a ManualClock: an over-quota produce is answered only after its throttle delay,
 * with the delay in the tide-throttle-ms trailer (likewise fetch responses, partition creation and
 * request rate), and on streams in each response's throttle_time_ms as it happens; a caller
 * within its quota is not held; the stream cap refuses the excess stream with RESOURCE_EXHAUSTED / TOO_MANY_STREAMS.
 */
import * as grpc from '@grpc/grpc-js';
import { ManualClock } from '../../../services/common/clock';
import { tideProto } from '../../../services/common/grpc/proto';
import { startServer, stopServer, type TideServer } from '../../../services/common/grpc/server';
import { QuotaTable } from '../../../services/common/security/quota/quota';
import {
  quotaInterceptor,
  recordBytes,
  THROTTLE_FIELD,
  THROTTLE_TRAILER,
  type QuotaInterceptor,
} from '../../../services/common/security/quota/quota-interceptor';

type Any = Record<string, unknown>;

const clock = new ManualClock(1_000_000);
let quotas: QuotaInterceptor;
let server: TideServer;
let client: grpc.Client;
const openFetches = new Set<grpc.ServerWritableStream<Any, Any>>();

beforeAll(async () => {
  const table = new QuotaTable([
    // Without authentication every caller is ANONYMOUS; client ids tell them apart here.
    { entity: { user: 'ANONYMOUS', clientId: 'slow' }, values: { producer_byte_rate: 1000 } },
    { entity: { user: 'ANONYMOUS', clientId: 'capped' }, values: { max_streams: 2 } },
    { entity: { user: 'ANONYMOUS', clientId: 'one-connection' }, values: { max_connections: 1 } },
    { entity: { clientId: 'reader' }, values: { consumer_byte_rate: 1000 } },
    { entity: { clientId: 'stream-reader' }, values: { consumer_byte_rate: 1000 } },
    { entity: { clientId: 'stream-writer' }, values: { producer_byte_rate: 1000 } },
    { entity: { clientId: 'creator' }, values: { controller_mutation_rate: 5 } },
    { entity: { clientId: 'chatty' }, values: { request_rate: 2 } },
  ]);
  quotas = quotaInterceptor({ quotas: () => table, authenticated: false, clock });
  server = await startServer({
    host: '127.0.0.1',
    port: 0,
    interceptors: [quotas.interceptor],
    register: (s) => {
      s.addService(tideProto().Admin.service, {
        CreateTopic: (call: grpc.ServerUnaryCall<Any, Any>, cb: grpc.sendUnaryData<Any>) =>
          cb(null, { topic: { name: call.request['name'] } }),
      });
      s.addService(tideProto().Broker.service, {
        Produce: (call: grpc.ServerUnaryCall<Any, Any>, cb: grpc.sendUnaryData<Any>) =>
          cb(null, { topic: call.request['topic'], base_offset: 0 }),
        Fetch: (_call: grpc.ServerUnaryCall<Any, Any>, cb: grpc.sendUnaryData<Any>) =>
          cb(null, { topic: 't', record_batches: Buffer.alloc(2000) }),
        FetchStream: (call: grpc.ServerWritableStream<Any, Any>) => {
          openFetches.add(call);
          call.on('cancelled', () => openFetches.delete(call));
        },
        ProduceStream: (call: grpc.ServerDuplexStream<Any, Any>) => {
          call.on('data', (request: Any) => call.write({ correlation_id: request['correlation_id'] }));
          call.on('end', () => call.end());
        },
      });
    },
  });
  client = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client.close();
  quotas.close();
  await stopServer(server.server, 0);
});

const method = (name: string) =>
  (tideProto().Broker.service as unknown as Record<string, grpc.MethodDefinition<Any, Any>>)[name]!;

function produce(clientId: string, bytes: number): Promise<{ trailers: grpc.Metadata; at: number }> {
  const def = method('Produce');
  const c = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure(), {
    'grpc.secondary_user_agent': `tide-client/${clientId}`,
  });
  return new Promise((resolve, reject) => {
    const call = c.makeUnaryRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      { topic: 't', partition: 0, records: [{ value: Buffer.alloc(bytes) }] },
      (err) => {
        if (err) reject(err);
      },
    );
    // The callback comes before the status; the trailers are on the status.
    call.on('status', (s: grpc.StatusObject) => {
      c.close();
      resolve({ trailers: s.metadata, at: clock.nowMs() });
    });
  });
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 20));
}

it('counts the record bytes of a produce request or fetch response', () => {
  expect(recordBytes({ record_batches: Buffer.alloc(100) })).toBe(100);
  expect(
    recordBytes({
      records: [
        { key: Buffer.alloc(3), value: Buffer.alloc(10), headers: [{ key: 'h', value: Buffer.alloc(2) }] },
      ],
    }),
  ).toBe(16);
});

it('answers a produce within the quota at once, without a throttle trailer', async () => {
  const { trailers } = await produce('fast', 5000);
  expect(trailers.get(THROTTLE_TRAILER)).toEqual([]);
});

it('holds an over-quota produce for its throttle delay and reports it in tide-throttle-ms', async () => {
  const first = await produce('slow', 500);
  expect(first.trailers.get(THROTTLE_TRAILER)).toEqual([]);
  let answered = false;
  const second = produce('slow', 2500).then((r) => {
    answered = true;
    return r;
  });
  await settle();
  // 3000 bytes at 1000 B/s take 3 s from the first sample.
  clock.advance(2900);
  await settle();
  expect(answered).toBe(false);
  clock.advance(100);
  const { trailers } = await second;
  expect(trailers.get(THROTTLE_TRAILER)).toEqual(['3000']);
});

it('holds an over-quota fetch response for its throttle delay', async () => {
  const def = method('Fetch');
  const c = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure(), {
    'grpc.secondary_user_agent': 'tide-client/reader',
  });
  let answered = false;
  const status = new Promise<grpc.StatusObject>((resolve) => {
    const call = c.makeUnaryRequest(
      def.path,
      def.requestSerialize,
      def.responseDeserialize,
      { topic: 't', partition: 0, offset: 0 },
      () => (answered = true),
    );
    call.on('status', resolve);
  });
  await settle();
  // 2000 bytes at 1000 B/s: the response leaves after 2 s.
  clock.advance(1990);
  await settle();
  expect(answered).toBe(false);
  clock.advance(10);
  expect((await status).metadata.get(THROTTLE_TRAILER)).toEqual(['2000']);
  c.close();
});

/** A unary call as client `clientId`; resolves with its status once answered. */
function unaryAs(
  clientId: string,
  service: 'Admin' | 'Broker',
  name: string,
  request: Any,
): { status: Promise<grpc.StatusObject>; answered: () => boolean } {
  const def = (tideProto()[service].service as unknown as Record<string, grpc.MethodDefinition<Any, Any>>)[
    name
  ]!;
  const c = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure(), {
    'grpc.secondary_user_agent': `tide-client/${clientId}`,
  });
  let answered = false;
  const status = new Promise<grpc.StatusObject>((resolve) => {
    const call = c.makeUnaryRequest(def.path, def.requestSerialize, def.responseDeserialize, request, () => {
      answered = true;
    });
    call.on('status', (st: grpc.StatusObject) => {
      c.close();
      resolve(st);
    });
  });
  return { status, answered: () => answered };
}

it('slows partition creation over controller_mutation_rate', async () => {
  const first = unaryAs('creator', 'Admin', 'CreateTopic', { name: 'a', partitions: 5 });
  expect((await first.status).metadata.get(THROTTLE_TRAILER)).toEqual([]);
  const second = unaryAs('creator', 'Admin', 'CreateTopic', { name: 'b', partitions: 10 });
  await settle();
  expect(second.answered()).toBe(false);
  // 15 partitions at 5/s take 3 s from the first sample; advancing 3 s certainly covers it.
  clock.advance(3000);
  const throttled = Number((await second.status).metadata.get(THROTTLE_TRAILER)[0]);
  expect(throttled).toBeGreaterThan(1000);
  expect(throttled).toBeLessThanOrEqual(3000);
});

it('slows a caller over request_rate', async () => {
  const request = { topic: 't', partition: 0, records: [] };
  for (let i = 0; i < 2; i++) {
    const call = unaryAs('chatty', 'Broker', 'Produce', request);
    expect((await call.status).metadata.get(THROTTLE_TRAILER)).toEqual([]);
  }
  const third = unaryAs('chatty', 'Broker', 'Produce', request);
  await settle();
  expect(third.answered()).toBe(false);
  clock.advance(1500);
  expect(Number((await third.status).metadata.get(THROTTLE_TRAILER)[0])).toBeGreaterThan(0);
});

it('refuses a stream over the max_streams quota with RESOURCE_EXHAUSTED and TOO_MANY_STREAMS', async () => {
  const def = method('FetchStream');
  const c = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure(), {
    'grpc.secondary_user_agent': 'tide-client/capped',
  });
  const open = () =>
    c.makeServerStreamRequest(def.path, def.requestSerialize, def.responseDeserialize, { positions: [] });
  const kept = [open(), open()];
  for (const s of kept) s.on('error', () => undefined);
  await settle();
  expect(quotas.openStreams('ANONYMOUS')).toBe(2);
  const refused = await new Promise<grpc.ServiceError>((resolve) => open().on('error', resolve));
  expect(refused.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
  expect(refused.metadata.get('tide-error-code')).toEqual(['TOO_MANY_STREAMS']);
  expect(refused.details).toMatch(/max_streams/);
  // Closing one frees its slot.
  kept[0]!.cancel();
  await settle();
  expect(quotas.openStreams('ANONYMOUS')).toBe(1);
  const again = open();
  again.on('error', () => undefined);
  await settle();
  expect(quotas.openStreams('ANONYMOUS')).toBe(2);
  again.cancel();
  kept[1]!.cancel();
  await settle();
  c.close();
});

it('refuses a call on a connection beyond the max_connections quota, and counts a closed connection out', async () => {
  const def = (tideProto().Broker.service as unknown as Record<string, grpc.MethodDefinition<Any, Any>>)
    .ListOffsets!;
  // Separate subchannel pools: two clients, two TCP connections.
  const connect = () =>
    new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure(), {
      'grpc.secondary_user_agent': 'tide-client/one-connection',
      'grpc.use_local_subchannel_pool': 1,
    });
  const call = (c: grpc.Client) =>
    new Promise<grpc.StatusObject>((resolve) => {
      const unary = c.makeUnaryRequest(
        def.path,
        def.requestSerialize,
        def.responseDeserialize,
        { topic: 't', partition: 0 },
        () => undefined,
      );
      unary.on('status', resolve);
    });
  const first = connect();
  expect((await call(first)).code).not.toBe(grpc.status.RESOURCE_EXHAUSTED);
  expect((await call(first)).code).not.toBe(grpc.status.RESOURCE_EXHAUSTED);
  expect(quotas.openConnections('ANONYMOUS')).toBe(1);
  const second = connect();
  const refused = await call(second);
  expect(refused.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
  expect(refused.metadata.get('tide-error-code')).toEqual(['TOO_MANY_CONNECTIONS']);
  expect(refused.details).toMatch(/max_connections/);
  first.close();
  for (let i = 0; i < 50 && quotas.openConnections('ANONYMOUS') > 0; i++) await settle();
  expect(quotas.openConnections('ANONYMOUS')).toBe(0);
  expect((await call(second)).code).not.toBe(grpc.status.RESOURCE_EXHAUSTED);
  second.close();
});

const STEP_MS = 100;

/** Advances the manual clock a step at a time until `done`; returns the time advanced. */
async function advanceUntil(done: () => boolean): Promise<number> {
  let advanced = 0;
  await settle();
  while (!done()) {
    if (advanced > 10_000) throw new Error('never happened');
    clock.advance(STEP_MS);
    advanced += STEP_MS;
    await settle();
  }
  return advanced;
}

it('reports each fetch stream response its own throttle in throttle_time_ms, as it happens', async () => {
  const def = method('FetchStream');
  const c = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure(), {
    'grpc.secondary_user_agent': 'tide-client/stream-reader',
  });
  const before = new Set(openFetches);
  const stream = c.makeServerStreamRequest(def.path, def.requestSerialize, def.responseDeserialize, {
    positions: [],
  });
  stream.on('error', () => undefined);
  const received: Any[] = [];
  stream.on('data', (response: Any) => received.push(response));
  await settle();
  const call = [...openFetches].find((f) => !before.has(f))!;
  // Within the first sample's burst (1 s of quota): sent at once, nothing to report.
  call.write({ topic: 't', record_batches: Buffer.alloc(500) });
  await settle();
  expect(received.map((r) => r[THROTTLE_FIELD])).toEqual([0]);
  // 3000 bytes at 1000 B/s: this one leaves up to 3 s later (the first sample began before the
  // first response), and says how long it was held.
  call.write({ topic: 't', record_batches: Buffer.alloc(2500) });
  const heldMs = await advanceUntil(() => received.length === 2);
  expect(heldMs).toBeGreaterThan(2000);
  expect(received[1]![THROTTLE_FIELD]).toBeGreaterThan(heldMs - STEP_MS);
  expect(received[1]![THROTTLE_FIELD]).toBeLessThanOrEqual(heldMs);
  expect(received[0]![THROTTLE_FIELD]).toBe(0);
  // A response carrying no records is not held; the delay was reported already.
  call.write({ topic: 't', next_offset: 7 });
  await settle();
  expect(received[2]![THROTTLE_FIELD]).toBe(0);
  stream.cancel();
  await settle();
  c.close();
});

it('reports a throttled produce stream request in the throttle_time_ms of the responses that follow', async () => {
  const def = method('ProduceStream');
  const c = new grpc.Client(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure(), {
    'grpc.secondary_user_agent': 'tide-client/stream-writer',
  });
  const stream = c.makeBidiStreamRequest(def.path, def.requestSerialize, def.responseDeserialize);
  stream.on('error', () => undefined);
  const received: Any[] = [];
  stream.on('data', (response: Any) => received.push(response));
  const send = (id: number, bytes: number) =>
    stream.write({ correlation_id: id, topic: 't', partition: 0, record_batches: Buffer.alloc(bytes) });
  send(1, 500);
  await settle();
  expect(received.map((r) => [r['correlation_id'], r[THROTTLE_FIELD]])).toEqual([[1, 0]]);
  send(2, 2500);
  send(3, 0);
  // Request 2 is held, and request 3 behind it (not over the quota itself).
  const heldMs = await advanceUntil(() => received.length === 3);
  expect(heldMs).toBeGreaterThan(2000);
  expect(received.map((r) => r['correlation_id'])).toEqual([1, 2, 3]);
  expect(received[1]![THROTTLE_FIELD]).toBeGreaterThan(heldMs - STEP_MS);
  expect(received[1]![THROTTLE_FIELD]).toBeLessThanOrEqual(heldMs);
  expect(received[2]![THROTTLE_FIELD]).toBe(0);
  stream.end();
  await settle();
  c.close();
});
