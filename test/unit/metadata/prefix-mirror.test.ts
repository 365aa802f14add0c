import { ManualClock } from '../../../services/common/clock';
import { TideError } from '../../../services/common/errors';
import { silentLogger } from '../../../services/common/logger';
import { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
import { mirrorPrefix, type MirrorUpdate } from '../../../services/common/metadata/prefix-mirror';
import type { MetadataStore, Watch, WatchEvent } from '../../../services/common/metadata/store';

const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** An embedded store whose watches can be broken, as etcd's are by compaction during a disconnect. */
class BreakableStore extends EmbeddedMetadataStore implements MetadataStore {
  private breakers: { silence: () => void; fire: () => void }[] = [];
  failSnapshots = 0;

  override async getPrefix(prefix: string) {
    if (this.failSnapshots > 0) {
      this.failSnapshots--;
      throw new TideError('METADATA_UNAVAILABLE', 'etcd unreachable');
    }
    return super.getPrefix(prefix);
  }

  override async watchPrefix(
    prefix: string,
    fromRevision: number,
    onEvents: (e: WatchEvent[]) => void,
    onError?: (err: Error) => void,
  ) {
    let broken = false;
    const watch: Watch = await super.watchPrefix(
      prefix,
      fromRevision,
      (events) => !broken && onEvents(events),
    );
    this.breakers.push({
      silence: () => (broken = true),
      fire: () => onError?.(new TideError('METADATA_UNAVAILABLE', 'required revision has been compacted')),
    });
    return watch;
  }

  /** Silences every watch (events made now are "missed"); call fire() to report the break. */
  breakAll(): { fire: () => void } {
    const breakers = this.breakers;
    this.breakers = [];
    breakers.forEach((b) => b.silence());
    return { fire: () => breakers.forEach((b) => b.fire()) };
  }
}

function summary(u: MirrorUpdate): string {
  const changes = u.changes
    .map((c) => `${c.key}:${c.before?.toString() ?? '-'}>${c.after?.toString() ?? '-'}`)
    .sort()
    .join(' ');
  return `${u.snapshot ? 'snapshot' : 'watch'} ${changes}`;
}

describe('mirrorPrefix', () => {
  let clock: ManualClock;
  let store: BreakableStore;
  const logger = silentLogger();

  beforeEach(() => {
    clock = new ManualClock();
    store = new BreakableStore({ clock });
  });

  afterEach(async () => {
    await store.close();
  });

  it('delivers the snapshot first (even empty), then every change once, in order', async () => {
    await store.put('/p/a', '1');
    await store.put('/other', 'x');
    const log: string[] = [];
    const mirror = await mirrorPrefix({ store, prefix: '/p/', clock, logger }, (u) => log.push(summary(u)));
    await store.put('/p/b', '2');
    await store.put('/p/a', '3');
    await store.delete('/p/b');
    await flush();
    expect(log).toEqual(['snapshot /p/a:->1', 'watch /p/b:->2', 'watch /p/a:1>3', 'watch /p/b:2>-']);
    expect(mirror.revision).toBe(store.currentRevision);
    await mirror.cancel();

    const empty: string[] = [];
    const m2 = await mirrorPrefix({ store, prefix: '/none/', clock, logger }, (u) => empty.push(summary(u)));
    expect(empty).toEqual(['snapshot ']);
    await m2.cancel();
  });

  it('applies its filter to snapshots and events', async () => {
    const log: string[] = [];
    const mirror = await mirrorPrefix(
      { store, prefix: '/', filter: (k) => k.startsWith('/keep'), clock, logger },
      (u) => log.push(summary(u)),
    );
    await store.put('/drop', '1');
    await store.put('/keep', '2');
    await flush();
    expect(log).toEqual(['snapshot ', 'watch /keep:->2']);
    await mirror.cancel();
  });

  it('re-reads a snapshot when the watch breaks and reports only what it missed', async () => {
    await store.put('/p/a', '1');
    await store.put('/p/b', '1');
    const log: string[] = [];
    const current: string[][] = [];
    const mirror = await mirrorPrefix({ store, prefix: '/p/', clock, logger }, (u) => {
      log.push(summary(u));
      current.push([...u.current.keys()].sort());
    });
    const outage = store.breakAll();
    await store.put('/p/a', '2'); // missed
    await store.delete('/p/b'); // missed
    await store.put('/p/c', '1'); // missed
    outage.fire();
    await flush();
    await store.put('/p/d', '1'); // seen by the new watch
    await flush();
    expect(log).toEqual([
      'snapshot /p/a:->1 /p/b:->1',
      'snapshot /p/a:1>2 /p/b:1>- /p/c:->1',
      'watch /p/d:->1',
    ]);
    expect(current.at(-1)).toEqual(['/p/a', '/p/c', '/p/d']);
    await mirror.cancel();
  });

  it('retries a failed snapshot on the clock', async () => {
    const log: string[] = [];
    const mirror = await mirrorPrefix({ store, prefix: '/p/', clock, logger, resyncDelayMs: 500 }, (u) =>
      log.push(summary(u)),
    );
    const outage = store.breakAll();
    await store.put('/p/x', '1');
    store.failSnapshots = 2;
    outage.fire();
    await flush();
    expect(log).toEqual(['snapshot ']);
    clock.advance(500);
    await flush();
    expect(log).toEqual(['snapshot ']);
    clock.advance(500);
    await flush();
    expect(log).toEqual(['snapshot ', 'snapshot /p/x:->1']);
    await mirror.cancel();
  });

  it('rejects when the first snapshot cannot be read', async () => {
    store.failSnapshots = 1;
    await expect(mirrorPrefix({ store, prefix: '/p/', clock, logger }, () => undefined)).rejects.toThrow(
      /unreachable/,
    );
  });

  it('stops after cancel', async () => {
    const log: string[] = [];
    const mirror = await mirrorPrefix({ store, prefix: '/p/', clock, logger }, (u) => log.push(summary(u)));
    await mirror.cancel();
    await store.put('/p/a', '1');
    await flush();
    expect(log).toEqual(['snapshot ']);
  });
});
