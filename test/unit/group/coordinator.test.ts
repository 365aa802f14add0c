/**
 * The coordinator over an in-memory offsets log and a manual clock: shard loading (markers, replay,
 * answers while loading or not owning), durable-before-send (no assignment leaves before the
 * group's metadata is written), rebuild by another instance (members and offsets), zombie writes
 * of a deposed owner ignored on replay, a commit queued behind an offsets reset is fenced, and
 * session expiry on the coordinator's timer, offsets retention (expiry of empty groups' offsets,
 * the empty-since time kept across a rebuild). The lease-time fence (each shard held under a test
 * lease whose deadline the test sets): past the deadline nothing is written or acknowledged, and
 * writes work again under a renewed or new lease.
 */
import { ManualClock } from '../../../services/common/clock';
import { TideError } from '../../../services/common/errors';
import { silentLogger } from '../../../services/common/logger';
import type { MemberResponse__Input } from '../../../services/common/grpc/generated/tide/v1/MemberResponse';
import { Coordinator } from '../../../services/group-coordinator/coordinator';
import type { JoinRequest } from '../../../services/group-coordinator/group';
import type { MemberChannel } from '../../../services/group-coordinator/group-runtime';
import type {
  OffsetsLog,
  OffsetsLogRecord,
  PartitionOffsets,
} from '../../../services/group-coordinator/offsets-log';
import { tpKey } from '../../../services/group-coordinator/partitions';
import type { AcquiredShard } from '../../../services/group-coordinator/shard-ownership';
import { partitionOfShard, shardOf } from '../../../services/common/cluster/coordinator-shards';
import { TestLease } from './test-lease';

const SHARDS = 4;
const GROUP = 'billing';
const SHARD = shardOf(GROUP, SHARDS);

class MemoryLog implements OffsetsLog, PartitionOffsets {
  readonly partitions = new Map<number, OffsetsLogRecord[]>();
  private held?: (() => void)[];

  hold(): void {
    this.held = [];
  }

  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const go of held) go();
  }

  async append(partition: number, records: OffsetsLogRecord[]): Promise<number> {
    if (this.held) await new Promise<void>((resolve) => this.held!.push(resolve));
    let list = this.partitions.get(partition);
    if (!list) this.partitions.set(partition, (list = []));
    list.push(...records);
    return list.length - 1;
  }

  async replay(
    partition: number,
    through: number,
    onRecord: (k: Buffer, v: Buffer | null, o: number) => void,
  ) {
    (this.partitions.get(partition) ?? [])
      .slice(0, through + 1)
      .forEach((r, i) => onRecord(r.key, r.value, i));
  }

  async bounds() {
    return { logStartOffset: 0, highWatermark: 100 };
  }

  async offsetForTime() {
    return 40;
  }
}

