/**
 * The classic leader-change scenarios of KIP-101 and KIP-279, on two real logs with the real
 * fetcher and leader code (in-process transport). Truncation follows leader epochs only:
 *   1. a committed record that a follower had but whose HW it did not know yet survives a leader
 *      change (HW-based truncation would have lost it);
 *   2. a leader change with an uncommitted tail on the old leader: the old leader drops the tail
 *      and the logs converge on the new leader's;
 *   3. a rapid double leader change (A → B → A) where each side wrote an uncommitted record:
 *      the follower truncates to the common prefix and converges; and alternating leaders that
 *      each wrote alone, where the follower meets epochs it never saw and truncates round by round;
 *   4. a follower behind the leader's log start restarts at that offset.
 */
import { TempDirs, testConfig } from '../log/helpers';
import { ReplicaSet, eventually, type TestReplica } from './replica-harness';

const dirs = new TempDirs();
let set: ReplicaSet;

afterEach(async () => {
  await set.closeAll();
  await dirs.cleanup();
});

async function caughtUp(follower: TestReplica, leader: TestReplica): Promise<void> {
  await eventually(
    async () =>
      follower.log.logEndOffset === leader.log.logEndOffset &&
      (await follower.bytes()).equals(await leader.bytes()),
    `replica ${follower.id} to match replica ${leader.id}`,
  );
}

const values = async (r: TestReplica) => (await r.records()).map((x) => `${x.offset}:${x.value}`);

it('KIP-101 case 1: a committed record the follower holds survives the leader change (no HW truncation)', async () => {
  set = new ReplicaSet(dirs);
  const a = await set.add(1);
  const b = await set.add(2);
  a.fetchers.setBrokers([1, 2].map((id) => ({ id, host: `broker-${id}`, port: 1 })));
  await a.lead(0, [1, 2]);
  b.follow(1, 0);
  await a.produce('m1', 'all');
  await a.produce('m2', 'all'); // acknowledged: both replicas have it
  expect(b.log.logEndOffset).toBe(2);
  // A dies; B takes over at epoch 1 with whatever HW it knew (maybe 1): it truncates nothing.
  await a.crash();
  await b.lead(1, [2]);
  expect(await values(b)).toEqual(['0:m1', '1:m2']);
  // A comes back as follower: its last epoch 0 ends at 2 on B too, so nothing diverges.
  await a.start();
  a.follow(2, 1);
  await b.produce('m3');
  await caughtUp(a, b);
  expect(await values(a)).toEqual(['0:m1', '1:m2', '2:m3']);
  expect(a.log.epochEntries()).toEqual([
    { epoch: 0, startOffset: 0 },
    { epoch: 1, startOffset: 2 },
  ]);
});

it('KIP-101 case 2: the old leader drops its uncommitted tail and takes the new leader log', async () => {
  set = new ReplicaSet(dirs);
  const a = await set.add(1);
  const b = await set.add(2);
  a.fetchers.setBrokers([1, 2].map((id) => ({ id, host: `broker-${id}`, port: 1 })));
  await a.lead(0, [1, 2]);
  b.follow(1, 0);
  await a.produce('m1', 'all');
  b.pauseFetching();
  await a.produce('m2'); // acks=leader: only A has it
  // Both crash; B comes back first and leads epoch 1, writing m3 at offset 1.
  await a.crash();
  await b.restart();
  await b.lead(1, [2]);
  await b.produce('m3');
  // A comes back as follower: fetch offset 2, last epoch 0; B says epoch 0 ends at 1.
  await a.start();
  a.follow(2, 1);
  await caughtUp(a, b);
  expect(await values(a)).toEqual(['0:m1', '1:m3']);
  expect(a.log.epochEntries()).toEqual(b.log.epochEntries());
});

