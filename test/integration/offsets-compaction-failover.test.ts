/**
 * The consumer-offsets topic is compacted, and a coordinator failover still rebuilds every
 * committed offset from it. Real processes: etcd, a `tide controller`, two `tide broker`s and two
 * `tide coordinator`s whose __consumer_offsets has 8 KiB segments (offsetsTopicSegmentBytes), so
 * it rolls often and the brokers' cleaners compact it (the cleaner never touches the active
 * segment).
 *
 * Several groups commit many times per key (most partitions ~100 overwrites, one partition only
 * early on, so its latest record sits in the oldest, most-cleaned segments); some offsets are
 * tombstoned (records with a null value, as an offset deletion writes them); filler commits of
 * other groups then push all of that out of the active segment. Once the cleaner has demonstrably
 * compacted the topic (far fewer records readable than offsets written, and a cleaner checkpoint
 * on disk), the coordinator owning most groups is SIGKILLed. The survivor takes its shards,
 * replays the compacted partitions, and FetchOffsets must return exactly the last committed offset
 * of every group and partition, with tombstoned offsets still gone. Had compaction kept an older
 * record of a key instead of its latest, or dropped a key, or dropped a tombstone while keeping
 * the value it deletes, an offset would differ.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as grpc from '@grpc/grpc-js';
import { Etcd3 } from 'etcd3';
import { Tide } from '../../client';
import { MetadataKeys } from '../../services/common/metadata/keys';
import { INTERNAL_TOKEN_HEADER } from '../../services/common/grpc/routing-headers';
import { fromGrpcError } from '../../services/common/grpc/status';
import { coordinatorProto } from '../../services/common/grpc/coordinator-proto';
import { OFFSETS_TOPIC, offsetKey } from '../../services/group-coordinator/offsets-codec';
import { partitionOfShard, shardOf } from '../../services/common/cluster/coordinator-shards';
import { TestCluster } from '../harness/cluster';
import { waitFor, type TideProcess } from '../harness/processes';

jest.setTimeout(150_000);

const LEASE_TTL_MS = 2_000;
const SHARDS = 8;
const OFFSETS_PARTITIONS = 2;
const SEGMENT_BYTES = 8192;
const TOPIC = 'orders';
const PARTITIONS = 4;
const GROUPS = Array.from({ length: 8 }, (_, i) => `g-compact-${i}`);
const FILLERS = Array.from({ length: 8 }, (_, i) => `g-filler-${i}`);
const ROUNDS = 100;
/** Partition committed only in the first rounds: its latest record ends up in old, cleaned segments. */
const EARLY_PARTITION = PARTITIONS - 1;
const EARLY_ROUNDS = 3;

let cluster: TestCluster;
let tide: Tide;

function startCoordinator(id: string): Promise<TideProcess> {
  return cluster.startCoordinator(id, {
    args: ['--shards', String(SHARDS), '--offsets-partitions', String(OFFSETS_PARTITIONS)],
    env: { TIDE_OFFSETS_TOPIC_SEGMENT_BYTES: String(SEGMENT_BYTES) },
  });
}

beforeAll(async () => {
  cluster = await TestCluster.start({ brokers: 2, controllers: 1, leaseTtlMs: LEASE_TTL_MS });
  await Promise.all([startCoordinator('c1'), startCoordinator('c2')]);
  tide = new Tide({ bootstrap: cluster.bootstrap() });
});

afterAll(async () => {
  await tide?.close();
  await cluster?.stop();
});

/** The coordinator the brokers name for `group` now (undefined while its shard has no owner). */
async function ownerOf(group: string): Promise<string | undefined> {
  const client = new (coordinatorProto().GroupCoordinator)(
    cluster.broker(0).address,
    grpc.credentials.createInsecure(),
  );
  try {
    return await new Promise<string | undefined>((resolve, reject) =>
      client.FindCoordinator({ group_id: group }, (err, res) => {
        if (!err) return resolve(res!.coordinator!.id);
        const e = fromGrpcError(err);
        return e.code === 'COORDINATOR_NOT_AVAILABLE' ? resolve(undefined) : reject(e);
      }),
    );
  } finally {
    client.close();
  }
}

/** A group's committed offsets as `partition -> offset` (partitions with no commit are absent). */
async function committed(group: string): Promise<Record<number, number>> {
  const out: Record<number, number> = {};
  for (const o of await tide.groups().fetchOffsets(group)) {
    expect(o.topic).toBe(TOPIC);
    out[o.partition] = o.offset;
  }
  return out;
}

/** The offset committed for (round, partition): distinct for every commit of a key. */
function offsetFor(round: number, partition: number): number {
  return round * 10 + partition;
}

/** Round after round of administrative commits for every group, groups in parallel. */
async function commitRounds(groups: string[], rounds: number): Promise<void> {
  await Promise.all(
    groups.map(async (group) => {
      for (let round = 1; round <= rounds; round++) {
        const partitions = [...Array(PARTITIONS).keys()].filter(
          (p) => p !== EARLY_PARTITION || round <= EARLY_ROUNDS,
        );
        await tide.groups().commitOffsets(
          group,
          partitions.map((partition) => ({ topic: TOPIC, partition, offset: offsetFor(round, partition) })),
        );
      }
    }),
  );
}

