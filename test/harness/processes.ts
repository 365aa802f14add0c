/**
 * Spawns real Tide processes (the built CLI in dist/) for integration and fault tests, reads the
 * address they bound from their output, and makes sure none outlives the test run.
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { exitWithOutput } from './child-exit';

/** The checkout root, found from the TypeScript sources or from dist/. */
export const REPO_ROOT = ((): string => {
  for (let dir = __dirname; dir !== path.dirname(dir); dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'bin', 'tide.js'))) return dir;
  }
  throw new Error(`cannot find the Tide checkout above ${__dirname}`);
})();
export const CLI = path.join(REPO_ROOT, 'bin', 'tide.js');
/** How the image starts node (deploy/tuned-node.sh); long-running services are started through it. */
const TUNED_NODE = path.join(REPO_ROOT, 'deploy', 'tuned-node.sh');

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export interface TideProcess {
  child: ChildProcess;
  /** host:port clients bootstrap from. */
  address: string;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** Sends a signal and waits for the exit (SIGTERM = graceful stop). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function makeTempDir(prefix = 'tide-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Starts `tide <args>` and resolves once it prints `bootstrap <host:port>`. */
export function startTide(
  args: string[],
  options: { env?: NodeJS.ProcessEnv; readyTimeoutMs?: number } = {},
): Promise<TideProcess> {
  if (!fs.existsSync(path.join(REPO_ROOT, 'dist', 'cli', 'tide.js'))) {
    throw new Error(
      'dist/ is missing: integration tests run the built CLI; use `npm test` (it builds first)',
    );
  }
  // Children log at warn unless the run sets TIDE_LOG_LEVEL (e.g. TIDE_LOG_LEVEL=debug npx jest ...).
  // CHILD_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles every child: node
  // refuses --cpu-prof in NODE_OPTIONS.
  const nodeArgs = (process.env.CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean);
  // Through deploy/tuned-node.sh, as the image runs them (its malloc settings and V8 heap flags),
  // with this node first on PATH; it execs node, so the child's pid is node's.
  const child = spawn('sh', [TUNED_NODE, ...nodeArgs, CLI, ...args], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
      TIDE_LOG_LEVEL: process.env.TIDE_LOG_LEVEL ?? 'warn',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let output = '';
  const exited = exitWithOutput(child, () => live.delete(child));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tide ${args.join(' ')} did not become ready in time. Output:\n${output}`));
    }, options.readyTimeoutMs ?? 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /bootstrap (\S+:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({
          child,
          address: match[1],
          output: () => output,
          stop: async (signal = 'SIGTERM') => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`tide ${args.join(' ')} exited with ${code} before it was ready. Output:\n${output}`));
    });
  });
}

/** Runs the CLI to completion, feeding `input` on stdin. */
export function runCli(
  args: string[],
  options: { input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // CHILD_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") profiles every child: node
    // refuses --cpu-prof in NODE_OPTIONS.
    const nodeArgs = (process.env.CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const child = spawn(process.execPath, [...nodeArgs, CLI, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, TIDE_LOG_LEVEL: 'warn', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    live.add(child);
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tide ${args.join(' ')} timed out. stdout:\n${stdout}\nstderr:\n${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    void exitWithOutput(child, () => live.delete(child)).then(() => {
      clearTimeout(timer);
      resolve({ code: child.exitCode, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** Polls `check` until it returns a truthy value or the timeout passes. */
export async function waitFor<T>(
  check: () => Promise<T> | T,
  options: { timeoutMs?: number; intervalMs?: number; what?: string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${options.what ?? 'condition'}${lastError ? `: ${String(lastError)}` : ''}`,
      );
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 50));
  }
}
