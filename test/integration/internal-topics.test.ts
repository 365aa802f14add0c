/**
 * Internal topics (issue #12): `__consumer_offsets` refuses client produce, delete and
 * DeleteRecords, its name cannot be taken by a client topic, and a copy created with too few
 * replicas is grown by the controller once brokers arrive, while the group coordinator keeps
 * writing it. Real etcd, controller, broker and coordinator processes.
 */
import * as grpc from '@grpc/grpc-js';
import { Tide, TideError } from '../../client';
import { internalProto } from '../../services/common/grpc/proto';
import { encodeBatch } from '../../services/common/records';
import { TestCluster } from '../harness/cluster';
import { waitFor } from '../harness/processes';

jest.setTimeout(240_000);

const OFFSETS = '__consumer_offsets';
let cluster: TestCluster;
let tide: Tide;

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof TideError)) throw new Error(`expected a TideError, got ${String(err)}`);
  return err.code;
}

beforeAll(async () => {
  cluster = await TestCluster.start({ brokers: 1, controllers: 1 });
  // An __consumer_offsets created with one replica, as older versions did when the coordinator
  // started before the other brokers: through the controller's internal RPC, as a coordinator does.
  const controller = new (internalProto().controller.Controller)(
    cluster.controllers.get(0)!.address,
    grpc.credentials.createInsecure(),
  );
  await new Promise<void>((resolve, reject) =>
    controller.CreateInternalTopic(
      {
        name: OFFSETS,
        partitions: 4,
        replication_factor: 1,
        configs: { 'cleanup.policy': 'compact' },
      },
      (err) => (err ? reject(err) : resolve()),
    ),
  );
  controller.close();
  await cluster.startCoordinator('c0', { env: { TIDE_OFFSETS_TOPIC_REPLICATION_FACTOR: '3' } });
  tide = new Tide({ bootstrap: cluster.bootstrap() });
});

afterAll(async () => {
  await tide?.close();
  await cluster?.stop();
});

test('a client cannot produce to __consumer_offsets; the coordinator can', async () => {
  await tide.admin().createTopic('data', { partitions: 1 });
  await tide.groups().commitOffsets('g', [{ topic: 'data', partition: 0, offset: 7 }]);
  const producer = tide.producer();
  try {
    for (let partition = 0; partition < 4; partition++) {
      expect(await codeOf(producer.send(OFFSETS, { key: 'forged', value: 'commit', partition }))).toBe(
        'INTERNAL_TOPIC',
      );
    }
  } finally {
    await producer.close();
  }
  // A raw request with a well-formed batch is refused the same way.
  const meta = await tide.admin().metadata([OFFSETS]);
  const leader = meta.brokers.find((b) => b.id === meta.topics[0].partitions[0].leader)!;
  const { tideProto } = await import('../../services/common/grpc/proto');
  const raw = new (tideProto().Broker)(`${leader.host}:${leader.port}`, grpc.credentials.createInsecure());
  const err = await new Promise<grpc.ServiceError | null>((resolve) =>
    raw.Produce(
      { topic: OFFSETS, partition: 0, record_batches: encodeBatch([{ key: Buffer.from('k'), value: null }]) },
      (e) => resolve(e),
    ),
  );
  raw.close();
  expect(err?.code).toBe(grpc.status.PERMISSION_DENIED);
  expect(err?.metadata.get('tide-error-code')).toEqual(['INTERNAL_TOPIC']);
  const [committed] = await tide.groups().fetchOffsets('g', [{ topic: 'data', partition: 0 }]);
  expect(committed.offset).toBe(7);
});

test('DeleteTopic and DeleteRecords of __consumer_offsets and CreateTopic of its name are refused', async () => {
  expect(await codeOf(tide.admin().deleteTopic(OFFSETS))).toBe('INTERNAL_TOPIC');
  expect(await codeOf(tide.admin().deleteRecords([{ topic: OFFSETS, partition: 0, offset: -1 }]))).toBe(
    'INTERNAL_TOPIC',
  );
  expect(await codeOf(tide.admin().createTopic('__transaction_state', { partitions: 1 }))).toBe(
    'INTERNAL_TOPIC',
  );
  const [committed] = await tide.groups().fetchOffsets('g', [{ topic: 'data', partition: 0 }]);
  expect(committed.offset).toBe(7);
});

test('a copy created with one replica grows to three when brokers arrive', async () => {
  await Promise.all([cluster.startBroker(1), cluster.startBroker(2)]);
  await waitFor(
    async () => {
      const meta = await tide.admin().metadata([OFFSETS]);
      return meta.topics[0].partitions.every((p) => p.replicas.length === 3 && p.isr.length === 3);
    },
    { what: `every partition of ${OFFSETS} with 3 in-sync replicas`, timeoutMs: 90_000 },
  );
  // Commits still work, and survive the loss of the broker that held the only copy.
  await tide.groups().commitOffsets('g', [{ topic: 'data', partition: 0, offset: 8 }]);
  await cluster.broker(0).stop('SIGKILL');
  await waitFor(
    async () => {
      const [committed] = await tide.groups().fetchOffsets('g', [{ topic: 'data', partition: 0 }]);
      return committed.offset === 8;
    },
    { what: 'the commit read back without broker 0', timeoutMs: 60_000 },
  );
});
