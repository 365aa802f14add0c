/**
 * Against real processes (etcd, a controller, a broker, a group coordinator):
 * 1. Repartition purge: while a word count runs (`text` → `<app>-counts-repartition` → `counts`),
 *    the log start offset of every partition of its repartition topic advances as the app
 *    commits, up to the high watermark once everything is processed, and the counts stay exact.
 * 2. LMDB window stores on the cluster runtime: a windowed word count with a state directory
 *    closes (checkpoint) and starts again restoring nothing from its changelogs, and counts on.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { PartitionStatus, Tide } from '../../client';
import { Serdes, TimeWindows, type RestoreProgress, type StreamsApp, type Windowed } from '../../streams';
import { makeTempDir, waitFor } from '../harness/processes';
import { WordCountFixture } from './streams-word-count';

jest.setTimeout(150_000);

const APP = 'purging';
const REPARTITION = `${APP}-counts-repartition`;
const WORDS = Array.from({ length: 30 }, (_, i) => `w${i}`);

const fixture = new WordCountFixture({
  appId: APP,
  stateDirPrefix: 'tide-streams-purge-',
  wordsOfLine: (line) => Array.from({ length: 4 }, (_, j) => WORDS[(line * 7 + j * 3) % WORDS.length]),
  partitions: 3,
});
const { expected } = fixture;
let tide: Tide;
let app: StreamsApp | undefined;

beforeAll(async () => {
  await fixture.start();
  tide = fixture.tide;
  await tide.admin().createTopic('window-counts', { partitions: 3, replicationFactor: 1 });
});

afterAll(async () => {
  await app?.close();
  await fixture.stop();
});

const produce = (n: number) => fixture.produce(n);

async function repartitionStatus(): Promise<PartitionStatus[]> {
  return (await tide.admin().describeTopic(REPARTITION)).status.sort((a, b) => a.partition - b.partition);
}

test('the repartition topic is purged up to the committed offsets while the app runs', async () => {
  const b = tide.streams({ applicationId: APP });
  b.stream('text', { key: Serdes.string, value: Serdes.string })
    .flatMapValues((text) => text.split(' '))
    .selectKey((_k, word) => word)
    .groupByKey({ key: Serdes.string, value: Serdes.string })
    .count({ name: 'counts' })
    .toStream()
    .to('word-counts', { value: Serdes.number });
  app = b.app(b.build(), { commitIntervalMs: 200, repartitionPurgeIntervalMs: 0, replicationFactor: 1 });
  await app.start();

  await produce(300);
  // While records flow, every partition's log start moves off 0 (the purge follows the commits).
  await waitFor(async () => (await repartitionStatus()).every((s) => s.logStartOffset > 0), {
    timeoutMs: 60_000,
    what: 'every repartition partition purged once',
  });
  await produce(300);
  await waitFor(() => fixture.exact(), {
    timeoutMs: 60_000,
    what: 'exact counts',
  });
  // Everything processed and committed: nothing is left below the high watermark.
  const done = await waitFor(
    async () => {
      const status = await repartitionStatus();
      return status.every((s) => s.logStartOffset === s.highWatermark) ? status : undefined;
    },
    { timeoutMs: 60_000, what: 'the repartition topic purged to its end' },
  );
  expect(done!.length).toBe(3);
  expect(done!.reduce((n, s) => n + s.highWatermark, 0)).toBe(600 * 4);
  expect(app.error()).toBeUndefined();
});

test('a windowed count on LMDB window stores restarts from its checkpoint and counts on', async () => {
  await app?.close();
  app = undefined;
  const stateDir = makeTempDir('tide-streams-windows-');
  const windowed = new Map<string, number>(); // `${word}@${start}` → latest count
  const out = tide.consumer({ autoOffsetReset: 'earliest' });
  out.assign([0, 1, 2].map((partition) => ({ topic: 'window-counts', partition, offset: 0 })));
  const keySerde = Serdes.windowed(Serdes.string);
  void (async () => {
    for await (const r of out) {
      const k: Windowed<string> = keySerde.deserialize(r.key!);
      windowed.set(`${k.key}@${k.window.start}`, Serdes.number.deserialize(r.value!));
    }
  })();
  const perWord = () => {
    const sums = new Map<string, number>();
    for (const [id, n] of windowed) sums.set(id.split('@')[0], (sums.get(id.split('@')[0]) ?? 0) + n);
    return sums;
  };
  const exactWindows = () => [...expected].every(([w, n]) => perWord().get(w) === n);
  const restores: RestoreProgress[] = [];
  const startWindowed = async () => {
    const b = tide.streams({ applicationId: 'windowed' });
    b.stream('text', { key: Serdes.string, value: Serdes.string })
      .flatMapValues((text) => text.split(' '))
      .selectKey((_k, word) => word)
      .groupByKey({ key: Serdes.string, value: Serdes.string })
      .windowedBy(TimeWindows.ofSizeWithNoGrace(3_600_000))
      .count({ name: 'wcount' })
      .toStream()
      .to('window-counts', { key: keySerde, value: Serdes.number });
    const started = b.app(b.build(), {
      stateDir,
      commitIntervalMs: 200,
      replicationFactor: 1,
      onRestore: (p) => p.done && restores.push(p),
    });
    await started.start();
    return started;
  };
  try {
    app = await startWindowed();
    await waitFor(exactWindows, { timeoutMs: 60_000, what: 'exact windowed counts' });
    await app.close();
    const taskDirs = fs.readdirSync(stateDir).filter((t) => fs.existsSync(path.join(stateDir, t, 'wcount')));
    expect(taskDirs.length).toBe(3); // the LMDB window store of each task
    restores.length = 0;

    app = await startWindowed();
    await produce(60);
    await waitFor(exactWindows, { timeoutMs: 60_000, what: 'exact windowed counts after the restart' });
    const wcount = restores.filter((r) => r.store === 'wcount');
    expect(wcount.length).toBe(3);
    expect(wcount.reduce((n, r) => n + r.restored, 0)).toBe(0); // the checkpoints cover everything
    expect(app.error()).toBeUndefined();
  } finally {
    await out.close();
    await app?.close();
    app = undefined;
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});
