/**
 * Stream time across a restart, against real processes (etcd, a controller, a broker, a group
 * coordinator): a windowed count (10 s windows, 1 s grace) sees records up to t = 30 s, so the
 * window [0, 10 s) is closed and a record at t = 2 s is late. The app closes; a new instance of it
 * restores its store and must still drop a record at t = 3 s — before the fix its stream time
 * started at -1 after a restore, and the record reopened the closed window.
 *
 * 1. In memory: the new instance restores the whole changelog (stream time from the records,
 *    which carry their writer's stream time).
 * 2. LMDB with a state directory: the new instance restores from its checkpoint and reads no
 *    changelog record at all (stream time from the checkpoint).
 */
import { Tide, type Consumer } from '../../client';
import { Serdes, TimeWindows, type RestoreProgress, type StreamsApp, type Windowed } from '../../streams';
import { TestCluster } from '../harness/cluster';
import { startStreamsCluster, stopStreamsCluster } from '../harness/streams-cluster';
import { makeTempDir, waitFor } from '../harness/processes';

jest.setTimeout(150_000);

let cluster: TestCluster;
let tide: Tide;

beforeAll(async () => {
  ({ cluster, tide } = await startStreamsCluster());
});

afterAll(() => stopStreamsCluster({ cluster, tide }));

const windowKey = Serdes.windowed(Serdes.string);

/** One run of the scenario on its own topics and application id. */
async function scenario(name: string, stateDir: string | undefined): Promise<void> {
  const input = `${name}-events`;
  const output = `${name}-counts`;
  await tide.admin().createTopic(input, { partitions: 1, replicationFactor: 1 });
  await tide.admin().createTopic(output, { partitions: 1, replicationFactor: 1 });
  // `key@windowStart` → latest count, as written to the output topic.
  const counts = new Map<string, number>();
  let outputs = 0;
  const reader: Consumer = tide.consumer({ autoOffsetReset: 'earliest' });
  reader.assign([{ topic: output, partition: 0, offset: 0 }]);
  void (async () => {
    for await (const r of reader) {
      const k: Windowed<string> = windowKey.deserialize(r.key!);
      counts.set(`${k.key}@${k.window.start}`, Serdes.number.deserialize(r.value!));
      outputs++;
    }
  })();
  const restores: RestoreProgress[] = [];
  const start = async (): Promise<StreamsApp> => {
    const b = tide.streams({ applicationId: name });
    b.stream(input, { key: Serdes.string, value: Serdes.string })
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeAndGrace(10_000, 1_000))
      .count({ name: 'c' })
      .toStream()
      .to(output, { key: windowKey, value: Serdes.number });
    const app = b.app(b.build(), {
      stateDir,
      commitIntervalMs: 100,
      replicationFactor: 1,
      statusIntervalMs: 0,
      onRestore: (p) => p.done && restores.push(p),
    });
    await app.start();
    return app;
  };
  const send = async (timestampMs: number): Promise<void> => {
    const producer = tide.producer();
    await producer.send(input, { key: 'k', value: 'v', timestampMs });
    await producer.close();
  };

  let app = await start();
  try {
    // A windowed store's changelog is also deleted by time: the store's retention (a day by
    // default) plus a day, as Kafka Streams sets it.
    const configs = await tide.admin().describeConfigs(`${name}-c-changelog`);
    const config = (key: string) => configs.find((c) => c.name === key)?.value;
    expect([config('cleanup.policy'), config('retention.ms')]).toEqual([
      'compact,delete',
      String(2 * 86_400_000),
    ]);
    await send(1_000);
    await send(30_000);
    await waitFor(() => counts.get('k@30000') === 1, { timeoutMs: 30_000, what: 'the count at 30 s' });
    await send(2_000); // late: window [0, 10 s) closed at 11 s of stream time
    await waitFor(() => app.metrics().droppedLateRecords === 1, {
      timeoutMs: 30_000,
      what: 'the late record dropped before the restart',
    });
    expect(app.metrics().tasks[0].streamTimeMs).toBe(30_000);
    await app.close();
    expect(counts.get('k@0')).toBe(1);
    const outputsBefore = outputs;

    restores.length = 0;
    app = await start();
    await waitFor(() => restores.length === 1 && app.metrics().tasks.every((t) => !t.restoring), {
      timeoutMs: 30_000,
      what: 'the store restored',
    });
    // In memory: every changelog record; on LMDB: nothing (the checkpoint covers all).
    expect(restores[0].restored).toBe(stateDir === undefined ? 2 : 0);
    expect(app.metrics().tasks[0].streamTimeMs).toBe(30_000);
    await send(3_000); // still late after the restart
    await waitFor(() => app.metrics().droppedLateRecords === 1, {
      timeoutMs: 30_000,
      what: 'the late record dropped after the restart',
    });
    await send(30_500); // on time: counted on top of the restored count
    await waitFor(() => counts.get('k@30000') === 2, { timeoutMs: 30_000, what: 'the count at 30.5 s' });
    expect(counts.get('k@0')).toBe(1);
    expect(outputs).toBe(outputsBefore + 1); // only the on-time record's update
    expect(app.metrics().tasks[0].streamTimeMs).toBe(30_500);
    expect(app.error()).toBeUndefined();
  } finally {
    await app.close();
    await reader.close();
  }
}

