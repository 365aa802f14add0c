/**
 * Consumer groups on a real `tide dev` process, through the client, raw gRPC and the CLI:
 * - the broker answers FindCoordinator; a malformed join gets a clear INVALID_REQUEST;
 * - commits from a stale generation (after an offsets reset), from unknown members, and of
 *   partitions a member does not own are rejected with typed errors;
 * - a live group is rewound with `tide groups reset-offsets` (dry run first) while its member
 *   runs: the member continues from the new offsets without a restart; describe shows lag;
 * - a member stuck on one record longer than maxProcessingIntervalMs loses its partitions (another
 *   member reads the record it held) and rejoins when it goes on;
 * - committed offsets survive a SIGKILL of tide dev (rebuilt from __consumer_offsets).
 */
import * as grpc from '@grpc/grpc-js';
import { Tide, TideError, type ConsumerBatch, type GroupConsumer } from '../../client';
import { fromGrpcError } from '../../services/common/grpc/status';
import { coordinatorProto } from '../../services/common/grpc/coordinator-proto';
import type { MemberRequest__Input } from '../../services/common/grpc/generated/tide/v1/MemberRequest';
import { makeTempDir, runCli, startTide, waitFor, type TideProcess } from '../harness/processes';

jest.setTimeout(90_000);

let dataDir: string;
let node: TideProcess;
let tide: Tide;

beforeAll(async () => {
  dataDir = makeTempDir();
  node = await startTide(['dev', '--data', dataDir, '--port', '0']);
  tide = new Tide({ bootstrap: [node.address] });
  await tide.admin().createTopic('orders', { partitions: 2 });
  const producer = tide.producer();
  for (let p = 0; p < 2; p++)
    await producer.send(
      'orders',
      Array.from({ length: 10 }, (_, i) => ({ value: `p${p}-${i}`, partition: p })),
    );
});

afterAll(async () => {
  await tide?.close();
  await node?.stop('SIGKILL');
});

function coordinatorClient(address: string) {
  return new (coordinatorProto().GroupCoordinator)(address, grpc.credentials.createInsecure());
}

async function coordinatorAddress(group: string): Promise<string> {
  const client = coordinatorClient(node.address);
  try {
    const r = await new Promise<{ coordinator?: { host: string; port: number } | null }>((resolve, reject) =>
      client.FindCoordinator({ group_id: group }, (err, res) =>
        err ? reject(fromGrpcError(err)) : resolve(res!),
      ),
    );
    return `${r.coordinator!.host}:${r.coordinator!.port}`;
  } finally {
    client.close();
  }
}

/** Opens a membership stream, sends `first`, resolves with the error the stream ends with. */
async function joinError(first: MemberRequest__Input): Promise<TideError> {
  const client = coordinatorClient(await coordinatorAddress('malformed'));
  try {
    return await new Promise<TideError>((resolve, reject) => {
      const call = client.Membership();
      call.on('data', () => reject(new Error('the coordinator accepted a malformed join')));
      call.on('error', (err) => resolve(fromGrpcError(err)));
      call.write(first);
    });
  } finally {
    client.close();
  }
}

async function rejected(promise: Promise<unknown>): Promise<TideError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TideError);
  return err as TideError;
}

function member(
  groupId: string,
  seen: { partition: number; offset: number; value: string }[],
): GroupConsumer {
  const m = tide.consumer({
    groupId,
    autoOffsetReset: 'earliest',
    sessionTimeoutMs: 6_000,
    autoCommitIntervalMs: 100,
  });
  m.subscribe(['orders']);
  void (async () => {
    for await (const r of m)
      seen.push({ partition: r.partition, offset: r.offset, value: r.value!.toString() });
  })().catch(() => undefined);
  return m;
}

it('the broker answers FindCoordinator; a malformed join gets a clear error', async () => {
  expect(await coordinatorAddress('anything')).toMatch(/^127\.0\.0\.1:\d+$/);
  const cases: [MemberRequest__Input, RegExp][] = [
    [{ join: { group_id: '', topics: ['orders'] } }, /join\.group_id is required/],
    [{ join: { group_id: 'g', topics: [] } }, /join\.topics is empty/],
    [{ join: { group_id: 'g', topics: ['bad topic!'] } }, /join\.topics: invalid topic name/],
    [
      { join: { group_id: 'g', topics: ['orders'], session_timeout_ms: 10 } },
      /join\.session_timeout_ms must be in/,
    ],
    [
      { join: { group_id: 'g', topics: ['orders'], assignor: 'sticky-ish' } },
      /unknown assignor "sticky-ish"/,
    ],
    [
      { join: { group_id: 'g', topics: ['orders'], member_epoch: 3 } },
      /member_epoch is set without join\.member_id/,
    ],
    [{ heartbeat: { member_epoch: 0 } }, /send join first/],
    [{}, /needs one of join, heartbeat, revoked, leave/],
  ];
  for (const [request, message] of cases) {
    const err = await joinError(request);
    expect(err.code).toBe('INVALID_REQUEST');
    expect(err.message).toMatch(message);
  }
  // A rejoin with a member id the group never had.
  const unknown = await joinError({
    join: { group_id: 'g', topics: ['orders'], member_id: 'ghost', member_epoch: 1 },
  });
  expect(unknown.code).toBe('UNKNOWN_MEMBER_ID');
  // The client surfaces it from the iterator.
  const bad = tide.consumer({ groupId: 'bad', sessionTimeoutMs: 3_000 });
  bad.subscribe(['bad topic!']);
  const err = await rejected(
    (async () => {
      for await (const _ of bad) break;
    })(),
  );
  expect(err.code).toBe('INVALID_REQUEST');
  await bad.close();
});

