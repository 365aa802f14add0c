/**
 * A child process that reports what it does as one JSON object per stdout line (the group and
 * streams test harnesses run members and apps this way): the events parsed so far, the tail of
 * its stderr for failure messages, and when it exited.
 */
import type { ChildProcess } from 'child_process';
import { exitWithOutput } from './child-exit';

export class JsonLinesChild<E> {
  readonly events: E[] = [];
  exitedAt: number | undefined;
  private stderr = '';
  protected readonly exited: Promise<void>;

  constructor(
    readonly tag: string,
    readonly child: ChildProcess,
    stderrTailChars: number,
  ) {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.trim()) this.events.push(JSON.parse(line) as E);
      }
    });
    child.stderr!.on(
      'data',
      (chunk: Buffer) => (this.stderr = (this.stderr + chunk.toString()).slice(-stderrTailChars)),
    );
    this.exited = exitWithOutput(child, () => (this.exitedAt = Date.now())).then(() => undefined);
  }

  /** The last `stderrTailChars` characters it wrote to stderr. */
  output(): string {
    return this.stderr;
  }

  /** Sends `signal` and waits for the exit; returns when the signal was sent. */
  async signal(signal: NodeJS.Signals): Promise<number> {
    const at = Date.now();
    if (this.exitedAt === undefined) this.child.kill(signal);
    await this.exited;
    return at;
  }
}
