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
import * as path from 'path';
import { Tide, type Consumer } from '../../client';
import { Serdes } from '../../streams';
import { TestCluster } from '../harness/cluster';
import { makeTempDir, waitFor } from '../harness/processes';
import { killAllApps, startApp, type AppProcess } from './streams-harness';

jest.setTimeout(150_000);

const APP = 'wc';
const SESSION_MS = 6_000;
const WORDS = Array.from({ length: 40 }, (_, i) => `w${i}`);

let cluster: TestCluster;
let tide: Tide;
let reader: Consumer;
const latest = new Map<string, number>();
const expected = new Map<string, number>();
let line = 0;
const stateRoot = makeTempDir('tide-streams-');

beforeAll(async () => {
  cluster = await TestCluster.start({ brokers: 1, controllers: 1 });
  await cluster.startCoordinator('c1');
  tide = new Tide({ bootstrap: cluster.bootstrap() });
  await tide.admin().createTopic('text', { partitions: 4, replicationFactor: 1 });
  await tide.admin().createTopic('word-counts', { partitions: 4, replicationFactor: 1 });
  reader = tide.consumer({ autoOffsetReset: 'earliest' });
  reader.assign([0, 1, 2, 3].map((partition) => ({ topic: 'word-counts', partition, offset: 0 })));
  void (async () => {
    for await (const r of reader) {
      latest.set(Serdes.string.deserialize(r.key!), Serdes.number.deserialize(r.value!));
    }
  })();
});

afterAll(async () => {
  await killAllApps();
  await tide?.close();
  await cluster?.stop();
});

/** Produces `n` lines of 5 words each (cycling through WORDS), keyed by line number. */
async function produce(n: number): Promise<void> {
  const producer = tide.producer();
  const records = [];
  for (let i = 0; i < n; i++, line++) {
    const words = Array.from({ length: 5 }, (_, j) => WORDS[(line * 7 + j * 3) % WORDS.length]);
    for (const w of words) expected.set(w, (expected.get(w) ?? 0) + 1);
    records.push({ key: `line-${line}`, value: words.join(' ') });
  }
  await producer.send('text', records);
}

function exact(): boolean {
  return [...expected].every(([w, n]) => latest.get(w) === n);
}

function start(tag: string): AppProcess {
  return startApp({
    bootstrap: cluster.bootstrap(),
    appId: APP,
    stateDir: path.join(stateRoot, tag),
    tag,
    sessionTimeoutMs: SESSION_MS,
  });
}

async function changelogRecords(): Promise<number> {
  const d = await tide.admin().describeTopic(`${APP}-counts-changelog`);
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
  await produce(1_000);
  await waitFor(exact, { timeoutMs: 40_000, what: 'exact counts after 1000 lines' });
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
      await produce(100);
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
  await waitFor(() => [...expected].every(([w, n]) => (latest.get(w) ?? 0) >= n), {
    timeoutMs: 40_000,
    what: 'every count at least exact',
  });
  // The counts store's tasks that moved were restored from the changelog.
  const restoredMoved = apps.a
    .restores()
    .filter((e) => e.store === 'counts' && bTasks.includes(e.task!) && (e.total ?? 0) > 0);
  expect(restoredMoved.length).toBeGreaterThan(0);
  expect(restoredMoved.every((e) => e.restored === e.total)).toBe(true);
  for (const [w, n] of expected) expect(latest.get(w)).toBeGreaterThanOrEqual(n);
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
  const before = new Map(latest);
  await produce(200);
  await waitFor(() => [...expected].every(([w, n]) => (latest.get(w) ?? 0) >= n), {
    timeoutMs: 30_000,
    what: 'counts after the restart',
  });
  for (const [w, n] of before) expect(latest.get(w)).toBeGreaterThanOrEqual(n);
  expect(apps.a2.errors()).toEqual([]);
});