test('in memory: after a full restore from the changelog, a record late before the restart is still dropped', async () => {
  await scenario('late-memory', undefined);
});

test('LMDB: after a restart from the checkpoint (nothing read), a record late before it is still dropped', async () => {
  await scenario('late-lmdb', makeTempDir('tide-streams-late-'));
});

test('LMDB: a checkpoint past a recreated changelog empties the store before the restore', async () => {
  const name = 'recreated';
  const input = `${name}-events`;
  const changelog = `${name}-c-changelog`;
  await tide.admin().createTopic(input, { partitions: 1, replicationFactor: 1 });
  const stateDir = makeTempDir('tide-streams-recreated-');
  const resets: RestoreProgress[] = [];
  const start = async (): Promise<StreamsApp> => {
    const b = tide.streams({ applicationId: name });
    b.stream(input, { key: Serdes.string, value: Serdes.string }).groupByKey().count({ name: 'c' });
    const app = b.app(b.build(), {
      stateDir,
      commitIntervalMs: 100,
      replicationFactor: 1,
      statusIntervalMs: 0,
      onRestore: (p) => p.done && resets.push(p),
    });
    await app.start();
    return app;
  };
  const producer = tide.producer();
  let app = await start();
  try {
    for (const key of ['a', 'a', 'b']) await producer.send(input, { key, value: 'v', timestampMs: 1_000 });
    await waitFor(async () => (await app.query<string, number>('c', 'b').catch(() => null)) === 1, {
      timeoutMs: 30_000,
      what: 'the counts of a and b',
    });
    expect(await app.query<string, number>('c', 'a')).toBe(2);
    await app.close(); // checkpoint: the changelog's offset 3

    // The changelog is deleted and recreated empty: the checkpoint (3) is past its end (0).
    await tide.admin().deleteTopic(changelog);
    await waitFor(
      async () => {
        try {
          await tide.admin().createTopic(changelog, {
            partitions: 1,
            replicationFactor: 1,
            configs: { 'cleanup.policy': 'compact' },
          });
          return true;
        } catch {
          return false;
        }
      },
      { timeoutMs: 30_000, what: 'the changelog recreated' },
    );
    resets.length = 0;
    app = await start();
    await waitFor(() => resets.length === 1, { timeoutMs: 30_000, what: 'the store restored' });
    expect([resets[0].restored, resets[0].total]).toEqual([0, 0]);
    // Only what the new changelog holds (nothing): the counts of the old files are gone, and
    // counting starts over from there.
    expect(await app.query<string, number>('c', 'a')).toBeNull();
    await producer.send(input, { key: 'b', value: 'v', timestampMs: 2_000 });
    await waitFor(async () => (await app.query<string, number>('c', 'b').catch(() => null)) !== null, {
      timeoutMs: 30_000,
      what: 'the new count of b',
    });
    expect(await app.query<string, number>('c', 'b')).toBe(1);
    expect(app.error()).toBeUndefined();
  } finally {
    await app.close();
    await producer.close();
  }
});
