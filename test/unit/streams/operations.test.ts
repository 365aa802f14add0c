/**
 * The operations views, through the test driver and with stand-ins for the app and the admin
 * client: the "why no output yet" window status (tumbling, hopping and session rules), the
 * Prometheus metrics an app adds to a user's registry, and the topology check on start (first
 * start, unchanged, a compatible change, a refused orphaning change with its diff, the override,
 * and a lost compare-and-swap).
 */
import { Registry } from 'prom-client';
import type { Admin, ApplicationMetadataEntry } from '../../../client';
import {
  Serdes,
  SessionWindows,
  StreamsBuilder,
  TimeWindows,
  TopologyChangeError,
  TopologyTestDriver,
  registerStreamsMetrics,
  type StreamsAppMetrics,
  type Topology,
} from '../../../streams';
import { checkAndRecordTopology } from '../../../streams/runtime/topology-record';
import { silentLogger } from '../../../services/common/logger';

function windowed(build: (b: StreamsBuilder) => void): Topology {
  const b = new StreamsBuilder({ applicationId: 'ops' });
  build(b);
  return b.build();
}

describe('windowStatus', () => {
  it('tumbling: open windows by close time with their key counts; closed ones counted apart', () => {
    const t = windowed((b) =>
      b
        .stream('in', { key: Serdes.string, value: Serdes.string })
        .groupByKey()
        .windowedBy(TimeWindows.ofSizeAndGrace(10, 5))
        .count({ name: 'c' }),
    );
    const driver = new TopologyTestDriver(t);
    const input = driver.inputTopic('in', Serdes.string, Serdes.string);
    input.pipeInput('a', 'x', 3);
    input.pipeInput('b', 'x', 7);
    input.pipeInput('a', 'x', 12);
    expect(driver.windowStatus('c')).toEqual([
      {
        store: 'c',
        taskId: '0_0',
        streamTimeMs: 12,
        openWindows: 2,
        closedWindows: 0,
        windows: [
          { start: 0, end: 10, closesAtMs: 15, waitingForMs: 3, keys: 2 },
          { start: 10, end: 20, closesAtMs: 25, waitingForMs: 13, keys: 1 },
        ],
      },
    ]);
    input.pipeInput('b', 'x', 15); // [0,10) closes at stream time 15
    const [s] = driver.windowStatus('c', 1);
    expect(s).toMatchObject({ streamTimeMs: 15, openWindows: 1, closedWindows: 1 });
    expect(s.windows).toEqual([{ start: 10, end: 20, closesAtMs: 25, waitingForMs: 10, keys: 2 }]);
    driver.close();
  });

  it('hopping windows per task, and sessions close one ms after end + grace', () => {
    const t = windowed((b) => {
      b.stream('in', { key: Serdes.string, value: Serdes.string })
        .groupByKey()
        .windowedBy(TimeWindows.ofSizeAndGrace(10, 0).advanceBy(5))
        .count({ name: 'hop' });
      b.stream('sessions', { key: Serdes.string, value: Serdes.string })
        .groupByKey()
        .windowedBy(SessionWindows.ofInactivityGapAndGrace(5, 2))
        .count({ name: 'sess' });
    });
    const driver = new TopologyTestDriver(t, { partitions: { in: 2, sessions: 1 } });
    driver.inputTopic('in', Serdes.string, Serdes.string).pipeInput('k', 'x', 7);
    const hop = driver.windowStatus('hop');
    expect(hop.map((s) => s.taskId)).toEqual(['0_0', '0_1']);
    const withWindows = hop.find((s) => s.openWindows > 0)!;
    expect(withWindows.windows.map((w) => [w.start, w.closesAtMs])).toEqual([
      [0, 10],
      [5, 15],
    ]);
    expect(hop.find((s) => s !== withWindows)).toMatchObject({ streamTimeMs: -1, openWindows: 0 });
    const sessions = driver.inputTopic('sessions', Serdes.string, Serdes.string);
    sessions.pipeInput('u', 'x', 100);
    sessions.pipeInput('u', 'x', 103);
    expect(driver.windowStatus('sess')[0].windows).toEqual([
      { start: 100, end: 103, closesAtMs: 106, waitingForMs: 3, keys: 1 },
    ]);
    expect(() => driver.windowStatus('nope')).toThrow(/not the store of a windowed aggregation.*hop, sess/);
    driver.close();
  });
});

