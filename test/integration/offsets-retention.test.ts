/**
 * Offsets retention on a real `tide dev` (retention 2 s, checked every 200 ms): a group whose last
 * member left loses its committed offsets retention after that and disappears from the listing; a
 * group with a member keeps them however old; an administrative commit to a group that never had
 * members expires by its commit time; and the expiry survives a restart (tombstones in
 * __consumer_offsets).
 */
import * as fs from 'fs';
import { Tide } from '../../client';
import { makeTempDir, startTide, waitFor, type TideProcess } from '../harness/processes';

jest.setTimeout(90_000);

const RETENTION_MS = 2_000;
const ENV = {
  TIDE_OFFSETS_RETENTION_MS: String(RETENTION_MS),
  TIDE_OFFSETS_RETENTION_CHECK_INTERVAL_MS: '200',
};

let dataDir: string;
let node: TideProcess;
let tide: Tide;

beforeAll(async () => {
  dataDir = makeTempDir();
  node = await startTide(['dev', '--data', dataDir, '--port', '0'], { env: ENV });
  tide = new Tide({ bootstrap: [node.address] });
  await tide.admin().createTopic('events', { partitions: 2 });
  const producer = tide.producer();
  for (let p = 0; p < 2; p++)
    await producer.send(
      'events',
      Array.from({ length: 5 }, (_, i) => ({ value: `p${p}-${i}`, partition: p })),
    );
  await producer.close();
});

afterAll(async () => {
  await tide?.close();
  await node?.stop('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** A member of `group` that reads all 10 records, commits, and stays (reading on) until closed. */
async function memberThatRead(group: string) {
  const member = tide.consumer({ groupId: group, autoOffsetReset: 'earliest' });
  member.subscribe(['events']);
  // Leaving the loop would leave the group: the loop runs until close().
  void (async () => {
    for await (const record of member) void record;
  })();
  await waitFor(
    async () => {
      const offsets = (await tide.groups().fetchOffsets(group)).map((o) => o.offset);
      return offsets.length === 2 && offsets.every((o) => o === 5);
    },
    { timeoutMs: 10_000, what: `${group} to commit both partitions` },
  );
  return member;
}

const groupIds = async () => (await tide.groups().listGroups()).map((g) => g.groupId);

it('an empty group expires; a group with a member keeps its offsets; both as a restart finds them', async () => {
  const leaving = await memberThatRead('leaving');
  const staying = await memberThatRead('staying');
  await leaving.close();
  const leftAt = Date.now();

  // Offsets stay for the retention, then go, and the group with them.
  await new Promise((r) => setTimeout(r, RETENTION_MS / 2));
  expect((await tide.groups().fetchOffsets('leaving')).map((o) => o.offset)).toEqual([5, 5]);
  await waitFor(async () => !(await groupIds()).includes('leaving'), {
    timeoutMs: 15_000,
    what: 'the empty group to expire',
  });
  expect(Date.now() - leftAt).toBeGreaterThanOrEqual(RETENTION_MS);
  expect((await tide.groups().fetchOffsets('leaving')).filter((o) => o.offset >= 0)).toEqual([]);

  // The live group was committed to longer ago than the retention: it keeps everything.
  expect(await groupIds()).toContain('staying');
  expect((await tide.groups().fetchOffsets('staying')).map((o) => o.offset)).toEqual([5, 5]);

  // An administrative commit to a group that never had members expires by its commit time.
  await tide.groups().commitOffsets('admin-only', [{ topic: 'events', partition: 0, offset: 3 }]);
  expect((await tide.groups().fetchOffsets('admin-only')).map((o) => o.offset)).toEqual([3]);
  await waitFor(async () => !(await groupIds()).includes('admin-only'), {
    timeoutMs: 15_000,
    what: 'the commit-only group to expire',
  });
  expect((await tide.groups().fetchOffsets('staying')).map((o) => o.offset)).toEqual([5, 5]);

  // Tombstones: a restarted tide dev (retention off, so nothing expires after it) rebuilds the
  // groups without them. The live group leaves just before, well within its retention.
  await staying.close();
  await tide.close();
  await node.stop('SIGKILL');
  node = await startTide(['dev', '--data', dataDir, '--port', '0'], {
    env: { ...ENV, TIDE_OFFSETS_RETENTION_MS: '-1' },
  });
  tide = new Tide({ bootstrap: [node.address] });
  expect((await tide.groups().fetchOffsets('leaving')).filter((o) => o.offset >= 0)).toEqual([]);
  expect((await tide.groups().fetchOffsets('admin-only')).filter((o) => o.offset >= 0)).toEqual([]);
  expect((await tide.groups().fetchOffsets('staying')).map((o) => o.offset)).toEqual([5, 5]);
});
