/**
 * Operating a streams application against real processes (etcd, a controller, a broker and a
 * group coordinator from test/harness; the `tide` CLI as its own process; the apps in this process):
 *
 * 1. The first start records the topology; `tide streams list` and `tide streams describe` show it
 *    with the running instance, its tasks with stream time, the input partitions' lag and the open
 *    windows; `app.windowStatus()` and the Prometheus registry say the same.
 * 2. A version that renames the store is refused with a TopologyChangeError showing the diff, and
 *    creates nothing; with `allowTopologyChange` it starts and is recorded, after which the old
 *    version is the one refused.
 * 3. Static membership: an instance closed and restarted with the same instance id and state
 *    directory takes its tasks back without a rebalance (the generation does not move, the other
 *    instance keeps its tasks) and restores nothing from the changelogs.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Registry } from 'prom-client';
import { Tide } from '../../client';
import {
  Serdes,
  TimeWindows,
  TopologyChangeError,
  type RestoreProgress,
  type StreamsApp,
  type StreamsAppOptions,
} from '../../streams';
import { runCli, type CliResult } from '../harness/cli';
import { TestCluster } from '../harness/cluster';
import { startStreamsCluster, stopStreamsCluster } from '../harness/streams-cluster';
import { makeTempDir, waitFor } from '../harness/processes';

jest.setTimeout(180_000);

const APP = 'clicks-app';
const SIZE_MS = 60_000;
const GRACE_MS = 5_000;
const T0 = Date.UTC(2026, 0, 1);

let cluster: TestCluster;
let tide: Tide;
const root = makeTempDir('tide-streams-ops-');
const clients: Tide[] = [];
const running: StreamsApp[] = [];

beforeAll(async () => {
  ({ cluster, tide } = await startStreamsCluster());
  await tide.admin().createTopic('clicks', { partitions: 2, replicationFactor: 1 });
  await tide.admin().createTopic('clicks-per-minute', { partitions: 2, replicationFactor: 1 });
});

afterAll(async () => {
  await stopStreamsCluster({ cluster, tide }, ...running, ...clients);
  fs.rmSync(root, { recursive: true, force: true });
});

/** The app: clicks per user per minute; `store` names the windowed count. */
function makeApp(store: string, options: StreamsAppOptions = {}): StreamsApp {
  const client = new Tide({ bootstrap: cluster.bootstrap() });
  clients.push(client);
  const b = client.streams({ applicationId: APP });
  b.stream('clicks', { key: Serdes.string, value: Serdes.string })
    .groupByKey({ key: Serdes.string, value: Serdes.string })
    .windowedBy(TimeWindows.ofSizeAndGrace(SIZE_MS, GRACE_MS))
    .count({ name: store })
    .toStream()
    .to('clicks-per-minute', { key: Serdes.windowed(Serdes.string), value: Serdes.number });
  return b.app(b.build(), {
    commitIntervalMs: 300,
    statusIntervalMs: 300,
    replicationFactor: 1,
    sessionTimeoutMs: 10_000,
    ...options,
  });
}

async function start(app: StreamsApp): Promise<StreamsApp> {
  await app.start();
  running.push(app);
  return app;
}

async function stop(app: StreamsApp): Promise<void> {
  await app.close();
  running.splice(running.indexOf(app), 1);
}

function cli(args: string[]): Promise<CliResult> {
  return runCli(['-b', cluster.bootstrap().join(','), ...args], {
    env: { TIDE_CONFIG_FILE: path.join(root, 'no-config.yaml') },
  });
}

async function produceClicks(users: string[], atMs: number): Promise<void> {
  await tide.producer().send(
    'clicks',
    users.map((u) => ({ key: u, value: 'click', timestampMs: atMs })),
  );
}

