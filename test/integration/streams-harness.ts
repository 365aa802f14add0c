/**
 * Streams app instances as real child processes (the built library in dist/, so SIGKILL is a real
 * crash). Each runs the word count (`text` lines → `<app>-counts-repartition` → store `counts` →
 * `word-counts`) and prints one JSON line per event on stdout, synchronously:
 *   {ev: 'started' | 'restored' | 'metrics' | 'closed' | 'error', ...}
 * `restored` once per store restore (task, store, restored, total); `metrics` every 300 ms
 * (the app's metrics snapshot). The processing guarantee and the commit interval are parameters. SIGTERM closes the app (commit, checkpoint, leave the group).
 * With STREAMS_TEST_APP_LOG=<level> the instances log (pino) to their stderr (AppProcess.output()).
 */
import { ChildProcess, spawn } from 'child_process';
import * as path from 'path';
import { JsonLinesChild } from '../harness/json-lines-child';
import { REPO_ROOT } from '../harness/processes';

export interface AppEvent {
  ev: 'started' | 'restored' | 'metrics' | 'closed' | 'error';
  task?: string;
  store?: string;
  restored?: number;
  total?: number;
  tasks?: { id: string; recordsIn: number; restoredRecords: number; restoring?: boolean }[];
  standbys?: string[];
  standbyApplied?: number;
  endpoint?: string;
  msg?: string;
}

const APP_SCRIPT = `
const [dist, bootstrap, appId, stateDir, sessionTimeoutMs, guarantee, commitIntervalMs, extra] = process.argv.slice(1);
const more = JSON.parse(extra || '{}');
const { writeSync } = require('fs');
const { Tide } = require(dist + '/client');
const { Serdes } = require(dist + '/streams');
const out = (o) => writeSync(1, JSON.stringify({ t: Date.now(), ...o }) + '\\n');
const logger = more.logLevel ? require(dist + '/services/common/logger').createLogger({ level: more.logLevel }) : undefined;
const tide = new Tide({ bootstrap: bootstrap.split(','), logger });
const b = tide.streams({ applicationId: appId, processingGuarantee: guarantee });
b.stream('text', { key: Serdes.string, value: Serdes.string })
  .flatMapValues((line) => line.split(' ').filter(Boolean))
  .selectKey((_k, word) => word)
  .groupByKey({ key: Serdes.string, value: Serdes.string })
  .count({ name: 'counts' })
  .toStream()
  .to('word-counts', { value: Serdes.number });
const app = b.app(b.build(), {
  stateDir,
  commitIntervalMs: Number(commitIntervalMs),
  sessionTimeoutMs: Number(sessionTimeoutMs),
  replicationFactor: 1,
  numStandbys: more.numStandbys,
  logger,
  queryServer: more.query ? { host: '127.0.0.1', port: 0 } : undefined,
  onRestore: (p) => { if (p.done) out({ ev: 'restored', task: p.taskId, store: p.store, restored: p.restored, total: p.total }); },
  onError: (err) => out({ ev: 'error', msg: String(err && err.stack || err) }),
});
const metrics = setInterval(() => {
  const m = app.metrics();
  out({ ev: 'metrics', tasks: m.tasks.map((t) => ({ id: t.id, recordsIn: t.recordsIn, restoredRecords: t.restoredRecords, restoring: t.restoring })), standbys: app.standbyTaskIds(), standbyApplied: app.standbyRecordsApplied() });
}, 300);
process.on('SIGTERM', () => {
  clearInterval(metrics);
  app.close().then(() => tide.close()).then(() => { out({ ev: 'closed' }); process.exit(0); });
});
app.start().then(() => out({ ev: 'started', endpoint: app.queryEndpoint }), (err) => { out({ ev: 'error', msg: String(err && err.stack || err) }); process.exit(1); });
`;

export class AppProcess extends JsonLinesChild<AppEvent> {
  constructor(tag: string, child: ChildProcess) {
    super(tag, child, 200_000);
  }

  /** Task ids it runs now (its latest metrics line). */
  tasks(): string[] {
    const last = [...this.events].reverse().find((e) => e.ev === 'metrics');
    return (last?.tasks ?? []).map((t) => t.id).sort();
  }

  /** Standby copies it keeps now (its latest metrics line). */
  standbys(): string[] {
    const last = [...this.events].reverse().find((e) => e.ev === 'metrics');
    return last?.standbys ?? [];
  }

  /** Its tasks are all running (none restoring), as of its latest metrics line. */
  settled(): boolean {
    const last = [...this.events].reverse().find((e) => e.ev === 'metrics');
    return (last?.tasks ?? []).every((t) => !t.restoring);
  }

  /** The query endpoint it printed when started ('' without a query server or before). */
  endpoint(): string {
    return this.events.find((e) => e.ev === 'started')?.endpoint ?? '';
  }

  restores(): AppEvent[] {
    return this.events.filter((e) => e.ev === 'restored');
  }

  errors(): AppEvent[] {
    return this.events.filter((e) => e.ev === 'error');
  }

  async stop(signal: NodeJS.Signals): Promise<void> {
    await this.signal(signal);
  }
}

let live: AppProcess[] = [];
process.on('exit', () => {
  for (const a of live) a.child.kill('SIGKILL');
});

export function startApp(o: {
  bootstrap: string[];
  appId: string;
  stateDir: string;
  tag: string;
  sessionTimeoutMs: number;
  guarantee?: 'atLeastOnce' | 'exactlyOnce';
  /** Default 300. */
  commitIntervalMs?: number;
  numStandbys?: number;
  /** Serve interactive queries on a free loopback port. */
  query?: boolean;
}): AppProcess {
  const child = spawn(
    process.execPath,
    [
      '-e',
      APP_SCRIPT,
      path.join(REPO_ROOT, 'dist'),
      o.bootstrap.join(','),
      o.appId,
      o.stateDir,
      String(o.sessionTimeoutMs),
      o.guarantee ?? 'atLeastOnce',
      String(o.commitIntervalMs ?? 300),
      JSON.stringify({
        numStandbys: o.numStandbys,
        query: o.query,
        logLevel: process.env.STREAMS_TEST_APP_LOG,
      }),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } },
  );
  const app = new AppProcess(o.tag, child);
  live.push(app);
  return app;
}

export async function killAllApps(): Promise<void> {
  const apps = live;
  live = [];
  await Promise.all(apps.map((a) => a.stop('SIGKILL')));
}
