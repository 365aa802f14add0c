/**
 * Byte budgets bound the memory FetchStream sessions hold: each read reserves its max bytes from
 * its stream's budget and its connection's budget before it starts, and gives them back once the
 * response has been handed to HTTP/2. A slow reader therefore stalls its own partition loops
 * (backpressure) instead of piling responses up in the broker, however many positions it names or
 * streams it opens on one connection.
 */

interface Waiter {
  bytes: number;
  resolve: () => void;
}

/** A counting semaphore over bytes, first come first served. */
export class ByteBudget {
  private used = 0;
  private readonly waiters: Waiter[] = [];

  constructor(readonly capacityBytes: number) {}

  /** Bytes reserved now. */
  get usedBytes(): number {
    return this.used;
  }

  /**
   * Resolves with the bytes actually reserved (`bytes`, or the whole capacity when `bytes` is
   * larger) once they are free; with 0 when `signal` aborts first. Pass the result to release().
   */
  acquire(bytes: number, signal?: AbortSignal): Promise<number> {
    const want = Math.min(bytes, this.capacityBytes);
    if (signal?.aborted) return Promise.resolve(0);
    if (this.waiters.length === 0 && this.used + want <= this.capacityBytes) {
      this.used += want;
      return Promise.resolve(want);
    }
    return new Promise((resolve) => {
      const waiter: Waiter = {
        bytes: want,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(want);
        },
      };
      const onAbort = () => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        resolve(0);
        this.grant();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(waiter);
    });
  }

  release(bytes: number): void {
    if (bytes <= 0) return;
    this.used = Math.max(0, this.used - bytes);
    this.grant();
  }

  private grant(): void {
    while (this.waiters.length > 0 && this.used + this.waiters[0].bytes <= this.capacityBytes) {
      const waiter = this.waiters.shift()!;
      this.used += waiter.bytes;
      waiter.resolve();
    }
  }
}

/** One budget per client connection (keyed by peer address), alive while it has streams. */
export class ConnectionBudgets {
  private readonly byPeer = new Map<string, { budget: ByteBudget; streams: number }>();

  constructor(readonly capacityBytes: number) {}

  /** The peer's budget; call the returned `done` when the stream ends. */
  open(peer: string): { budget: ByteBudget; done: () => void } {
    let entry = this.byPeer.get(peer);
    if (!entry) {
      entry = { budget: new ByteBudget(this.capacityBytes), streams: 0 };
      this.byPeer.set(peer, entry);
    }
    entry.streams++;
    const held = entry;
    let closed = false;
    return {
      budget: held.budget,
      done: () => {
        if (closed) return;
        closed = true;
        held.streams--;
        if (held.streams === 0 && this.byPeer.get(peer) === held) this.byPeer.delete(peer);
      },
    };
  }

  /** Connections with an open stream (for tests and metrics). */
  get size(): number {
    return this.byPeer.size;
  }
}
