/**
 * The streams runtime's metrics on a prom-client registry the user owns (the services' registries
 * are made in services/common/metrics.ts; an application serves its own `/metrics`):
 *
 *   tide_streams_state{application_id,state}                        1 for the app's state
 *   tide_streams_commits_total{application_id}
 *   tide_streams_task_records_in_total{application_id,task_id}
 *   tide_streams_task_records_out_total{...}                          output and repartition records
 *   tide_streams_task_dropped_late_records_total{...}                 records for closed windows
 *   tide_streams_task_skipped_records_total{...}                      negative (invalid) timestamps
 *   tide_streams_task_dropped_records_total{...}                      unreadable or failing records skipped
 *   tide_streams_task_failed_punctuations_total{...}                  failing punctuations passed over
 *   tide_streams_task_lag_records{...}                                behind the inputs' ends, as of the last commit
 *   tide_streams_task_stream_time_seconds{...}                        the task's stream time (unix seconds)
 *   tide_streams_task_restoring{...}                                  1 while its stores restore
 *   tide_streams_task_restored_records{...}, _restore_remaining_records{...}
 *   tide_streams_window_open_windows{application_id,task_id,store}    windows not yet closed
 *   tide_streams_window_next_close_wait_seconds{...}                  stream time still to pass before the
 *                                                                      earliest open window closes
 *   tide_streams_global_table_loading{application_id,store}           1 while the instance loads the global table
 *   tide_streams_global_table_records_in_total{...}                   records of its topic applied here
 *   tide_streams_global_table_lag_records{...}                        behind its partitions' high watermarks
 *
 * Every value is read from the app at scrape time (nothing is counted on the processing path);
 * task counters start at 0 when a task is created here, so a task that moves resets (as Prometheus
 * counters may). Several apps may share one registry: the metrics are made once per registry and
 * labelled by application id.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { StreamsAppMetrics, TaskSnapshot } from './app';
import type { GlobalTableSnapshot } from './global-tables';
import type { WindowStoreStatus } from './window-status';

/** What the metrics read of an app (StreamsApp has it). */
export interface MetricsSource {
  readonly applicationId: string;
  metrics(): StreamsAppMetrics;
  windowStatus(store: string, limit?: number): WindowStoreStatus[];
  windowedStores(): string[];
}

const sourcesOf = new WeakMap<Registry, Set<MetricsSource>>();

/** Adds `source`'s metrics to `registry`; the returned function removes them. */
export function registerStreamsMetrics(registry: Registry, source: MetricsSource): () => void {
  let sources = sourcesOf.get(registry);
  if (!sources) {
    sources = new Set();
    sourcesOf.set(registry, sources);
    createMetrics(registry, sources);
  }
  sources.add(source);
  return () => sources.delete(source);
}

const TASK_LABELS = ['application_id', 'task_id'] as const;
const STATES = ['created', 'starting', 'running', 'closing', 'closed', 'failed'] as const;

