/**
 * The `tide` command as a user runs it: a real `tide dev` process and the real CLI process for
 * every step, checked by exit code, stdout and stderr (issue #19: exit codes, binary safety,
 * kcat-level produce and consume, groups, contexts, completion).
 */
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { runCli, type CliResult } from '../harness/cli';
import { REPO_ROOT, makeTempDir, startTide, type TideProcess } from '../harness/processes';

jest.setTimeout(120_000);

let dataDir: string;
let node: TideProcess;
let b: string;
const noConfig = () => ({ TIDE_CONFIG_FILE: path.join(dataDir, 'no-such-config.yaml') });

/** `tide -b <node> args...` */
function tide(args: string[], stdin?: string | Buffer, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return runCli(['-b', b, ...args], { stdin, env: { ...noConfig(), ...env } });
}

function expectUsage(r: CliResult): void {
  expect(r.stderr).not.toBe('');
  expect(r.code).toBe(2);
}

/** A deterministic byte source (the seed is in the test name). */
function seededBytes(seed: number): (n: number) => Buffer {
  let x = seed >>> 0 || 1;
  return (n) => {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) {
      x ^= x << 13;
      x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0;
      out[i] = x & 0xff;
    }
    return out;
  };
}

beforeAll(async () => {
  dataDir = makeTempDir();
  node = await startTide(['dev', '--data', path.join(dataDir, 'data'), '--port', '0']);
  b = node.address;
});

