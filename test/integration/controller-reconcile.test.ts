/**
 * One real `tide controller` process on a real etcd, with brokers registered from the test under
 * short leases: broker loss moves leadership (epochs bumped), ControlledShutdown and AlterPartition
 * over gRPC through ControllerClient, and the last ISR member's loss takes the partition offline.
 */
import { systemClock } from '../../services/common/clock';
import { silentLogger } from '../../services/common/logger';
import { EtcdMetadataStore } from '../../services/common/metadata/etcd';
import { MetadataKeys, decodePartitionState, type PartitionState } from '../../services/common/metadata/keys';
import { BrokerRegistry, type BrokerRegistration } from '../../services/common/cluster/broker-registry';
import { ControllerClient } from '../../services/common/cluster/controller-client';
import { startEtcd, type EtcdProcess } from '../harness/etcd';
import { startTide, waitFor, type TideProcess } from '../harness/processes';

jest.setTimeout(60_000);

const CLUSTER = 'reconcile';
const BROKER_TTL_MS = 2_000;
const keys = new MetadataKeys(CLUSTER);

let etcd: EtcdProcess;
let store: EtcdMetadataStore;
let controller: TideProcess;
let client: ControllerClient;
const brokers = new Map<number, BrokerRegistration>();

beforeAll(async () => {
  etcd = await startEtcd();
  store = new EtcdMetadataStore({ endpoints: [etcd.endpoint], logger: silentLogger() });
  const registry = new BrokerRegistry({
    store,
    clusterName: CLUSTER,
    clock: systemClock,
    logger: silentLogger(),
    leaseTtlMs: BROKER_TTL_MS,
  });
  for (const id of [1, 2, 3])
    brokers.set(id, await registry.register({ id, host: '127.0.0.1', port: 9000 + id }));
  controller = await startTide(
    ['controller', '--id', '7', '--port', '0', '--etcd', etcd.endpoint, '--cluster-name', CLUSTER],
    { env: { TIDE_LOG_LEVEL: 'info' } },
  );
  client = new ControllerClient({ store, clusterName: CLUSTER, logger: silentLogger(), clock: systemClock });
});

afterAll(async () => {
  await client?.close();
  await controller?.stop('SIGTERM');
  for (const b of brokers.values()) await b.close().catch(() => undefined);
  await store?.close();
  await etcd?.close();
});

async function state(topic: string, partition = 0): Promise<PartitionState> {
  const kv = await store.get(keys.partition(topic, partition));
  return decodePartitionState(kv!.value, kv!.key);
}

it('broker loss, AlterPartition, controlled shutdown and going offline, end to end', async () => {
  await client.createTopic({
    name: 'orders',
    partitions: 1,
    replicationFactor: 3,
    configs: {},
    validateOnly: false,
  });
  expect(client.controllerId()).toBe(7);
  const created = await state('orders');
  expect(created).toMatchObject({ leaderEpoch: 0, partitionEpoch: 0, isr: created.replicas });
  const [first, second, third] = created.replicas;

  // The leader's lease lapses: the next replica in order leads, the dead one leaves the ISR.
  brokers.get(first)!.release();
  brokers.delete(first);
  const afterLoss = await waitFor(
    async () => {
      const s = await state('orders');
      return s.leader === second ? s : undefined;
    },
    { timeoutMs: BROKER_TTL_MS + 5_000, what: 'a new leader after the broker loss' },
  );
  expect(afterLoss).toEqual({
    leader: second,
    leaderEpoch: 1,
    partitionEpoch: 1,
    replicas: created.replicas,
    isr: created.replicas.filter((id) => id !== first),
  });
  // The log line follows the store write; the child's stdout may reach us a moment later.
  await waitFor(() => /new partition leader elected from the ISR/.test(controller.output()), {
    timeoutMs: 5_000,
    what: 'the controller to log the election',
  });

  // The new leader shrinks the ISR; a stale proposal is fenced.
  const shrunk = await client.alterPartition({
    brokerId: second,
    topic: 'orders',
    partition: 0,
    leaderEpoch: 1,
    partitionEpoch: 1,
    newIsr: [second],
  });
  expect(shrunk).toMatchObject({ leader: second, isr: [second], partitionEpoch: 2 });
  await expect(
    client.alterPartition({
      brokerId: second,
      topic: 'orders',
      partition: 0,
      leaderEpoch: 1,
      partitionEpoch: 1,
      newIsr: [second],
    }),
  ).rejects.toMatchObject({ code: 'FENCED_EPOCH' });
  await client.alterPartition({
    brokerId: second,
    topic: 'orders',
    partition: 0,
    leaderEpoch: 1,
    partitionEpoch: 2,
    newIsr: [second, third],
  });

  // Controlled shutdown of the leader: leadership moves to the other in-sync replica.
  expect(await client.controlledShutdown(second)).toEqual({ remaining: [] });
  expect(await state('orders')).toMatchObject({ leader: third, leaderEpoch: 2, isr: [third] });

  // The last ISR member dies: offline, ISR keeps it.
  brokers.get(third)!.release();
  brokers.delete(third);
  const offline = await waitFor(
    async () => {
      const s = await state('orders');
      return s.leader === -1 ? s : undefined;
    },
    { timeoutMs: BROKER_TTL_MS + 5_000, what: 'the partition to go offline' },
  );
  expect(offline).toMatchObject({ leader: -1, leaderEpoch: 3, isr: [third] });
  await waitFor(() => /partition offline/.test(controller.output()), {
    timeoutMs: 5_000,
    what: 'the controller to log the partition offline',
  });
});
