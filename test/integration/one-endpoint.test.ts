/**
 * One endpoint is enough, consumer groups included. Every Tide process (etcd aside: a controller,
 * three brokers and a `tide coordinator`) runs on a simulated pod network (harness/pod-network.ts)
 * on which brokers 1 and 2 and the coordinator advertise addresses that only that network routes:
 * from the test process nothing listens there, as from a laptop behind one `kubectl port-forward`.
 *
 * A client with DEFAULT routing given only broker 0's address creates a topic whose partitions
 * are led elsewhere, produces, consumes in a group of two members (every record seen, offsets
 * committed), resumes from the committed offsets with a new member, describes and lists the group,
 * and never holds a connection to anything but broker 0: broker 0 forwards the partition requests
 * to their leaders and relays the group calls to the coordinator. The CLI does the same, and, on a
 * network where every broker is reachable but the coordinator is not, detects that and relays.
 *
 * Each test may run alone or in any order: what a test needs from another (the topic with its 330
 * records and group g-far's offsets, the CLI's group g-cli) it gets by awaiting that test's
 * scenario, which runs once (`once`) whichever test asks first.
 */
import * as net from 'net';
import { Tide, type ConsumerRecord, type GroupConsumer } from '../../client';
import { desiredOwner, shardOf } from '../../services/common/cluster/coordinator-shards';
import { TestCluster } from '../harness/cluster';
import { PodNetwork, freePort } from '../harness/pod-network';
import { runCli, waitFor, type TideProcess } from '../harness/processes';

jest.setTimeout(180_000);

const TOPIC = 'far-away';
const PARTITIONS = 6;
const PER_PARTITION = 50;
const GROUP = 'g-far';

let network: PodNetwork;
let cluster: TestCluster;
let coordinator: TideProcess;
let second: TideProcess | undefined;
let tide: Tide;
/** Advertised address -> where it really listens (on the pod network only). */
const hidden = new Map<string, string>();
let bootstrap: string;

async function hiddenAddress(): Promise<{ real: number; advertised: number }> {
  const real = await freePort();
  const advertised = await freePort();
  hidden.set(`127.0.0.1:${advertised}`, `127.0.0.1:${real}`);
  return { real, advertised };
}

