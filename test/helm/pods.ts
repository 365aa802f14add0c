/**
 * Runs a rendered pod's container outside Kubernetes, as the kubelet would run it in the image:
 * the image's entry point (deploy/entrypoint.sh) with the container's args, and exactly the env
 * the pod spec gives (fieldRefs resolved, `$(VAR)` references expanded as Kubernetes does). Only
 * what cannot exist on one test machine is changed, each change explicit and checked by the
 * caller: in-cluster DNS names become loopback, fixed ports become free ones, volume mount paths
 * become temp folders.
 */
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as path from 'path';
import { REPO_ROOT } from '../harness/processes';
import type { EnvVar, K8sObject } from './render';
import { makeTempDir } from '../harness/processes';

export const ENTRYPOINT = path.join(REPO_ROOT, 'deploy', 'entrypoint.sh');

/** What the kubelet knows about a pod, for fieldRefs. */
export interface PodIdentity {
  name: string;
  namespace: string;
  podIP: string;
}

/** The container's env as the kubelet gives it to the process. */
export function resolveEnv(env: EnvVar[], pod: PodIdentity): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of env) {
    if (e.valueFrom) {
      const field = e.valueFrom.fieldRef?.fieldPath;
      const known: Record<string, string> = {
        'metadata.name': pod.name,
        'metadata.namespace': pod.namespace,
        'status.podIP': pod.podIP,
      };
      if (!field || !(field in known)) throw new Error(`unsupported valueFrom in ${e.name}`);
      out[e.name] = known[field];
    } else {
      out[e.name] = expand(e.value ?? '', out);
    }
  }
  return out;
}

/**
 * Kubernetes' dependent variable expansion: `$(NAME)` takes the value of a variable defined earlier
 * in the list, `$$` is a literal `$`, anything else stays as written.
 */
