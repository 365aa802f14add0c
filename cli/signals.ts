/** Waits for SIGINT/SIGTERM, then runs `stop` once; a second signal exits at once. */
import type { Logger } from '../services/common/logger';

export function untilStopSignal(stop: () => Promise<void>, logger: Logger): Promise<void> {
  return new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        process.stdout.write(`\n${signal} again: exiting now\n`);
        process.exit(130);
      }
      stopping = true;
      process.stdout.write(`\n${signal}: stopping...\n`);
      stop().then(
        () => {
          process.stdout.write('stopped\n');
          resolve();
        },
        (err: unknown) => {
          logger.error({ err }, 'unclean stop');
          resolve();
        },
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