it('commits from a stale generation, an unknown member, or of partitions not owned are rejected', async () => {
  const seen: { partition: number; offset: number; value: string }[] = [];
  const m = member('fencing', seen);
  await waitFor(() => m.assignment().length === 2 && seen.length >= 20, {
    what: 'the member to read everything',
  });
  const groups = tide.groups();
  const memberId = m.memberId;
  const epoch = m.memberEpoch;
  await groups.commitOffsets('fencing', [{ topic: 'orders', partition: 0, offset: 5 }], {
    memberId,
    memberEpoch: epoch,
  });

  const notOwned = await rejected(
    groups.commitOffsets('fencing', [{ topic: 'events-x', partition: 0, offset: 1 }], {
      memberId,
      memberEpoch: epoch,
    }),
  );
  expect(notOwned.code).toBe('ILLEGAL_GENERATION');
  const unknown = await rejected(
    groups.commitOffsets('fencing', [{ topic: 'orders', partition: 0, offset: 1 }], {
      memberId: 'ghost',
      memberEpoch: epoch,
    }),
  );
  expect(unknown.code).toBe('UNKNOWN_MEMBER_ID');
  const noMember = await rejected(
    groups.commitOffsets('fencing', [{ topic: 'orders', partition: 0, offset: 1 }]),
  );
  expect(noMember.code).toBe('UNKNOWN_MEMBER_ID');

  // An offsets reset fences the generation: the old epoch is stale now.
  const reset = await groups.resetOffsets('fencing', { to: 'offset', offset: 7 }, { topics: ['orders'] });
  expect(reset.applied).toBe(true);
  const stale = await rejected(
    groups.commitOffsets('fencing', [{ topic: 'orders', partition: 0, offset: 9 }], {
      memberId,
      memberEpoch: epoch,
    }),
  );
  expect(stale.code).toBe('FENCED_MEMBER_EPOCH');
  expect(stale.message).toMatch(/accepted epochs/);
  // The member itself moved on to the new epoch and re-read from offset 7.
  await waitFor(() => m.memberEpoch === reset.generation, { what: 'the member to see the new generation' });
  await waitFor(() => seen.filter((r) => r.offset === 7).length >= 3, {
    what: 'the member to re-read from 7',
  });
  await m.close();
  const committed = await groups.fetchOffsets('fencing');
  expect(committed.map((c) => c.offset)).toEqual([10, 10]);
});

it('batches(): a chunk counts as processed up to its end once the next is asked for; a seek while holding it drops that', async () => {
  const groups = tide.groups();
  const read = async (groupId: string, onBatch: (m: GroupConsumer, b: ConsumerBatch) => boolean) => {
    const m = tide.consumer({ groupId, autoOffsetReset: 'earliest', autoCommit: false });
    m.subscribe(['orders']);
    for await (const batch of m.batches()) if (onBatch(m, batch)) break;
    await m.commit();
    await m.close();
    return (await groups.fetchOffsets(groupId)).map((c) => [c.partition, c.offset]);
  };
  // Reads both partitions' 10 records as chunks; leaving the loop counts the last one processed.
  const values: string[] = [];
  const all = await read('batches', (_m, b) => {
    values.push(...b.records.map((r) => r.value!.toString()));
    return values.length === 20;
  });
  expect(values.sort()).toEqual(
    [0, 1].flatMap((p) => Array.from({ length: 10 }, (_, i) => `p${p}-${i}`)).sort(),
  );
  expect(all).toEqual([
    [0, 10],
    [1, 10],
  ]);
  // Seeking back into the chunk held (as Tide Streams does for a task not ready): nothing of it
  // is committed, rather than the whole chunk.
  const sought = await read('batches-seek', (m, b) => {
    m.seek({ topic: b.topic, partition: b.partition }, b.records[0].offset);
    return true;
  });
  expect(sought).toEqual([]);
});

