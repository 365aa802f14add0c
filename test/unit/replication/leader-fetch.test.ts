/**
 * The leader's answer to a replica fetch (serveReplicaFetch), per partition: epoch fencing, the
 * diverging-epoch answer, out-of-range offsets, records as stored within max_bytes, the follower's
 * progress recorded, the long poll (answers at once on news, wakes on an append, gives up
 * after max_wait_ms), the reassignment throttle (which followers it limits, and that a held
 * partition answers without records instead of blocking the stream), and replication from memory:
 * followers get an append before the leader's own write completes, while the HW still waits for it.
 */
import { silentLogger } from '../../../services/common/logger';
import type { ReplicaFetchPartition } from '../../../services/common/grpc/generated/tide/v1/internal/ReplicaFetchPartition';
import type { ReplicaFetchPartitionResponse__Input } from '../../../services/common/grpc/generated/tide/v1/internal/ReplicaFetchPartitionResponse';
import type { ReplicaFetchRequest } from '../../../services/common/grpc/generated/tide/v1/internal/ReplicaFetchRequest';
import {
  HW_ONLY_LINGER_MS,
  ReplicaFetchSession,
  serveReplicaFetch,
  type LeaderFetchDeps,
} from '../../../services/broker/replication/leader-fetch';
import { ReassignmentThrottle } from '../../../services/broker/replication/throttle';
import { batchHeaders, buildBatch } from '../log/batches';
import { TempDirs } from '../log/helpers';
import { partitionOn, state, track, until, type PartitionFixture } from '../partition/helpers';

const dirs = new TempDirs();
let fixture: PartitionFixture;
let deps: LeaderFetchDeps;

beforeEach(async () => {
  fixture = await partitionOn(dirs);
  deps = {
    partitions: {
      brokerId: 1,
      hosted: (t, p) => (t === 'orders' && p === 0 ? fixture.partition : undefined),
    },
    clock: fixture.clock,
    logger: silentLogger(),
    defaultMaxBytes: 1 << 20,
  };
  // Leader at epoch 5; the log holds epoch 3 at [0, 4) and epoch 5 from 4 on.
  await fixture.log.appendAsFollower(
    Buffer.concat([0, 1, 2, 3].map((o) => buildBatch({ baseOffset: o, partitionLeaderEpoch: 3 }))),
  );
  await fixture.partition.makeLeader(state(), 2);
  for (let i = 0; i < 2; i++) await fixture.partition.append(buildBatch(), { acks: 'leader' });
});

afterEach(async () => {
  fixture.partition.close();
  await fixture.log.close();
  await dirs.cleanup();
});

function request(
  partition: Partial<ReplicaFetchPartition>,
  extra: Partial<ReplicaFetchRequest> = {},
): ReplicaFetchRequest {
  return {
    replica_id: 2,
    broker_epoch: 77,
    max_wait_ms: 0,
    max_bytes: 0,
    partitions: [
      {
        topic: 'orders',
        partition: 0,
        fetch_offset: 6,
        current_leader_epoch: 5,
        last_fetched_epoch: 5,
        log_start_offset: 0,
        ...partition,
      },
    ],
    ...extra,
  };
}

async function answer(
  req: ReplicaFetchRequest,
  session = new ReplicaFetchSession(),
): Promise<ReplicaFetchPartitionResponse__Input> {
  const response = await serveReplicaFetch(deps, session, req, new AbortController().signal);
  return response.partitions![0];
}

