/**
 * DeleteRecords on two real logs with the real leader and fetcher code (in-process transport):
 * the leader moves its log start, the follower follows the log start the fetch answer carries,
 * and the request completes once the low watermark (the smallest log start over the leader and
 * the in-sync followers) reaches the offset.
 */
import { TempDirs, testConfig } from '../log/helpers';
import { ReplicaSet, eventually } from './replica-harness';

const dirs = new TempDirs();
let set: ReplicaSet;

afterEach(async () => {
  await set.closeAll();
  await dirs.cleanup();
});

async function twoReplicas() {
  set = new ReplicaSet(dirs, undefined, testConfig({ segmentBytes: 512 }));
  const a = await set.add(1);
  const b = await set.add(2);
  a.fetchers.setBrokers([1, 2].map((id) => ({ id, host: `broker-${id}`, port: 1 })));
  await a.lead(0, [1, 2]);
  b.follow(1, 0, [1, 2]);
  for (let i = 0; i < 30; i++) await a.produce(`m${i}`, 'all');
  return { a, b };
}

it('the leader moves its log start, the follower follows, the answer is the low watermark', async () => {
  const { a, b } = await twoReplicas();
  expect(a.partition.highWatermark).toBe(30);

  expect(await a.partition.deleteRecords(12, 5_000)).toBe(12);
  expect(a.log.logStartOffset).toBe(12);
  // The low watermark counts the follower's start as its fetch reported it: it has moved already.
  expect(b.log.logStartOffset).toBe(12);
  await expect(a.partition.read(11, 1000)).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
  expect((await b.records())[0].offset).toBeLessThanOrEqual(12);

  expect(await a.partition.deleteRecords(-1, 5_000)).toBe(30);
  expect(b.log.logStartOffset).toBe(30);
  // Below the current start: nothing moves, the low watermark is already there.
  expect(await a.partition.deleteRecords(5, 5_000)).toBe(30);
});

it('refuses offsets above the high watermark and calls on a follower', async () => {
  const { a, b } = await twoReplicas();
  await expect(a.partition.deleteRecords(31, 1_000)).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
  await expect(a.partition.deleteRecords(-2, 1_000)).rejects.toMatchObject({ code: 'OFFSET_OUT_OF_RANGE' });
  await expect(b.partition.deleteRecords(3, 1_000)).rejects.toMatchObject({ code: 'NOT_LEADER' });
  expect(a.log.logStartOffset).toBe(0);
});

it('times out when an in-sync follower does not fetch; it catches up on the log start later', async () => {
  const { a, b } = await twoReplicas();
  await eventually(() => b.partition.highWatermark === 30, 'the follower to learn the HW');
  b.pauseFetching();
  await expect(a.partition.deleteRecords(20, 200)).rejects.toMatchObject({ code: 'REQUEST_TIMED_OUT' });
  expect(a.log.logStartOffset).toBe(20); // the leader's records are gone all the same
  expect(b.log.logStartOffset).toBe(0);
  b.follow(1, 0, [1, 2]);
  await eventually(() => b.log.logStartOffset === 20, 'the follower to follow the log start');
  // The leader hears of it with the follower's next fetch.
  await eventually(() => a.partition.lowWatermark() === 20, 'the low watermark to reach 20');
});

it('a restarted follower keeps the log start it followed', async () => {
  const { a, b } = await twoReplicas();
  await a.partition.deleteRecords(25, 5_000);
  await b.restart();
  expect(b.log.logStartOffset).toBe(25);
});
