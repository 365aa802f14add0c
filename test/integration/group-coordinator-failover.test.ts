/**
 * Coordinator failover on a real multi-process cluster: real etcd, a `tide controller`, two
 * `tide broker`s and two `tide coordinator`s (groups sharded over them by etcd-leased shards),
 * with three member processes consuming while records flow.
 *
 * SIGKILL of the coordinator that owns the group: the other instance takes the shard once the dead
 * one's lease lapses, rebuilds the group from __consumer_offsets (committed offsets intact), and
 * the members reconnect and continue with the partitions they had (no partition lost, no
 * rebalance). Starting the killed instance again moves its shards back by graceful handover.
 * Throughout: one owner per partition at every instant, and no record skipped. The owning
 * coordinator exports tide_consumer_group_lag per partition on its Prometheus endpoint.
 */
import * as grpc from '@grpc/grpc-js';
import { Tide } from '../../client';
import { fromGrpcError } from '../../services/common/grpc/status';
import { coordinatorProto } from '../../services/common/grpc/coordinator-proto';
import { TestCluster } from '../harness/cluster';
import { waitFor, type TideProcess } from '../harness/processes';
import {
  killAll,
  ownershipViolations,
  produceSteadily,
  skipped,
  startMember,
  waitForBalanced,
  type MemberProcess,
} from './group-harness';

jest.setTimeout(90_000);

const LEASE_TTL_MS = 2_000;
const SESSION_MS = 10_000;
const GROUP = 'g-failover';

let cluster: TestCluster;
let tide: Tide;

function startCoordinator(id: string): Promise<TideProcess> {
  return cluster.startCoordinator(id, {
    args: ['--shards', '8', '--offsets-partitions', '4', '--metrics-port', '0'],
  });
}

beforeAll(async () => {
  cluster = await TestCluster.start({ brokers: 2, controllers: 1, leaseTtlMs: LEASE_TTL_MS });
  await Promise.all([startCoordinator('c1'), startCoordinator('c2')]);
  tide = new Tide({ bootstrap: cluster.bootstrap() });
});

afterAll(async () => {
  await killAll();
  await tide?.close();
  await cluster?.stop();
});

/** The coordinator the brokers name for the group now. */
async function owner(): Promise<string | undefined> {
  const client = new (coordinatorProto().GroupCoordinator)(
    cluster.broker(0).address,
    grpc.credentials.createInsecure(),
  );
  try {
    return await new Promise<string | undefined>((resolve, reject) =>
      client.FindCoordinator({ group_id: GROUP }, (err, res) => {
        if (!err) return resolve(res!.coordinator!.id);
        const e = fromGrpcError(err);
        return e.code === 'COORDINATOR_NOT_AVAILABLE' ? resolve(undefined) : reject(e);
      }),
    );
  } finally {
    client.close();
  }
}

async function committed(): Promise<number[]> {
  const offsets = await tide.groups().fetchOffsets(GROUP);
  return [0, 1, 2, 3, 4, 5].map((p) => offsets.find((o) => o.partition === p)?.offset ?? -1);
}

/** GET /metrics of a coordinator (its port is printed in its ready line). */
async function scrape(coordinator: TideProcess): Promise<string> {
  const port = /metrics on port (\d+)/.exec(coordinator.output())![1];
  const response = await fetch(`http://127.0.0.1:${port}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

function partitionsLost(members: MemberProcess[], since: number): number {
  return members.flatMap((m) => m.events.filter((e) => e.ev === 'lost' && e.t >= since)).length;
}

it('SIGKILL of the owning coordinator: the other takes the shard, offsets intact, members continue; a restart hands it back', async () => {
  await tide.admin().createTopic('failover', { partitions: 6 });
  const load = produceSteadily(tide.producer({ lingerMs: 0 }), 'failover', 6, 30);
  const bootstrap = cluster.bootstrap().join(',');
  const members = ['a', 'b', 'c'].map((tag) =>
    startMember({ bootstrap, group: GROUP, topic: 'failover', tag, sessionTimeoutMs: SESSION_MS }),
  );
  await waitForBalanced(members, 6, { minEach: 2, timeoutMs: 30_000 });
  const held = members.map((m) => m.owned().join(','));
  await new Promise((r) => setTimeout(r, 1_500));

  const first = (await owner())!;
  const other = first === 'c1' ? 'c2' : 'c1';
  // The owner exports the group's lag per partition for Prometheus (and KEDA).
  const metrics = await scrape(cluster.coordinator(first));
  for (let p = 0; p < 6; p++)
    expect(metrics).toMatch(
      new RegExp(
        `tide_consumer_group_lag\\{[^}]*group="${GROUP}",topic="failover",partition="${p}"[^}]*\\} \\d+`,
      ),
    );
  expect(metrics).toMatch(new RegExp(`tide_consumer_group_members\\{[^}]*group="${GROUP}"[^}]*\\} 3`));
  const before = await committed();
  expect(before.every((o) => o > 0)).toBe(true);
  const counts = members.map((m) => m.records().length);

  const killedAt = Date.now();
  await cluster.coordinator(first).stop('SIGKILL');
  await waitFor(async () => (await owner()) === other, {
    timeoutMs: LEASE_TTL_MS + 10_000,
    what: `${other} to take the group's shard`,
  });
  const takeoverMs = Date.now() - killedAt;
  // Offsets are intact on the new coordinator (rebuilt from __consumer_offsets): never behind.
  const after = await committed();
  after.forEach((o, p) => expect(o).toBeGreaterThanOrEqual(before[p]));
  // Members continue: more records, newer commits, the same partitions, nothing lost.
  await waitFor(() => members.every((m, i) => m.records().length > counts[i] + 20), {
    timeoutMs: 15_000,
    what: 'members to keep consuming',
  });
  await waitFor(async () => (await committed()).every((o, p) => o > after[p]), {
    timeoutMs: 10_000,
    what: 'commits through the new coordinator',
  });
  expect(members.map((m) => m.owned().join(','))).toEqual(held);
  expect(partitionsLost(members, killedAt)).toBe(0);
  expect(ownershipViolations(members)).toEqual([]);
  process.stdout.write(`coordinator SIGKILL: ${other} served the group ${takeoverMs} ms later\n`);

  // The killed instance comes back: its shards move back to it by graceful handover.
  const restartedAt = Date.now();
  await startCoordinator(first);
  await waitFor(async () => (await owner()) === first, {
    timeoutMs: 15_000,
    what: `${first} to get its shard back`,
  });
  await waitFor(() => members.every((m) => m.records().some((e) => e.t > Date.now() - 500)), {
    timeoutMs: 15_000,
    what: 'members to consume after the handback',
  });
  expect(members.map((m) => m.owned().join(','))).toEqual(held);
  expect(partitionsLost(members, restartedAt)).toBe(0);

  const ends = await load.stop();
  await waitFor(
    () => ends.every((end, p) => members.some((m) => m.records().some((e) => e.p === p && e.o === end - 1))),
    { timeoutMs: 20_000, what: 'every record to be consumed' },
  );
  expect(ownershipViolations(members)).toEqual([]);
  for (let p = 0; p < 6; p++) expect(skipped(members, p, ends[p])).toEqual([]);
  await Promise.all(members.map((m) => m.kill('SIGTERM')));
  // Their final commits reached the end.
  expect(await committed()).toEqual(ends);
});