describe('checks', () => {
  it.each<[string, Partial<ReplicaFetchPartition>, Partial<ReplicaFetchRequest>, string, RegExp]>([
    ['an older leader epoch is fenced', { current_leader_epoch: 4 }, {}, 'FENCED_EPOCH', /at leader epoch 5/],
    [
      'a newer leader epoch: not (yet) the leader',
      { current_leader_epoch: 6 },
      {},
      'NOT_LEADER',
      /has not seen epoch 6/,
    ],
    ['a broker that is not a replica', {}, { replica_id: 7 }, 'NOT_LEADER', /not a replica/],
    ['an unknown partition', { partition: 3 }, {}, 'NOT_LEADER', /does not host orders-3/],
    [
      'beyond the leader end',
      { fetch_offset: 9, last_fetched_epoch: -1 },
      {},
      'OFFSET_OUT_OF_RANGE',
      /above the log end/,
    ],
  ])('%s', async (_name, partition, extra, code, message) => {
    const a = await answer(request(partition, extra));
    expect(a.error_code).toBe(code);
    expect(a.error_message).toMatch(message);
    expect(a.record_batches).toBeUndefined();
  });

  it('below the log start: OFFSET_OUT_OF_RANGE with the leader start and end to restart from', async () => {
    await fixture.log.truncateFully(50); // stands in for retention
    await fixture.partition.makeLeader(state({ leaderEpoch: 6 }), 2);
    const a = await answer(request({ fetch_offset: 3, current_leader_epoch: 6, last_fetched_epoch: 3 }));
    expect(a).toMatchObject({
      error_code: 'OFFSET_OUT_OF_RANGE',
      log_start_offset: 50,
      leader_log_end_offset: 50,
    });
  });

  it('a follower that is not a leader here gets NOT_LEADER naming the leader', async () => {
    fixture.partition.makeFollower(state({ leader: 3, leaderEpoch: 6 }));
    const a = await answer(request({ current_leader_epoch: 6 }));
    expect(a.error_code).toBe('NOT_LEADER');
    expect(a.error_message).toMatch(/broker 3 does/);
  });

  it('a malformed request fails as a whole', async () => {
    await expect(
      serveReplicaFetch(
        deps,
        new ReplicaFetchSession(),
        request({}, { replica_id: 1 }),
        new AbortController().signal,
      ),
    ).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });
});

describe('diverging epoch (KIP-320)', () => {
  it.each<[string, number, number, { epoch: number; end_offset: number } | undefined]>([
    ['the follower ends inside epoch 3 as the leader has it: no divergence', 3, 4, undefined],
    ['epoch 3 ends at 4 on the leader; the follower has more of it', 3, 5, { epoch: 3, end_offset: 4 }],
    [
      'an epoch the leader never had (4): the largest older one and where it ends',
      4,
      5,
      { epoch: 3, end_offset: 4 },
    ],
    ['the current epoch, within the log', 5, 6, undefined],
  ])('%s', async (_name, lastFetchedEpoch, fetchOffset, diverging) => {
    const a = await answer(request({ last_fetched_epoch: lastFetchedEpoch, fetch_offset: fetchOffset }));
    expect(a.error_code).toBeUndefined();
    expect(a.diverging_epoch).toEqual(diverging);
    if (diverging) {
      expect(a.record_batches).toBeUndefined();
      expect(fixture.partition.status().followers.find((f) => f.brokerId === 2)?.leo).toBe(-1); // not progress
    }
  });
});

describe('records and progress', () => {
  it('returns the batches as stored from the fetch offset and records the follower LEO', async () => {
    const a = await answer(request({ fetch_offset: 2, last_fetched_epoch: 3 }));
    const headers = batchHeaders(a.record_batches as Buffer);
    expect(headers.map((h) => [h.baseOffset, h.partitionLeaderEpoch])).toEqual([
      [2, 3],
      [3, 3],
      [4, 5],
      [5, 5],
    ]);
    expect(a).toMatchObject({ high_watermark: 0, log_start_offset: 0, leader_log_end_offset: 6 });
    expect(fixture.partition.status().followers.find((f) => f.brokerId === 2)?.leo).toBe(2);
  });

  it('stops at max_bytes, but always sends a first batch', async () => {
    const one = buildBatch().length;
    const a = await answer(request({ fetch_offset: 0, last_fetched_epoch: -1 }, { max_bytes: one + 1 }));
    expect(batchHeaders(a.record_batches as Buffer)).toHaveLength(1);
    const b = await answer(request({ fetch_offset: 0, last_fetched_epoch: -1 }, { max_bytes: 1 }));
    expect(batchHeaders(b.record_batches as Buffer)).toHaveLength(1);
  });

  it('the HW moves with the follower fetches and travels in the answer', async () => {
    await answer(request({ fetch_offset: 6 }, { replica_id: 3 }));
    const a = await answer(request({ fetch_offset: 6 }));
    expect(a.high_watermark).toBe(6);
    expect(fixture.partition.highWatermark).toBe(6);
  });
});

