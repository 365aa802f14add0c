/**
 * `tide cluster up|down`: a real multi-process Tide on this machine — an etcd, the controllers and
 * the brokers, each its own detached process with its data and log file under one folder, and a
 * `cluster.json` there that records what runs so `down` can stop it.
 */
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import { TideError } from '../services/common/errors';

export interface ClusterProcess {
  role: 'etcd' | 'controller' | 'broker' | 'coordinator';
  id: number;
  pid: number;
  /** host:port it serves on (etcd: its client URL). */
  address: string;
  logFile: string;
}

export interface ClusterState {
  dir: string;
  etcdEndpoint: string;
  processes: ClusterProcess[];
}

const STATE_FILE = 'cluster.json';
const READY_TIMEOUT_MS = 30_000;

export function stateFile(dir: string): string {
  return path.join(dir, STATE_FILE);
}

export function readState(dir: string): ClusterState | undefined {
  try {
    return JSON.parse(fs.readFileSync(stateFile(dir), 'utf8')) as ClusterState;
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The etcd binary: $ETCD_BIN or `etcd` on PATH. */
export function findEtcd(): string {
  const candidates = [
    process.env.ETCD_BIN,
    ...(process.env.PATH ?? '').split(path.delimiter).map((d) => path.join(d, 'etcd')),
  ];
  for (const candidate of candidates) {
    if (candidate && fs.existsSync(candidate)) return candidate;
  }
  throw new TideError(
    'INVALID_REQUEST',
    'etcd was not found on PATH or in $ETCD_BIN; install it with `bash scripts/install-etcd.sh` (Debian/Ubuntu: apt-get install etcd-server)',
  );
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

function spawnDetached(
  command: string,
  args: string[],
  logFile: string,
  env: NodeJS.ProcessEnv = {},
): number {
  const out = fs.openSync(logFile, 'a');
  const child = spawn(command, args, {
    detached: true,
    stdio: ['ignore', out, out],
    env: { ...process.env, ...env },
  });
  fs.closeSync(out);
  child.unref();
  if (child.pid === undefined) throw new TideError('UNKNOWN', `could not start ${command}`);
  return child.pid;
}

async function waitForLine(logFile: string, pattern: RegExp, pid: number): Promise<RegExpExecArray> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const text = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
    const match = pattern.exec(text);
    if (match) return match;
    if (!isAlive(pid))
      throw new TideError(
        'UNKNOWN',
        `process ${pid} exited before it was ready; see ${logFile}:\n${text.slice(-2000)}`,
      );
    if (Date.now() > deadline)
      throw new TideError(
        'REQUEST_TIMED_OUT',
        `process ${pid} was not ready after ${READY_TIMEOUT_MS} ms; see ${logFile}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface UpOptions {
  dir: string;
  brokers: number;
  controllers: number;
  /** Group coordinators (default 1). */
  coordinators?: number;
  /** The tide CLI entry (bin/tide.js). */
  cli: string;
}

/** Starts etcd, controllers and brokers; resolves with the state once every process is serving. */
export async function clusterUp(options: UpOptions): Promise<ClusterState> {
  const dir = path.resolve(options.dir);
  const existing = readState(dir);
  if (existing && existing.processes.some((p) => isAlive(p.pid))) {
    throw new TideError(
      'INVALID_REQUEST',
      `a cluster already runs from ${dir}; stop it first with: tide cluster down --dir ${dir}`,
    );
  }
  fs.mkdirSync(dir, { recursive: true });
  const state: ClusterState = { dir, etcdEndpoint: '', processes: [] };
  const save = () => fs.writeFileSync(stateFile(dir), JSON.stringify(state, null, 2));
  try {
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    const etcdEndpoint = `http://127.0.0.1:${clientPort}`;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    const etcdLog = path.join(dir, 'etcd.log');
    const etcdPid = spawnDetached(
      findEtcd(),
      [
        '--name=tide-local',
        `--data-dir=${path.join(dir, 'etcd')}`,
        `--listen-client-urls=${etcdEndpoint}`,
        `--advertise-client-urls=${etcdEndpoint}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=tide-local=${peerUrl}`,
        '--max-txn-ops=10001',
        '--max-request-bytes=4194304',
      ],
      etcdLog,
    );
    state.etcdEndpoint = etcdEndpoint;
    state.processes.push({ role: 'etcd', id: 0, pid: etcdPid, address: etcdEndpoint, logFile: etcdLog });
    save();
    await waitForLine(etcdLog, /ready to serve client requests/, etcdPid);

    const tide = (args: string[], logFile: string, env: NodeJS.ProcessEnv = {}) =>
      spawnDetached(process.execPath, [options.cli, ...args], logFile, { TIDE_LOG_LEVEL: 'info', ...env });
    const starting: Promise<void>[] = [];
    for (let id = 0; id < options.controllers; id++) {
      const logFile = path.join(dir, `controller-${id}.log`);
      const pid = tide(['controller', '--id', String(id), '--port', '0', '--etcd', etcdEndpoint], logFile);
      const entry: ClusterProcess = { role: 'controller', id, pid, address: '', logFile };
      state.processes.push(entry);
      starting.push(
        waitForLine(logFile, /^bootstrap (\S+:\d+)$/m, pid).then((m) => void (entry.address = m[1])),
      );
    }
    for (let id = 0; id < options.brokers; id++) {
      const logFile = path.join(dir, `broker-${id}.log`);
      const pid = tide(
        [
          'broker',
          '--id',
          String(id),
          '--port',
          '0',
          '--data',
          path.join(dir, `broker-${id}`),
          '--etcd',
          etcdEndpoint,
        ],
        logFile,
      );
      const entry: ClusterProcess = { role: 'broker', id, pid, address: '', logFile };
      state.processes.push(entry);
      starting.push(
        waitForLine(logFile, /^bootstrap (\S+:\d+)$/m, pid).then((m) => void (entry.address = m[1])),
      );
    }
    for (let id = 0; id < (options.coordinators ?? 1); id++) {
      const logFile = path.join(dir, `coordinator-${id}.log`);
      const pid = tide(
        ['coordinator', '--id', `coordinator-${id}`, '--port', '0', '--etcd', etcdEndpoint],
        logFile,
        // __consumer_offsets waits for this many brokers: all of them, up to Kafka's 3.
        { TIDE_OFFSETS_TOPIC_REPLICATION_FACTOR: String(Math.min(3, options.brokers)) },
      );
      const entry: ClusterProcess = { role: 'coordinator', id, pid, address: '', logFile };
      state.processes.push(entry);
      starting.push(
        waitForLine(logFile, /^bootstrap (\S+:\d+)$/m, pid).then((m) => void (entry.address = m[1])),
      );
    }
    save();
    await Promise.all(starting);
    save();
    return state;
  } catch (err) {
    save();
    await clusterDown(dir);
    throw err;
  }
}

/** Stops coordinators first (shard handover), then brokers (controlled shutdown), controllers, etcd. */
export async function clusterDown(dir: string, graceMs = 15_000): Promise<ClusterProcess[]> {
  const state = readState(path.resolve(dir));
  if (!state) throw new TideError('INVALID_REQUEST', `no cluster state in ${dir} (${STATE_FILE} missing)`);
  const stopped: ClusterProcess[] = [];
  for (const role of ['coordinator', 'broker', 'controller', 'etcd'] as const) {
    const group = state.processes.filter((p) => p.role === role && isAlive(p.pid));
    for (const p of group) process.kill(p.pid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (group.some((p) => isAlive(p.pid)) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    for (const p of group) if (isAlive(p.pid)) process.kill(p.pid, 'SIGKILL');
    stopped.push(...group);
  }
  return stopped;
}
