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

  it('policy changes apply to the next round, O_DSYNC from the next segment opened (updateConfig)', async () => {
    const dataDir = await dirs.make();
    log = await openLog(dataDir, testConfig({ flushPolicy: 'os' }));
    await log.append(buildBatch(), { leaderEpoch: 0 });
    log.updateConfig(testConfig({ flushPolicy: 'sync' }));
    await log.append(buildBatch(), { leaderEpoch: 0 });
    // The segment was opened under 'os' (no O_DSYNC): under 'sync' it is written, then fdatasynced.
    expect(log.stats).toMatchObject({ datasyncCalls: 1, durableWritevCalls: 0, writevCalls: 2 });
    await log.close();
    log = await openLog(dataDir, testConfig({ flushPolicy: 'sync' }));
    await log.append(buildBatch(), { leaderEpoch: 0 });
    expect(log.stats).toMatchObject({ datasyncCalls: 0, durableWritevCalls: 1, writevCalls: 1 });
    log.updateConfig(testConfig({ flushPolicy: 'os' }));
    await log.append(buildBatch(), { leaderEpoch: 0 });
    expect(log.stats).toMatchObject({ datasyncCalls: 0, durableWritevCalls: 1, writevCalls: 2 });
    expect(offsetsIn(await readAll(log))).toEqual([0, 1, 2, 3]);
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
