/**
 * The streams runtime against real processes: real etcd, a controller, a broker and a group
 * coordinator (test/harness), and the word count running in child processes (streams-harness.ts).
 *
 * 1. Two instances, a 4-partition input: every line is processed and the counts are exact.
 * 2. SIGKILL of one instance while lines flow: the survivor takes over its tasks (after the
 *    session timeout), restores their stores from the changelogs, and every count ends at least
 *    at the exact value (at-least-once may count lines processed after the dead one's last commit
 *    twice; it never loses one).
 * 3. The survivor closes (commit + checkpoint) and starts again on its state directory: its LMDB
 *    stores restore from the checkpoint, reading (almost) nothing of the changelogs.
 */
import { waitFor } from '../harness/processes';
import { type AppProcess } from './streams-harness';
import { WordCountFixture } from './streams-word-count';

jest.setTimeout(150_000);

const APP = 'wc';
const WORDS = Array.from({ length: 40 }, (_, i) => `w${i}`);
const wc = new WordCountFixture({
  appId: APP,
  stateDirPrefix: 'tide-streams-',
  // Lines of 5 words each, cycling through WORDS.
  wordsOfLine: (line) => Array.from({ length: 5 }, (_, j) => WORDS[(line * 7 + j * 3) % WORDS.length]!),
  sessionTimeoutMs: 6_000,
});

beforeAll(() => wc.start());
afterAll(() => wc.stop());

const start = (tag: string) => wc.startApp(tag);

async function changelogRecords(): Promise<number> {
  const d = await wc.tide.admin().describeTopic(`${APP}-counts-changelog`);
  return d.status.reduce((n, s) => n + s.highWatermark, 0);
}

const apps: Record<string, AppProcess> = {};

it('two instances share the tasks and count every word exactly', async () => {
  apps.a = start('a');
  apps.b = start('b');
  await waitFor(() => apps.a.tasks().length > 0 && apps.b.tasks().length > 0, {
    timeoutMs: 30_000,
    what: `tasks on both instances (a: ${apps.a.tasks()}, b: ${apps.b.tasks()})`,
  });
  await wc.produce(1_000);
  await waitFor(() => wc.exact(), { timeoutMs: 40_000, what: 'exact counts after 1000 lines' });
  // 2 subtopologies x 4 partitions, each task on exactly one instance. A stateful task moves to
  // the instance that joined second only once its warm-up copy caught up: wait for that.
  const layout = () => [...apps.a.tasks(), ...apps.b.tasks()].sort().join();
  await waitFor(
    () =>
      layout() === '0_0,0_1,0_2,0_3,1_0,1_1,1_2,1_3' &&
      apps.a.tasks().some((t) => t.startsWith('1_')) &&
      apps.b.tasks().some((t) => t.startsWith('1_')),
    { timeoutMs: 30_000, what: `each task on one instance, stateful ones on both (${layout()})` },
  );
  expect(apps.a.errors().concat(apps.b.errors())).toEqual([]);
});

it('SIGKILL of one instance mid-stream: the survivor restores its tasks and no count is lost', async () => {
  const bTasks = apps.b.tasks();
  expect(bTasks.length).toBeGreaterThan(0);
  const sending = (async () => {
    for (let i = 0; i < 10; i++) {
      await wc.produce(100);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  await new Promise((r) => setTimeout(r, 400));
  await apps.b.stop('SIGKILL');
  await sending;
  await waitFor(() => apps.a.tasks().length === 8, {
    timeoutMs: 40_000,
    what: `a takes over every task (has ${apps.a.tasks()})`,
  });
  await waitFor(() => wc.atLeastExact(), {
    timeoutMs: 40_000,
    what: 'every count at least exact',
  });
  // The counts store's tasks that moved were restored from the changelog.
  const restoredMoved = apps.a
    .restores()
    .filter((e) => e.store === 'counts' && bTasks.includes(e.task!) && (e.total ?? 0) > 0);
  expect(restoredMoved.length).toBeGreaterThan(0);
  expect(restoredMoved.every((e) => e.restored === e.total)).toBe(true);
  for (const [w, n] of wc.expected) expect(wc.latest.get(w)).toBeGreaterThanOrEqual(n);
  expect(apps.a.errors()).toEqual([]);
});

it('a restart on the same state directory restores from the checkpoint, not from zero', async () => {
  await apps.a.stop('SIGTERM');
  expect(apps.a.events.some((e) => e.ev === 'closed')).toBe(true);
  const inChangelog = await changelogRecords();
  expect(inChangelog).toBeGreaterThan(1_000);
  apps.a2 = start('a');
  await waitFor(() => apps.a2.tasks().length === 8 && apps.a2.settled(), {
    timeoutMs: 40_000,
    what: 'a restarted with 8 tasks, restored',
  });
  const restores = apps.a2.restores().filter((e) => e.store === 'counts');
  expect(restores.length).toBe(4);
  const restored = restores.reduce((n, e) => n + (e.restored ?? 0), 0);
  // Closed cleanly: the checkpoints are at the changelogs' ends.
  expect(restored).toBeLessThan(inChangelog / 100);
  // And it still counts on from the restored state.
  const before = new Map(wc.latest);
  await wc.produce(200);
  await waitFor(() => wc.atLeastExact(), {
    timeoutMs: 30_000,
    what: 'counts after the restart',
  });
  for (const [w, n] of before) expect(wc.latest.get(w)).toBeGreaterThanOrEqual(n);
  expect(apps.a2.errors()).toEqual([]);
});