describe('long poll', () => {
  it('answers at once the first time (the HW is news), then waits for a change', async () => {
    const session = new ReplicaFetchSession();
    const first = await answer(request({ fetch_offset: 6 }, { max_wait_ms: 500 }), session);
    expect(first.high_watermark).toBe(0);
    const waiting = track(answer(request({ fetch_offset: 6 }, { max_wait_ms: 500 }), session));
    await new Promise((r) => setTimeout(r, 20));
    expect(waiting.outcome).toBe('pending');
    await fixture.partition.append(buildBatch({ records: 2 }), { acks: 'leader' });
    await until(() => waiting.outcome !== 'pending', 'the long poll to wake');
    expect(batchHeaders(waiting.value!.record_batches as Buffer).map((h) => h.baseOffset)).toEqual([6]);
  });

  it('gives up after max_wait_ms with an empty answer', async () => {
    const session = new ReplicaFetchSession();
    await answer(request({ fetch_offset: 6 }, { max_wait_ms: 500 }), session);
    const waiting = track(answer(request({ fetch_offset: 6 }, { max_wait_ms: 500 }), session));
    await new Promise((r) => setTimeout(r, 20));
    fixture.clock.advance(499);
    await new Promise((r) => setTimeout(r, 20));
    expect(waiting.outcome).toBe('pending');
    fixture.clock.advance(1);
    await until(() => waiting.outcome !== 'pending');
    expect(waiting.value).toMatchObject({ high_watermark: 0 });
    expect(waiting.value!.record_batches).toBeUndefined();
  });

  it('answers an HW move alone HW_ONLY_LINGER_MS later, so every follower learns it without new records', async () => {
    const session = new ReplicaFetchSession();
    await answer(request({ fetch_offset: 6 }, { max_wait_ms: 500 }), session);
    const waiting = track(answer(request({ fetch_offset: 6 }, { max_wait_ms: 500 }), session));
    await new Promise((r) => setTimeout(r, 20));
    await answer(request({ fetch_offset: 6 }, { replica_id: 3 })); // broker 3 catches up: HW 0 → 6
    await new Promise((r) => setTimeout(r, 20));
    expect(waiting.outcome).toBe('pending');
    fixture.clock.advance(HW_ONLY_LINGER_MS);
    await until(() => waiting.outcome !== 'pending');
    expect(waiting.value!.high_watermark).toBe(6);
    expect(waiting.value!.record_batches).toBeUndefined();
  });

  it('an HW move waiting to be told goes with the next records at once', async () => {
    const session = new ReplicaFetchSession();
    await answer(request({ fetch_offset: 6 }, { max_wait_ms: 500 }), session);
    const waiting = track(answer(request({ fetch_offset: 6 }, { max_wait_ms: 500 }), session));
    await answer(request({ fetch_offset: 6 }, { replica_id: 3 })); // HW 0 → 6
    await new Promise((r) => setTimeout(r, 20));
    expect(waiting.outcome).toBe('pending');
    void fixture.partition.append(buildBatch(), { acks: 'leader' });
    await until(() => waiting.outcome !== 'pending');
    expect(waiting.value!.high_watermark).toBe(6);
    expect(batchHeaders(waiting.value!.record_batches as Buffer).map((h) => h.baseOffset)).toEqual([6]);
  });
});

describe('replication from memory', () => {
  it('answers a parked fetch with the append before the leader has written it, the offsets as assigned', async () => {
    const session = new ReplicaFetchSession();
    await answer(request({ fetch_offset: 6 }, { max_wait_ms: 500 }), session);
    const waiting = track(answer(request({ fetch_offset: 6 }, { max_wait_ms: 500 }), session));
    await new Promise((r) => setTimeout(r, 20));
    const appended = track(fixture.partition.append(buildBatch({ records: 2 }), { acks: 'leader' }));
    // Let only microtasks run: the leader's write (and fsync) needs I/O callbacks, the answer does not.
    for (let i = 0; i < 100 && waiting.outcome === 'pending'; i++) await Promise.resolve();
    expect(waiting.outcome).toBe('resolved');
    expect(appended.outcome).toBe('pending');
    expect(fixture.partition.leaderLogEndOffset).toBe(6);
    const headers = batchHeaders(waiting.value!.record_batches as Buffer);
    expect(headers.map((h) => [h.baseOffset, h.partitionLeaderEpoch])).toEqual([[6, 5]]);
    await until(() => appended.outcome === 'resolved', 'the leader append');
  });

  it('the HW counts the leader only once its own append is durable, even when both followers are ahead', async () => {
    await answer(request({ fetch_offset: 6 }, { replica_id: 3 }));
    await answer(request({ fetch_offset: 6 }));
    expect(fixture.partition.highWatermark).toBe(6);
    const appended = track(fixture.partition.append(buildBatch({ records: 2 }), { acks: 'all' }));
    // Both followers got [6, 8) from memory and report it before the leader's write completes.
    const followerA = await answer(request({ fetch_offset: 6 }));
    expect(batchHeaders(followerA.record_batches as Buffer).map((h) => h.baseOffset)).toEqual([6]);
    await answer(request({ fetch_offset: 8 }, { replica_id: 3 }));
    await answer(request({ fetch_offset: 8 }));
    expect(fixture.partition.leaderLogEndOffset).toBe(6);
    expect(fixture.partition.highWatermark).toBe(6);
    expect(appended.outcome).toBe('pending');
    await until(() => appended.outcome !== 'pending', 'the acks=all append');
    expect(appended.outcome).toBe('resolved');
    expect(fixture.partition.highWatermark).toBe(8);
  });

  it('serves a follower behind the tail from the log, and the same bytes either way', async () => {
    await fixture.partition.append(buildBatch({ records: 3 }), { acks: 'leader' });
    const fromMemory = await answer(request({ fetch_offset: 6 }));
    const fromLog = await answer(request({ fetch_offset: 4 }));
    const all = fromLog.record_batches as Buffer;
    const memory = fromMemory.record_batches as Buffer;
    expect(all.subarray(all.length - memory.length)).toEqual(memory);
    expect(batchHeaders(all).map((h) => h.baseOffset)).toEqual([4, 5, 6]);
  });
});

