/**
 * The disk-fault seam: ENOSPC and EIO injected on write and on fsync fail the append (nothing
 * acknowledged), take the log offline (KAFKA_STORAGE_ERROR from then on), tell the failure
 * listener once, and leave other logs of the same data dir working; reopening recovers every
 * acknowledged record.
 */
import { ManualClock } from '../../../services/common/clock';
import { silentLogger } from '../../../services/common/logger';
import { SegmentedLog } from '../../../services/broker/log/partition-log';
import { diskError, type DiskFaults, type DiskOp } from '../../../services/broker/log';
import { buildBatch } from './batches';
import { TempDirs, testConfig } from './helpers';

const dirs = new TempDirs();
afterEach(() => dirs.cleanup());

class Scripted implements DiskFaults {
  fault: { op: DiskOp; code: string; partition: number } | undefined;
  beforeIo(op: DiskOp, target: { topic: string; partition: number; file: string }): void {
    if (this.fault && this.fault.op === op && this.fault.partition === target.partition)
      throw diskError(this.fault.code, op, target.file);
  }
}

function open(
  dataDir: string,
  partition: number,
  faults: DiskFaults,
  failures: string[],
): Promise<SegmentedLog> {
  return SegmentedLog.open({
    dataDir,
    topic: 't',
    partition,
    config: testConfig({ flushPolicy: 'sync' }),
    clock: new ManualClock(),
    logger: silentLogger(),
    faults,
    onFailure: (topic, p, err) => failures.push(`${topic}-${p}: ${err.message}`),
  });
}

test.each([
  ['write', 'ENOSPC'],
  ['write', 'EIO'],
  ['fsync', 'ENOSPC'],
  ['fsync', 'EIO'],
] as [DiskOp, string][])(
  '%s %s: the append fails, the log goes offline, the other log works, reopening keeps what was acknowledged',
  async (op, code) => {
    const dataDir = await dirs.make();
    const faults = new Scripted();
    const failures: string[] = [];
    const hit = await open(dataDir, 0, faults, failures);
    const other = await open(dataDir, 1, faults, failures);
    await hit.append(buildBatch({ records: 3 }), { leaderEpoch: 0 });
    faults.fault = { op, code, partition: 0 };
    await expect(hit.append(buildBatch(), { leaderEpoch: 0 })).rejects.toMatchObject({
      code: 'KAFKA_STORAGE_ERROR',
    });
    await expect(hit.append(buildBatch(), { leaderEpoch: 0 })).rejects.toMatchObject({
      code: 'KAFKA_STORAGE_ERROR',
    });
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain(code);
    await other.append(buildBatch({ records: 2 }), { leaderEpoch: 0 });
    expect(other.logEndOffset).toBe(2);
    await hit.close().catch(() => undefined);
    await other.close();
    faults.fault = undefined;
    const reopened = await open(dataDir, 0, faults, failures);
    expect(reopened.logEndOffset).toBeGreaterThanOrEqual(3);
    const read = await reopened.read(0, 1 << 20);
    expect(read.nextOffset).toBeGreaterThanOrEqual(3);
    await reopened.close();
  },
);