describe('registerStreamsMetrics', () => {
  const metrics: StreamsAppMetrics = {
    state: 'running',
    commits: 4,
    recordsIn: 10,
    recordsOut: 7,
    droppedLateRecords: 1,
    droppedRecords: 2,
    failedPunctuations: 1,
    globalTables: [{ store: 'users', topic: 'users', loaded: true, recordsIn: 12, lag: 3 }],
    tasks: [
      {
        id: '0_1',
        inputs: [{ topic: 'in', partition: 1 }],
        recordsIn: 10,
        recordsOut: 7,
        droppedLateRecords: 1,
        skippedInvalidTimestamp: 0,
        droppedRecords: 2,
        enforcedProcessing: 0,
        punctuations: 3,
        failedPunctuations: 1,
        streamTimeMs: 1_700_000_000_000,
        lag: 42,
        restoredRecords: 30,
        restoreTotal: 100,
        restoring: true,
      },
    ],
  };
  const source = {
    applicationId: 'ops',
    metrics: () => metrics,
    windowedStores: () => ['c'],
    windowStatus: () => [
      {
        store: 'c',
        taskId: '0_1',
        streamTimeMs: 1_700_000_000_000,
        openWindows: 3,
        closedWindows: 0,
        windows: [{ start: 0, end: 10, closesAtMs: 1_700_000_002_500, waitingForMs: 2_500, keys: 1 }],
      },
    ],
  };

  it('exposes per-task counters and gauges, read at scrape time; removal drops them', async () => {
    const registry = new Registry();
    const remove = registerStreamsMetrics(registry, source);
    const text = await registry.metrics();
    const labels = 'application_id="ops",task_id="0_1"';
    for (const line of [
      `tide_streams_task_records_in_total{${labels}} 10`,
      `tide_streams_task_records_out_total{${labels}} 7`,
      `tide_streams_task_dropped_late_records_total{${labels}} 1`,
      `tide_streams_task_dropped_records_total{${labels}} 2`,
      `tide_streams_task_failed_punctuations_total{${labels}} 1`,
      `tide_streams_task_lag_records{${labels}} 42`,
      `tide_streams_task_stream_time_seconds{${labels}} 1700000000`,
      `tide_streams_task_restoring{${labels}} 1`,
      `tide_streams_task_restore_remaining_records{${labels}} 70`,
      `tide_streams_window_open_windows{${labels},store="c"} 3`,
      `tide_streams_window_next_close_wait_seconds{${labels},store="c"} 2.5`,
      'tide_streams_state{application_id="ops",state="running"} 1',
      'tide_streams_commits_total{application_id="ops"} 4',
      'tide_streams_global_table_loading{application_id="ops",store="users"} 0',
      'tide_streams_global_table_records_in_total{application_id="ops",store="users"} 12',
      'tide_streams_global_table_lag_records{application_id="ops",store="users"} 3',
    ]) {
      expect(text).toContain(line);
    }
    // A second app on the same registry does not clash.
    registerStreamsMetrics(registry, { ...source, applicationId: 'other' });
    expect(await registry.metrics()).toContain('tide_streams_task_lag_records{application_id="other"');
    remove();
    expect(await registry.metrics()).not.toContain('application_id="ops"');
  });
});

