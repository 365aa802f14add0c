/**
 * LogManager: loading every partition folder (a broken one is reported and skipped), create / get /
 * delete / all, the data dir lock, and the retention and interval-flush timers on a manual clock.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ManualClock } from '../../../services/common/clock';
import { silentLogger } from '../../../services/common/logger';
import { LogManager, type SegmentedLog } from '../../../services/broker/log';
import { buildBatch } from './batches';
import { TempDirs, testConfig } from './helpers';

const dirs = new TempDirs();
const managers: LogManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.closeAll()));
  await dirs.cleanup();
});

function manager(
  dataDir: string,
  clock = new ManualClock(),
  extra: Partial<ConstructorParameters<typeof LogManager>[0]> = {},
): LogManager {
  const m = new LogManager({ dataDir, clock, logger: silentLogger(), defaultConfig: testConfig(), ...extra });
  managers.push(m);
  return m;
}

/** Gives async timer work (retention, flushes) real time to finish after a manual clock advance. */
async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 50));
}

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('LogManager', () => {
  it('creates, finds, lists and deletes partition logs', async () => {
    const dataDir = await dirs.make();
    const m = manager(dataDir);
    await m.open();
    const [a, a2] = await Promise.all([m.getOrCreate('orders', 0), m.getOrCreate('orders', 0)]);
    expect(a).toBe(a2);
    const b = await m.getOrCreate('my-topic-with-dashes', 12);
    expect(m.get('orders', 0)).toBe(a);
    expect(m.get('orders', 1)).toBeUndefined();
    expect(m.all()).toHaveLength(2);
    expect(b.dir).toBe(path.join(dataDir, 'my-topic-with-dashes-12'));
    await a.append(buildBatch(), { leaderEpoch: 0 });
    expect(await m.delete('orders', 0)).toBe(true);
    expect(m.get('orders', 0)).toBeUndefined();
    await expect(fs.access(path.join(dataDir, 'orders-0'))).rejects.toThrow();
    expect(await m.delete('orders', 0)).toBe(false);
  });

  it('rejects bad topic names and partitions', async () => {
    const m = manager(await dirs.make());
    await m.open();
    await expect(m.getOrCreate('..', 0)).rejects.toMatchObject({ code: 'INVALID_TOPIC' });
    await expect(m.getOrCreate('a/b', 0)).rejects.toMatchObject({ code: 'INVALID_TOPIC' });
    await expect(m.getOrCreate('ok', -1)).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('reloads every partition on open; a broken one is reported and the others open', async () => {
    const dataDir = await dirs.make();
    const first = manager(dataDir);
    await first.open();
    for (const [topic, p] of [
      ['orders', 0],
      ['orders', 1],
      ['my-topic-with-dashes', 3],
      ['broken', 0],
    ] as const) {
      const log = await first.getOrCreate(topic, p);
      await log.append(buildBatch({ records: p + 1 }), { leaderEpoch: 0 });
    }
    await first.closeAll();
    // make broken-0 unloadable: its segment file becomes a directory
    const seg = path.join(dataDir, 'broken-0', '00000000000000000000.log');
    await fs.rm(seg);
    await fs.mkdir(seg);
    await fs.mkdir(path.join(dataDir, 'not a partition folder'));

    const second = manager(dataDir);
    await second.open();
    expect(
      second
        .all()
        .map((l) => `${l.topic}-${l.partition}`)
        .sort(),
    ).toEqual(['my-topic-with-dashes-3', 'orders-0', 'orders-1']);
    expect(second.get('orders', 1)?.logEndOffset).toBe(2);
    expect(second.get('my-topic-with-dashes', 3)?.logEndOffset).toBe(4);
    expect(second.loadFailures).toEqual([
      expect.objectContaining({ topic: 'broken', partition: 0, dir: path.join(dataDir, 'broken-0') }),
    ]);
    expect(second.loadFailures[0].error.message).toMatch(/EISDIR|illegal operation on a directory/);
    await expect(second.getOrCreate('broken', 0)).rejects.toBe(second.loadFailures[0].error);
    expect(await second.delete('broken', 0)).toBe(true);
    await expect(second.getOrCreate('broken', 0)).resolves.toMatchObject({ logEndOffset: 0 });
  });

  it('getOrCreate with a config updates an existing log', async () => {
    const m = manager(await dirs.make());
    await m.open();
    const log = (await m.getOrCreate('t', 0)) as SegmentedLog;
    await m.getOrCreate('t', 0, testConfig({ retentionMs: 1234 }));
    expect(log.currentConfig.retentionMs).toBe(1234);
  });

  describe('data dir lock', () => {
    it('a second manager on the same dir is refused until the first closes', async () => {
      const dataDir = await dirs.make();
      const m = manager(dataDir);
      await m.open();
      const other = new LogManager({
        dataDir,
        clock: new ManualClock(),
        logger: silentLogger(),
        defaultConfig: testConfig(),
      });
      await expect(other.open()).rejects.toMatchObject({
        code: 'KAFKA_STORAGE_ERROR',
        message: expect.stringContaining('already open'),
      });
      await m.closeAll();
      const again = manager(dataDir);
      await expect(again.open()).resolves.toBeUndefined();
    });

    it('refuses a lock held by another live process, takes over a dead one', async () => {
      const dataDir = await dirs.make();
      const lock = path.join(dataDir, '.lock');
      await fs.writeFile(
        lock,
        JSON.stringify({ pid: process.ppid, hostname: os.hostname(), acquiredAtMs: 0 }),
      );
      await expect(manager(dataDir).open()).rejects.toMatchObject({
        code: 'KAFKA_STORAGE_ERROR',
        message: expect.stringContaining(`locked by pid ${process.ppid}`),
      });
      await fs.writeFile(
        lock,
        JSON.stringify({ pid: 2 ** 22 + 12345, hostname: os.hostname(), acquiredAtMs: 0 }),
      );
      await expect(manager(dataDir).open()).resolves.toBeUndefined();
      expect(JSON.parse(await fs.readFile(lock, 'utf8'))).toMatchObject({ pid: process.pid });
    });

    it('never takes over a lock from another host', async () => {
      const dataDir = await dirs.make();
      await fs.writeFile(
        path.join(dataDir, '.lock'),
        JSON.stringify({ pid: 1, hostname: 'some-other-host', acquiredAtMs: 0 }),
      );
      await expect(manager(dataDir).open()).rejects.toMatchObject({
        message: expect.stringContaining('some-other-host'),
      });
    });
  });

  it('runs retention every retentionCheckIntervalMs on the clock', async () => {
    const clock = new ManualClock();
    const m = manager(await dirs.make(), clock, {
      retentionCheckIntervalMs: 60_000,
      defaultConfig: testConfig({ segmentBytes: 200, retentionMs: 10_000 }),
    });
    await m.open();
    const log = await m.getOrCreate('t', 0);
    for (let i = 0; i < 10; i++)
      await log.append(buildBatch({ timestampMs: clock.nowMs() }), { leaderEpoch: 0 });
    await log.append(buildBatch({ timestampMs: clock.nowMs() + 1_000_000 }), { leaderEpoch: 0 });
    clock.advance(59_999);
    await settle();
    expect(log.logStartOffset).toBe(0);
    clock.advance(1);
    await waitFor(() => log.logStartOffset > 0);
  });

  it('bounds retention by retentionMaxOffset (the high watermark)', async () => {
    const clock = new ManualClock();
    const m = manager(await dirs.make(), clock, {
      retentionMaxOffset: () => 3,
      defaultConfig: testConfig({ segmentBytes: 100, retentionMs: 10 }),
    });
    await m.open();
    const log = await m.getOrCreate('t', 0);
    for (let i = 0; i < 10; i++)
      await log.append(buildBatch({ timestampMs: clock.nowMs() }), { leaderEpoch: 0 });
    clock.advance(1000);
    await m.runRetention();
    expect(log.logStartOffset).toBe(3);
  });

  it("fsyncs 'interval' logs from its flush timer", async () => {
    const clock = new ManualClock();
    const m = manager(await dirs.make(), clock, {
      flushCheckIntervalMs: 100,
      defaultConfig: testConfig({ flushPolicy: 'interval', flushIntervalMs: 1000 }),
    });
    await m.open();
    const log = (await m.getOrCreate('t', 0)) as SegmentedLog;
    await log.append(buildBatch(), { leaderEpoch: 0 });
    clock.advance(900);
    await settle();
    expect(log.stats.datasyncCalls).toBe(0);
    clock.advance(100);
    await waitFor(() => log.stats.datasyncCalls === 1);
  });

  it('closeAll closes every log cleanly and stops the timers', async () => {
    const dataDir = await dirs.make();
    const clock = new ManualClock();
    const m = manager(dataDir, clock);
    await m.open();
    const log = await m.getOrCreate('t', 0);
    await log.append(buildBatch(), { leaderEpoch: 0 });
    await m.closeAll();
    await expect(fs.access(path.join(dataDir, 't-0', 'clean-shutdown'))).resolves.toBeUndefined();
    await expect(fs.access(path.join(dataDir, '.lock'))).rejects.toThrow();
    clock.advance(10 * 60_000);
    await settle();
    await expect(log.append(buildBatch(), { leaderEpoch: 0 })).rejects.toMatchObject({
      code: 'KAFKA_STORAGE_ERROR',
    });
    await expect(m.getOrCreate('t', 0)).rejects.toMatchObject({ code: 'KAFKA_STORAGE_ERROR' });
  });
});
