/**
 * The process the compaction crash test kills (compaction-crash.test.ts). Run with node (through
 * services/broker/log/cleaner/ts-entry.ts) and one JSON argument, CrashChildArgs. It opens the
 * partition log in `dataDir`, writes the seeded workload if the log is empty (flushPolicy 'sync':
 * every acknowledged batch is on disk), then runs one cleaning pass on the cleaner's worker thread:
 *   - kill: 'point': SIGKILLs itself at the n-th occurrence of a swap step (a deterministic crash
 *     inside the swap protocol);
 *   - kill: 'timer': prints `cleaning` and keeps appending the seeded extra batches, printing
 *     `acked <i>` after each, and SIGKILLs itself `ms` after it printed `afterLine`. The timer is
 *     the child's own: one in the test process fired late while jest ran other suites (the pass
 *     then finished first).
 * Prints `written <n>` after the workload, `step <swap step>` as the pass goes (timer mode) and
 * `done` if nothing killed it; lines are written synchronously so none is lost to the SIGKILL.
 */
import { writeSync } from 'node:fs';
import { ManualClock } from '../../services/common/clock';
import { silentLogger } from '../../services/common/logger';
import { openPartitionLog } from '../../services/broker/log/partition-log';
import { WorkerExecutor } from '../../services/broker/log/cleaner/executor';
import { LogCleaner } from '../../services/broker/log/cleaner/log-cleaner';
import type { SwapStep } from '../../services/broker/log/segment-swap';
import {
  crashConfig,
  extraBatch,
  workload,
  CRASH_PARTITION,
  CRASH_TOPIC,
  CRASH_T0,
} from './compaction-crash-workload';

export interface CrashChildArgs {
  dataDir: string;
  seed: number;
  kill:
    | { mode: 'point'; step: SwapStep; occurrence: number }
    | { mode: 'timer'; afterLine: 'cleaning' | 'step cleaned-written'; ms: number };
  ioBytesPerSecond: number;
}

/** Synchronous: a line printed before a SIGKILL must reach the parent. */
function say(line: string): void {
  writeSync(1, `${line}\n`);
}

async function main(args: CrashChildArgs): Promise<void> {
  const clock = new ManualClock(CRASH_T0);
  const log = await openPartitionLog({
    dataDir: args.dataDir,
    topic: CRASH_TOPIC,
    partition: CRASH_PARTITION,
    config: crashConfig(),
    clock,
    logger: silentLogger(),
  });
  if (log.logEndOffset === 0) {
    for (const batch of workload(args.seed)) await log.append(batch, { leaderEpoch: 0 });
  }
  say(`written ${log.logEndOffset}`);
  const kill = args.kill;
  let sayAndArm = say;
  if (kill.mode === 'point') {
    let seen = 0;
    log.compaction.swapHook = (step) => {
      if (step === kill.step && ++seen === kill.occurrence) process.kill(process.pid, 'SIGKILL');
    };
  } else {
    let armed = false;
    const arm = (line: string): void => {
      if (line !== kill.afterLine || armed) return;
      armed = true;
      setTimeout(() => process.kill(process.pid, 'SIGKILL'), kill.ms);
    };
    log.compaction.swapHook = (step) => {
      say(`step ${step}`);
      arm(`step ${step}`);
    };
    sayAndArm = (line) => {
      say(line);
      arm(line);
    };
  }
  const cleaner = new LogCleaner({
    clock,
    logger: silentLogger(),
    logs: () => [log],
    executor: new WorkerExecutor(),
    config: { ioBytesPerSecond: args.ioBytesPerSecond },
  });
  const pass = cleaner.clean(log, { force: true });
  if (kill.mode === 'timer') {
    sayAndArm('cleaning');
    let done = false;
    void pass.finally(() => (done = true));
    for (let i = 0; !done; i++) {
      await log.append(extraBatch(args.seed, i), { leaderEpoch: 0 });
      say(`acked ${i}`);
    }
  }
  await pass;
  await cleaner.close();
  await log.close();
  say('done');
}

main(JSON.parse(process.argv[process.argv.length - 1]) as CrashChildArgs).catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