afterAll(async () => {
  await node?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('exit codes', () => {
  test.each([
    [['topics', 'lst']],
    [['produce']],
    [['consume', 'x', '--form-beginning']],
    [['consume', 'x', '--max-messages', 'abc']],
    [['consume', 'x', '--from-time', 'yesterday']],
    [['consume', 'x', '--offset', 'soon']],
    [['consume', 'x', '--format', 'yaml']],
    [['topics', 'create', 'x', '--partitions', '0']],
    [['topics', 'create', 'x', '--partitions', '1', '--config', 'retention.ms']],
    [['topics']],
    [['groups', 'reset-offsets', 'g', '--topic', 't']],
    [['groups', 'reset-offsets', 'g', '--topic', 't', '--by-duration', '1h']],
    [['completion', 'fish']],
    [['consume', 'x', '--isolation', 'dirty']],
  ])('%j is a usage error: exit 2', async (args) => {
    expectUsage(await tide(args));
  });

  test('-b is accepted before the sub-command and after it', async () => {
    await tide(['topics', 'create', 'flags', '-p', '1']);
    const before = await runCli(['-b', b, 'topics', 'list'], { env: noConfig() });
    const after = await runCli(['topics', 'list', '-b', b], { env: noConfig() });
    expect(before.code).toBe(0);
    expect(before.out).toContain('flags\n');
    expect(after.out).toBe(before.out);
  });

  test('an unreachable broker: exit 1 and no empty "Resolution note"', async () => {
    const r = await runCli(['-b', '127.0.0.1:1', 'topics', 'list'], { env: noConfig() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/BROKER_NOT_AVAILABLE/);
    expect(r.stderr).not.toMatch(/Resolution note/);
  });

  test('--partitions 100000 names the limit, not "at least 1"', async () => {
    const r = await tide(['topics', 'create', 'many', '--partitions', '100000']);
    expectUsage(r);
    expect(r.stderr).toMatch(/INVALID_PARTITIONS: .*1\.\.\d+ \(got 100000\)/);
    expect(r.stderr).not.toMatch(/at least 1/);
  });

  test('min.insync.replicas above the replication factor is refused at create time', async () => {
    const r = await tide(['topics', 'create', 'isr', '-p', '1', '-r', '1', '-c', 'min.insync.replicas=2']);
    expectUsage(r);
    expect(r.stderr).toMatch(/min\.insync\.replicas=2 exceeds the replication factor 1/);
    expect((await tide(['topics', 'list'])).out).not.toMatch(/^isr$/m);
  });

  test('a.b and a_b collide, in both orders', async () => {
    expect((await tide(['topics', 'create', 'dot.ted', '-p', '1'])).code).toBe(0);
    const second = await tide(['topics', 'create', 'dot_ted', '-p', '1']);
    expectUsage(second);
    expect(second.stderr).toMatch(/collides with existing topic "dot\.ted"/);
    expect((await tide(['topics', 'create', 'under_score', '-p', '1'])).code).toBe(0);
    expectUsage(await tide(['topics', 'create', 'under.score', '-p', '1']));
  });
});

describe('errors a user can act on', () => {
  test('a 20 MB line fails at once as REQUEST_TOO_LARGE naming the limit and the setting, in one message', async () => {
    await tide(['topics', 'create', 'big', '-p', '1']);
    const r = await tide(['produce', 'big'], 'x'.repeat(20 * 1024 * 1024) + '\n');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: REQUEST_TOO_LARGE: .*16777216 bytes.*TIDE_MAX_REQUEST_BYTES/m);
    expect(r.stderr).not.toMatch(/BROKER_NOT_AVAILABLE|retry against another broker/);
    expect(r.stderr).not.toMatch(/"level"|stack|    at /); // no JSON warnings, no stack traces
    expect(r.stderr.trim().split('\n')).toHaveLength(2); // error: ... and hint: ...
  });

  test('--offset past the end says so and exits 1', async () => {
    await tide(['topics', 'create', 'short', '-p', '1']);
    await tide(['produce', 'short'], 'a\nb\n');
    const r = await tide(['consume', 'short', '-p', '0', '--offset', '500']);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.stderr).toMatch(/offset 500 is outside short\/0, which holds offsets 0 to 1 \(end 2\)/);
  });

  test('records delete moves the log start: consuming from the beginning starts there', async () => {
    await tide(['topics', 'create', 'purge', '-p', '1']);
    await tide(['produce', 'purge'], 'a\nb\nc\nd\ne\n');
    const d = await tide(['records', 'delete', '--topic', 'purge', '--partition', '0', '--before', '3']);
    expect(d.code).toBe(0);
    expect(d.out).toMatch(/^purge\s+0\s+3\s*$/m);
    const c = await tide(['consume', 'purge', '--from-beginning', '--exit']);
    expect(c.out).toBe('d\ne\n');
    const all = await tide(['records', 'delete', '--topic', 'purge', '--before', 'hw', '--json']);
    expect(JSON.parse(all.out)).toEqual([{ topic: 'purge', partition: 0, lowWatermark: 5 }]);
    const beyond = await tide(['records', 'delete', '--topic', 'purge', '--before', '99']);
    expect(beyond.code).toBe(1);
    expect(beyond.stderr).toMatch(/high watermark 5/);
    expectUsage(await tide(['records', 'delete', '--topic', 'purge', '--before', '-7']));
  });

  test('a closed output pipe ends the command quietly', async () => {
    await tide(['topics', 'create', 'many-lines', '-p', '1']);
    await tide(['produce', 'many-lines'], Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n'));
    const child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'bin', 'tide.js'),
        '-b',
        b,
        'consume',
        'many-lines',
        '--from-beginning',
        '--exit',
      ],
      {
        env: { ...process.env, ...noConfig() },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.once('data', () => child.stdout.destroy()); // as `| head -1` does
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).not.toMatch(/EPIPE|Error|    at /);
    expect(code).toBe(0);
  });

  test('a line without the key separator is refused unless --allow-null-key', async () => {
    await tide(['topics', 'create', 'keys', '-p', '1']);
    const refused = await tide(['produce', 'keys', '-k', ':'], 'k1:v1\nnokey\n');
    expectUsage(refused);
    expect(refused.stderr).toMatch(/line 2 has no key separator ":".*--allow-null-key/);
    const allowed = await tide(['produce', 'keys', '-k', ':', '--allow-null-key'], 'k2:v2\nnokey\n');
    expect(allowed.code).toBe(0);
    const r = await tide(['consume', 'keys', '-o', '-2', '--exit', '--print-key', '--key-separator', '|']);
    expect(r.out).toBe('k2|v2\nnull|nokey\n');
  });
});

