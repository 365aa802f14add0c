/**
 * A restart right after a SIGKILL found its lock "in use" while the killed process was a zombie
 * (state Z: dead, not yet reaped by its parent, yet kill(pid, 0) succeeds). A real zombie is made
 * here: a shell forks a child that exits shortly after, then execs `sleep`, which never reaps it.
 * The child must outlive the exec: a shell that sees its background child exit first reaps it
 * (that race lost the zombie once under CI load).
 */
import { spawn, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { processIsRunning, processState } from '../../../services/common/process-alive';
import { lockStateFile } from '../../../services/common/metadata/embedded-persistence';
import { DataDirLock } from '../../../services/broker/log/dir-lock';
import { silentLogger } from '../../../services/common/logger';

const onLinux = process.platform === 'linux';
const linuxOnly = onLinux ? describe : describe.skip;

let parent: ChildProcess | undefined;
let zombiePid = 0;
let dir: string;

async function makeZombie(): Promise<number> {
  parent = spawn('sh', ['-c', 'sh -c "sleep 0.5; exit 0" & echo $!; exec sleep 60'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const pid = await new Promise<number>((resolve) => {
    parent!.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
  });
  // Wait until the kernel shows the exited child as a zombie.
  for (let i = 0; i < 1000 && processState(pid, (f) => fs.readFileSync(f, 'utf8')) !== 'Z'; i++)
    await new Promise((r) => setTimeout(r, 10));
  return pid;
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-zombie-'));
  if (onLinux) zombiePid = await makeZombie();
}, 20_000);

afterAll(() => {
  parent?.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('processState reads the state after the last parenthesis of the command name', () => {
  expect(processState(7, () => '7 (a) b (c)) Z 1 2 3')).toBe('Z');
  expect(processState(7, () => '7 (node) S 1 2 3')).toBe('S');
  expect(
    processState(7, () => {
      throw new Error('ENOENT');
    }),
  ).toBeUndefined();
});

linuxOnly('a zombie holds no lock', () => {
  test('the zombie is one: kill(pid, 0) still succeeds', () => {
    expect(processState(zombiePid, (f) => fs.readFileSync(f, 'utf8'))).toBe('Z');
    expect(() => process.kill(zombiePid, 0)).not.toThrow();
    expect(processIsRunning(zombiePid)).toBe(false);
    expect(processIsRunning(process.pid)).toBe(true);
  });

  test('the embedded metadata store takes over a state file lock left by a zombie', () => {
    const file = path.join(dir, 'metadata.json');
    fs.writeFileSync(`${file}.lock`, `${zombiePid} ${Date.now()} x`);
    const release = lockStateFile(file);
    expect(fs.readFileSync(`${file}.lock`, 'utf8')).toMatch(new RegExp(`^${process.pid} `));
    release();
  });

  test('a broker takes over a data dir lock left by a zombie', async () => {
    const dataDir = path.join(dir, 'data');
    fs.mkdirSync(dataDir);
    fs.writeFileSync(
      path.join(dataDir, '.lock'),
      JSON.stringify({ pid: zombiePid, hostname: os.hostname(), acquiredAtMs: 0 }) + '\n',
    );
    const lock = await DataDirLock.acquire(dataDir, silentLogger(), 1);
    await lock.release();
  });
});
