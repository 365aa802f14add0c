import { systemClock, type ManualClock } from '../../../services/common/clock';
import type { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
import type { MetadataStore } from '../../../services/common/metadata/store';
import type { BrokerRegistration } from '../../../services/common/cluster/broker-registry';
import { ControllerNode } from '../../../services/controller/controller-node';
import { ControllerClient } from '../../../services/common/cluster/controller-client';
import { CLUSTER, rejection, setup } from './helpers';
import { ProcessStore, controllerConfig, registerBrokers, settle } from './node-helpers';

const CONTROLLER_TTL = 5_000;

describe('ControllerClient (over gRPC to ControllerNodes)', () => {
  let clock: ManualClock;
  let store: EmbeddedMetadataStore;
  let logger: ReturnType<typeof setup>['logger'];
  let nodes: ControllerNode[];
  let clients: ControllerClient[];
  let brokers: Map<number, BrokerRegistration>;

  async function startNode(id: number, on: MetadataStore = store): Promise<ControllerNode> {
    const node = await ControllerNode.start(
      controllerConfig({ controllerId: id, leaseTtlMs: CONTROLLER_TTL }),
      {
        store: on,
        clock,
        logger,
      },
    );
    nodes.push(node);
    return node;
  }

  function client(on: MetadataStore = store, attempts = 12): ControllerClient {
    // Backoff on real time (short), leases on the manual clock.
    const c = new ControllerClient({
      store: on,
      clusterName: CLUSTER,
      logger,
      clock: systemClock,
      attempts,
      backoffMs: 10,
      backoffMaxMs: 50,
    });
    clients.push(c);
    return c;
  }

  beforeEach(async () => {
    ({ clock, store, logger } = setup());
    nodes = [];
    clients = [];
    brokers = await registerBrokers(store, clock, [1, 2, 3]);
  });

  afterEach(async () => {
    for (const c of clients) await c.close();
    for (const node of nodes) await node.stop();
    for (const registration of brokers.values()) await registration.close();
    await store.close();
  });

  it('finds the active controller and serves the broker TopicAdmin interface through it', async () => {
    const a = await startNode(1);
    await startNode(2);
    const c = client();
    await c.start();
    expect(c.controllerId()).toBe(1);
    expect(c.activeController()).toMatchObject({ controllerId: 1, epoch: a.epoch, address: a.address });

    const created = await c.createTopic({
      name: 'orders',
      partitions: 2,
      replicationFactor: 3,
      configs: { 'retention.ms': '60000' },
      validateOnly: false,
    });
    expect(created).toMatchObject({ name: 'orders', partitions: [{ partition: 0 }, { partition: 1 }] });
    expect(await c.listTopics(false)).toEqual(['orders']);
    const described = await c.describeTopic('orders');
    expect(described.topic.partitions).toHaveLength(2);
    expect(described.configs).toContainEqual({ name: 'retention.ms', value: '60000', is_default: false });
    await c.alterConfigs('orders', { 'retention.ms': '1000' }, [], false);
    expect(await c.describeConfigs('orders')).toContainEqual({
      name: 'retention.ms',
      value: '1000',
      is_default: false,
    });
    expect(await c.describeCluster()).toMatchObject({
      controllerId: 1,
      brokers: [{ id: 1 }, { id: 2 }, { id: 3 }],
    });

    const p0 = described.topic.partitions!.find((p) => p.partition === 0)!;
    const leader = Number(p0.leader);
    const shrunk = await c.alterPartition({
      brokerId: leader,
      topic: 'orders',
      partition: 0,
      leaderEpoch: 0,
      partitionEpoch: 0,
      newIsr: [leader],
    });
    expect(shrunk).toMatchObject({ partition: 0, leader, isr: [leader], partitionEpoch: 1 });

    // Errors arrive typed, and non-retriable ones are not retried.
    const stale = await rejection(
      c.alterPartition({
        brokerId: leader,
        topic: 'orders',
        partition: 0,
        leaderEpoch: 0,
        partitionEpoch: 0,
        newIsr: [leader],
      }),
    );
    expect(stale).toMatchObject({ code: 'FENCED_EPOCH', retriable: true });
    expect(
      (
        await rejection(
          c.createTopic({
            name: 'orders',
            partitions: 1,
            replicationFactor: 1,
            configs: {},
            validateOnly: false,
          }),
        )
      ).code,
    ).toBe('TOPIC_ALREADY_EXISTS');
    expect((await rejection(c.describeTopic('missing'))).code).toBe('UNKNOWN_TOPIC');

    await c.deleteTopic('orders');
    expect(await c.listTopics(false)).toEqual([]);
  });

  it('controlled shutdown through the client answers what the broker still leads', async () => {
    const a = await startNode(1);
    const c = client();
    await c.createTopic({
      name: 'solo',
      partitions: 1,
      replicationFactor: 1,
      configs: {},
      validateOnly: false,
    });
    const leader = (await c.describeTopic('solo')).topic.partitions![0].leader!;
    expect(await c.controlledShutdown(leader)).toEqual({ remaining: [{ topic: 'solo', partition: 0 }] });
    const other = [1, 2, 3].find((id) => id !== leader)!;
    expect(await c.controlledShutdown(other)).toEqual({ remaining: [] });
    expect(a.stats().controlledShutdownMoves).toBe(0);
  });

  it('follows a resignation to the new controller', async () => {
    const a = await startNode(1);
    const b = await startNode(2);
    const c = client();
    expect(await c.listTopics(false)).toEqual([]);
    await a.stop();
    await settle(b);
    expect(b.isActive).toBe(true);
    await c.createTopic({
      name: 'after',
      partitions: 1,
      replicationFactor: 1,
      configs: {},
      validateOnly: false,
    });
    expect(c.controllerId()).toBe(2);
    expect(await c.listTopics(false)).toEqual(['after']);
  });

  it('a zombie controller answers NOT_CONTROLLER (its write fenced); the client retries on the new one', async () => {
    const storeA = new ProcessStore(store);
    const a = await startNode(1, storeA);
    const b = await startNode(2);
    // The client's own view of the key is stale too (its watch events are held back).
    const clientStore = new ProcessStore(store);
    const c = client(clientStore);
    await c.start();
    expect(c.controllerId()).toBe(1);
    storeA.freeze();
    clientStore.freeze();
    clock.advance(CONTROLLER_TTL);
    await settle(b);
    expect(b.isActive).toBe(true);
    expect(a.isActive).toBe(true); // it has not heard yet

    await c.createTopic({
      name: 'fenced-then-retried',
      partitions: 1,
      replicationFactor: 1,
      configs: {},
      validateOnly: false,
    });
    expect(a.isActive).toBe(false);
    expect(a.stats().fencedWrites).toBe(1);
    expect(c.controllerId()).toBe(2);
    expect(await b.admin.listTopics(false)).toEqual(['fenced-then-retried']);
    storeA.thaw();
    clientStore.thaw();
  });

  it('gives up after its attempts when there is no controller', async () => {
    const c = client(store, 3);
    const err = await rejection(c.listTopics(false));
    expect(err.code).toBe('NOT_CONTROLLER');
    expect(err.message).toMatch(/no active controller/);
    expect(c.controllerId()).toBe(-1);
  });
});
