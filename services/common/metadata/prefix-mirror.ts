/**
 * A local, always-current copy of every key under a prefix: read a snapshot, then watch from its
 * revision + 1, so no change is missed or seen twice. When the watch breaks (etcd compacted past
 * it while disconnected), the mirror reads a fresh snapshot and reports the difference, so its
 * owner sees the same stream of changes as if nothing had happened. Snapshot reads that fail are
 * retried on the injected clock.
 */
import type { Clock, Timer } from '../clock';
import type { Logger } from '../logger';
import type { MetadataStore, Watch, WatchEvent } from './store';

/** How long to wait before re-reading a snapshot after a failed attempt. */
export const DEFAULT_RESYNC_DELAY_MS = 1000;

export interface KeyChange {
  key: string;
  /** Value before the change; absent when the key was created. */
  before?: Buffer;
  /** Value after the change; absent when the key was deleted. */
  after?: Buffer;
}

export interface MirrorUpdate {
  /** The store revision the mirror now reflects. */
  revision: number;
  /** Every mirrored key and value as of `revision`. A live view: copy what you keep. */
  current: ReadonlyMap<string, Buffer>;
  /** What changed since the previous update (every key, for the first one). */
  changes: KeyChange[];
  /** True for the first update and for the one after a re-read snapshot. */
  snapshot: boolean;
}

export interface PrefixMirrorOptions {
  store: MetadataStore;
  prefix: string;
  /** Mirrors only the keys it accepts (the others are ignored, and updates with none are skipped). */
  filter?: (key: string) => boolean;
  clock: Clock;
  logger: Logger;
  resyncDelayMs?: number;
}

export interface PrefixMirror {
  /** The revision of the last update delivered. */
  readonly revision: number;
  cancel(): Promise<void>;
}

/**
 * Starts mirroring. Resolves after the first update (the initial snapshot, delivered even when
 * empty) has been delivered; rejects if the first snapshot cannot be read. `onUpdate` is called
 * in revision order, never concurrently, and must not throw.
 */
export async function mirrorPrefix(
  options: PrefixMirrorOptions,
  onUpdate: (update: MirrorUpdate) => void,
): Promise<PrefixMirror> {
  const mirror = new Mirror(options, onUpdate);
  await mirror.sync(true);
  return mirror;
}

class Mirror implements PrefixMirror {
  private current = new Map<string, Buffer>();
  private rev = 0;
  private watch?: Watch;
  /** Bumped per snapshot; callbacks of an older watch are ignored. */
  private generation = 0;
  private cancelled = false;
  private retryTimer?: Timer;
  private readonly filter: (key: string) => boolean;

  constructor(
    private readonly options: PrefixMirrorOptions,
    private readonly onUpdate: (update: MirrorUpdate) => void,
  ) {
    this.filter = options.filter ?? (() => true);
  }

  get revision(): number {
    return this.rev;
  }

  async cancel(): Promise<void> {
    this.cancelled = true;
    this.retryTimer?.cancel();
    const watch = this.watch;
    this.watch = undefined;
    await watch?.cancel();
  }

  /** Reads a snapshot, reports its difference from the mirror, and watches from there. */
  async sync(first: boolean): Promise<void> {
    const { store, prefix } = this.options;
    const generation = ++this.generation;
    const range = await store.getPrefix(prefix);
    if (this.cancelled || generation !== this.generation) return;
    const next = new Map(range.kvs.filter((kv) => this.filter(kv.key)).map((kv) => [kv.key, kv.value]));
    const changes: KeyChange[] = [];
    for (const [key, before] of this.current) {
      const after = next.get(key);
      if (!after || !after.equals(before)) changes.push(after ? { key, before, after } : { key, before });
    }
    for (const [key, after] of next) if (!this.current.has(key)) changes.push({ key, after });
    this.current = next;
    this.rev = range.revision;
    // Delivered before the watch starts: a replaying watch may call back before watchPrefix resolves.
    if (first || changes.length > 0)
      this.onUpdate({ revision: this.rev, current: this.current, changes, snapshot: true });
    let watch: Watch;
    try {
      watch = await store.watchPrefix(
        prefix,
        range.revision + 1,
        (events) => this.apply(generation, events),
        (err) => this.broken(generation, err),
      );
    } catch (err) {
      // E.g. compacted between the read and the watch: the snapshot is delivered, so re-read.
      this.broken(generation, err as Error);
      return;
    }
    if (this.cancelled || generation !== this.generation) {
      await watch.cancel();
      return;
    }
    this.watch = watch;
  }

  private apply(generation: number, events: WatchEvent[]): void {
    if (this.cancelled || generation !== this.generation) return;
    const changes: KeyChange[] = [];
    for (const event of events) {
      if (!this.filter(event.key)) continue;
      const before = this.current.get(event.key);
      if (event.type === 'put') {
        this.current.set(event.key, event.value!);
        changes.push(
          before ? { key: event.key, before, after: event.value! } : { key: event.key, after: event.value! },
        );
      } else if (before) {
        this.current.delete(event.key);
        changes.push({ key: event.key, before });
      }
    }
    this.rev = Math.max(this.rev, events[0].revision);
    if (changes.length > 0)
      this.onUpdate({ revision: this.rev, current: this.current, changes, snapshot: false });
  }

  private broken(generation: number, err: Error): void {
    if (this.cancelled || generation !== this.generation) return;
    this.options.logger.warn(
      { err, prefix: this.options.prefix },
      'metadata watch broke; re-reading a snapshot',
    );
    const watch = this.watch;
    this.watch = undefined;
    void watch?.cancel();
    this.resync();
  }

  private resync(): void {
    if (this.cancelled) return;
    this.sync(false).catch((err: unknown) => {
      if (this.cancelled) return;
      const delayMs = this.options.resyncDelayMs ?? DEFAULT_RESYNC_DELAY_MS;
      this.options.logger.warn(
        { err, prefix: this.options.prefix, delayMs },
        'metadata snapshot failed; retrying',
      );
      this.retryTimer = this.options.clock.setTimeout(() => this.resync(), delayMs);
    });
  }
}