export function expand(value: string, defined: Record<string, string>): string {
  return value.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (whole, name: string | undefined) => {
    if (whole === '$$') return '$';
    return name !== undefined && name in defined ? defined[name] : whole;
  });
}

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningPod {
  name: string;
  child: ChildProcess;
  /** host:port from the `bootstrap` line the service prints when ready. */
  address: string;
  output(): string;
  /** SIGTERM (as the kubelet after preStop), then waits for the exit; the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/**
 * Starts `sh deploy/entrypoint.sh <args>` with `env` and nothing else from this process but PATH
 * (to find node) and the HOSTNAME the kubelet sets; resolves once it prints `bootstrap host:port`.
 */
export function startPod(options: {
  name: string;
  args: string[];
  env: Record<string, string>;
  /** The working directory (the image's is read-only: it must stay empty). */
  cwd: string;
  /** Where /tmp is mounted (TMPDIR). */
  tmpDir: string;
  readyTimeoutMs?: number;
}): Promise<RunningPod> {
  const child = spawn('sh', [ENTRYPOINT, ...options.args], {
    cwd: options.cwd,
    env: {
      ...options.env,
      PATH: `${path.dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
      HOSTNAME: options.name,
      TMPDIR: options.tmpDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let output = '';
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code, signal) => {
      live.delete(child);
      resolve(code ?? (signal ? -1 : null));
    }),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`pod ${options.name} did not become ready. Output:\n${output}`));
    }, options.readyTimeoutMs ?? 30_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /bootstrap (\S+:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({
          name: options.name,
          child,
          address: match[1],
          output: () => output,
          exited,
          stop: async (signal = 'SIGTERM') => {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`pod ${options.name} exited with ${code} before it was ready. Output:\n${output}`));
    });
  });
}

/** Files and folders under `dir`, relative, sorted. */
export function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      out.push(path.relative(dir, p));
      if (entry.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** The container of a rendered workload. */
export function podContainer(workload: K8sObject, name: string): K8sObject {
  const c = (workload.spec.template.spec.containers as K8sObject[]).find((x) => x.name === name);
  if (!c) throw new Error(`${workload.metadata.name} has no container ${name}`);
  return c;
}

/**
 * Runs rendered pods on one machine with only the substitutions one machine needs: etcd URLs →
 * the test's etcd, in-cluster DNS names → 127.0.0.1, fixed ports (TIDE_PORT, TIDE_HEALTH_PORT,
 * `--port`) → free ones, mount paths → per-pod folders. Records each pod's changes.
 */
export class RenderedPods {
  readonly root = makeTempDir('tide-chart-pods-');
  readonly pods = new Map<string, RunningPod>();
  /** Per pod: its working directory and volume folders. */
  readonly dirs = new Map<string, { cwd: string; volumes: Record<string, string> }>();
  /** What each pod changed from the rendered env and args, by name: [rendered, used]. */
  readonly changes = new Map<string, Record<string, [string, string]>>();

  constructor(
    private readonly namespace: string,
    private readonly etcd: { endpoint: string; renderedUrls: string[] },
  ) {}

  /** Starts a pod; `fillVolumes` may put files (e.g. a Secret's) in its volume folders first. */
  async start(
    name: string,
    container: K8sObject,
    fillVolumes?: (volumes: Record<string, string>) => void,
  ): Promise<RunningPod> {
    const base = path.join(this.root, name);
    const volumes = Object.fromEntries(
      (container.volumeMounts as { name: string }[]).map((m) => [m.name, path.join(base, 'volumes', m.name)]),
    );
    for (const dir of Object.values(volumes)) fs.mkdirSync(dir, { recursive: true });
    fillVolumes?.(volumes);
    const cwd = path.join(base, 'workdir');
    fs.mkdirSync(cwd, { recursive: true });
    this.dirs.set(name, { cwd, volumes });
    this.changes.set(name, {});
    const env = await this.localEnv(
      { name, namespace: this.namespace, podIP: '127.0.0.1' },
      container,
      volumes,
    );
    const pod = await startPod({
      name,
      args: await this.localArgs(name, container),
      env,
      cwd,
      tmpDir: volumes.tmp,
      readyTimeoutMs: 40_000,
    });
    this.pods.set(name, pod);
    return pod;
  }

  async stopAll(): Promise<void> {
    await Promise.all([...this.pods.values()].map((p) => p.stop('SIGKILL')));
    fs.rmSync(this.root, { recursive: true, force: true });
  }

  private async localEnv(pod: PodIdentity, container: K8sObject, volumes: Record<string, string>) {
    const env = resolveEnv(container.env as EnvVar[], pod);
    const mounts = (container.volumeMounts as { name: string; mountPath: string }[]).map((m) => ({
      mountPath: m.mountPath,
      dir: volumes[m.name],
    }));
    const grpcPort = grpcPortOf(container);
    const changed = this.changes.get(pod.name)!;
    for (const [name, value] of Object.entries(env)) {
      let local = value;
      if (name === 'TIDE_ETCD_ENDPOINTS') {
        // Every bundled member, by its stable name: here one etcd on a free loopback port.
        expectEqual(value, this.etcd.renderedUrls.join(','), name);
        local = this.etcd.endpoint;
      } else if (/^[a-z0-9-]+(\.[a-z0-9-]+)*\.svc\.cluster\.local$/.test(value)) {
        local = '127.0.0.1';
      } else if (name === 'TIDE_PORT') {
        expectEqual(value, grpcPort, name);
        local = String(await freePort());
      } else if (name === 'TIDE_HEALTH_PORT') {
        local = String(await freePort());
      } else {
        const mount = mounts.find((m) => value === m.mountPath || value.startsWith(m.mountPath + '/'));
        if (mount) local = mount.dir + value.slice(mount.mountPath.length);
      }
      if (local !== value) changed[name] = [value, local];
      env[name] = local;
    }
    return env;
  }

  private async localArgs(pod: string, container: K8sObject): Promise<string[]> {
    const args = [...((container.args as string[]) ?? [])];
    const changed = this.changes.get(pod)!;
    for (let i = 1; i < args.length; i++) {
      const before = args[i];
      if (args[i - 1] === '--etcd') {
        expectEqual(before, this.etcd.renderedUrls.join(','), '--etcd');
        args[i] = this.etcd.endpoint;
      } else if (args[i - 1] === '--port') {
        expectEqual(before, grpcPortOf(container), '--port');
        args[i] = String(await freePort());
      }
      if (args[i] !== before) changed[args[i - 1]] = [before, args[i]];
    }
    return args;
  }
}

function grpcPortOf(container: K8sObject): string {
  return String(container.ports.find((p: { name: string }) => p.name === 'grpc').containerPort);
}

function expectEqual(actual: string, expected: string, what: string): void {
  if (actual !== expected) throw new Error(`${what}: rendered ${actual}, expected ${expected}`);
}
