/**
 * What can be checked of the image without a Docker engine: deploy/Dockerfile's COPY sources exist
 * and survive .dockerignore, the build stage gets everything the TypeScript build compiles, the
 * runtime stage holds what `tide` loads at run time, and its user, volume, ports and entry point
 * agree with the chart. deploy/entrypoint.sh is run with a stand-in `node` that prints what it was
 * given, to check the broker id, controller id and `dev` defaults it derives.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { REPO_ROOT, makeTempDir } from '../harness/processes';
import { envMap, find, renderChart } from './render';
import { ENTRYPOINT } from './pods';

interface Instruction {
  stage: string;
  op: string;
  args: string[];
}

function parseDockerfile(text: string): Instruction[] {
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  const out: Instruction[] = [];
  let stage = '';
  for (const raw of lines) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [op, ...rest] = line.split(/\s+/);
    let args = rest;
    if (rest.join(' ').startsWith('[')) args = JSON.parse(rest.join(' ')) as string[];
    if (op.toUpperCase() === 'FROM') stage = rest[2] ?? rest[0];
    out.push({ stage, op: op.toUpperCase(), args });
  }
  return out;
}

/** Docker's .dockerignore rules, as far as this repository uses them: the last matching line wins. */
function ignored(file: string, patterns: string[]): boolean {
  let result = false;
  for (const raw of patterns) {
    const negate = raw.startsWith('!');
    const pattern = negate ? raw.slice(1) : raw;
    const regex = new RegExp(
      '^' +
        pattern
          .split('**')
          .map((part) => part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*'))
          .join('.*') +
        '(/.*)?$',
    );
    if (regex.test(file)) result = !negate;
  }
  return result;
}

const dockerfile = parseDockerfile(fs.readFileSync(path.join(REPO_ROOT, 'deploy', 'Dockerfile'), 'utf8'));
const dockerignore = fs
  .readFileSync(path.join(REPO_ROOT, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const copies = dockerfile
  .filter((i) => i.op === 'COPY')
  .map((i) => {
    const from = i.args.find((a) => a.startsWith('--from='))?.slice('--from='.length);
    const paths = i.args.filter((a) => !a.startsWith('--'));
    return { stage: i.stage, from, sources: paths.slice(0, -1), dest: paths[paths.length - 1] };
  });
const stageOf = (op: string) => dockerfile.filter((i) => i.op === op);
const runtime = dockerfile.filter((i) => i.stage === 'runtime');
const workdir = runtime.find((i) => i.op === 'WORKDIR')!.args[0];

test('every COPY source from the context exists and is not excluded by .dockerignore', () => {
  const fromContext = copies.filter((c) => !c.from).flatMap((c) => c.sources);
  expect(fromContext.length).toBeGreaterThan(5);
  for (const source of fromContext) {
    expect({ source, exists: fs.existsSync(path.join(REPO_ROOT, source)) }).toEqual({ source, exists: true });
    expect({ source, ignored: ignored(source, dockerignore) }).toEqual({ source, ignored: false });
  }
  // Host build output and dependencies never leak into the context.
  for (const p of ['node_modules', 'dist', '.git', 'test/helm/chart.test.ts', 'helm/tide/values.yaml'])
    expect({ p, ignored: ignored(p, dockerignore) }).toEqual({ p, ignored: true });
});

test('the build stage copies everything `npm run build` compiles', () => {
  const tsconfig = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'tsconfig.build.json'), 'utf8')) as {
    include: string[];
  };
  const built = copies.filter((c) => c.stage === 'build' && !c.from).flatMap((c) => c.sources);
  for (const dir of tsconfig.include) expect(built).toContain(dir);
  for (const file of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'])
    expect(built).toContain(file);
  const packageJson = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
    bin: Record<string, string>;
  };
  expect(packageJson.scripts.build).toBe('tsc -p tsconfig.build.json');
  expect(packageJson.bin.tide).toBe('bin/tide.js');
});

