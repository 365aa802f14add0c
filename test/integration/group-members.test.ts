/**
 * Consumer group members as real processes against a real `tide dev` (its in-process coordinator):
 * - 3 members, 6 partitions, records flowing: no partition ever has two owners (checker over every
 *   assignment event), a SIGKILLed member's partitions move within the session timeout while the
 *   others keep theirs without pause, and no record is skipped (at-least-once);
 * - a static member restarted within the session timeout (graceful stop, then a crash) gets its
 *   partitions back: no rebalance (same generation, nobody else hears anything).
 */
import { Tide } from '../../client';
import { makeTempDir, startTide, waitFor, type TideProcess } from '../harness/processes';
import {
  killAll,
  longestGapMs,
  ownershipViolations,
  produceSteadily,
  skipped,
  startMember,
  waitForBalanced,
  type MemberProcess,
} from './group-harness';

jest.setTimeout(90_000);

let node: TideProcess;
let tide: Tide;

beforeAll(async () => {
  node = await startTide(['dev', '--data', makeTempDir(), '--port', '0']);
  tide = new Tide({ bootstrap: [node.address] });
});

afterAll(async () => {
  await killAll();
  await tide?.close();
  await node?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function consumedThrough(members: MemberProcess[], ends: number[]): Promise<void> {
  await waitFor(
    () =>
      ends.every((end, p) => {
        const seen = new Set(
          members.flatMap((m) =>
            m
              .records()
              .filter((e) => e.p === p)
              .map((e) => e.o),
          ),
        );
        return end === 0 || seen.has(end - 1);
      }),
    { timeoutMs: 20_000, what: 'every produced record to be consumed' },
  );
}

it("3 members, 6 partitions: one owner at every instant; a killed member's partitions move within the session timeout, the others never pause; nothing skipped", async () => {
  const SESSION_MS = 3_000;
  await tide.admin().createTopic('events', { partitions: 6 });
  const producer = tide.producer({ lingerMs: 0 });
  const load = produceSteadily(producer, 'events', 6, 25);
  const start = (tag: string) =>
    startMember({
      bootstrap: node.address,
      group: 'g-events',
      topic: 'events',
      tag,
      sessionTimeoutMs: SESSION_MS,
    });

  // Members join one by one while records flow: each join moves partitions incrementally.
  const a = start('a');
  await waitForBalanced([a], 6);
  const b = start('b');
  await waitForBalanced([a, b], 6, { minEach: 3 });
  const c = start('c');
  const members = [a, b, c];
  await waitForBalanced(members, 6, { minEach: 2 });
  await sleep(1_000);

  const survivors = { a: a.owned(), c: c.owned() };
  const lostPartitions = b.owned();
  const killedAt = await b.kill('SIGKILL');
  await waitFor(() => a.owned().length + c.owned().length === 6, {
    timeoutMs: SESSION_MS + 5_000,
    what: "b's partitions to move",
  });
  const movedMs = Date.now() - killedAt;
  expect(movedMs).toBeLessThan(SESSION_MS + 1_500);
  // The survivors kept their partitions (never revoked) and kept consuming them through the move.
  for (const m of [a, c]) {
    expect(m.events.filter((e) => (e.ev === 'revoked' || e.ev === 'lost') && e.t > killedAt)).toEqual([]);
    for (const p of survivors[m.tag as 'a' | 'c']) {
      expect(m.owned()).toContain(p);
      expect(longestGapMs(m, p, killedAt, killedAt + movedMs)).toBeLessThan(1_000);
    }
  }
  expect([...a.owned(), ...c.owned()].sort()).toEqual([0, 1, 2, 3, 4, 5]);
  expect(lostPartitions.every((p) => a.owned().includes(p) || c.owned().includes(p))).toBe(true);

  await sleep(500);
  const ends = await load.stop();
  await consumedThrough([a, c], ends);
  expect(ownershipViolations(members)).toEqual([]);
  for (let p = 0; p < 6; p++) expect(skipped(members, p, ends[p])).toEqual([]);
  process.stdout.write(`member killed: its ${lostPartitions.length} partitions moved in ${movedMs} ms\n`);
  await Promise.all([a.kill('SIGTERM'), c.kill('SIGTERM')]);
});

it('a static member restarted within the session timeout gets its partitions back: no rebalance', async () => {
  const SESSION_MS = 8_000;
  await tide.admin().createTopic('static', { partitions: 6 });
  const load = produceSteadily(tide.producer({ lingerMs: 0 }), 'static', 6, 50);
  const start = (i: number, tag = `s${i}`) =>
    startMember({
      bootstrap: node.address,
      group: 'g-static',
      topic: 'static',
      tag,
      instanceId: `pod-${i}`,
      sessionTimeoutMs: SESSION_MS,
    });
  const [s0, s1, s2] = [start(0), start(1), start(2)];
  await waitForBalanced([s0, s1, s2], 6, { minEach: 2 });
  await sleep(500);
  const generation = (await tide.groups().describeGroup('g-static')).generation;
  const others = [s0, s2];
  const since = Date.now();
  const had = s1.owned();

  // A graceful restart (SIGTERM: commit, temporary leave), then a crash restart (SIGKILL).
  await s1.kill('SIGTERM');
  const s1b = start(1, 's1b');
  await waitFor(() => s1b.owned().join() === had.join(), {
    timeoutMs: 5_000,
    what: 's1b to get pod-1 partitions',
  });
  await s1b.kill('SIGKILL');
  const s1c = start(1, 's1c');
  await waitFor(() => s1c.owned().join() === had.join(), {
    timeoutMs: 5_000,
    what: 's1c to get pod-1 partitions',
  });

  const described = await tide.groups().describeGroup('g-static');
  expect(described.generation).toBe(generation);
  expect(described.members.map((m) => m.instanceId).sort()).toEqual(['pod-0', 'pod-1', 'pod-2']);
  // The other members heard nothing: no assignment, no revocation.
  for (const m of others) expect(m.events.filter((e) => e.t >= since && e.ev !== 'record')).toEqual([]);

  const ends = await load.stop();
  const all = [s0, s1, s2, s1b, s1c];
  await consumedThrough([s0, s2, s1c], ends);
  expect(ownershipViolations(all)).toEqual([]);
  for (let p = 0; p < 6; p++) expect(skipped(all, p, ends[p])).toEqual([]);
  await Promise.all([s0, s2, s1c].map((m) => m.kill('SIGTERM')));
});
