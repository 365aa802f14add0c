/**
 * Group commit and flush policies: concurrent appends share one FileHandle.writev (under 'sync'
 * through an O_DSYNC handle, no fdatasync), appends resolve only after their round, 'os' never fsyncs on the append
 * path, 'interval' fsyncs when due, and a write failure takes the log offline.
 */
import { constants as fsConstants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { ManualClock } from '../../../services/common/clock';
import type { SegmentedLog } from '../../../services/broker/log/partition-log';
import type { LogSegment } from '../../../services/broker/log/segment';
import { buildBatch, offsetsIn } from './batches';
import { TempDirs, openLog, readAll, testConfig } from './helpers';

const dirs = new TempDirs();
let log: SegmentedLog | undefined;
const spies: jest.SpyInstance[] = [];
afterEach(async () => {
  spies.splice(0).forEach((s) => s.mockRestore());
  await log?.close().catch(() => undefined);
  log = undefined;
  await dirs.cleanup();
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** The open-file status flags of `fd` in this process (Linux: /proc/self/fdinfo, octal). */
async function openFlags(fd: number): Promise<number> {
  const info = await fs.readFile(`/proc/self/fdinfo/${fd}`, 'utf8');
  const match = /^flags:\s+([0-7]+)$/m.exec(info);
  if (!match) throw new Error(`no flags in /proc/self/fdinfo/${fd}`);
  return parseInt(match[1], 8);
}

/** Spies on the FileHandle prototype (Node does not export the class). */
async function fileHandlePrototype(dir: string): Promise<Record<string, unknown>> {
  const handle = await fs.open(path.join(dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(handle) as Record<string, unknown>;
  await handle.close();
  return proto;
}

describe('group commit', () => {
  it('200 appends made in one tick go out in ONE writev, offsets in call order', async () => {
    const dataDir = await dirs.make();
    log = await openLog(dataDir, testConfig({ segmentBytes: 1 << 20 }));
    const proto = await fileHandlePrototype(dataDir);
    const writev = jest.spyOn(proto as never, 'writev' as never);
    const write = jest.spyOn(proto as never, 'write' as never);
    spies.push(writev, write);
    const results = await Promise.all(
      Array.from({ length: 200 }, () => log!.append(buildBatch({ records: 2 }), { leaderEpoch: 0 })),
    );
    results.forEach((r, i) => expect(r).toMatchObject({ baseOffset: 2 * i, lastOffset: 2 * i + 1 }));
    expect(writev).toHaveBeenCalledTimes(1);
    expect(write).not.toHaveBeenCalled();
    expect(log.stats).toMatchObject({ writevCalls: 1, commitRounds: 1, datasyncCalls: 0 });
    expect(offsetsIn(await readAll(log))).toHaveLength(400);
  });

  it('appends arriving while a write is in flight are queued and written together', async () => {
    log = await openLog(await dirs.make(), testConfig({ segmentBytes: 1 << 20 }));
    const pending: Promise<unknown>[] = [];
    for (let i = 0; i < 300; i++) {
      pending.push(log.append(buildBatch(), { leaderEpoch: 0 }));
      if (i % 10 === 0) await new Promise((r) => setImmediate(r)); // let rounds start in between
    }
    await Promise.all(pending);
    expect(log.stats.writevCalls).toBeLessThan(300 / 5);
    expect(offsetsIn(await readAll(log))).toEqual(Array.from({ length: 300 }, (_, i) => i));
  });

  it("'sync': one O_DSYNC writev per round and no fdatasync; an append resolves only after it", async () => {
    const dataDir = await dirs.make();
    log = await openLog(dataDir, testConfig({ flushPolicy: 'sync', segmentBytes: 1 << 20 }));
    const proto = await fileHandlePrototype(dataDir);
    const original = proto.writev as (this: FileHandle, ...args: unknown[]) => Promise<unknown>;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const fdFlags: number[] = [];
    const writev = jest.spyOn(proto as never, 'writev' as never).mockImplementation(async function (
      this: FileHandle,
      ...args: unknown[]
    ) {
      fdFlags.push(await openFlags(this.fd));
      await gate;
      return original.apply(this, args);
    } as never);
    const datasync = jest.spyOn(proto as never, 'datasync' as never);
    spies.push(writev, datasync);
    let resolved = 0;
    const results = Promise.all(
      Array.from({ length: 100 }, () => log!.append(buildBatch(), { leaderEpoch: 0 }).then(() => resolved++)),
    );
    await waitFor(() => fdFlags.length > 0); // the round's writev is held
    await new Promise((r) => setTimeout(r, 20));
    expect(writev).toHaveBeenCalledTimes(1);
    expect(fdFlags[0] & fsConstants.O_DSYNC).toBe(fsConstants.O_DSYNC); // durable when it returns
    expect(resolved).toBe(0);
    open();
    await results;
    expect(resolved).toBe(100);
    expect(log.stats).toMatchObject({ writevCalls: 1, durableWritevCalls: 1, datasyncCalls: 0 });
    expect(datasync).not.toHaveBeenCalled();
    expect(offsetsIn(await readAll(log))).toHaveLength(100);
  });

  it("'sync': appends arriving during a durable write queue and go out together in the next one", async () => {
    const dataDir = await dirs.make();
    log = await openLog(dataDir, testConfig({ flushPolicy: 'sync', segmentBytes: 1 << 20 }));
    const proto = await fileHandlePrototype(dataDir);
    const original = proto.writev as (this: unknown, ...args: unknown[]) => Promise<unknown>;
    const gates: Array<() => void> = [];
    const writev = jest.spyOn(proto as never, 'writev' as never).mockImplementation(async function (
      this: unknown,
      ...args: unknown[]
    ) {
      await new Promise<void>((resolve) => gates.push(resolve));
      return original.apply(this, args);
    } as never);
    spies.push(writev);
    const done: number[] = [];
    const first = log.append(buildBatch(), { leaderEpoch: 0 }).then(() => done.push(1));
    await waitFor(() => gates.length === 1); // the first round's durable write is held
    const second = log.append(buildBatch(), { leaderEpoch: 0 }).then(() => done.push(2));
    const third = log.append(buildBatch(), { leaderEpoch: 0 }).then(() => done.push(3));
    await new Promise((r) => setTimeout(r, 20));
    expect(gates).toHaveLength(1); // no second write until the first is durable
    expect(offsetsIn((await log.read(0, 1000)).batches)).toEqual([]); // nor anything readable
    gates[0]();
    await first;
    expect(done).toEqual([1]);
    await waitFor(() => gates.length === 2); // the two queued appends, in ONE write
    expect(done).toEqual([1]);
    gates[1]();
    await Promise.all([second, third]);
    expect(done).toEqual([1, 2, 3]);
    expect(log.stats).toMatchObject({ writevCalls: 2, durableWritevCalls: 2, datasyncCalls: 0 });
  });

  it("'sync': a failed durable write fails the appends it covered and those queued behind it", async () => {
    const dataDir = await dirs.make();
    log = await openLog(dataDir, testConfig({ flushPolicy: 'sync', segmentBytes: 1 << 20 }));
    const proto = await fileHandlePrototype(dataDir);
    let fail!: () => void;
    const writev = jest.spyOn(proto as never, 'writev' as never).mockImplementation(
      (() =>
        new Promise<void>((_, reject) => {
          fail = () => reject(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }));
        })) as never,
    );
    spies.push(writev);
    const a = log.append(buildBatch(), { leaderEpoch: 0 });
    await waitFor(() => writev.mock.calls.length === 1);
    const b = log.append(buildBatch(), { leaderEpoch: 0 });
    fail();
    await expect(a).rejects.toMatchObject({ code: 'KAFKA_STORAGE_ERROR' });
    await expect(b).rejects.toMatchObject({ code: 'KAFKA_STORAGE_ERROR' });
    await expect(log.append(buildBatch(), { leaderEpoch: 0 })).rejects.toMatchObject({
      code: 'KAFKA_STORAGE_ERROR',
    });
    writev.mockRestore();
  });

  it("'os': no fsync on the append path; flush() fsyncs once, then nothing when clean", async () => {
    log = await openLog(await dirs.make(), testConfig({ flushPolicy: 'os' }));
    for (let i = 0; i < 20; i++) await log.append(buildBatch(), { leaderEpoch: 0 });
    expect(log.stats.datasyncCalls).toBe(0);
    await log.flush();
    expect(log.stats.datasyncCalls).toBe(1);
    await log.flush();
    expect(log.stats.datasyncCalls).toBe(1);
  });

  it("'interval': flushIfDue fsyncs once flushIntervalMs has passed and only if something is unsynced", async () => {
    const clock = new ManualClock();
    log = await openLog(
      await dirs.make(),
      testConfig({ flushPolicy: 'interval', flushIntervalMs: 1000 }),
      clock,
    );
    await log.append(buildBatch(), { leaderEpoch: 0 });
    clock.advance(999);
    log.flushIfDue(clock.nowMs());
    await log.flush().then(() => undefined); // explicit flush still works and resets the interval
    expect(log.stats.datasyncCalls).toBe(1);
    await log.append(buildBatch(), { leaderEpoch: 0 });
    clock.advance(999);
    log.flushIfDue(clock.nowMs());
    await new Promise((r) => setTimeout(r, 20));
    expect(log.stats.datasyncCalls).toBe(1);
    clock.advance(1);
    log.flushIfDue(clock.nowMs());
    await waitFor(() => log!.stats.datasyncCalls === 2);
    clock.advance(5000);
    log.flushIfDue(clock.nowMs()); // nothing unsynced
    await new Promise((r) => setTimeout(r, 20));
    expect(log.stats.datasyncCalls).toBe(2);
  });

  it('a policy change reopens the active segment with or without O_DSYNC at once (updateConfig)', async () => {
    const dataDir = await dirs.make();
    log = await openLog(dataDir, testConfig({ flushPolicy: 'os' }));
    await log.append(buildBatch(), { leaderEpoch: 0 });
    const activeFlags = () =>
      openFlags((log as unknown as { segments: LogSegment[] }).segments.at(-1)!.file.fd);
    expect((await activeFlags()) & fsConstants.O_DSYNC).toBe(0);
    log.updateConfig(testConfig({ flushPolicy: 'sync' }));
    await log.append(buildBatch(), { leaderEpoch: 0 });
    // Reopened with O_DSYNC before that append: the byte written under 'os' is fdatasynced first.
    expect((await activeFlags()) & fsConstants.O_DSYNC).toBe(fsConstants.O_DSYNC);
    expect(log.stats).toMatchObject({ datasyncCalls: 1, durableWritevCalls: 1, writevCalls: 2 });
    await log.append(buildBatch(), { leaderEpoch: 0 });
    expect(log.stats).toMatchObject({ datasyncCalls: 1, durableWritevCalls: 2, writevCalls: 3 });

    log.updateConfig(testConfig({ flushPolicy: 'os' }));
    await log.append(buildBatch(), { leaderEpoch: 0 });
    expect((await activeFlags()) & fsConstants.O_DSYNC).toBe(0);
    expect(log.stats).toMatchObject({ datasyncCalls: 1, durableWritevCalls: 2, writevCalls: 4 });
    expect(offsetsIn(await readAll(log))).toEqual([0, 1, 2, 3]);
    await log.close();
    log = await openLog(dataDir, testConfig({ flushPolicy: 'os' }));
    expect(offsetsIn(await readAll(log))).toEqual([0, 1, 2, 3]);
  });

  it('appends and reads made while the active segment is reopened wait for it and keep their order', async () => {
    log = await openLog(await dirs.make(), testConfig({ flushPolicy: 'sync', segmentBytes: 1 << 20 }));
    for (let i = 0; i < 10; i++) await log.append(buildBatch(), { leaderEpoch: 0 });
    const appends: Promise<{ baseOffset: number }>[] = [];
    const reads: Promise<Buffer>[] = [];
    for (let round = 0; round < 4; round++) {
      log.updateConfig(testConfig({ flushPolicy: round % 2 === 0 ? 'os' : 'sync', segmentBytes: 1 << 20 }));
      for (let i = 0; i < 25; i++) {
        appends.push(log.append(buildBatch(), { leaderEpoch: 0 }));
        if (i % 5 === 0) reads.push(readAll(log));
      }
    }
    const results = await Promise.all(appends);
    results.forEach((r, i) => expect(r.baseOffset).toBe(10 + i));
    for (const read of await Promise.all(reads))
      expect(offsetsIn(read).slice(0, 10)).toEqual([...Array(10).keys()]);
    expect(offsetsIn(await readAll(log))).toHaveLength(110);
  });

  it('a failed write fails the pending appends with KAFKA_STORAGE_ERROR and takes the log offline', async () => {
    const dataDir = await dirs.make();
    log = await openLog(dataDir);
    await log.append(buildBatch(), { leaderEpoch: 0 });
    const proto = await fileHandlePrototype(dataDir);
    const writev = jest
      .spyOn(proto as never, 'writev' as never)
      .mockImplementation((() =>
        Promise.reject(Object.assign(new Error('EIO: i/o error'), { code: 'EIO' }))) as never);
    spies.push(writev);
    const a = log.append(buildBatch(), { leaderEpoch: 0 });
    const b = log.append(buildBatch(), { leaderEpoch: 0 });
    await expect(a).rejects.toMatchObject({ code: 'KAFKA_STORAGE_ERROR' });
    await expect(b).rejects.toMatchObject({ code: 'KAFKA_STORAGE_ERROR' });
    writev.mockRestore();
    await expect(log.append(buildBatch(), { leaderEpoch: 0 })).rejects.toMatchObject({
      code: 'KAFKA_STORAGE_ERROR',
    });
    // what was written before stays readable
    expect(offsetsIn((await log.read(0, 1000)).batches)).toEqual([0]);
    await log.close();
    await expect(fs.access(path.join(log.dir, 'clean-shutdown'))).rejects.toThrow(); // not a clean shutdown
    log = await openLog(dataDir);
    expect(log.logEndOffset).toBe(1);
  });
});