describe('produce and consume', () => {
  test('format strings, --print-* flags, --exit and relative offsets', async () => {
    await tide(['topics', 'create', 'fmt', '-p', '1']);
    const p = await tide(['produce', 'fmt', '-k', '=', '-H', 'src=cli'], 'a=1\nb=2\nc=3\n');
    expect(p.stderr).toMatch(/^produced 3 record\(s\) in \d+\.\d s \([\d,]+\/s\) to fmt$/m);
    const f = await tide([
      'consume',
      'fmt',
      '--from-beginning',
      '--exit',
      '-f',
      '%t|%p|%o|%k|%s|%K|%S|%h\\n',
    ]);
    expect(f.code).toBe(0);
    expect(f.out).toBe('fmt|0|0|a|1|1|1|src=cli\nfmt|0|1|b|2|1|1|src=cli\nfmt|0|2|c|3|1|1|src=cli\n');
    expect(f.stderr).toMatch(/consumed 3 record\(s\)/);
    const t = await tide([
      'consume',
      'fmt',
      '-o',
      '-2',
      '--exit',
      '--print-partition',
      '--print-offset',
      '--print-headers',
    ]);
    expect(t.out).toBe('0\t1\tsrc=cli\t2\n0\t2\tsrc=cli\t3\n');
    const ts = await tide(['consume', 'fmt', '-o', '-1', '-e', '--print-timestamp', '--format', 'text']);
    expect(ts.out).toMatch(/^\d{13}\t3\n$/);
    const end = await tide(['consume', 'fmt', '--offset', 'end', '--exit']);
    expect(end.code).toBe(0);
    expect(end.out).toBe('');
    const json = await tide(['consume', 'fmt', '-o', 'beginning', '-e', '-n', '1', '--format', 'json']);
    expect(JSON.parse(json.out)).toMatchObject({
      topic: 'fmt',
      partition: 0,
      offset: 0,
      key: 'a',
      value: '1',
      headers: { src: 'cli' },
    });
  });

  test('a progress line with the rate on stderr when it is a terminal (and stdout is not)', async () => {
    const script = spawnSync('script', ['--version']);
    if (script.status !== 0) return; // util-linux `script` gives the command a terminal
    const cli = `${process.execPath} ${path.join(REPO_ROOT, 'bin', 'tide.js')} -b ${b}`;
    const r = spawnSync(
      'script',
      ['-qec', `${cli} consume fmt --from-beginning --timeout-ms 2500 > /dev/null`, '/dev/null'],
      { env: { ...process.env, ...noConfig() } },
    );
    const out = r.stdout.toString();
    expect(out).toMatch(/\r\x1b\[K3 record\(s\) in \d+\.\d s \([\d,]+\/s\)/);
    expect(out).toMatch(/\r\x1b\[Kconsumed 3 record\(s\)/);
    expect(out).not.toMatch(/^[123]\r?$/m); // the records went to /dev/null
  });

  test('10,000 random binary keys and values round-trip byte for byte through base64 (seed 19)', async () => {
    await tide(['topics', 'create', 'binary', '-p', '1']);
    const random = seededBytes(19);
    const records = Array.from({ length: 10_000 }, (_, i) => ({
      key: random(1 + (i % 37)),
      value: random(i % 300),
    }));
    const input =
      records.map((r) => `${r.key.toString('base64')} ${r.value.toString('base64')}`).join('\n') + '\n';
    const p = await tide(
      [
        'produce',
        'binary',
        '-k',
        ' ',
        '--key-encoding',
        'base64',
        '--value-encoding',
        'base64',
        '--compression',
        'zstd',
      ],
      input,
    );
    expect(p.stderr).toMatch(/produced 10,000 record/);
    const c = await tide([
      'consume',
      'binary',
      '--from-beginning',
      '--exit',
      '--print-key',
      '--key-separator',
      ' ',
      '--key-encoding',
      'base64',
      '--value-encoding',
      'base64',
    ]);
    expect(c.code).toBe(0);
    const lines = c.out.split('\n').slice(0, -1);
    expect(lines).toHaveLength(10_000);
    lines.forEach((line, i) => {
      const [k, v] = line.split(' ');
      expect(Buffer.from(k, 'base64').equals(records[i].key)).toBe(true);
      expect(Buffer.from(v, 'base64').equals(records[i].value)).toBe(true);
    });
  });

  test('binary values: --value-file, hex, raw bytes in text mode, base64 in JSON when not UTF-8', async () => {
    await tide(['topics', 'create', 'files', '-p', '1']);
    const file = path.join(dataDir, 'blob.bin');
    const blob = Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0x0a]), seededBytes(7)(5000)]);
    fs.writeFileSync(file, blob);
    const p = await tide([
      'produce',
      'files',
      '--value-file',
      file,
      '--key',
      'cafe',
      '--key-encoding',
      'hex',
    ]);
    expect(p.code).toBe(0);
    const hex = await tide([
      'consume',
      'files',
      '-o',
      'beginning',
      '-e',
      '-f',
      '%k %s',
      '--key-encoding',
      'hex',
      '--value-encoding',
      'hex',
    ]);
    expect(hex.out).toBe(`cafe ${blob.toString('hex')}`);
    const raw = await tide(['consume', 'files', '-o', 'beginning', '-e', '-f', '%s']);
    expect(raw.stdout.equals(blob)).toBe(true);
    const json = JSON.parse(
      (await tide(['consume', 'files', '-o', 'beginning', '-e', '--format', 'json'])).out,
    );
    expect(json.valueEncoding).toBe('base64');
    expect(Buffer.from(json.value, 'base64').equals(blob)).toBe(true);
    const bad = await tide(['produce', 'files', '--value-encoding', 'hex'], 'zz\n');
    expectUsage(bad);
    expect(bad.stderr).toMatch(/the value on line 1 is not valid hex/);
  });

  test.each(['lz4', 'zstd', 'gzip', 'snappy'])(
    '--compression %s: every consumer reads it back',
    async (codec) => {
      const topic = `codec-${codec}`;
      await tide(['topics', 'create', topic, '-p', '1']);
      const lines = Array.from({ length: 500 }, (_, i) => `record ${i} ${'z'.repeat(i % 50)}`);
      expect((await tide(['produce', topic, '--compression', codec], lines.join('\n'))).code).toBe(0);
      const c = await tide(['consume', topic, '--from-beginning', '--exit']);
      expect(c.out).toBe(lines.join('\n') + '\n');
    },
  );
});