/** Records a replica serves from the log start to the high watermark, and that span in offsets. */
async function readable(partition: number): Promise<{ records: number; span: number }> {
  const consumer = tide.consumer();
  try {
    const tp = { topic: OFFSETS_TOPIC, partition };
    const { logStartOffset, highWatermark } = await consumer.listOffset(tp, 'latest');
    let records = 0;
    for (let offset = logStartOffset; offset < highWatermark;) {
      const r = await consumer.fetch(tp, offset);
      records += r.records.filter((x) => x.offset < highWatermark).length;
      if (r.nextOffset <= offset) break;
      offset = r.nextOffset;
    }
    return { records, span: highWatermark - logStartOffset };
  } finally {
    await consumer.close();
  }
}

/** Partition folders of __consumer_offsets/`partition` on the brokers that hold one. */
function replicaDirs(partition: number): string[] {
  return [...cluster.brokers.keys()]
    .map((id) => cluster.brokerDataDir(id))
    .map((dir) => path.join(dir, `${OFFSETS_TOPIC}-${partition}`))
    .filter((dir) => fs.existsSync(dir));
}

it('a coordinator failover rebuilds every committed offset from the compacted __consumer_offsets', async () => {
  await tide.admin().createTopic(TOPIC, { partitions: PARTITIONS });
  const described = await tide.admin().describeTopic(OFFSETS_TOPIC);
  expect(described.topic.partitions.length).toBe(OFFSETS_PARTITIONS);
  const config = (name: string) => described.configs.find((c) => c.name === name)?.value;
  expect([config('cleanup.policy'), config('segment.bytes')]).toEqual(['compact', String(SEGMENT_BYTES)]);

  await commitRounds(GROUPS, ROUNDS);
  const expected = new Map<string, Record<number, number>>();
  for (const group of GROUPS) {
    const offsets: Record<number, number> = {};
    for (let p = 0; p < PARTITIONS; p++)
      offsets[p] = offsetFor(p === EARLY_PARTITION ? EARLY_ROUNDS : ROUNDS, p);
    expected.set(group, offsets);
    expect(await committed(group)).toEqual(offsets);
  }

  // The instance that owns the most groups is the one to kill; it must own at least one.
  const owners = new Map<string, string>();
  for (const group of GROUPS) owners.set(group, (await ownerOf(group))!);
  const victim = ['c1', 'c2'].sort(
    (a, b) =>
      [...owners.values()].filter((o) => o === b).length - [...owners.values()].filter((o) => o === a).length,
  )[0];
  const survivor = victim === 'c1' ? 'c2' : 'c1';
  const victimGroups = GROUPS.filter((g) => owners.get(g) === victim);
  expect(victimGroups.length).toBeGreaterThan(0);

  // Tombstones for partition 1 of the victim's groups, written where the coordinator writes
  // (partition of the group's shard): after the failover these offsets must stay deleted.
  const tombstoned = victimGroups.slice(0, 2);
  // Brokers take writes to __consumer_offsets only from Tide's services: the test writes as the
  // coordinator does, with the cluster's internal token from the metadata store.
  const etcd = new Etcd3({ hosts: cluster.etcd.endpoint });
  const token = await etcd.get(new MetadataKeys('tide').internalToken).string();
  etcd.close();
  expect(token).toBeTruthy();
  const asCoordinator = new Tide({
    bootstrap: cluster.bootstrap(),
    connection: { callMetadata: { [INTERNAL_TOKEN_HEADER]: token! } },
  });
  const producer = asCoordinator.producer({ acks: 'all', lingerMs: 0 });
  for (const group of tombstoned) {
    await producer.send(OFFSETS_TOPIC, {
      key: offsetKey(group, TOPIC, 1),
      value: null,
      partition: partitionOfShard(shardOf(group, SHARDS), OFFSETS_PARTITIONS),
    });
    delete expected.get(group)![1];
  }
  await producer.close();
  await asCoordinator.close();

  // Other groups' commits push every record above out of the active segment, so the cleaner
  // rewrites the segments that hold them.
  await commitRounds(FILLERS, 30);

  // Compaction has demonstrably happened on every partition: a cleaner checkpoint on each replica
  // and far fewer records readable than offsets written.
  for (let partition = 0; partition < OFFSETS_PARTITIONS; partition++) {
    expect(replicaDirs(partition).length).toBeGreaterThan(0);
    await waitFor(
      async () => {
        const checkpoints = replicaDirs(partition).every((dir) =>
          fs.existsSync(path.join(dir, 'cleaner-checkpoint')),
        );
        const { records, span } = await readable(partition);
        return checkpoints && records * 3 < span;
      },
      { timeoutMs: 60_000, intervalMs: 1_000, what: `the cleaner to compact ${OFFSETS_TOPIC}-${partition}` },
    );
    const { records, span } = await readable(partition);
    process.stdout.write(`${OFFSETS_TOPIC}-${partition}: ${records} records readable of ${span} offsets\n`);
  }

  await cluster.coordinator(victim).stop('SIGKILL');
  await waitFor(async () => (await Promise.all(GROUPS.map(ownerOf))).every((o) => o === survivor), {
    timeoutMs: LEASE_TTL_MS + 15_000,
    what: `${survivor} to own every group`,
  });
  // The survivor rebuilt the victim's groups from the compacted partitions: every offset is the
  // last one committed, the tombstoned ones are gone, and its own groups are unchanged.
  for (const group of GROUPS)
    expect({ group, offsets: await committed(group) }).toEqual({ group, offsets: expected.get(group) });
  for (const group of FILLERS)
    expect(await committed(group)).toEqual(
      Object.fromEntries(
        [...Array(PARTITIONS).keys()].map((p) => [
          p,
          offsetFor(p === EARLY_PARTITION ? EARLY_ROUNDS : 30, p),
        ]),
      ),
    );
});