describe('reassignment throttle', () => {
  // Broker 4 is being added by a move (not in the ISR yet); broker 3 is out of sync but was always
  // a replica; broker 2 is in sync. The bucket holds 1 byte: each grant reads one batch, then debt.
  let served: number[];
  beforeEach(async () => {
    served = [];
    deps.throttle = new ReassignmentThrottle({
      bytesPerSecond: 1_000,
      clock: fixture.clock,
      addingReplicas: (t, p) => (t === 'orders' && p === 0 ? [4] : undefined),
      onServed: (bytes) => served.push(bytes),
      burstBytes: 1,
    });
    await fixture.partition.makeLeader(state({ leaderEpoch: 6, replicas: [1, 2, 3, 4], isr: [1, 2] }), 2);
  });
  const from = (replica: number, fetchOffset = 0, maxWaitMs = 0) =>
    request(
      { fetch_offset: fetchOffset, current_leader_epoch: 6, last_fetched_epoch: -1 },
      { replica_id: replica, max_wait_ms: maxWaitMs },
    );
  const offsets = (a: ReplicaFetchPartitionResponse__Input) =>
    a.record_batches ? batchHeaders(a.record_batches as Buffer).map((h) => h.baseOffset) : [];

  it('limits the replica a move adds, and answers it without records while the bucket is empty', async () => {
    const first = await answer(from(4));
    expect(offsets(first)).toEqual([0]); // one batch for the 1-byte grant; the bucket is in debt
    expect(served).toEqual([(first.record_batches as Buffer).length]);
    const held = await answer(from(4, 1));
    expect(held.error_code).toBeUndefined();
    expect(held.record_batches).toBeUndefined();
    expect(held.leader_log_end_offset).toBe(6);
    fixture.clock.advance(1_000);
    expect(offsets(await answer(from(4, 1)))).toEqual([1]);
  });

  it('never limits an ISR member or an out-of-sync replica that is not being added', async () => {
    await answer(from(4)); // empties the bucket
    expect(offsets(await answer(from(2)))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(offsets(await answer(from(3)))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(served).toHaveLength(1);
  });

  it('stops limiting the added replica once it is in the ISR', async () => {
    await answer(from(4));
    await fixture.partition.makeLeader(
      state({ leaderEpoch: 6, partitionEpoch: 4, replicas: [1, 2, 3, 4], isr: [1, 2, 4] }),
      2,
    );
    expect(fixture.partition.isr).toEqual([1, 2, 4]);
    expect(offsets(await answer(from(4, 1)))).toEqual([1, 2, 3, 4, 5]);
  });

  it('a held long poll answers when the bucket refills, before max_wait_ms', async () => {
    const session = new ReplicaFetchSession();
    await answer(from(4), session);
    const waiting = track(answer(from(4, 1, 5_000), session));
    await new Promise((r) => setTimeout(r, 20));
    expect(waiting.outcome).toBe('pending');
    fixture.clock.advance(1_000);
    await until(() => waiting.outcome !== 'pending', 'the held fetch to be answered');
    expect(offsets(waiting.value!)).toEqual([1]);
  });
});