describe('groups', () => {
  test('delete is refused while members run, works after; reset-offsets variants', async () => {
    await tide(['topics', 'create', 'gt', '-p', '2']);
    await tide(['produce', 'gt', '-k', ':'], Array.from({ length: 40 }, (_, i) => `k${i}:v${i}`).join('\n'));
    const member = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'tide.js'), '-b', b, 'consume', 'gt', '-g', 'gdel', '--from-beginning'],
      { env: { ...process.env, ...noConfig() }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let seen = '';
    await new Promise<void>((resolve) =>
      member.stdout.on('data', (c: Buffer) => {
        seen += c.toString();
        if (seen.split('\n').length > 40) resolve();
      }),
    );
    const busy = await tide(['groups', 'delete', 'gdel']);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/NON_EMPTY_GROUP: consumer group gdel has 1 member/);
    member.kill('SIGINT');
    await new Promise((resolve) => member.on('close', resolve));

    const shift = await tide([
      'groups',
      'reset-offsets',
      'gdel',
      '--topic',
      'gt:0',
      '--shift-by',
      '-3',
      '--export',
    ]);
    expect(shift.code).toBe(0);
    const [line] = shift.out.trim().split('\n');
    const [topic, partition, offset] = line.split(',');
    expect([topic, partition]).toEqual(['gt', '0']);
    const described = JSON.parse((await tide(['groups', 'describe', 'gdel', '--json'])).out);
    const p0 = described.partitions.find((p: { partition: number }) => p.partition === 0);
    expect(p0.committedOffset).toBe(Number(offset));
    expect(p0.endOffset - p0.committedOffset).toBe(3);

    const dry = await tide([
      'groups',
      'reset-offsets',
      'gdel',
      '--all-topics',
      '--by-duration',
      'PT1H',
      '--dry-run',
    ]);
    expect(dry.out).toMatch(/^gt\s+0\s+\d+\s+0$/m);
    expect(dry.out).toMatch(/^gt\s+1\s+\d+\s+0$/m);
    expect(dry.out).toMatch(/dry run: nothing changed/);
    const future = await tide([
      'groups',
      'reset-offsets',
      'gdel',
      '--topic',
      'gt',
      '--to-datetime',
      '2999-01-01T00:00:00Z',
      '--export',
      '--dry-run',
    ]);
    expect(future.out.trim().split('\n').sort()).toEqual([
      `gt,0,${p0.endOffset}`,
      expect.stringMatching(/^gt,1,\d+$/),
    ]);

    const deleted = await tide(['groups', 'delete', 'gdel']);
    expect(deleted.code).toBe(0);
    expect(deleted.out).toMatch(/deleted group gdel \(2 committed offset\(s\)\)/);
    const gone = await tide(['groups', 'describe', 'gdel']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/GROUP_ID_NOT_FOUND/);
    expect((await tide(['groups', 'list'])).out).not.toMatch(/gdel/);
  });
});