function createMetrics(registry: Registry, sources: Set<MetricsSource>): void {
  const snapshot = () => [...sources].map((s) => ({ source: s, metrics: s.metrics() }));
  const taskCounter = (name: string, help: string, value: (t: TaskSnapshot) => number) =>
    new Counter({
      name,
      help,
      labelNames: TASK_LABELS,
      registers: [registry],
      collect() {
        this.reset();
        for (const { source, metrics } of snapshot())
          for (const t of metrics.tasks)
            this.inc({ application_id: source.applicationId, task_id: t.id }, value(t));
      },
    });
  const taskGauge = (name: string, help: string, value: (t: TaskSnapshot) => number | undefined) =>
    new Gauge({
      name,
      help,
      labelNames: TASK_LABELS,
      registers: [registry],
      collect() {
        this.reset();
        for (const { source, metrics } of snapshot())
          for (const t of metrics.tasks) {
            const v = value(t);
            if (v !== undefined) this.set({ application_id: source.applicationId, task_id: t.id }, v);
          }
      },
    });

  new Gauge({
    name: 'tide_streams_state',
    help: "1 for the streams application's current state",
    labelNames: ['application_id', 'state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { source, metrics } of snapshot())
        for (const state of STATES)
          this.set({ application_id: source.applicationId, state }, metrics.state === state ? 1 : 0);
    },
  });
  new Counter({
    name: 'tide_streams_commits_total',
    help: 'Commits of the streams application on this instance',
    labelNames: ['application_id'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { source, metrics } of snapshot())
        this.inc({ application_id: source.applicationId }, metrics.commits);
    },
  });
  taskCounter('tide_streams_task_records_in_total', 'Records the task processed', (t) => t.recordsIn);
  taskCounter(
    'tide_streams_task_records_out_total',
    'Records the task wrote to output and repartition topics',
    (t) => t.recordsOut,
  );
  taskCounter(
    'tide_streams_task_dropped_late_records_total',
    'Records dropped because every window they belong to had closed',
    (t) => t.droppedLateRecords,
  );
  taskCounter(
    'tide_streams_task_skipped_records_total',
    'Records skipped because their extracted timestamp was negative',
    (t) => t.skippedInvalidTimestamp,
  );
  taskCounter(
    'tide_streams_task_dropped_records_total',
    'Records skipped because their serdes could not read them or their processing threw (deserializationErrors, processingErrors)',
    (t) => t.droppedRecords,
  );
  taskCounter(
    'tide_streams_task_failed_punctuations_total',
    'Punctuations that threw and were passed over (processingErrors other than fail)',
    (t) => t.failedPunctuations,
  );
  taskGauge(
    'tide_streams_task_lag_records',
    "Records behind the end of the task's input partitions, as of its last commit",
    (t) => t.lag,
  );
  taskGauge(
    'tide_streams_task_stream_time_seconds',
    "The task's stream time: the highest record timestamp it processed (unix seconds)",
    (t) => (t.streamTimeMs >= 0 ? t.streamTimeMs / 1000 : undefined),
  );
  taskGauge('tide_streams_task_restoring', "1 while the task's stores restore", (t) => (t.restoring ? 1 : 0));
  taskGauge(
    'tide_streams_task_restored_records',
    'Changelog records applied by the last restore',
    (t) => t.restoredRecords,
  );
  taskGauge(
    'tide_streams_task_restore_remaining_records',
    'Changelog records the running (or last) restore still has to apply',
    (t) => Math.max(0, t.restoreTotal - t.restoredRecords),
  );

  const globalTables = () =>
    snapshot().flatMap(({ source, metrics }) => metrics.globalTables.map((g) => ({ source, g })));
  const globalLabels = (source: MetricsSource, g: GlobalTableSnapshot) => ({
    application_id: source.applicationId,
    store: g.store,
  });
  new Gauge({
    name: 'tide_streams_global_table_loading',
    help: 'Global table: 1 until this instance has loaded it (start() waits for it)',
    labelNames: ['application_id', 'store'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { source, g } of globalTables()) this.set(globalLabels(source, g), g.loaded ? 0 : 1);
    },
  });
  new Counter({
    name: 'tide_streams_global_table_records_in_total',
    help: "Global table: records of its topic applied to this instance's copy",
    labelNames: ['application_id', 'store'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { source, g } of globalTables()) this.inc(globalLabels(source, g), g.recordsIn);
    },
  });
  new Gauge({
    name: 'tide_streams_global_table_lag_records',
    help: "Global table: records of its topic this instance's copy is behind (high watermarks of the last fetches)",
    labelNames: ['application_id', 'store'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { source, g } of globalTables()) this.set(globalLabels(source, g), g.lag);
    },
  });

  const windows = () =>
    [...sources].flatMap((source) =>
      source.windowedStores().flatMap((store) => source.windowStatus(store, 1).map((w) => ({ source, w }))),
    );
  const windowLabels = (source: MetricsSource, w: WindowStoreStatus) => ({
    application_id: source.applicationId,
    task_id: w.taskId,
    store: w.store,
  });
  new Gauge({
    name: 'tide_streams_window_open_windows',
    help: 'Windows of a windowed aggregation store not yet closed (by the task stream time)',
    labelNames: ['application_id', 'task_id', 'store'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { source, w } of windows()) this.set(windowLabels(source, w), w.openWindows);
    },
  });
  new Gauge({
    name: 'tide_streams_window_next_close_wait_seconds',
    help: 'Stream time still to pass before the earliest open window closes and its final result is due',
    labelNames: ['application_id', 'task_id', 'store'],
    registers: [registry],
    collect() {
      this.reset();
      for (const { source, w } of windows())
        if (w.windows.length > 0 && w.streamTimeMs >= 0)
          this.set(windowLabels(source, w), w.windows[0].waitingForMs / 1000);
    },
  });
}
