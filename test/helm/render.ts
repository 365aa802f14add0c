/**
 * Renders helm/tide as `helm template` would, through the Go renderer in test/helm/renderer/
 * (text/template + sprig + Helm's include/tpl/required/toYaml; values coalesced and checked against
 * values.schema.json). The renderer is built once per run (content-addressed in the temp dir, so
 * parallel test files share one build) from Debian's Go packages: scripts/install-test-deps.sh.
 */
import { execFileSync, spawnSync } from 'child_process';
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { REPO_ROOT } from '../harness/processes';

export const CHART_DIR = path.join(REPO_ROOT, 'helm', 'tide');
export const VALUES_DIR = path.join(REPO_ROOT, 'test', 'helm', 'values');
const RENDERER_SRC = path.join(REPO_ROOT, 'test', 'helm', 'renderer');
const GOPATH = process.env.RENDERER_GOPATH ?? '/usr/share/gocode';

/** A Kubernetes object as rendered (JSON). */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels: Record<string, string>; [k: string]: unknown };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
} & Record<string, any>;

export interface Rendered {
  /** Every object, in template path order. */
  objects: K8sObject[];
  /** Which template each object came from (same order as objects). */
  sources: string[];
  notes: string;
}

export interface RenderOptions {
  /** Release name; default "tide". */
  name?: string;
  namespace?: string;
  /** Values files (paths) and inline values (objects), applied in order over values.yaml. */
  values?: (string | Record<string, unknown>)[];
}

let built: string | undefined;

/** Path of the renderer binary, building it on first use. */
export function rendererBinary(): string {
  if (built) return built;
  const source = fs.readFileSync(path.join(RENDERER_SRC, 'main.go'));
  const hash = crypto.createHash('sha256').update(source).digest('hex').slice(0, 16);
  const dir = path.join(os.tmpdir(), `tide-helm-renderer-${hash}`);
  const binary = path.join(dir, 'renderer');
  if (!fs.existsSync(binary)) {
    const go = spawnSync('go', ['version'], { encoding: 'utf8' });
    if (go.status !== 0) {
      throw new Error(
        'Go is missing: the chart tests build a renderer. Run `bash scripts/install-test-deps.sh`.',
      );
    }
    fs.mkdirSync(dir, { recursive: true });
    const tmp = `${binary}.${process.pid}.tmp`;
    const result = spawnSync('go', ['build', '-o', tmp, '.'], {
      cwd: RENDERER_SRC,
      encoding: 'utf8',
      env: {
        ...process.env,
        GO111MODULE: 'off',
        GOPATH,
        GOFLAGS: '',
        GOCACHE: process.env.GOCACHE ?? path.join(os.tmpdir(), 'tide-go-build-cache'),
      },
    });
    if (result.status !== 0) {
      throw new Error(
        `building the chart renderer failed (needs golang-go and the Go libraries in scripts/install-test-deps.sh):\n${result.stderr}`,
      );
    }
    fs.renameSync(tmp, binary);
  }
  built = binary;
  return binary;
}

function valuesArgs(values: RenderOptions['values'], tmp: string): string[] {
  return (values ?? []).flatMap((v, i) => {
    if (typeof v === 'string') return ['-f', path.isAbsolute(v) ? v : path.join(VALUES_DIR, v)];
    const file = path.join(tmp, `values-${i}.json`); // JSON is YAML
    fs.writeFileSync(file, JSON.stringify(v));
    return ['-f', file];
  });
}

function runRenderer(options: RenderOptions, output: 'json' | 'values'): string {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-helm-values-'));
  try {
    const args = [
      '-chart',
      CHART_DIR,
      '-name',
      options.name ?? 'tide',
      '-namespace',
      options.namespace ?? 'default',
      '-o',
      output,
      ...valuesArgs(options.values, tmp),
    ];
    try {
      return execFileSync(rendererBinary(), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      throw new Error(e.stderr?.trim() || e.message);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** Renders the chart; throws the renderer's error (schema, `required`, `fail`, template errors). */
export function renderChart(options: RenderOptions = {}): Rendered {
  const out = JSON.parse(runRenderer(options, 'json')) as {
    manifests: { source: string; object: K8sObject }[];
    notes: string;
  };
  return {
    objects: out.manifests.map((m) => m.object),
    sources: out.manifests.map((m) => m.source),
    notes: out.notes,
  };
}

/** The values templates see: values.yaml coalesced with the given values, schema-checked. */
export function renderValues(options: RenderOptions = {}): Record<string, unknown> {
  return JSON.parse(runRenderer(options, 'values')) as Record<string, unknown>;
}

/** The one object of a kind and name; throws when absent. */
export function find(rendered: Rendered, kind: string, name: string): K8sObject {
  const found = rendered.objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) {
    const have = rendered.objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ');
    throw new Error(`no ${kind}/${name} rendered; have: ${have}`);
  }
  return found;
}

/** A container's env as the pod spec lists it. */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string } };
}

/** The plain values of a container's env, by name (valueFrom entries map to undefined). */
export function envMap(env: EnvVar[] | undefined): Record<string, string | undefined> {
  return Object.fromEntries((env ?? []).map((e) => [e.name, e.value]));
}