describe('topics describe filters', () => {
  test('--under-replicated and --unavailable list nothing on a healthy node', async () => {
    const r = await tide(['topics', 'describe', '--under-replicated', '--unavailable']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('no under-replicated or unavailable partitions\n');
    const json = await tide(['topics', 'describe', 'fmt', '--unavailable', '--json']);
    expect(JSON.parse(json.out)).toEqual([]);
    expectUsage(await tide(['topics', 'describe']));
  });
});

describe('contexts and completion', () => {
  test('the config file picks the bootstrap; context use switches; flags and TIDE_BOOTSTRAP win', async () => {
    const file = path.join(dataDir, 'cfg', 'config.yaml');
    const cli = (args: string[], env: NodeJS.ProcessEnv = {}) =>
      runCli(['--config-file', file, ...args], { env });
    expect((await cli(['context', 'set', 'local', '--bootstrap', b])).code).toBe(0);
    expect((await cli(['context', 'set', 'nowhere', '--bootstrap', '127.0.0.1:1'])).code).toBe(0);
    expect((await cli(['context', 'current'])).out).toBe('local\n');
    expect((await cli(['topics', 'list'])).out).toMatch(/^fmt$/m);
    expect((await cli(['context', 'use', 'nowhere'])).code).toBe(0);
    expect((await cli(['topics', 'list'])).code).toBe(1);
    expect((await cli(['--context', 'local', 'topics', 'list'])).code).toBe(0);
    expect((await cli(['topics', 'list'], { TIDE_BOOTSTRAP: b })).code).toBe(0);
    expect((await cli(['-b', b, 'topics', 'list'])).code).toBe(0);
    expectUsage(await cli(['context', 'use', 'missing']));
    expect(fs.readFileSync(file, 'utf8')).toMatch(/current-context: nowhere/);
    fs.writeFileSync(file, 'contexts:\n  x:\n    bootstrapp: 1.2.3.4:9092\n');
    const typo = await cli(['topics', 'list']);
    expectUsage(typo);
    expect(typo.stderr).toMatch(/unknown key "bootstrapp"/);
  });

  test('tide completion bash completes sub-commands and options', async () => {
    const script = path.join(dataDir, 'completion.bash');
    fs.writeFileSync(script, (await runCli(['completion', 'bash'])).stdout);
    const complete = (words: string) =>
      spawnSync('bash', [
        '-c',
        `source ${script}; COMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _tide_complete; echo "\${COMPREPLY[*]}"`,
      ])
        .stdout.toString()
        .trim();
    expect(complete('tide gro')).toBe('groups');
    expect(complete('tide groups reset-offsets g --shi')).toBe('--shift-by');
    expect(complete('tide -b x consume t --value-e')).toBe('--value-encoding');
    expect((await runCli(['completion', 'zsh'])).out).toMatch(/bashcompinit/);
  });
});

describe('npm start', () => {
  test('SIGINT to the npm process stops the server (the start script execs)', async () => {
    const scripts = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).scripts;
    expect(scripts.start).toMatch(/&& exec npm run --silent start:built/);
    expect(scripts['start:built']).toMatch(/^exec /);
    const npm = spawn(
      'npm',
      ['run', '--silent', 'start:built', '--', '--data', path.join(dataDir, 'npm-start'), '--port', '0'],
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    await new Promise<void>((resolve) =>
      npm.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        // The "Try:" line is printed after the signal handlers are installed.
        if (/bootstrap \S+:\d+/.test(out) && /Try: /.test(out)) resolve();
      }),
    );
    const address = /bootstrap (\S+:\d+)/.exec(out)![1];
    npm.kill('SIGINT');
    await new Promise((resolve) => npm.on('close', resolve));
    expect(out).toMatch(/Tide stopped\./);
    const after = await runCli(['-b', address, 'topics', 'list'], { env: noConfig() });
    expect(after.code).toBe(1);
  });
});
