/**
 * Spawns a real single-member etcd for integration and fault tests: free loopback ports, a temp
 * data dir, and a watchdog so no etcd outlives the test process, even one killed with SIGKILL.
 *
 * The binary comes from $ETCD_BIN or PATH; when neither has one, startEtcd throws (tests never
 * skip silently): run `bash scripts/install-etcd.sh`.
 */
import { ChildProcess, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';

export interface EtcdOptions {
  /** Data dir to use (kept at close); default a fresh temp dir removed at close. */
  dataDir?: string;
  /** How long to wait for /health to answer true; default 20 s. */
  readyTimeoutMs?: number;
  /**
   * Serve clients over TLS and require client certificates chaining to `trustedCaFile`. The
   * files are read at each (re)start, so a test rotates them by rewriting them and restarting.
   */
  tls?: EtcdTlsFiles;
}

export interface EtcdTlsFiles {
  certFile: string;
  keyFile: string;
  trustedCaFile: string;
}

export interface EtcdProcess {
  /** Client URL, e.g. http://127.0.0.1:41234. */
  readonly endpoint: string;
  readonly dataDir: string;
  /** Pid of the running etcd, undefined while stopped. */
  readonly pid: number | undefined;
  /** What etcd printed (stderr and stdout) across all its runs, for failure messages. */
  output(): string;
  /** Sends `signal` (default SIGTERM) and waits for etcd to exit. No-op when already stopped. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** SIGKILL, then waits for the exit: a crash. */
  kill(): Promise<void>;
  /** Starts etcd again on the same data dir and ports (stopping it first if it runs); waits for health. */
  restart(): Promise<void>;
  /** SIGSTOP: etcd keeps its sockets but answers nothing (a hung server). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** Kills etcd and removes the data dir if the harness created it. */
  close(): Promise<void>;
}

/** The etcd flags Tide documents (docs/configuration.md "etcd requirements"). */
export const ETCD_REQUIRED_FLAGS = ['--max-txn-ops=10001', '--max-request-bytes=4194304'];

interface Running {
  watchdog: ChildProcess;
  pid: number;
  exited: Promise<void>;
}

const liveEtcdPids = new Set<number>();
const liveWatchdogs = new Set<ChildProcess>();
const tempDirs = new Set<string>();
process.on('exit', () => {
  for (const pid of liveEtcdPids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  for (const watchdog of liveWatchdogs) watchdog.kill('SIGKILL');
  for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs etcd under /bin/sh and kills it when the shell's stdin (a pipe from this process) closes:
 * that happens when this process exits for any reason, SIGKILL included; the data dir is then
 * removed too when the harness created it. Arguments: <owned data dir or ''> <etcd> <flags...>.
 * Prints etcd's pid first.
 */
const WATCHDOG_SCRIPT = [
  'dir=$1',
  'shift',
  'exec 3<&0',
  '"$@" </dev/null &',
  'child=$!',
  'echo "etcd-pid $child"',
  '{ while read -r _; do :; done; kill -KILL "$child" 2>/dev/null; [ -n "$dir" ] && sleep 1 && rm -rf -- "$dir"; } <&3 &',
  'guard=$!',
  'wait "$child"',
  'status=$?',
  'kill "$guard" 2>/dev/null',
  'exit "$status"',
].join('\n');

/** Finds the etcd binary: $ETCD_BIN, else `etcd` on PATH; throws with the fix when missing. */
export function findEtcdBinary(): string {
  const fromEnv = process.env.ETCD_BIN;
  if (fromEnv) {
    try {
      fs.accessSync(fromEnv, fs.constants.X_OK);
      return fromEnv;
    } catch {
      throw new Error(`ETCD_BIN=${fromEnv} is not an executable file. Run: bash scripts/install-etcd.sh`);
    }
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, 'etcd');
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  throw new Error(
    'etcd is not installed: integration tests need a real etcd server. ' +
      'Run `bash scripts/install-etcd.sh` (Debian/Ubuntu as root), or install etcd 3.4+ and put it on PATH ' +
      'or set ETCD_BIN=/path/to/etcd.',
  );
}

/** `count` distinct free loopback ports (bound to port 0 together, then released). */
export async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

/** etcd's /health over plain HTTP: its client URL, or with TLS its metrics URL. */
function healthy(healthUrl: string): Promise<boolean> {
  return new Promise((resolve) => {
    const req = http.get(`${healthUrl}/health`, { timeout: 1000 }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(res.statusCode === 200 && /"health"\s*:\s*"true"/.test(body)));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
  });
}

const OUTPUT_MAX_CHARS = 64 * 1024;

class EtcdServer implements EtcdProcess {
  readonly endpoint: string;
  private running?: Running;
  private log = '';
  private paused = false;

  constructor(
    private readonly binary: string,
    readonly dataDir: string,
    private readonly ownsDataDir: boolean,
    private readonly clientPort: number,
    private readonly peerPort: number,
    private readonly readyTimeoutMs: number,
    private readonly tls?: EtcdTlsFiles & { metricsPort: number },
  ) {
    this.endpoint = `${tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
  }

  private healthUrl(): string {
    return this.tls ? `http://127.0.0.1:${this.tls.metricsPort}` : this.endpoint;
  }

  private tlsArgs(): string[] {
    if (!this.tls) return [];
    return [
      `--cert-file=${this.tls.certFile}`,
      `--key-file=${this.tls.keyFile}`,
      `--trusted-ca-file=${this.tls.trustedCaFile}`,
      '--client-cert-auth',
      `--listen-metrics-urls=${this.healthUrl()}`,
    ];
  }

  get pid(): number | undefined {
    return this.running?.pid;
  }

  output(): string {
    return this.log;
  }

  /** Starts etcd and waits for /health; rejects with etcd's output if it exits first. */
  async start(): Promise<void> {
    const peer = `http://127.0.0.1:${this.peerPort}`;
    const args = [
      '--name=default',
      `--data-dir=${this.dataDir}`,
      `--listen-client-urls=${this.endpoint}`,
      `--advertise-client-urls=${this.endpoint}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=default=${peer}`,
      '--initial-cluster-state=new',
      ...ETCD_REQUIRED_FLAGS,
      ...this.tlsArgs(),
      // A single member needs no slow elections; this also lowers etcd's minimum lease TTL
      // (1.5 election timeouts, rounded up to whole seconds) from 2 s to 1 s, so lease tests are quick.
      '--heartbeat-interval=50',
      '--election-timeout=500',
      '--logger=zap',
      '--log-outputs=stderr',
      '--log-level=warn',
    ];
    const ownedDir = this.ownsDataDir ? this.dataDir : '';
    const watchdog = spawn(
      '/bin/sh',
      ['-c', WATCHDOG_SCRIPT, 'etcd-watchdog', ownedDir, this.binary, ...args],
      {
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    liveWatchdogs.add(watchdog);
    const append = (chunk: Buffer): void => {
      this.log = (this.log + chunk.toString()).slice(-OUTPUT_MAX_CHARS);
    };
    watchdog.stderr!.on('data', append);
    const exited = new Promise<void>((resolve) =>
      watchdog.on('exit', () => {
        liveWatchdogs.delete(watchdog);
        if (this.running?.watchdog === watchdog) {
          liveEtcdPids.delete(this.running.pid);
          this.running = undefined;
        }
        resolve();
      }),
    );
    const pid = await new Promise<number>((resolve, reject) => {
      let stdout = '';
      watchdog.stdout!.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /etcd-pid (\d+)/.exec(stdout);
        if (match) resolve(Number(match[1]));
        else append(chunk);
      });
      void exited.then(() => reject(new Error(`etcd exited at once. Output:\n${this.log}`)));
    });
    liveEtcdPids.add(pid);
    this.running = { watchdog, pid, exited };
    this.paused = false;
    const deadline = Date.now() + this.readyTimeoutMs;
    for (;;) {
      if (this.running?.watchdog !== watchdog) {
        throw new Error(`etcd (${this.binary}) exited before it was healthy. Output:\n${this.log}`);
      }
      if (await healthy(this.healthUrl())) return;
      if (Date.now() > deadline) {
        await this.kill();
        throw new Error(
          `etcd at ${this.endpoint} was not healthy after ${this.readyTimeoutMs} ms. Output:\n${this.log}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const running = this.running;
    if (!running) return;
    process.kill(running.pid, signal);
    if (this.paused && signal !== 'SIGKILL') process.kill(running.pid, 'SIGCONT');
    this.paused = false;
    await running.exited;
  }

  kill(): Promise<void> {
    return this.stop('SIGKILL');
  }

  async restart(): Promise<void> {
    await this.stop();
    // The ports were ours a moment ago; another process may grab one in between (rare): retry briefly.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.start();
        return;
      } catch (err) {
        if (attempt >= 5 || !/address already in use/i.test(this.log)) throw err;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  }

  pause(): void {
    if (!this.running) throw new Error('etcd is not running');
    process.kill(this.running.pid, 'SIGSTOP');
    this.paused = true;
  }

  resume(): void {
    if (!this.running) throw new Error('etcd is not running');
    process.kill(this.running.pid, 'SIGCONT');
    this.paused = false;
  }

  async close(): Promise<void> {
    await this.kill();
    if (this.ownsDataDir) {
      fs.rmSync(this.dataDir, { recursive: true, force: true });
      tempDirs.delete(this.dataDir);
    }
  }
}

/**
 * Starts a fresh single-member etcd on free loopback ports and resolves once it reports healthy.
 * Retries with new ports when one was taken between picking and binding.
 */
export async function startEtcd(options: EtcdOptions = {}): Promise<EtcdProcess> {
  const binary = findEtcdBinary();
  for (let attempt = 1; ; attempt++) {
    const ownsDataDir = options.dataDir === undefined;
    const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'tide-etcd-'));
    if (ownsDataDir) tempDirs.add(dataDir);
    const [clientPort, peerPort, metricsPort] = await freePorts(3);
    const server = new EtcdServer(
      binary,
      dataDir,
      ownsDataDir,
      clientPort,
      peerPort,
      options.readyTimeoutMs ?? 20_000,
      options.tls && { ...options.tls, metricsPort },
    );
    try {
      await server.start();
      return server;
    } catch (err) {
      await server.close();
      if (attempt >= 5 || !/address already in use/i.test(server.output())) throw err;
    }
  }
}

/** The etcd version string (`etcd --version` first line), for diagnostics. */
export function etcdVersion(): string {
  const result = spawnSync(findEtcdBinary(), ['--version'], { encoding: 'utf8' });
  return result.stdout.split('\n')[0] ?? '';
}

/** A TCP proxy in front of etcd that a test can cut and restore, to break one client's link only. */
export interface TcpProxy {
  /** http://127.0.0.1:<port> of the proxy. */
  readonly endpoint: string;
  /** Drops every open connection and refuses new ones until restore(). */
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetEndpoint: string): Promise<TcpProxy> {
  const target = new URL(targetEndpoint);
  const sockets = new Set<net.Socket>();
  let cut = false;
  const server = net.createServer((client) => {
    if (cut) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ]) {
      sockets.add(a);
      a.on('error', () => b.destroy());
      a.on('close', () => {
        sockets.delete(a);
        b.destroy();
      });
      a.pipe(b);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as net.AddressInfo).port;
  const dropAll = (): void => {
    for (const socket of sockets) socket.destroy();
    sockets.clear();
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    cut: () => {
      cut = true;
      dropAll();
    },
    restore: () => {
      cut = false;
    },
    close: async () => {
      dropAll();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