it('rewinds a live group with tide groups reset-offsets (dry run first); the member continues from there', async () => {
  const seen: { partition: number; offset: number; value: string }[] = [];
  const m = member('rewind', seen);
  await waitFor(() => seen.length >= 20, { what: 'the member to read everything' });
  await m.commit();
  const bootstrap = ['--bootstrap', node.address];

  const described = await runCli(['groups', 'describe', 'rewind', ...bootstrap]);
  expect(described.code).toBe(0);
  expect(described.stdout).toMatch(/state STABLE/);
  expect(described.stdout).toMatch(/orders\s+0\s+10\s+10\s+0\s+\S+/);

  const dry = await runCli([
    'groups',
    'reset-offsets',
    'rewind',
    '--topic',
    'orders',
    '--to-earliest',
    '--dry-run',
    ...bootstrap,
  ]);
  expect(dry.code).toBe(0);
  expect(dry.stdout).toMatch(/orders\s+0\s+10\s+0/);
  expect(dry.stdout).toMatch(/dry run: nothing changed/);
  expect((await tide.groups().fetchOffsets('rewind')).map((c) => c.offset)).toEqual([10, 10]);

  const before = seen.length;
  const applied = await runCli([
    'groups',
    'reset-offsets',
    'rewind',
    '--topic',
    'orders',
    '--to-earliest',
    ...bootstrap,
  ]);
  expect(applied.code).toBe(0);
  expect(applied.stdout).toMatch(/reset 2 partition\(s\); members fenced to generation \d+/);
  // The same member, never restarted, reads both partitions again from 0.
  await waitFor(() => seen.length >= before + 20, { what: 'the rewound records' });
  const again = seen.slice(before);
  for (let p = 0; p < 2; p++)
    expect(again.filter((r) => r.partition === p).map((r) => r.offset)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);

  const listed = await runCli(['groups', 'list', ...bootstrap]);
  expect(listed.stdout).toMatch(/rewind\s+STABLE\s+1\s+dev/);
  await m.close();
  const unknown = await runCli(['groups', 'describe', 'no-such-group', ...bootstrap]);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/GROUP_ID_NOT_FOUND/);
});

it('a member stuck on one record past maxProcessingIntervalMs loses its partitions, then rejoins', async () => {
  await tide.admin().createTopic('stall', { partitions: 2 });
  const producer = tide.producer();
  for (let p = 0; p < 2; p++)
    await producer.send(
      'stall',
      Array.from({ length: 5 }, (_, i) => ({ value: `${p}-${i}`, partition: p })),
    );
  const lost: number[] = [];
  let held: { partition: number; offset: number } | undefined;
  let goOn!: () => void;
  const stuck = tide.consumer({
    groupId: 'stall',
    autoOffsetReset: 'earliest',
    sessionTimeoutMs: 6_000,
    maxProcessingIntervalMs: 1_000,
    onLost: (ps) => void lost.push(...ps.map((p) => p.partition)),
  });
  stuck.subscribe(['stall']);
  const stuckLoop = (async () => {
    for await (const r of stuck) {
      if (!held) {
        held = { partition: r.partition, offset: r.offset };
        await new Promise<void>((resolve) => (goOn = resolve));
      }
    }
  })();
  await waitFor(() => lost.length === 2, {
    timeoutMs: 10_000,
    what: 'the stuck member to give its partitions up',
  });
  const seen: { partition: number; offset: number; value: string }[] = [];
  const other = tide.consumer({ groupId: 'stall', autoOffsetReset: 'earliest', sessionTimeoutMs: 6_000 });
  other.subscribe(['stall']);
  void (async () => {
    for await (const r of other)
      seen.push({ partition: r.partition, offset: r.offset, value: r.value!.toString() });
  })();
  // The record it was stuck on was never committed: the other member reads it.
  await waitFor(() => seen.length === 10, { what: 'the other member to read everything' });
  expect(seen.some((r) => r.partition === held!.partition && r.offset === held!.offset)).toBe(true);
  goOn();
  await waitFor(() => stuck.assignment().length === 1 && other.assignment().length === 1, {
    timeoutMs: 10_000,
    what: 'the stuck member to rejoin and get its share',
  });
  await stuck.close();
  await other.close();
  await stuckLoop;
});

it('tide consume --group continues where the group left off; offsets survive a SIGKILL of tide dev', async () => {
  const first = await runCli([
    'consume',
    'orders',
    '--group',
    'cli',
    '--from-beginning',
    '--max-messages',
    '12',
    '--bootstrap',
    node.address,
  ]);
  expect(first.code).toBe(0);
  expect(first.stdout.trim().split('\n')).toHaveLength(12);
  const second = await runCli([
    'consume',
    'orders',
    '--group',
    'cli',
    '--timeout-ms',
    '1500',
    '--bootstrap',
    node.address,
  ]);
  expect(second.stdout.trim().split('\n')).toHaveLength(8);
  const committed = (await tide.groups().fetchOffsets('cli')).map((c) => c.offset);
  expect(committed).toEqual([10, 10]);

  await tide.close();
  await node.stop('SIGKILL');
  node = await startTide(['dev', '--data', dataDir, '--port', '0']);
  tide = new Tide({ bootstrap: [node.address] });
  expect((await tide.groups().fetchOffsets('cli')).map((c) => c.offset)).toEqual([10, 10]);
  expect((await tide.groups().fetchOffsets('rewind')).map((c) => c.offset)).toEqual([10, 10]);
});
