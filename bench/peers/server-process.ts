/**
 * Peer servers (nats-server, redis-server) as child processes of the benchmark: spawned with a
 * temp data dir, ready once a line of their log matches, stopped and reaped afterwards — on
 * success, on error, and on Ctrl-C (SIGINT/SIGTERM kill every live server, remove its dir, exit).
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';

export interface ServerProcess {
  readonly name: string;
  readonly pid: number;
  /** Everything the server printed (stdout and stderr), for error messages. */
  output(): string;
  /** SIGTERM, SIGKILL after `graceMs`, then waits for the exit; removes the temp dir. Idempotent. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnServerOptions {
  name: string;
  command: string;
  args: string[];
  /** Ready once the output matches. */
  readyPattern: RegExp;
  readyTimeoutMs?: number;
  /** Removed when the server stops (and on Ctrl-C). */
  dataDir?: string;
}

const live = new Map<ChildProcess, string | undefined>();

function killAllNow(): void {
  for (const [child, dir] of live) {
    child.kill('SIGKILL');
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
  live.clear();
}

let hooksInstalled = false;
/**
 * On exit, SIGINT or SIGTERM, kills every live server (and, through process.exit, the Tide and
 * etcd processes test/harness tracks). Called by the benchmark's main and by the first
 * spawnServer, so merely importing this module changes no signal handling.
 */
export function stopServersOnExit(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAllNow);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\nbench:peers: ${signal}, stopping the servers\n`);
      // process.exit runs the 'exit' hooks: these servers here, and the Tide and etcd processes
      // of test/harness, which register their own.
      process.exit(130);
    });
  }
}

/** Starts a server and resolves when its log says it is ready; rejects (and kills it) otherwise. */
export function spawnServer(options: SpawnServerOptions): Promise<ServerProcess> {
  stopServersOnExit();
  const child = spawn(options.command, options.args, { stdio: ['ignore', 'pipe', 'pipe'] });
  live.set(child, options.dataDir);
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // 'error' (e.g. ENOENT) comes without 'exit'; the ready wait below turns it into a rejection.
  let spawnError: Error | undefined;
  child.once('error', (err) => (spawnError = err));
  const server: ServerProcess = {
    name: options.name,
    pid: child.pid ?? -1,
    output: () => output,
    stop: async (graceMs = 5_000) => {
      if (child.exitCode === null && child.signalCode === null && !spawnError) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      live.delete(child);
      if (options.dataDir) fs.rmSync(options.dataDir, { recursive: true, force: true });
    },
  };
  return new Promise((resolve, reject) => {
    const giveUp = (why: string) => {
      clearTimeout(timer);
      void server
        .stop(0)
        .then(() => reject(new Error(`${options.name} ${why}. Output:\n${output.slice(-4000)}`)));
    };
    const timer = setTimeout(
      () => giveUp(`did not become ready within ${options.readyTimeoutMs ?? 20_000} ms`),
      options.readyTimeoutMs ?? 20_000,
    );
    let ready = false;
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!ready && options.readyPattern.test(output)) {
        ready = true;
        clearTimeout(timer);
        resolve(server);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', (err) =>
      giveUp(`could not start (${err.message}): is it installed? Run scripts/install-bench-peers.sh`),
    );
    void exited.then(() => {
      if (!ready) giveUp(`exited (code ${child.exitCode}, signal ${child.signalCode}) before it was ready`);
    });
  });
}

/** Peak resident set size (VmHWM) of a live process in bytes; NaN when it cannot be read. */
export function peakRssBytes(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}