describe('checkAndRecordTopology', () => {
  const counts = (store: string, grouping?: string) =>
    windowed((b) =>
      b
        .stream('in', { key: Serdes.string, value: Serdes.string })
        .selectKey((_k, v) => v)
        .groupByKey({ key: Serdes.string, value: Serdes.string, ...(grouping ? { name: grouping } : {}) })
        .count({ name: store }),
    );

  /** An in-memory stand-in for the admin client's application metadata calls. */
  function fakeAdmin(onPut?: () => void) {
    const entries = new Map<string, ApplicationMetadataEntry>();
    let revision = 0;
    const admin = {
      getApplicationMetadata: async (app: string, key: string) => entries.get(`${app}/${key}`),
      putApplicationMetadata: async (
        app: string,
        key: string,
        value: string | Buffer,
        o: { expectedVersion?: number } = {},
      ) => {
        onPut?.();
        const id = `${app}/${key}`;
        const current = entries.get(id);
        if (o.expectedVersion !== undefined && (current?.version ?? 0) !== o.expectedVersion)
          return { applied: false as const, current };
        const buf = Buffer.from(value);
        entries.set(id, {
          application: app,
          key,
          value: buf,
          valueBytes: buf.length,
          version: ++revision,
          expiresAtMs: 0,
        });
        return { applied: true as const, version: revision };
      },
    };
    return { admin: admin as unknown as Admin, entries };
  }
  const check = (admin: Admin, t: Topology, allowTopologyChange = false) =>
    checkAndRecordTopology(admin, t, {
      allowTopologyChange,
      recordedBy: 'test@host',
      logger: silentLogger(),
    });

  it('records on first start, accepts the same or a compatible topology, refuses an orphaning one', async () => {
    const { admin } = fakeAdmin();
    expect(await check(admin, counts('counts', 'by-word'))).toEqual({ outcome: 'first' });
    expect(await check(admin, counts('counts', 'by-word'))).toEqual({ outcome: 'unchanged' });
    const renamed = counts('totals', 'by-word');
    const refused = await check(admin, renamed).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(TopologyChangeError);
    const err = refused as TopologyChangeError;
    expect(err.kind).toBe('TOPOLOGY_CHANGE');
    expect(err.diff).toMatchObject({
      removedStores: ['counts'],
      addedStores: ['totals'],
      removedInternalTopics: ['ops-counts-changelog'],
      orphansState: true,
    });
    // The repartition topic is named by the grouping, so it stays.
    expect(err.diff.removedInternalTopics).not.toContain('ops-by-word-repartition');
    expect(err.message).toMatch(/stores removed or renamed .*: counts/);
    expect(err.message).toMatch(/allowTopologyChange: true/);
    // Allowed: recorded, and from then on the new one is the reference.
    expect(await check(admin, renamed, true)).toMatchObject({ outcome: 'changed' });
    expect(await check(admin, renamed)).toEqual({ outcome: 'unchanged' });
    await expect(check(admin, counts('counts', 'by-word'))).rejects.toBeInstanceOf(TopologyChangeError);
  });

  it('adds a store without asking, and re-checks after losing a compare-and-swap', async () => {
    let racing = false;
    const { admin, entries } = fakeAdmin(() => {
      if (!racing) return;
      racing = false;
      // Another instance records its (same) topology between our read and our write.
      entries.set('ops/streams.topology', { ...entries.get('ops/streams.topology')!, version: 999 });
    });
    await check(admin, counts('counts'));
    racing = true;
    const more = windowed((b) => {
      const s = b.stream('in', { key: Serdes.string, value: Serdes.string });
      s.selectKey((_k, v) => v)
        .groupByKey({ key: Serdes.string, value: Serdes.string })
        .count({ name: 'counts' });
      s.groupByKey({ key: Serdes.string, value: Serdes.string }).count({ name: 'per-key' });
    });
    expect(await check(admin, more)).toMatchObject({
      outcome: 'changed',
      diff: { addedStores: ['per-key'], orphansState: false },
    });
  });
});