class FakeChannel implements MemberChannel {
  readonly sent: MemberResponse__Input[] = [];
  error?: TideError;
  send(message: MemberResponse__Input): void {
    this.sent.push(message);
  }
  fail(error: TideError): void {
    this.error = error;
  }
  assignments() {
    return this.sent.filter((m) => m.assignment).map((m) => m.assignment!);
  }
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

const LEASE_TTL_MS = 60_000;

/** A shard as ShardOwnership hands it over: taken at `epoch` under `lease`. */
function held(shard: number, epoch: number, lease = new TestLease(clock, LEASE_TTL_MS)): AcquiredShard {
  return { shard, epoch, fence: lease.fence };
}

function join(overrides: Partial<JoinRequest> = {}): JoinRequest {
  return {
    memberId: '',
    memberEpoch: 0,
    instanceId: '',
    clientId: 'c',
    clientHost: 'h',
    topics: ['t'],
    sessionTimeoutMs: 3_000,
    rebalanceTimeoutMs: 5_000,
    assignor: '',
    owned: [],
    ...overrides,
  };
}

let clock: ManualClock;
let log: MemoryLog;
let ids = 0;

function coordinator(selfId: string, retentionCheckIntervalMs = 100 * RETENTION_MS): Coordinator {
  const c = new Coordinator({
    selfId,
    clock,
    logger: silentLogger(),
    log,
    offsets: log,
    offsetsPartitions: 2,
    shardCount: () => SHARDS,
    partitionCount: (topic) => (topic === 't' ? 2 : undefined),
    newMemberId: () => `m${++ids}`,
    offsetsRetentionMs: RETENTION_MS,
    // Far apart unless a test asks: the tests call expireOffsets() themselves.
    offsetsRetentionCheckIntervalMs: retentionCheckIntervalMs,
  });
  c.start();
  return c;
}

// Well within the test leases (LEASE_TTL_MS): a shard past its lease acts for nobody.
const RETENTION_MS = 20_000;

async function code(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (err) {
    return (err as TideError).code;
  }
  return 'none';
}

beforeEach(() => {
  clock = new ManualClock();
  log = new MemoryLog();
});

it('serves a shard only once it is loaded; other shards answer NOT_COORDINATOR', async () => {
  const a = coordinator('a');
  expect(await code(() => a.runtime(GROUP, true))).toBe('NOT_COORDINATOR');
  log.hold();
  a.acquire([held(SHARD, 5)]);
  expect(await code(() => a.runtime(GROUP, true))).toBe('COORDINATOR_NOT_AVAILABLE');
  log.release();
  await flush();
  expect(a.runtime(GROUP, true).groupId).toBe(GROUP);
  expect(await code(() => a.runtime('no-such', false))).toMatch(/NOT_COORDINATOR|GROUP_ID_NOT_FOUND/);
  // The load wrote the shard marker first.
  const partition = SHARD % 2;
  expect(log.partitions.get(partition)!.length).toBe(1);
});

it('an assignment leaves only after the group metadata is durable', async () => {
  const a = coordinator('a');
  a.acquire([held(SHARD, 5)]);
  await flush();
  log.hold();
  const channel = new FakeChannel();
  a.runtime(GROUP, true).join(join(), channel);
  expect(channel.sent.map((m) => Object.keys(m)[0])).toEqual(['joined']);
  await flush();
  expect(channel.assignments()).toEqual([]);
  log.release();
  await flush();
  expect(channel.assignments()).toHaveLength(1);
  expect(channel.assignments()[0].partitions).toEqual([{ topic: 't', partitions: [0, 1] }]);
});

it('another instance taking the shard rebuilds members and offsets; a deposed owner’s late writes are ignored', async () => {
  const a = coordinator('a');
  a.acquire([held(SHARD, 5)]);
  await flush();
  const channel = new FakeChannel();
  const rt = a.runtime(GROUP, true);
  const memberId = rt.join(join(), channel);
  await flush();
  const epoch = channel.assignments()[0].member_epoch!;
  await rt.commit(memberId, epoch, [{ key: tpKey('t', 0), offset: 10, metadata: 'x' }]);

  // b takes the shard (a's lease lapsed, but a does not know yet).
  const b = coordinator('b');
  b.acquire([held(SHARD, 9)]);
  await flush();
  const restored = b.runtime(GROUP, false);
  expect(restored.group.offsets.get(tpKey('t', 0))?.offset).toBe(10);
  expect(restored.group.describeMembers().map((m) => [m.memberId, m.owned.length, m.connected])).toEqual([
    [memberId, 2, false],
  ]);
  // The member reconnects to b and continues with what it had: no rebalance.
  const again = new FakeChannel();
  restored.join(join({ memberId, memberEpoch: epoch, owned: [tpKey('t', 0), tpKey('t', 1)] }), again);
  await flush();
  expect(again.assignments()[0].partitions).toEqual([{ topic: 't', partitions: [0, 1] }]);
  await restored.commit(memberId, epoch, [{ key: tpKey('t', 0), offset: 12, metadata: '' }]);

  // a, a zombie whose fence still passes (a write sent before its lease could expire and delayed in
  // flight past the takeover behaves alike), writes a commit after b's marker.
  await rt.commit(memberId, epoch, [{ key: tpKey('t', 0), offset: 99, metadata: 'zombie' }]);

  const c = coordinator('c');
  c.acquire([held(SHARD, 12)]);
  await flush();
  expect(c.runtime(GROUP, false).group.offsets.get(tpKey('t', 0))?.offset).toBe(12);
});

it('a commit queued behind an offsets reset is checked against the reset’s fence', async () => {
  const a = coordinator('a');
  a.acquire([held(SHARD, 5)]);
  await flush();
  const channel = new FakeChannel();
  const rt = a.runtime(GROUP, true);
  const memberId = rt.join(join(), channel);
  await flush();
  const epoch = channel.assignments()[0].member_epoch!;

  log.hold();
  const reset = a.resetOffsets(GROUP, [tpKey('t', 0), tpKey('t', 1)], { to: 'earliest' }, false);
  await flush();
  const stale = rt.commit(memberId, epoch, [{ key: tpKey('t', 0), offset: 50, metadata: '' }]);
  log.release();
  await flush();
  log.release();
  const result = await reset;
  expect(result.applied).toBe(true);
  expect(await code(() => stale)).toBe('FENCED_MEMBER_EPOCH');
  expect(rt.group.offsets.get(tpKey('t', 0))?.offset).toBe(0);
  // The member was told to fetch its offsets again, with the new epoch.
  await flush();
  const last = channel.assignments().pop()!;
  expect(last.refetch_offsets).toBe(true);
  expect(last.member_epoch).toBe(result.generation);
  // A dry run changes nothing.
  const dry = await a.resetOffsets(GROUP, [tpKey('t', 0)], { to: 'timestamp', timestampMs: 1 }, true);
  expect(dry).toMatchObject({
    applied: false,
    plan: [{ topic: 't', partition: 0, currentOffset: 0, newOffset: 40 }],
  });
  expect(rt.group.offsets.get(tpKey('t', 0))?.offset).toBe(0);
});

it('shifts committed offsets by N, clamped, from the log start when nothing is committed', async () => {
  const a = coordinator('a');
  a.acquire([held(SHARD, 5)]);
  await flush();
  await a.resetOffsets(GROUP, [tpKey('t', 0)], { to: 'offset', offset: 10 }, false);
  const back = await a.resetOffsets(
    GROUP,
    [tpKey('t', 0), tpKey('t', 1)],
    { to: 'shift', shiftBy: -4 },
    true,
  );
  expect(back.plan).toEqual([
    { topic: 't', partition: 0, currentOffset: 10, newOffset: 6 },
    { topic: 't', partition: 1, currentOffset: -1, newOffset: 0 },
  ]);
  const ahead = await a.resetOffsets(GROUP, [tpKey('t', 0)], { to: 'shift', shiftBy: 500 }, false);
  expect(ahead.plan[0].newOffset).toBe(100); // the high watermark
  expect(a.runtime(GROUP, false).group.offsets.get(tpKey('t', 0))?.offset).toBe(100);
});

it('deletes a group without members (tombstones survive a rebuild); NON_EMPTY_GROUP with members', async () => {
  const a = coordinator('a');
  a.acquire([held(SHARD, 5)]);
  await flush();
  const rt = a.runtime(GROUP, true);
  const channel = new FakeChannel();
  const memberId = rt.join(join(), channel);
  await flush();
  const epoch = channel.assignments()[0].member_epoch!;
  await rt.commit(memberId, epoch, [{ key: tpKey('t', 0), offset: 7, metadata: '' }]);
  expect(await code(() => a.deleteGroup(GROUP))).toBe('NON_EMPTY_GROUP');
  rt.leave(memberId, false);
  await flush();
  expect(await a.deleteGroup(GROUP)).toEqual({ offsetsDeleted: 1 });
  expect(await code(async () => a.runtime(GROUP, false))).toBe('GROUP_ID_NOT_FOUND');
  expect(await code(() => a.deleteGroup(GROUP))).toBe('GROUP_ID_NOT_FOUND');

  const b = coordinator('b');
  b.acquire([held(SHARD, 6)]);
  await flush();
  expect(b.listGroups().map((g) => g.groupId)).not.toContain(GROUP);
  expect(b.fetchOffsets(GROUP, [tpKey('t', 0)])[0].committed).toBeUndefined();
});

describe('offsets retention', () => {
  /** A coordinator holding the group's shard at `epoch`, loaded. */
  async function owner(id: string, epoch: number, retentionCheckIntervalMs?: number) {
    const c = coordinator(id, retentionCheckIntervalMs);
    c.acquire([held(SHARD, epoch)]);
    await flush();
    return c;
  }

  /** Group records (key type 1) in the shard's partition of the log, oldest first. */
  const groupRecords = () =>
    log.partitions.get(partitionOfShard(SHARD, 2))!.filter((r) => r.key.readInt16BE(0) === 1);

  /** A member commits t-0 at 7 and leaves; answers the runtime. */
  async function groupThatEmptied(c: Coordinator) {
    const rt = c.runtime(GROUP, true);
    const channel = new FakeChannel();
    const memberId = rt.join(join(), channel);
    await flush();
    await rt.commit(memberId, channel.assignments()[0].member_epoch!, [
      { key: tpKey('t', 0), offset: 7, metadata: '' },
    ]);
    clock.advance(2_000); // within the member's 3 s session
    rt.leave(memberId, false);
    await flush();
    return rt;
  }

  it("expires an empty group's offsets retention after its last member left, then forgets the group", async () => {
    const a = await owner('a', 5);
    const rt = await groupThatEmptied(a);
    // The commit is 2 s older than the emptying: the emptying counts.
    clock.advance(RETENTION_MS - 1);
    expect(await a.expireOffsets()).toBe(0);
    expect(rt.group.offsets.size).toBe(1);
    clock.advance(1);
    expect(await a.expireOffsets()).toBe(1);
    clock.advance(1_000); // a coordinator tick forgets the dead group
    await flush();
    expect(await code(async () => a.runtime(GROUP, false))).toBe('GROUP_ID_NOT_FOUND');
    // Tombstones: a rebuild finds neither the group nor its offsets.
    const b = await owner('b', 6);
    expect(b.listGroups().map((g) => g.groupId)).not.toContain(GROUP);
    expect(b.fetchOffsets(GROUP, [tpKey('t', 0)])[0].committed).toBeUndefined();
  });

  it('with members, keeps the offsets of subscribed topics however old; the others expire (KIP-496)', async () => {
    const a = await owner('a', 5);
    const rt = a.runtime(GROUP, true);
    // Committed before anyone joined: a topic the members do not subscribe to.
    await rt.commit('', 0, [{ key: tpKey('old', 0), offset: 3, metadata: '' }]);
    const channel = new FakeChannel();
    const memberId = rt.join(join({ sessionTimeoutMs: 10 * RETENTION_MS }), channel);
    await flush();
    await rt.commit(memberId, channel.assignments()[0].member_epoch!, [
      { key: tpKey('t', 0), offset: 7, metadata: '' },
    ]);
    clock.advance(RETENTION_MS - 1);
    expect(await a.expireOffsets()).toBe(0);
    clock.advance(1);
    expect(await a.expireOffsets()).toBe(1);
    expect([...rt.group.offsets.keys()]).toEqual([tpKey('t', 0)]);
    clock.advance(RETENTION_MS);
    expect(await a.expireOffsets()).toBe(0);
    expect(rt.group.offsets.get(tpKey('t', 0))?.offset).toBe(7);
  });

  it('a group that never had members (commits only) expires each offset by its own commit time', async () => {
    const a = await owner('a', 5);
    const rt = a.runtime(GROUP, true);
    await rt.commit('', 0, [{ key: tpKey('t', 0), offset: 1, metadata: '' }]);
    clock.advance(RETENTION_MS / 2);
    await rt.commit('', 0, [{ key: tpKey('t', 1), offset: 2, metadata: '' }]);
    clock.advance(RETENTION_MS / 2);
    expect(await a.expireOffsets()).toBe(1);
    expect([...rt.group.offsets.keys()]).toEqual([tpKey('t', 1)]);
    // Only the offset went: a rebuild still has the other one.
    const b = await owner('b', 6);
    expect(b.fetchOffsets(GROUP, [tpKey('t', 0), tpKey('t', 1)]).map((o) => o.committed?.offset)).toEqual([
      undefined,
      2,
    ]);
  });

  it('the moment the group became empty survives a coordinator move', async () => {
    const a = await owner('a', 5);
    await groupThatEmptied(a);
    clock.advance(RETENTION_MS / 2);
    const b = await owner('b', 6);
    expect(b.runtime(GROUP, false).group.emptySinceMs).toBe(a.runtime(GROUP, false).group.emptySinceMs);
    clock.advance(RETENTION_MS / 2 - 1);
    expect(await b.expireOffsets()).toBe(0);
    clock.advance(1);
    expect(await b.expireOffsets()).toBe(1);
  });

  it('a group whose members came and went without committing loses its record too', async () => {
    const a = await owner('a', 5);
    const rt = a.runtime(GROUP, true);
    const channel = new FakeChannel();
    const memberId = rt.join(join(), channel);
    await flush();
    rt.leave(memberId, false);
    await flush();
    expect(groupRecords().at(-1)!.value).not.toBeNull();
    clock.advance(1_000); // a tick: the record's tombstone
    await flush();
    expect(groupRecords().at(-1)!.value).toBeNull();
    clock.advance(1_000); // the next: forgotten
    await flush();
    expect(await code(async () => a.runtime(GROUP, false))).toBe('GROUP_ID_NOT_FOUND');
    const b = await owner('b', 6);
    expect(b.listGroups().map((g) => g.groupId)).not.toContain(GROUP);
  });

  it("a coordinator that loads a dead group's record deletes it", async () => {
    const a = await owner('a', 5);
    const rt = a.runtime(GROUP, true);
    const channel = new FakeChannel();
    rt.leave(rt.join(join(), channel), false);
    await flush();
    // a stops before its tick; b takes the shard and loads the empty group's record.
    await a.stop();
    const b = await owner('b', 6);
    expect(b.loadedShards().map((s) => s.status)).toEqual(['active']);
    expect(groupRecords().at(-1)!.value).not.toBeNull();
    clock.advance(1_000);
    await flush();
    expect(groupRecords().at(-1)!.value).toBeNull();
  });

  it("runs on the coordinator's own timer", async () => {
    const a = await owner('a', 5, 1_000);
    const rt = await groupThatEmptied(a);
    clock.advance(RETENTION_MS + 1_000);
    await flush();
    await flush();
    expect(rt.group.offsets.size).toBe(0);
  });
});

it('expires a silent member on its session timeout; the survivor gets its partitions', async () => {
  const a = coordinator('a');
  a.acquire([held(SHARD, 5)]);
  await flush();
  const rt = a.runtime(GROUP, true);
  const first = new FakeChannel();
  const second = new FakeChannel();
  const m1 = rt.join(join(), first);
  await flush();
  const m2 = rt.join(join(), second);
  await flush();
  const revoke = first.sent.find((m) => m.revoke)!.revoke!;
  rt.revoked(
    m1,
    revoke.partitions!.flatMap((tp) => tp.partitions!.map((p) => tpKey(tp.topic!, p))),
  );
  await flush();
  expect(second.assignments().pop()!.partitions![0].partitions).toHaveLength(1);

  for (let i = 0; i < 29; i++) {
    clock.advance(100);
    rt.heartbeat(m2, 0, second);
  }
  await flush();
  expect(first.error).toBeUndefined();
  clock.advance(100);
  await flush();
  expect(first.error?.code).toBe('UNKNOWN_MEMBER_ID');
  expect(second.assignments().pop()!.partitions).toEqual([{ topic: 't', partitions: [0, 1] }]);
  expect(rt.group.hasMember(m1)).toBe(false);
});

it('the first commit of a memberless group survives a tick that runs while its write is in flight', async () => {
  const a = coordinator('a');
  a.acquire([held(SHARD, 5)]);
  await flush();
  log.hold();
  const commit = a.runtime(GROUP, true).commit('', 0, [{ key: tpKey('t', 0), offset: 42, metadata: '' }]);
  await flush();
  // The group has no members and nothing applied yet: it looks dead while the write waits.
  clock.advance(1_000);
  log.release();
  await commit;
  expect(a.fetchOffsets(GROUP, []).map((o) => [o.key, o.committed?.offset])).toEqual([[tpKey('t', 0), 42]]);
  a.stop();
});

describe('lease-time fence', () => {
  const T0 = tpKey('t', 0);
  const partition = SHARD % 2;
  const written = () => log.partitions.get(partition)?.length ?? 0;
  const commitT0 = (c: Coordinator, offset: number) =>
    c.runtime(GROUP, true).commit('', 0, [{ key: T0, offset, metadata: '' }]);

  it('past the lease deadline CommitOffsets is refused and nothing is written; a keep-alive answer lets it through again', async () => {
    const lease = new TestLease(clock, LEASE_TTL_MS);
    const a = coordinator('a');
    a.acquire([held(SHARD, 5, lease)]);
    await flush();
    const rt = a.runtime(GROUP, true);
    await commitT0(a, 10);
    clock.advance(lease.validUntilMs - clock.nowMs()); // at the deadline: still certainly alive
    await commitT0(a, 11);
    const before = written();

    clock.advance(1); // e.g. woken from SIGSTOP, before any timer noticed the lease is gone
    expect(await code(() => commitT0(a, 99))).toBe('NOT_COORDINATOR'); // the CommitOffsets path
    // A runtime handed out earlier (a request accepted before the deadline) writes nothing either.
    expect(await code(() => rt.commit('', 0, [{ key: T0, offset: 98, metadata: '' }]))).toBe(
      'NOT_COORDINATOR',
    );
    expect(await code(() => a.resetOffsets(GROUP, [T0], { to: 'latest' }, false))).toBe('NOT_COORDINATOR');
    expect(written()).toBe(before);
    expect(rt.group.offsets.get(T0)?.offset).toBe(11);

    lease.validUntilMs = clock.nowMs() + LEASE_TTL_MS; // a keep-alive answered: the lease was alive
    await commitT0(a, 12);
    expect(written()).toBe(before + 1);
    expect(a.fetchOffsets(GROUP, [T0])[0].committed?.offset).toBe(12);
    await a.stop();
  });

  it('past the lease deadline a join is refused and no group record is written nor assignment sent', async () => {
    const lease = new TestLease(clock, LEASE_TTL_MS);
    const a = coordinator('a');
    a.acquire([held(SHARD, 5, lease)]);
    await flush();
    const rt = a.runtime(GROUP, true);
    const before = written();
    clock.advance(LEASE_TTL_MS + 1);

    const channel = new FakeChannel();
    expect(await code(() => a.runtime(GROUP, true).join(join(), channel))).toBe('NOT_COORDINATOR');
    // Through a runtime handed out earlier the join applies in memory, but its group record is
    // never sent, so no assignment leaves (retried with backoff while the shard is held).
    rt.join(join(), channel);
    for (let i = 0; i < 5; i++) {
      clock.advance(1_000);
      await flush();
    }
    expect(written()).toBe(before);
    expect(channel.assignments()).toEqual([]);

    lease.validUntilMs = clock.nowMs() + LEASE_TTL_MS;
    clock.advance(2_000); // the next retry of the group record
    await flush();
    expect(written()).toBe(before + 1);
    expect(channel.assignments()).toHaveLength(1);
    await a.stop();
  });

  it('a commit whose write completes past the deadline is not acknowledged; after re-acquisition commits work again', async () => {
    const lease = new TestLease(clock, LEASE_TTL_MS);
    const a = coordinator('a');
    a.acquire([held(SHARD, 5, lease)]);
    await flush();
    const rt = a.runtime(GROUP, true);
    log.hold();
    const late = commitT0(a, 10);
    await flush();
    clock.advance(LEASE_TTL_MS + 1); // the append was in flight when the lease may have expired
    log.release();
    expect(await code(() => late)).toBe('NOT_COORDINATOR');
    // Not applied either: the write may sit behind a successor's marker.
    expect(rt.group.offsets.get(T0)).toBeUndefined();

    // The lease is found lost: ShardOwnership drops the shard (onRelease(shard, false)).
    lease.fence.lost(new Error('lease expired'));
    await a.release(SHARD, false);
    expect(await code(() => commitT0(a, 11))).toBe('NOT_COORDINATOR');

    // Taken again under a new lease: served again, its writes go through.
    a.acquire([held(SHARD, 9)]);
    await flush();
    const before = written();
    await commitT0(a, 12);
    expect(written()).toBe(before + 1);
    expect(a.fetchOffsets(GROUP, [T0])[0].committed?.offset).toBe(12);
    await a.stop();
  });

  it('a shard taken under a lease that may have expired writes no marker and is not served', async () => {
    const lease = new TestLease(clock, LEASE_TTL_MS);
    lease.validUntilMs = clock.nowMs() - 1;
    const a = coordinator('a');
    a.acquire([held(SHARD, 5, lease)]);
    await flush();
    expect(written()).toBe(0);
    expect(await code(() => a.runtime(GROUP, true))).toBe('NOT_COORDINATOR');
    await a.stop();
  });

  it('a shard handed over neither writes nor acknowledges anything once its grace period ended', async () => {
    const a = coordinator('a');
    a.acquire([held(SHARD, 5)]);
    await flush();
    const rt = a.runtime(GROUP, true);
    const before = written();
    log.hold();
    const inFlight = rt.commit('', 0, [{ key: T0, offset: 7, metadata: '' }]);
    await flush();
    const queued = rt.commit('', 0, [{ key: T0, offset: 8, metadata: '' }]);
    const handover = a.release(SHARD, true);
    clock.advance(5_000); // the grace period for queued writes ends: the shard key goes next
    await handover;
    log.release();
    // Either write would land after the new owner's marker: neither is acknowledged, the queued
    // one is not even sent.
    expect(await code(() => inFlight)).toBe('NOT_COORDINATOR');
    expect(await code(() => queued)).toBe('NOT_COORDINATOR');
    expect(written()).toBe(before + 1);
  });
});
