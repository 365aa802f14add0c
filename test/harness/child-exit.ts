/**
 * A child's exit, with its output read to the end: 'exit' can fire while the last stdout and
 * stderr chunks are still in the pipe, and a test that looks at the output right after a stop
 * must see them. A grandchild that inherited the pipes could hold them open, so the wait for the
 * pipes is bounded.
 */
import type { ChildProcess } from 'child_process';
import type { Readable } from 'stream';

const PIPE_DRAIN_LIMIT_MS = 2_000;

function ended(stream: Readable | null): Promise<void> {
  if (!stream || stream.readableEnded || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    stream.once('end', resolve);
    stream.once('close', resolve);
  });
}

/** Resolves with the exit code (-1 when killed by a signal) once stdout and stderr were read. */
export function exitWithOutput(
  child: ChildProcess,
  onExit: () => void = () => undefined,
): Promise<number | null> {
  const pipes = Promise.all([ended(child.stdout), ended(child.stderr)]);
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      onExit();
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<void>((r) => (timer = setTimeout(r, PIPE_DRAIN_LIMIT_MS)));
      void Promise.race([pipes, limit]).then(() => {
        clearTimeout(timer);
        resolve(code ?? (signal ? -1 : null));
      });
    }),
  );
}