function refused(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

beforeAll(async () => {
  const brokerPorts = new Map([
    [1, await hiddenAddress()],
    [2, await hiddenAddress()],
  ]);
  const coordinatorPorts = await hiddenAddress();
  network = await PodNetwork.start(new Map(hidden));
  cluster = await TestCluster.start({
    brokers: 3,
    controllers: 1,
    env: network.env(),
    brokerSetup: (id) => {
      const ports = brokerPorts.get(id);
      return ports ? { port: ports.real, env: { TIDE_ADVERTISED_PORT: String(ports.advertised) } } : {};
    },
  });
  coordinator = await startCoordinator('c0', coordinatorPorts);
  bootstrap = cluster.broker(0).address;
  tide = new Tide({ bootstrap: [bootstrap] });
});

function startCoordinator(id: string, ports: { real: number; advertised: number }): Promise<TideProcess> {
  return cluster.startCoordinator(id, {
    port: ports.real,
    args: ['--advertised-port', String(ports.advertised), '--shards', '8', '--offsets-partitions', '3'],
    env: network.env(),
  });
}

afterAll(async () => {
  await tide?.close();
  second?.child.kill('SIGCONT');
  await second?.stop('SIGKILL');
  await coordinator?.stop('SIGKILL');
  await cluster?.stop();
  await network?.close();
});

/** Runs `fn` once; later calls share its outcome (and its failure). */
function once(fn: () => Promise<void>): () => Promise<void> {
  let run: Promise<void> | undefined;
  return () => (run ??= fn());
}

/** Runs `member` until told to stop, recording every record it hands out. */
function drain(member: GroupConsumer, into: ConsumerRecord[]): Promise<void> {
  return (async () => {
    for await (const record of member) into.push(record);
  })();
}

test('the other brokers and the coordinator are unreachable from here', async () => {
  expect(coordinator.address).not.toBe(hidden.get(coordinator.address)); // it advertises the hidden one
  for (const address of [cluster.broker(1).address, cluster.broker(2).address, coordinator.address]) {
    expect(hidden.has(address)).toBe(true);
    expect(await refused(address)).toBe(true);
  }
});

/** Creates TOPIC, fills it (330 records) and leaves group GROUP with its offsets committed. */
const groupScenario = once(async () => {
  await tide.admin().createTopic(TOPIC, { partitions: PARTITIONS, replicationFactor: 1 });
  const meta = await tide.admin().metadata([TOPIC]);
  expect(new Set(meta.topics[0].partitions.map((p) => p.leader))).toEqual(new Set([0, 1, 2]));
  expect(tide.cluster.routing).toBe('bootstrap'); // 'auto' noticed the unreachable brokers

  // Two members share the partitions before anything is produced.
  const members = [1, 2].map(() => tide.consumer({ groupId: GROUP, autoOffsetReset: 'earliest' }));
  for (const m of members) m.subscribe([TOPIC]);
  const seen: ConsumerRecord[] = [];
  const loops = members.map((m) => drain(m, seen));
  await waitFor(() => members.every((m) => m.assignment().length === PARTITIONS / 2), {
    timeoutMs: 60_000,
    what: 'two members with three partitions each',
  });

  const producer = tide.producer();
  const batch = Array.from({ length: PARTITIONS * PER_PARTITION }, (_, i) => ({
    value: `v${i}`,
    partition: i % PARTITIONS,
  }));
  expect((await producer.send(TOPIC, batch)).count).toBe(batch.length);

  await waitFor(() => new Set(seen.map((r) => `${r.partition}:${r.offset}`)).size === batch.length, {
    timeoutMs: 60_000,
    what: `all ${batch.length} records consumed by the group`,
  });
  await Promise.all(members.map((m) => m.close())); // commits what was processed, then leaves
  await Promise.all(loops);
  expect(new Set(seen.map((r) => r.value!.toString()))).toEqual(new Set(batch.map((r) => r.value)));

  const committed = await tide.groups().fetchOffsets(GROUP);
  expect(committed.map((c) => [c.partition, c.offset]).sort((a, b) => a[0] - b[0])).toEqual(
    Array.from({ length: PARTITIONS }, (_, p) => [p, PER_PARTITION]),
  );

  // A new member of the group resumes where the group left off: only the new records.
  const more = Array.from({ length: PARTITIONS * 5 }, (_, i) => ({
    value: `w${i}`,
    partition: i % PARTITIONS,
  }));
  await producer.send(TOPIC, more);
  await producer.close();
  const resumed = tide.consumer({ groupId: GROUP, autoOffsetReset: 'earliest', autoCommitIntervalMs: 200 });
  resumed.subscribe([TOPIC]);
  const second: ConsumerRecord[] = [];
  const loop = drain(resumed, second);
  await waitFor(() => second.length >= more.length, { timeoutMs: 60_000, what: 'the new records' });

  const description = await waitFor(
    async () => {
      const d = await tide.groups().describeGroup(GROUP);
      return d.members.length === 1 && d.partitions.every((p) => p.lag === 0) ? d : undefined;
    },
    { timeoutMs: 30_000, what: 'the group described with one member and no lag' },
  );
  expect(description!.coordinatorId).toBe('c0');
  expect(description!.partitions.map((p) => p.committedOffset)).toEqual(
    Array(PARTITIONS).fill(PER_PARTITION + 5),
  );
  const listed = await tide.groups().listGroups();
  expect(listed.find((g) => g.groupId === GROUP)).toMatchObject({ members: 1, coordinatorId: 'c0' });

  await resumed.close();
  await loop;
  expect(second.map((r) => r.value!.toString()).sort()).toEqual(more.map((r) => r.value).sort());

  // Only broker 0 was ever connected to; no channel to the coordinator's address.
  expect(tide.cluster.pool.addresses()).toEqual([bootstrap]);
  expect(tide.coordinators().openAddresses()).toEqual([]);
});

/** Group g-cli, made by the CLI: 330 records consumed and committed. */
const cliGroupScenario = once(async () => {
  await groupScenario();
  const consumed = await runCli(
    ['consume', TOPIC, '--group', 'g-cli', '--from-beginning', '-n', '330', '--bootstrap', bootstrap],
    { timeoutMs: 60_000 },
  );
  expect(consumed.stderr).toContain('consumed 330 record(s)');
  expect(consumed.code).toBe(0);
  const described = await runCli(['groups', 'describe', 'g-cli', '--json', '--bootstrap', bootstrap]);
  expect(described.code).toBe(0);
  const d = JSON.parse(described.stdout) as { partitions: { committedOffset: number }[] };
  expect(d.partitions.reduce((sum, p) => sum + Math.max(0, p.committedOffset), 0)).toBe(330);
});

test('produce, consume in a group, resume from committed offsets, describe and list: all through broker 0', async () => {
  await groupScenario();
});

test('the CLI consumes in a group and describes it through broker 0', async () => {
  await cliGroupScenario();
});

test('with every broker reachable but not the coordinator, auto routing relays the group calls', async () => {
  await cliGroupScenario(); // groups g-far and g-cli exist, the topic holds 330 records
  // A network that routes the hidden broker addresses but not the coordinator's.
  const partial = await PodNetwork.start(
    new Map([...hidden].filter(([advertised]) => advertised !== coordinator.address)),
  );
  try {
    // The CLI keeps the client's log quiet unless asked; the relay's warning is what shows the route.
    const listed = await runCli(['groups', 'list', '--json', '--bootstrap', bootstrap], {
      env: { ...partial.env(), TIDE_CLI_LOG_LEVEL: 'warn' },
    });
    expect(listed.code).toBe(0);
    expect(listed.stderr).toContain('relaying group calls through the bootstrap broker');
    expect(listed.stderr).not.toContain('routing every request through the bootstrap broker');
    expect((JSON.parse(listed.stdout) as { groupId: string }[]).map((g) => g.groupId)).toEqual(
      expect.arrayContaining([GROUP, 'g-cli']),
    );
    const consumed = await runCli(
      ['consume', TOPIC, '--group', 'g-partial', '--from-beginning', '-n', '330', '--bootstrap', bootstrap],
      { env: partial.env(), timeoutMs: 60_000 },
    );
    expect(consumed.stderr).toContain('consumed 330 record(s)');
  } finally {
    await partial.close();
  }
});

test("a relayed member follows its group's coordinator: a graceful move, then a hung coordinator", async () => {
  await groupScenario(); // the topic holds 330 records
  // A group whose shard c1 takes from c0 when it starts, and gives back when it stops answering.
  const group = Array.from({ length: 200 }, (_, i) => `g-move-${i}`).find(
    (g) => desiredOwner(shardOf(g, 8), ['c0', 'c1']) === 'c1',
  )!;
  const member = tide.consumer({ groupId: group, autoOffsetReset: 'earliest', autoCommitIntervalMs: 200 });
  member.subscribe([TOPIC]);
  const got: ConsumerRecord[] = [];
  const loop = drain(member, got);
  await waitFor(() => got.length >= 330, { timeoutMs: 60_000, what: 'the records so far' });
  const describedBy = async (coordinatorId: string) => {
    const d = await tide.groups().describeGroup(group);
    return (
      d.coordinatorId === coordinatorId &&
      d.members.length === 1 &&
      d.members[0].connected &&
      d.members[0].owned.length === PARTITIONS
    );
  };
  expect(await describedBy('c0')).toBe(true);

  // c1 starts: the shard moves over by graceful handover; the member rejoins there through broker 0.
  const ports = await hiddenAddress();
  network.route(`127.0.0.1:${ports.advertised}`, `127.0.0.1:${ports.real}`);
  second = await startCoordinator('c1', ports);
  await waitFor(() => describedBy('c1'), { timeoutMs: 30_000, what: `${group} joined again at c1` });

  // c1 hangs: its lease lapses (2 s) and c0 takes the shard back. The relay ends the member's
  // stream when the shard key goes, so the member rejoins at once — not only after its own
  // silence check (half the 45 s session timeout).
  const stoppedAt = Date.now();
  second.child.kill('SIGSTOP');
  await waitFor(() => describedBy('c0'), { timeoutMs: 15_000, what: `${group} joined again at c0` });
  expect(Date.now() - stoppedAt).toBeLessThan(15_000);

  const producer = tide.producer();
  await producer.send(TOPIC, [{ value: 'after-the-moves', partition: 3 }]);
  await producer.close();
  await waitFor(() => got.some((r) => r.value!.toString() === 'after-the-moves'), {
    what: 'a record produced after the moves',
  });
  await member.close();
  await loop;
  expect(tide.coordinators().openAddresses()).toEqual([]);
  // The hung c1 goes, so that tests running after this one meet the cluster they would meet first.
  await second.stop('SIGKILL');
  second = undefined;
});
