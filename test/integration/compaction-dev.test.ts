/**
 * Compaction end to end on a real `tide dev` process, through the TypeScript client and the CLI:
 * a compacted topic refuses keyless records with INVALID_RECORD, `tide topics describe` shows the
 * policy and the dirty ratio, the broker's cleaner (worker thread, timer) compacts the partition
 * while producers keep writing, and a consumer reading from the start sees every key's latest
 * value, before and after a restart.
 */
import * as fs from 'fs';
import { Tide, TideError } from '../../client';
import { makeTempDir, runCli, startTide, waitFor, type TideProcess } from '../harness/processes';

jest.setTimeout(120_000);

let dataDir: string;
let node: TideProcess;
let tide: Tide;

/** The cleaner looks for work every 500 ms here (cleanerBackoffMs; 5 s by default). */
const CLEANER_ENV = { TIDE_CLEANER_BACKOFF_MS: '500' };

beforeAll(async () => {
  dataDir = makeTempDir();
  node = await startTide(['dev', '--data', dataDir, '--port', '0'], { env: CLEANER_ENV });
  tide = new Tide({ bootstrap: [node.address] });
});

afterAll(async () => {
  await tide?.close();
  await node?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function readAll(topic: string): Promise<Map<string, string>> {
  const view = new Map<string, string>();
  const consumer = tide.consumer({ autoOffsetReset: 'earliest' });
  let offset = 0;
  for (;;) {
    const result = await consumer.fetch({ topic, partition: 0 }, offset, { maxWaitMs: 0 });
    for (const r of result.records) {
      const key = r.key!.toString();
      if (r.value === null) view.delete(key);
      else view.set(key, r.value.toString());
    }
    if (result.nextOffset >= result.highWatermark || result.nextOffset === offset) break;
    offset = result.nextOffset;
  }
  await consumer.close();
  return view;
}

test('a compacted topic: keyless records refused, compaction while writing, latest value per key kept', async () => {
  await tide.admin().createTopic('profiles', {
    partitions: 1,
    configs: { 'cleanup.policy': 'compact', 'segment.bytes': '4096', 'min.cleanable.dirty.ratio': '0.2' },
  });
  const producer = tide.producer();
  const model = new Map<string, string>();
  const send = async (from: number, count: number): Promise<void> => {
    const records = Array.from({ length: count }, (_, j) => {
      const i = from + j;
      const key = `user-${i % 40}`;
      const value = i % 17 === 0 ? null : `profile-${i}-${'x'.repeat(i % 50)}`;
      return { key, value, partition: 0 };
    });
    await producer.send('profiles', records);
    for (const r of records) {
      if (r.value === null) model.delete(r.key);
      else model.set(r.key, r.value);
    }
  };
  for (let i = 0; i < 3000; i += 100) await send(i, 100);

  const keyless = await producer.send('profiles', { value: 'no key', partition: 0 }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(keyless).toBeInstanceOf(TideError);
  expect((keyless as TideError).code).toBe('INVALID_RECORD');
  expect((keyless as TideError).message).toMatch(/no key: topics with cleanup.policy=compact need a key/);

  const before = (await tide.admin().describeTopic('profiles')).status[0];
  expect(before.dirtyRatio).toBeGreaterThan(0.2);
  const described = await runCli(['topics', 'describe', 'profiles', '--bootstrap', node.address]);
  expect(described.stdout).toMatch(/cleanup\.policy: compact/);
  expect(described.stdout).toMatch(/DIRTY/);

  // Keep writing while the cleaner compacts.
  let next = 3000;
  const cleaned = await waitFor(
    async () => {
      await send(next, 50);
      next += 50;
      const s = (await tide.admin().describeTopic('profiles')).status[0];
      return s.sizeBytes < before.sizeBytes / 2 ? s : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 200, what: 'the cleaner to compact the partition' },
  );
  expect(cleaned!.logEndOffset).toBe(next);
  await send(next, 50);
  await producer.close();
  expect(await readAll('profiles')).toEqual(model);

  await tide.close();
  await node.stop('SIGKILL');
  node = await startTide(['dev', '--data', dataDir, '--port', '0'], { env: CLEANER_ENV });
  tide = new Tide({ bootstrap: [node.address] });
  expect(await readAll('profiles')).toEqual(model);
});

test('max.compaction.lag.ms: a log that never reaches its dirty ratio is compacted once its records are old enough', async () => {
  // min.cleanable.dirty.ratio 1: no log ever exceeds it, so only the lag can make this one due.
  await tide.admin().createTopic('sessions', {
    partitions: 1,
    configs: {
      'cleanup.policy': 'compact',
      'segment.bytes': '4096',
      'min.cleanable.dirty.ratio': '1',
      'max.compaction.lag.ms': '2000',
    },
  });
  const producer = tide.producer();
  const model = new Map<string, string>();
  for (let i = 0; i < 1500; i += 100) {
    const records = Array.from({ length: 100 }, (_, j) => ({
      key: `session-${(i + j) % 20}`,
      value: `state-${i + j}`,
      partition: 0,
    }));
    await producer.send('sessions', records);
    for (const r of records) model.set(r.key, r.value);
  }
  const before = (await tide.admin().describeTopic('sessions')).status[0];
  const cleaned = await waitFor(
    async () => {
      const s = (await tide.admin().describeTopic('sessions')).status[0];
      return s.sizeBytes < before.sizeBytes / 2 ? s : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 250, what: 'the cleaner to compact the overdue log' },
  );
  expect(cleaned!.logEndOffset).toBe(1500);
  await producer.close();
  expect(await readAll('sessions')).toEqual(model);

  // min above max is refused, naming both.
  await expect(
    tide.admin().createTopic('sessions-bad', {
      partitions: 1,
      configs: {
        'cleanup.policy': 'compact',
        'min.compaction.lag.ms': '5000',
        'max.compaction.lag.ms': '2000',
      },
    }),
  ).rejects.toMatchObject({
    code: 'INVALID_CONFIG',
    message: expect.stringMatching(/must not exceed max.compaction.lag.ms/),
  });
});