describe('recorded topology, tide streams, window status and metrics', () => {
  let app: StreamsApp;

  it('records the topology on first start and shows the running app', async () => {
    app = await start(makeApp('clicks-per-user'));
    await waitFor(() => app.taskIds().length === 2, { timeoutMs: 30_000, what: 'both tasks assigned' });
    await produceClicks(['alice', 'bob', 'carol', 'dave'], T0 + 10_000);
    await produceClicks(['alice', 'bob', 'carol', 'dave'], T0 + 30_000);
    await waitFor(() => app.metrics().recordsIn === 8, { timeoutMs: 30_000, what: '8 records processed' });

    const recorded = await tide.admin().getApplicationMetadata(APP, 'streams.topology');
    expect(
      JSON.parse(recorded!.value.toString()).description.stores.map((s: { name: string }) => s.name),
    ).toEqual(['clicks-per-user']);

    // The "why no output yet" view: every task that saw records waits for [T0, T0 + 1 min) to close.
    const status = app.windowStatus('clicks-per-user').filter((s) => s.streamTimeMs >= 0);
    expect(status.length).toBeGreaterThan(0);
    for (const s of status) {
      expect(s.streamTimeMs).toBe(T0 + 30_000);
      expect(s.windows[0]).toMatchObject({
        start: T0,
        end: T0 + SIZE_MS,
        closesAtMs: T0 + SIZE_MS + GRACE_MS,
        waitingForMs: SIZE_MS + GRACE_MS - 30_000,
      });
    }

    const registry = new Registry();
    app.registerMetrics(registry);
    const text = await registry.metrics();
    expect(text).toMatch(
      /tide_streams_task_records_in_total\{application_id="clicks-app",task_id="0_\d"\} [1-9]/,
    );
    expect(text).toContain(`tide_streams_task_stream_time_seconds{application_id="clicks-app"`);
    expect(text).toMatch(/tide_streams_window_next_close_wait_seconds\{[^}]*store="clicks-per-user"\} 35/);

    const list = await cli(['streams', 'list']);
    expect(list.stderr).toBe('');
    expect(list.out).toMatch(/clicks-app\s+STABLE\s+1\s+1\s+1\s+1 /);

    // The instance publishes its status every 300 ms: wait for one with the processed records.
    await waitFor(
      async () => {
        const d = await cli(['streams', 'describe', APP, '--json']);
        const j = JSON.parse(d.out) as { tasks: { recordsIn?: number }[] };
        return j.tasks.reduce((n, t) => n + (t.recordsIn ?? 0), 0) === 8;
      },
      { timeoutMs: 20_000, what: 'the published status shows 8 records' },
    );
    const described = await cli(['streams', 'describe', APP]);
    expect(described.code).toBe(0);
    expect(described.out).toContain(
      'clicks-per-user (window, changelog clicks-app-clicks-per-user-changelog)',
    );
    expect(described.out).toMatch(/0_0\s+\S+\s+clicks:0/);
    expect(described.out).toContain(new Date(T0 + 30_000).toISOString()); // stream time
    expect(described.out).toContain(new Date(T0 + SIZE_MS + GRACE_MS).toISOString()); // closes at
    expect(described.out).toContain('35s of stream time');
    expect(described.out).toMatch(/clicks\s+0\s+\d+\s+\d+\s+\d+/); // input partition lag rows
    const mermaid = await cli(['streams', 'describe', APP, '--mermaid']);
    expect(mermaid.out.startsWith('flowchart TD')).toBe(true);
    expect(mermaid.out).toContain('clicks-per-user');
  });

  it('refuses a version that renames the store, with the diff, and creates nothing', async () => {
    await stop(app);
    const renamed = makeApp('clicks-by-user');
    const err = await renamed.start().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TopologyChangeError);
    const change = err as TopologyChangeError;
    expect(change.diff.removedStores).toEqual(['clicks-per-user']);
    expect(change.diff.addedStores).toEqual(['clicks-by-user']);
    expect(change.message).toContain('clicks-app-clicks-per-user-changelog');
    expect(change.message).toContain('allowTopologyChange');
    await expect(tide.admin().describeTopic('clicks-app-clicks-by-user-changelog')).rejects.toMatchObject({
      code: expect.stringMatching(/^UNKNOWN_TOPIC/),
    });
    await renamed.close();
    // After close the instance's status entry is gone.
    const left = await tide
      .admin()
      .listApplicationMetadata({ application: APP, keyPrefix: 'streams.instance.' });
    expect(left).toEqual([]);
  });

  it('starts a renamed version when told to; then the old version is the one refused', async () => {
    const renamed = await start(makeApp('clicks-by-user', { allowTopologyChange: true }));
    await waitFor(() => renamed.taskIds().length === 2, { timeoutMs: 30_000, what: 'renamed app running' });
    const described = await cli(['streams', 'describe', APP]);
    expect(described.out).toContain('clicks-by-user (window');
    await stop(renamed);
    await expect(makeApp('clicks-per-user').start()).rejects.toBeInstanceOf(TopologyChangeError);
  });
});

