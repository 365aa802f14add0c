/**
 * The read-write gate of one partition log: reads run side by side; a structural operation
 * (retention, truncation, close) runs exclusively: appends and reads arriving meanwhile wait for
 * it, and it starts only after queued writes have reached the files, in-flight reads have finished
 * and no segment swap (compaction) is running.
 */
export interface GateHooks {
  /** Resolves when every write queued so far is done; rejects if the writer failed. */
  writesDone(): Promise<void>;
  /** The running segment swap, if any (compaction.ts); an exclusive section waits for it. */
  swapping(): Promise<void> | undefined;
}

export class ReadWriteGate {
  private section: Promise<void> | undefined;
  private activeReads = 0;
  private readWaiters: (() => void)[] = [];

  constructor(private readonly hooks: GateHooks) {}

  /** Resolves when the running exclusive section ends; undefined when none runs. */
  get exclusive(): Promise<void> | undefined {
    return this.section;
  }

  /** Waits out exclusive sections, then counts a read in (pair with exitRead). */
  async enterRead(): Promise<void> {
    while (this.section) await this.section;
    this.activeReads++;
  }

  exitRead(): void {
    if (--this.activeReads > 0) return;
    const waiters = this.readWaiters;
    this.readWaiters = [];
    for (const wake of waiters) wake();
  }

  /**
   * Runs fn with appends and reads held back, after queued writes and in-flight reads are done.
   * With ignoreWriteFailure, a failed writer does not stop fn (closing a failed log).
   */
  async runExclusive<T>(fn: () => Promise<T>, ignoreWriteFailure = false): Promise<T> {
    for (let busy = this.busy(); busy; busy = this.busy()) await busy;
    let release!: () => void;
    this.section = new Promise<void>((resolve) => (release = resolve));
    try {
      const written = this.hooks.writesDone();
      if (ignoreWriteFailure) await written.catch(() => undefined);
      else await written;
      await this.drainReads();
      return await fn();
    } finally {
      this.section = undefined;
      release();
    }
  }

  private busy(): Promise<void> | undefined {
    return this.section ?? this.hooks.swapping();
  }

  private drainReads(): Promise<void> {
    if (this.activeReads === 0) return Promise.resolve();
    return new Promise((resolve) => this.readWaiters.push(resolve));
  }
}
