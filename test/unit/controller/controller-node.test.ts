import type { ManualClock } from '../../../services/common/clock';
import type { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
import {
  MetadataKeys,
  decodePartitionState,
  type PartitionState,
} from '../../../services/common/metadata/keys';
import type { MetadataStore } from '../../../services/common/metadata/store';
import type { BrokerRegistration } from '../../../services/common/cluster/broker-registry';
import type { ControllerConfig } from '../../../services/controller/config';
import { ControllerNode } from '../../../services/controller/controller-node';
import { CLUSTER, rejection, setup } from './helpers';
import { ProcessStore, controllerConfig, registerBrokers, settle } from './node-helpers';

const keys = new MetadataKeys(CLUSTER);
const BROKER_TTL = 2_000;
const CONTROLLER_TTL = 5_000;

describe('ControllerNode', () => {
  let clock: ManualClock;
  let store: EmbeddedMetadataStore;
  let logger: ReturnType<typeof setup>['logger'];
  let nodes: ControllerNode[];
  let brokers: Map<number, BrokerRegistration>;

  async function startNode(
    id: number,
    overrides: Partial<ControllerConfig> = {},
    on: MetadataStore = store,
  ): Promise<ControllerNode> {
    const node = await ControllerNode.start(
      controllerConfig({ controllerId: id, leaseTtlMs: CONTROLLER_TTL, ...overrides }),
      {
        store: on,
        clock,
        logger,
      },
    );
    nodes.push(node);
    return node;
  }

  async function partition(topic: string, p: number): Promise<PartitionState> {
    const kv = await store.get(keys.partition(topic, p));
    return decodePartitionState(kv!.value, kv!.key);
  }

  /** A broker's lease lapses (crash): release, then one TTL later its key is gone. */
  async function killBroker(id: number, ...watching: ControllerNode[]): Promise<void> {
    brokers.get(id)!.release();
    brokers.delete(id);
    clock.advance(BROKER_TTL);
    await settle(...watching);
  }

  async function restartBroker(id: number, ...watching: ControllerNode[]): Promise<void> {
    const [registration] = (await registerBrokers(store, clock, [id], BROKER_TTL)).values();
    brokers.set(id, registration);
    await settle(...watching);
  }

  /** A topic whose partition 0 has exactly `replicas` (placement is random; this pins it). */
  async function createTopic(
    node: ControllerNode,
    name: string,
    replicas: number[],
    configs: Record<string, string> = {},
    pinned: Partial<PartitionState> = {},
  ): Promise<void> {
    await node.admin.createTopic({
      name,
      partitions: 1,
      replicationFactor: replicas.length,
      configs,
      validateOnly: false,
    });
    const key = keys.partition(name, 0);
    const kv = (await store.get(key))!;
    const state: PartitionState = {
      leader: replicas[0],
      leaderEpoch: 0,
      partitionEpoch: 0,
      replicas,
      isr: [...replicas],
      ...pinned,
    };
    await store.txn(
      [{ key, target: 'modRevision', op: '=', value: kv.modRevision }],
      [{ type: 'put', key, value: JSON.stringify(state) }],
    );
    await settle(node);
  }

  beforeEach(async () => {
    ({ clock, store, logger } = setup());
    nodes = [];
    brokers = await registerBrokers(store, clock, [1, 2, 3], BROKER_TTL);
  });

  afterEach(async () => {
    for (const node of nodes) await node.stop();
    for (const registration of brokers.values()) await registration.close();
    await store.close();
  });

  describe('election and service', () => {
    it('one of two nodes is active; the standby answers NOT_CONTROLLER and writes nothing', async () => {
      const a = await startNode(1);
      const b = await startNode(2);
      expect(a.isActive).toBe(true);
      expect(b.isActive).toBe(false);
      expect(a.epoch).toBe((await store.get(keys.controller))!.createRevision);
      const err = await rejection(
        b.admin.createTopic({
          name: 't',
          partitions: 1,
          replicationFactor: 1,
          configs: {},
          validateOnly: false,
        }),
      );
      expect(err.code).toBe('NOT_CONTROLLER');
      expect(err.message).toMatch(/active controller is 1/);
      expect(
        (
          await rejection(
            b.alterPartition('t', 0, { brokerId: 1, leaderEpoch: 0, partitionEpoch: 0, newIsr: [1] }),
          )
        ).code,
      ).toBe('NOT_CONTROLLER');
      expect((await rejection(b.controlledShutdown(1))).code).toBe('NOT_CONTROLLER');
      expect((await rejection(b.describeCluster())).code).toBe('NOT_CONTROLLER');
      expect(await store.get(keys.topic('t'))).toBeUndefined();
      expect(await a.describeCluster()).toMatchObject({
        controllerId: 1,
        brokers: [{ id: 1 }, { id: 2 }, { id: 3 }],
      });
    });

    it('the standby takes over when the active one is frozen past its lease TTL, and reconciles', async () => {
      const storeA = new ProcessStore(store);
      const a = await startNode(1, {}, storeA);
      const b = await startNode(2);
      await createTopic(a, 'orders', [1, 2, 3]);
      const epochA = a.epoch;

      storeA.freeze();
      // Broker 1 dies while A is frozen: nobody reacts until B is active.
      brokers.get(1)!.release();
      brokers.delete(1);
      clock.advance(CONTROLLER_TTL - 1);
      await settle(b);
      expect(b.isActive).toBe(false);
      clock.advance(1);
      await settle(b);
      expect(b.isActive).toBe(true);
      expect(b.epoch).toBeGreaterThan(epochA);
      // B's first full pass moved the leadership of the dead broker.
      expect(await partition('orders', 0)).toEqual({
        leader: 2,
        leaderEpoch: 1,
        partitionEpoch: 1,
        replicas: [1, 2, 3],
        isr: [2, 3],
      });

      // A wakes up (SIGCONT) believing it is active: its first write is fenced, it steps down.
      const err = await rejection(
        a.admin.createTopic({
          name: 'zombie',
          partitions: 1,
          replicationFactor: 1,
          configs: {},
          validateOnly: false,
        }),
      );
      expect(err.code).toBe('NOT_CONTROLLER');
      expect(a.isActive).toBe(false);
      expect(a.stats().fencedWrites).toBe(1);
      expect(await store.get(keys.topic('zombie'))).toBeUndefined();
      storeA.thaw();
      await settle(a, b);
      expect(a.isActive).toBe(false);
      expect(b.isActive).toBe(true);
    });

    it("a deposed controller's reconciler writes are fenced too (its timer fires before it hears the news)", async () => {
      const storeA = new ProcessStore(store);
      const a = await startNode(1, { leaderImbalanceCheckIntervalMs: 2 * CONTROLLER_TTL }, storeA);
      // Led by 2 although the preferred replica 1 is in sync: A's next imbalance check moves it.
      await createTopic(a, 'orders', [1, 2, 3], {}, { leader: 2 });
      storeA.freeze();
      clock.advance(CONTROLLER_TTL);
      const b = await startNode(2);
      expect(b.isActive).toBe(true);
      await settle(b);
      const before = await partition('orders', 0);
      expect(before.leader).toBe(2);
      // A's timer fires (as on SIGCONT, timers run before queued I/O): A still believes it is active.
      expect(a.isActive).toBe(true);
      clock.advance(CONTROLLER_TTL);
      await settle(a);
      expect(a.isActive).toBe(false);
      expect(a.stats()).toMatchObject({ fencedWrites: 1, preferredLeaderElections: 0 });
      expect(await partition('orders', 0)).toEqual(before);
      storeA.thaw();
      await settle(a, b);
      expect(a.isActive).toBe(false);
      expect(b.isActive).toBe(true);
    });

    it('stop() resigns: the standby takes over without waiting for the lease', async () => {
      const a = await startNode(1);
      const b = await startNode(2);
      await a.stop();
      await settle(b);
      expect(b.isActive).toBe(true);
    });
  });

  describe('reconciler', () => {
    it('broker loss: new leader from the ISR, epochs bumped, the dead broker leaves every ISR', async () => {
      const node = await startNode(1);
      await createTopic(node, 'led-by-1', [1, 2, 3]);
      await createTopic(node, 'follows-1', [2, 1, 3]);
      await createTopic(node, 'without-1', [2, 3]);
      await killBroker(1, node);
      expect(await partition('led-by-1', 0)).toEqual({
        leader: 2,
        leaderEpoch: 1,
        partitionEpoch: 1,
        replicas: [1, 2, 3],
        isr: [2, 3],
      });
      expect(await partition('follows-1', 0)).toEqual({
        leader: 2,
        leaderEpoch: 0,
        partitionEpoch: 1,
        replicas: [2, 1, 3],
        isr: [2, 3],
      });
      expect(await partition('without-1', 0)).toMatchObject({ leaderEpoch: 0, partitionEpoch: 0 });
      expect(node.stats()).toMatchObject({ leaderElections: 1, isrShrinks: 1, uncleanElections: 0 });
    });

    it('the last ISR member dies: offline with ISR kept; it returns: it leads again', async () => {
      const node = await startNode(1);
      await createTopic(node, 'orders', [1, 2]);
      await killBroker(2, node);
      await killBroker(1, node);
      expect(await partition('orders', 0)).toEqual({
        leader: -1,
        leaderEpoch: 1,
        partitionEpoch: 2,
        replicas: [1, 2],
        isr: [1],
      });
      expect(node.stats().offlineTransitions).toBe(1);
      // Broker 2 (not in the ISR) returning changes nothing: unclean election is off.
      await restartBroker(2, node);
      expect((await partition('orders', 0)).leader).toBe(-1);
      await restartBroker(1, node);
      expect(await partition('orders', 0)).toEqual({
        leader: 1,
        leaderEpoch: 2,
        partitionEpoch: 3,
        replicas: [1, 2],
        isr: [1],
      });
      expect(node.uncleanElections).toBe(0);
    });

    it('unclean election: a live out-of-sync replica leads, and it is counted', async () => {
      const node = await startNode(1);
      await createTopic(node, 'lossy', [1, 2], { 'unclean.leader.election.enable': 'true' });
      await killBroker(2, node);
      await killBroker(1, node);
      expect((await partition('lossy', 0)).leader).toBe(-1);
      await restartBroker(2, node);
      expect(await partition('lossy', 0)).toEqual({
        leader: 2,
        leaderEpoch: 2,
        partitionEpoch: 3,
        replicas: [1, 2],
        isr: [2],
      });
      expect(node.uncleanElections).toBe(1);
    });

    it('enabling unclean election on an offline partition elects at once', async () => {
      const node = await startNode(1);
      await createTopic(node, 'orders', [1, 2]);
      await killBroker(2, node);
      await killBroker(1, node);
      await restartBroker(2, node);
      expect((await partition('orders', 0)).leader).toBe(-1);
      await node.admin.alterConfigs('orders', { 'unclean.leader.election.enable': 'true' }, [], false);
      await settle(node);
      expect((await partition('orders', 0)).leader).toBe(2);
      expect(node.uncleanElections).toBe(1);
    });

    it('preferred leader: moves back on the imbalance interval once the preferred replica is in sync', async () => {
      const node = await startNode(1, { leaderImbalanceCheckIntervalMs: 10_000 });
      await createTopic(node, 'orders', [1, 2, 3]);
      await killBroker(1, node);
      await restartBroker(1, node);
      // Back, but not in sync: leadership stays with 2.
      expect(await partition('orders', 0)).toMatchObject({ leader: 2, isr: [2, 3] });
      const moved = await node.alterPartition('orders', 0, {
        brokerId: 2,
        leaderEpoch: 1,
        partitionEpoch: 1,
        newIsr: [2, 3, 1],
      });
      expect(moved).toMatchObject({ leader: 2, isr: [2, 3, 1], partitionEpoch: 2 });
      clock.advance(10_000 - BROKER_TTL - 1);
      await settle(node);
      // (The broker-loss TTL already advanced the clock by BROKER_TTL since the node started.)
      clock.advance(1);
      await settle(node);
      expect(await partition('orders', 0)).toEqual({
        leader: 1,
        leaderEpoch: 2,
        partitionEpoch: 3,
        replicas: [1, 2, 3],
        isr: [2, 3, 1],
      });
      expect(node.stats().preferredLeaderElections).toBe(1);
    });

    it('a new controller reconciles what changed while there was none', async () => {
      const a = await startNode(1);
      await createTopic(a, 'orders', [1, 2, 3]);
      await a.stop();
      nodes = [];
      await killBroker(1);
      const b = await startNode(2);
      await settle(b);
      expect(await partition('orders', 0)).toMatchObject({ leader: 2, leaderEpoch: 1, isr: [2, 3] });
    });
  });

  describe('AlterPartition', () => {
    it('accepts the current leader with matching epochs and answers the new state', async () => {
      const node = await startNode(1);
      await createTopic(node, 'orders', [1, 2, 3]);
      const shrunk = await node.alterPartition('orders', 0, {
        brokerId: 1,
        leaderEpoch: 0,
        partitionEpoch: 0,
        newIsr: [1, 2],
      });
      expect(shrunk).toEqual({
        partition: 0,
        leader: 1,
        leaderEpoch: 0,
        partitionEpoch: 1,
        replicas: [1, 2, 3],
        isr: [1, 2],
      });
      expect(await partition('orders', 0)).toMatchObject({ isr: [1, 2], partitionEpoch: 1 });
      expect(node.stats().isrChanges).toBe(1);
    });

    it('fences stale epochs and a non-leader; refuses bad ISRs; unknown topics and partitions', async () => {
      const node = await startNode(1);
      await createTopic(node, 'orders', [1, 2, 3]);
      await node.alterPartition('orders', 0, {
        brokerId: 1,
        leaderEpoch: 0,
        partitionEpoch: 0,
        newIsr: [1, 2],
      });
      const stale = await rejection(
        node.alterPartition('orders', 0, { brokerId: 1, leaderEpoch: 0, partitionEpoch: 0, newIsr: [1] }),
      );
      expect(stale.code).toBe('FENCED_EPOCH');
      const notLeader = await rejection(
        node.alterPartition('orders', 0, { brokerId: 2, leaderEpoch: 0, partitionEpoch: 1, newIsr: [2] }),
      );
      expect(notLeader.code).toBe('NOT_LEADER');
      await killBroker(3, node);
      const dead = await rejection(
        node.alterPartition('orders', 0, {
          brokerId: 1,
          leaderEpoch: 0,
          partitionEpoch: 1,
          newIsr: [1, 2, 3],
        }),
      );
      expect(dead.code).toBe('INVALID_REQUEST');
      expect(
        (
          await rejection(
            node.alterPartition('nope', 0, { brokerId: 1, leaderEpoch: 0, partitionEpoch: 0, newIsr: [1] }),
          )
        ).code,
      ).toBe('UNKNOWN_TOPIC');
      expect(
        (
          await rejection(
            node.alterPartition('orders', 7, { brokerId: 1, leaderEpoch: 0, partitionEpoch: 0, newIsr: [1] }),
          )
        ).code,
      ).toBe('UNKNOWN_PARTITION');
      expect(
        (
          await rejection(
            node.alterPartition('../x', 0, { brokerId: 1, leaderEpoch: 0, partitionEpoch: 0, newIsr: [1] }),
          )
        ).code,
      ).toBe('INVALID_TOPIC');
      expect(await partition('orders', 0)).toMatchObject({ isr: [1, 2], partitionEpoch: 1 });
    });

    it('a leader that lost leadership is fenced by the bumped leader epoch', async () => {
      const node = await startNode(1);
      await createTopic(node, 'orders', [1, 2, 3]);
      await killBroker(1, node);
      // Broker 1 (a zombie leader) still proposes with the epochs it knew.
      const err = await rejection(
        node.alterPartition('orders', 0, { brokerId: 1, leaderEpoch: 0, partitionEpoch: 0, newIsr: [1] }),
      );
      expect(err.code).toBe('FENCED_EPOCH');
    });
  });

  describe('ControlledShutdown', () => {
    it('moves leaderships away, leaves ISRs, reports what cannot move, and keeps the broker from leading', async () => {
      const node = await startNode(1);
      await createTopic(node, 'movable', [1, 2, 3]);
      await createTopic(node, 'follower', [2, 1]);
      await createTopic(node, 'alone', [1]);
      const { remaining } = await node.controlledShutdown(1);
      expect(remaining).toEqual([{ topic: 'alone', partition: 0 }]);
      expect(await partition('movable', 0)).toEqual({
        leader: 2,
        leaderEpoch: 1,
        partitionEpoch: 1,
        replicas: [1, 2, 3],
        isr: [2, 3],
      });
      expect(await partition('follower', 0)).toMatchObject({ leader: 2, isr: [2], partitionEpoch: 1 });
      expect(await partition('alone', 0)).toMatchObject({ leader: 1, isr: [1], partitionEpoch: 0 });
      expect(node.stats().controlledShutdownMoves).toBe(2);
      // A shutting-down broker may not rejoin an ISR.
      expect(
        (
          await rejection(
            node.alterPartition('movable', 0, {
              brokerId: 2,
              leaderEpoch: 1,
              partitionEpoch: 1,
              newIsr: [2, 3, 1],
            }),
          )
        ).code,
      ).toBe('INVALID_REQUEST');
      // It exits; when it registers again it is an ordinary broker.
      await brokers.get(1)!.close();
      brokers.delete(1);
      await settle(node);
      expect(await partition('alone', 0)).toMatchObject({ leader: -1, isr: [1] });
      await restartBroker(1, node);
      expect(await partition('alone', 0)).toMatchObject({ leader: 1, isr: [1] });
      const back = await node.alterPartition('movable', 0, {
        brokerId: 2,
        leaderEpoch: 1,
        partitionEpoch: 1,
        newIsr: [2, 3, 1],
      });
      expect(back.isr).toEqual([2, 3, 1]);
    });
  });
});