it('KIP-279: a rapid double leader change converges: one truncation by epoch, then the fetch', async () => {
  set = new ReplicaSet(dirs);
  const a = await set.add(1);
  const b = await set.add(2);
  a.fetchers.setBrokers([1, 2].map((id) => ({ id, host: `broker-${id}`, port: 1 })));
  await a.lead(0, [1, 2]);
  b.follow(1, 0);
  await a.produce('m1', 'all');
  b.pauseFetching();
  await a.produce('m2'); // A: m1 m2 (epoch 0)
  await a.crash();
  await b.lead(1, [2]);
  await b.produce('m3'); // B: m1 (epoch 0) m3 (epoch 1)
  await b.crash();
  await a.start();
  await a.lead(2, [1]);
  await a.produce('m4'); // A: m1 m2 (epoch 0) m4 (epoch 2)
  expect(await values(a)).toEqual(['0:m1', '1:m2', '2:m4']);
  await b.start();
  expect(await values(b)).toEqual(['0:m1', '1:m3']);
  // B asks with last epoch 1 at offset 2; A answers "epoch 0 ends at 2"; B's epoch 0 ends at 1:
  // truncate to 1, ask again with last epoch 0, then fetch m2 and m4.
  const truncations = jest.spyOn(b.partition, 'truncateOnDivergence');
  b.follow(1, 2);
  await caughtUp(b, a);
  expect(truncations.mock.calls.map((c) => c[1])).toEqual([{ epoch: 0, endOffset: 2 }]);
  expect(await values(b)).toEqual(['0:m1', '1:m2', '2:m4']);
  expect(b.log.epochEntries()).toEqual([
    { epoch: 0, startOffset: 0 },
    { epoch: 2, startOffset: 2 },
  ]);
});

it('alternating leaders that each wrote alone: the follower truncates round by round (epochs it does not know)', async () => {
  set = new ReplicaSet(dirs);
  const a = await set.add(1);
  const b = await set.add(2);
  a.fetchers.setBrokers([1, 2].map((id) => ({ id, host: `broker-${id}`, port: 1 })));
  await a.lead(0, [1, 2]);
  b.follow(1, 0);
  await a.produce('m1', 'all');
  await a.crash();
  await b.lead(1, [2]);
  await b.produce('m2'); // B: m1(e0) m2(e1)
  await b.crash();
  await a.start();
  await a.lead(2, [1]);
  await a.produce('m3'); // A: m1(e0) m3(e2)
  await a.crash();
  await b.start();
  await b.lead(3, [2]);
  await b.produce('m4'); // B: m1(e0) m2(e1) m4(e3)
  await a.start();
  await a.lead(4, [1]);
  await a.produce('m5'); // A: m1(e0) m3(e2) m5(e4)
  const truncations = jest.spyOn(b.partition, 'truncateOnDivergence');
  b.follow(1, 4);
  await caughtUp(b, a);
  // Round 1: A's largest epoch <= 3 is 2, ending at 2; B does not know epoch 2, so it cuts to the
  // end of its epoch 1 (offset 2). Round 2: last epoch 1; A's largest epoch <= 1 is 0, ending at 1.
  expect(truncations.mock.calls.map((c) => c[1])).toEqual([
    { epoch: 2, endOffset: 2 },
    { epoch: 0, endOffset: 1 },
  ]);
  expect(await values(b)).toEqual(['0:m1', '1:m3', '2:m5']);
  expect(b.log.epochEntries()).toEqual(a.log.epochEntries());
});

it('a follower behind the leader log start (retention) restarts at the leader log start', async () => {
  set = new ReplicaSet(dirs, undefined, testConfig({ segmentBytes: 1024, retentionBytes: 1024 }));
  const a = await set.add(1);
  const b = await set.add(2);
  a.fetchers.setBrokers([1, 2].map((id) => ({ id, host: `broker-${id}`, port: 1 })));
  await a.lead(0, [1]);
  for (let i = 0; i < 60; i++) await a.produce(`m${i}`);
  await a.log.applyRetention(Date.now());
  const start = a.log.logStartOffset;
  expect(start).toBeGreaterThan(0);
  b.follow(1, 0, [1]);
  await caughtUp(b, a);
  expect(b.log.logStartOffset).toBe(start);
  expect((await values(b))[0]).toBe(`${start}:m${start}`);
});