describe('static membership', () => {
  /** Clicks per user (a key-value count: with a state directory, an LMDB store with checkpoints). */
  function counter(id: string, onRestore: (p: RestoreProgress) => void): StreamsApp {
    const client = new Tide({ bootstrap: cluster.bootstrap() });
    clients.push(client);
    const b = client.streams({ applicationId: 'clicks-total' });
    b.stream('clicks', { key: Serdes.string, value: Serdes.string })
      .groupByKey({ key: Serdes.string, value: Serdes.string })
      .count({ name: 'total' });
    return b.app(b.build(), {
      instanceId: id,
      stateDir: path.join(root, id),
      commitIntervalMs: 300,
      statusIntervalMs: 0,
      replicationFactor: 1,
      sessionTimeoutMs: 20_000,
      onRestore: (p) => {
        if (p.done) onRestore(p);
      },
    });
  }

  it('a restarted instance with the same id takes its task back: no rebalance, nothing restored', async () => {
    const restored: Record<string, number[]> = { 'app-0': [], 'app-1': [] };
    const a = await start(counter('app-0', (p) => restored['app-0'].push(p.restored)));
    const b = await start(counter('app-1', (p) => restored['app-1'].push(p.restored)));
    await waitFor(() => a.taskIds().length === 1 && b.taskIds().length === 1, {
      timeoutMs: 30_000,
      what: `one task each (app-0: ${a.taskIds()}, app-1: ${b.taskIds()})`,
    });
    await produceClicks(['alice', 'bob', 'carol', 'dave', 'erin', 'frank'], T0);
    await waitFor(() => a.metrics().recordsIn > 0 && b.metrics().recordsIn > 0, {
      timeoutMs: 30_000,
      what: 'records processed on both',
    });
    const [aTask, bTask] = [a.taskIds(), b.taskIds()];
    const before = await tide.groups().describeGroup('clicks-total');
    const bRestores = restored['app-1'].length;

    await stop(a); // as a pod's SIGTERM: commit, checkpoint, leave temporarily (static member)
    restored['app-0'] = [];
    const a2 = await start(counter('app-0', (p) => restored['app-0'].push(p.restored)));
    // A task is listed from its assignment on; its restore reports done a little later.
    await waitFor(() => a2.taskIds().length === 1 && restored['app-0'].length > 0, {
      timeoutMs: 30_000,
      what: 'app-0 back with its task, restored',
    });
    expect(a2.taskIds()).toEqual(aTask);
    expect(restored['app-0']).toEqual([0]); // restored from its checkpoint: nothing to read
    expect(b.taskIds()).toEqual(bTask);
    expect(restored['app-1'].length).toBe(bRestores); // app-1 was never revoked or re-assigned
    const after = await tide.groups().describeGroup('clicks-total');
    expect(after.generation).toBe(before.generation);
    await stop(a2);
    await stop(b);
  });
});