test('the runtime stage holds what tide loads, runs as the chart user, and agrees with the chart', () => {
  const runtimeCopies = copies.filter((c) => c.stage === 'runtime');
  const dests = Object.fromEntries(runtimeCopies.map((c) => [c.dest.replace(/^\.\//, ''), c]));
  expect(dests.node_modules.from).toBe('deps');
  expect(dests.dist.from).toBe('build');
  // bin/tide.js requires ../dist/cli/tide.js; protos are read at run time next to dist/.
  const fromContext = runtimeCopies.filter((c) => !c.from).flatMap((c) => c.sources);
  for (const d of ['bin', 'protos', 'package.json', 'deploy/entrypoint.sh', 'deploy/tuned-node.sh'])
    expect(fromContext).toContain(d);
  const deps = dockerfile.filter((i) => i.stage === 'deps' && i.op === 'RUN').map((i) => i.args.join(' '));
  expect(deps.join(' ')).toContain('npm ci --omit=dev');

  const r = renderChart();
  const broker = find(r, 'StatefulSet', 'tide-broker');
  const pod = broker.spec.template.spec;
  const user = runtime.find((i) => i.op === 'USER')!.args[0];
  expect(user).toBe(`${pod.securityContext.runAsUser}:${pod.securityContext.runAsGroup}`);
  const volume = runtime.find((i) => i.op === 'VOLUME')!.args;
  const dataMount = pod.containers[0].volumeMounts.find((m: { name: string }) => m.name === 'data').mountPath;
  expect(volume).toEqual([dataMount]);
  expect(envMap(pod.containers[0].env).TIDE_DATA_DIR!.startsWith(dataMount + '/')).toBe(true);
  const exposed = stageOf('EXPOSE').flatMap((i) => i.args.map(Number));
  const values = {
    broker: 9092,
    controller: find(r, 'Deployment', 'tide-controller').spec.template.spec.containers[0].ports[0]
      .containerPort,
    coordinator: find(r, 'Deployment', 'tide-coordinator').spec.template.spec.containers[0].ports[0]
      .containerPort,
  };
  expect(exposed).toEqual(
    expect.arrayContaining([values.broker, values.controller, values.coordinator, 9464]),
  );
  // The chart gives no command: the image's ENTRYPOINT runs with the pod's args.
  expect(pod.containers[0].command).toBeUndefined();
  const entrypoint = runtime.find((i) => i.op === 'ENTRYPOINT')!.args;
  expect(entrypoint).toEqual([path.posix.join(workdir, 'deploy/entrypoint.sh')]);
  expect(runtime.find((i) => i.op === 'HEALTHCHECK')).toBeUndefined();
  expect(stageOf('FROM').every((i) => i.args[0] === '${NODE_IMAGE}')).toBe(true);
  expect(dockerfile.find((i) => i.op === 'ARG')!.args[0]).toMatch(/^NODE_IMAGE=node:20-/);
});

describe('deploy/entrypoint.sh', () => {
  let fakeBin: string;
  beforeAll(() => {
    fakeBin = makeTempDir('tide-fake-node-');
    // Prints what the real node would get: its arguments and the TIDE_* and MALLOC_* environment.
    fs.writeFileSync(
      path.join(fakeBin, 'node'),
      '#!/bin/sh\necho "args: $*"\nenv | grep -E "^(TIDE|MALLOC)_" | sort\n',
      {
        mode: 0o755,
      },
    );
  });
  afterAll(() => fs.rmSync(fakeBin, { recursive: true, force: true }));

  function run(args: string[], env: Record<string, string> = {}) {
    const result = spawnSync('sh', [ENTRYPOINT, ...args], {
      env: { PATH: `${fakeBin}:/usr/bin:/bin`, ...env },
      encoding: 'utf8',
    });
    const vars = Object.fromEntries(
      result.stdout
        .split('\n')
        .filter((l) => l.startsWith('TIDE_'))
        .map((l) => l.split('=') as [string, string]),
    );
    const malloc = Object.fromEntries(
      result.stdout
        .split('\n')
        .filter((l) => l.startsWith('MALLOC_'))
        .map((l) => l.split('=') as [string, string]),
    );
    const argsLine = /^args: (.*)$/m.exec(result.stdout)?.[1];
    const all = argsLine?.split(' ') ?? [];
    // node's own flags (tuned-node.sh's) come before the script; args are the script's.
    const script = all.findIndex((a) => !a.startsWith('--'));
    const nodeFlags = script < 0 ? all : all.slice(0, script);
    const scriptArgs = script < 0 ? [] : all.slice(script);
    return { code: result.status, stderr: result.stderr, vars, malloc, nodeFlags, args: scriptArgs };
  }

  const tideJs = `${REPO_ROOT}/deploy/../bin/tide.js`;

  test('is valid POSIX sh and executable', () => {
    expect(spawnSync('sh', ['-n', ENTRYPOINT]).status).toBe(0);
    expect(fs.statSync(ENTRYPOINT).mode & 0o111).not.toBe(0);
  });

  test('node runs with the glibc malloc settings of tuned-node.sh unless the pod sets its own', () => {
    expect(run(['broker'], { POD_NAME: 'tide-broker-0' }).malloc).toEqual({
      MALLOC_MMAP_THRESHOLD_: '4194304',
      MALLOC_TRIM_THRESHOLD_: '67108864',
    });
    expect(run(['dev'], { MALLOC_TRIM_THRESHOLD_: '1048576' }).malloc).toEqual({
      MALLOC_MMAP_THRESHOLD_: '4194304',
      MALLOC_TRIM_THRESHOLD_: '1048576',
    });
  });

  test('node runs with the V8 settings of tuned-node.sh (heap growing factor and floor)', () => {
    for (const service of ['broker', 'controller', 'dev'])
      expect(run([service], { POD_NAME: 'tide-broker-0' }).nodeFlags).toEqual([
        '--heap-growing-percent=300',
        '--initial-old-space-size=128',
      ]);
  });

  test('broker: the id is the StatefulSet ordinal of POD_NAME (or HOSTNAME)', () => {
    expect(run(['broker'], { POD_NAME: 'tide-broker-12' })).toMatchObject({
      code: 0,
      vars: { TIDE_BROKER_ID: '12' },
      args: [tideJs, 'broker'],
    });
    expect(run(['broker'], { HOSTNAME: 'orders-tide-broker-0' }).vars).toEqual({ TIDE_BROKER_ID: '0' });
    expect(run(['broker'], { POD_NAME: 'tide-broker-010' }).vars).toEqual({ TIDE_BROKER_ID: '10' });
  });

  test('broker: an explicit id wins; a name without an ordinal is refused', () => {
    expect(run(['broker'], { POD_NAME: 'tide-broker-1', TIDE_BROKER_ID: '7' }).vars).toEqual({
      TIDE_BROKER_ID: '7',
    });
    expect(run(['broker', '--id', '4'], { POD_NAME: 'tide-broker-1' })).toMatchObject({
      code: 0,
      vars: {},
      args: [tideJs, 'broker', '--id', '4'],
    });
    const refused = run(['broker'], { POD_NAME: 'tide-broker-abc' });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("cannot derive the broker id from the pod name 'tide-broker-abc'");
  });

  test('controller: an id from a checksum of the pod name; dev: reachable and on the volume', () => {
    const a = run(['controller'], { POD_NAME: 'tide-controller-7c9d5b6f4-x2k8q' }).vars.TIDE_CONTROLLER_ID;
    const b = run(['controller'], { POD_NAME: 'tide-controller-7c9d5b6f4-p9zrt' }).vars.TIDE_CONTROLLER_ID;
    expect(Number(a)).toBeGreaterThanOrEqual(0);
    expect(Number(a)).toBeLessThan(2 ** 31 - 1);
    expect(a).not.toBe(b);
    expect(run(['controller', '--id', '3'], { POD_NAME: 'x' }).vars).toEqual({});
    expect(run(['dev']).args).toEqual([tideJs, 'dev', '--data', '/data', '--host', '0.0.0.0']);
    expect(run(['dev', '--host=127.0.0.1', '--data', '/tmp/x']).args).toEqual([
      tideJs,
      'dev',
      '--host=127.0.0.1',
      '--data',
      '/tmp/x',
    ]);
    expect(run(['topics', 'list', '--bootstrap', 'tide:9092']).args).toEqual([
      tideJs,
      'topics',
      'list',
      '--bootstrap',
      'tide:9092',
    ]);
  });
});
