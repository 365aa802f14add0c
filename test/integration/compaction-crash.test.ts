/**
 * SIGKILL during compaction, on a real process: a child (compaction-crash-child.ts) holds a
 * compacted partition log and runs a cleaning pass on the cleaner's worker thread. It is killed
 *   - at a seeded occurrence of every step of the segment swap (it kills itself there), and
 *   - at a seeded moment while the pass runs and it keeps appending (its own timer, armed at a
 *     line it prints).
 * Then the log is reopened here and must: hold no leftover file, show a consumer exactly the
 * latest value per key of everything acknowledged (plus at most the one batch in flight), serve
 * reads from any offset, and clean again to the same view. Seeds are in the test names; rerun one
 * with `-t 'seed 3'`.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ManualClock } from '../../services/common/clock';
import { silentLogger } from '../../services/common/logger';
import { openPartitionLog, type SegmentedLog } from '../../services/broker/log/partition-log';
import { entryCode } from '../../services/broker/log/cleaner/ts-entry';
import type { SwapStep } from '../../services/broker/log/segment-swap';
import { partitionDirName } from '../../services/broker/log/names';
import { cleanerFor, fold, readRecords, sortedEntries } from '../unit/log/compaction-helpers';
import type { CrashChildArgs } from './compaction-crash-child';
import {
  CRASH_PARTITION,
  CRASH_T0,
  CRASH_TOPIC,
  crashConfig,
  extraRecords,
  workload,
  workloadRecords,
} from './compaction-crash-workload';
import { seededRandom } from '../harness/random';

jest.setTimeout(120_000);

const CHILD = path.join(__dirname, `compaction-crash-child${path.extname(__filename)}`);
const SEED = 7;
let root: string;
let prepared: string;

function open(dataDir: string): Promise<SegmentedLog> {
  return openPartitionLog({
    dataDir,
    topic: CRASH_TOPIC,
    partition: CRASH_PARTITION,
    config: crashConfig(),
    clock: new ManualClock(CRASH_T0),
    logger: silentLogger(),
  });
}

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'tide-compaction-crash-'));
  prepared = path.join(root, 'prepared');
  const log = await open(prepared);
  for (const batch of workload(SEED)) await log.append(batch, { leaderEpoch: 0 });
  await log.close();
});

afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

interface ChildRun {
  output: string;
  signal: NodeJS.Signals | null;
  code: number | null;
}

/** Runs the child on a copy of the prepared log until it exits (or kills itself, per `kill`). */
async function runChild(
  name: string,
  kill: CrashChildArgs['kill'],
): Promise<{ dataDir: string; run: ChildRun }> {
  const dataDir = path.join(root, name);
  await fs.cp(prepared, dataDir, { recursive: true });
  const args: CrashChildArgs = { dataDir, seed: SEED, kill, ioBytesPerSecond: 600_000 };
  const child = spawn(process.execPath, ['-e', entryCode(CHILD), JSON.stringify(args)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const run = await new Promise<ChildRun>((resolve) =>
    child.on('exit', (code, signal) => resolve({ output, signal, code })),
  );
  return { dataDir, run };
}

/** Checks the log the crash left, then cleans it again. */
async function verify(dataDir: string, run: ChildRun, what: string): Promise<void> {
  const acked = [...run.output.matchAll(/acked (\d+)/g)].length;
  const base = workloadRecords(SEED).flat();
  const models = [acked, acked + 1].map((n) =>
    fold([...base, ...Array.from({ length: n }, (_, i) => extraRecords(SEED, i)).flat()]),
  );
  const log = await open(dataDir);
  try {
    const files = await fs.readdir(path.join(dataDir, partitionDirName(CRASH_TOPIC, CRASH_PARTITION)));
    expect({ what, leftovers: files.filter((f) => /\.(cleaned|swap|deleted|tmp)$/.test(f)) }).toEqual({
      what,
      leftovers: [],
    });
    const view = JSON.stringify(sortedEntries(fold(await readRecords(log))));
    expect({ what, matches: models.some((m) => JSON.stringify(sortedEntries(m)) === view) }).toEqual({
      what,
      matches: true,
    });
    for (let offset = 0; offset < log.logEndOffset; offset += 97) await log.read(offset, 4096);
    const cleaner = cleanerFor([log], new ManualClock(CRASH_T0));
    await cleaner.clean(log, { force: true });
    expect({ what, view: JSON.stringify(sortedEntries(fold(await readRecords(log)))) }).toEqual({
      what,
      view,
    });
    const activeBase = log.segmentBaseOffsets().at(-1)!;
    const below = (await readRecords(log)).filter((r) => r.offset < activeBase);
    expect({ what, oneRecordPerKey: new Set(below.map((r) => r.key)).size === below.length }).toEqual({
      what,
      oneRecordPerKey: true,
    });
  } finally {
    await log.close();
  }
}

const STEPS: SwapStep[] = [
  'cleaned-written',
  'swap-renamed',
  'original-renamed',
  'swap-completed',
  'indexes-written',
];

describe('SIGKILL inside the swap protocol', () => {
  it.each(STEPS.flatMap((step, i) => [1, 2].map((seed) => ({ step, seed: seed * 10 + i }))))(
    'at $step, seed $seed',
    async ({ step, seed }) => {
      const occurrence = 1 + Math.floor(seededRandom(seed)() * 6);
      const { dataDir, run } = await runChild(`point-${step}-${seed}`, { mode: 'point', step, occurrence });
      expect({ step, occurrence, signal: run.signal, output: run.output.slice(-500) }).toMatchObject({
        signal: 'SIGKILL',
      });
      await verify(dataDir, run, `${step} #${occurrence}`);
    },
  );
});

describe('SIGKILL at a random moment while cleaning and appending', () => {
  const killedAt: Array<{ seed: number; delayMs: number; swapsDone: number; signal: NodeJS.Signals | null }> =
    [];

  // Seeds 1-3 count from the start of the pass (mostly the key-map phase), 4-8 from its first swap.
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('seed %d', async (seed) => {
    const line = seed <= 3 ? ('cleaning' as const) : ('step cleaned-written' as const);
    const delayMs = Math.floor(seededRandom(seed)() * (seed <= 3 ? 1000 : 400));
    const { dataDir, run } = await runChild(`timed-${seed}`, { mode: 'timer', afterLine: line, ms: delayMs });
    expect(run.output).toMatch(/written \d+/);
    const swapsDone = [...run.output.matchAll(/step indexes-written/g)].length;
    killedAt.push({ seed, delayMs, swapsDone, signal: run.signal });
    await verify(
      dataDir,
      run,
      `killed ${delayMs} ms into the pass after ${swapsDone} swaps (${run.signal ?? `exit ${run.code}`})`,
    );
  });

  afterAll(() => {
    // The kills must land inside passes (some after a few swaps), not after them.
    expect(killedAt.filter((k) => k.signal !== 'SIGKILL')).toEqual([]);
    expect(killedAt.some((k) => k.swapsDone === 0)).toBe(true);
    expect(killedAt.filter((k) => k.swapsDone > 0).length).toBeGreaterThan(2);
  });
});
