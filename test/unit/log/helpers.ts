/** Shared fixtures for storage tests: temp data dirs, configs, a seeded PRNG, log openers. */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ManualClock, type Clock } from '../../../services/common/clock';
import { silentLogger } from '../../../services/common/logger';
import { DEFAULT_LOG_CONFIG } from '../../../services/broker/log/config';
import type { LogConfig } from '../../../services/broker/log/interface';
import { SegmentedLog } from '../../../services/broker/log/partition-log';
import { partitionDirName } from '../../../services/broker/log/names';

export const TOPIC = 'orders';
export const PARTITION = 0;

/** A config for tests: small segments and index interval, 'os' flushing, nothing expires. */
export function testConfig(overrides: Partial<LogConfig> = {}): LogConfig {
  return {
    ...DEFAULT_LOG_CONFIG,
    segmentBytes: 4096,
    segmentMs: -1,
    retentionMs: -1,
    retentionBytes: -1,
    indexIntervalBytes: 256,
    flushPolicy: 'os',
    ...overrides,
  };
}

/** A fresh temp dir; call cleanup() in afterEach. */
export class TempDirs {
  private dirs: string[] = [];

  async make(prefix = 'tide-log-'): Promise<string> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), prefix));
    this.dirs.push(dir);
    return dir;
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.dirs.map((d) => fs.rm(d, { recursive: true, force: true })));
    this.dirs = [];
  }
}

export function openLog(
  dataDir: string,
  config: LogConfig = testConfig(),
  clock: Clock = new ManualClock(),
): Promise<SegmentedLog> {
  return SegmentedLog.open({
    dataDir,
    topic: TOPIC,
    partition: PARTITION,
    config,
    clock,
    logger: silentLogger(),
  });
}

export function partitionDir(dataDir: string): string {
  return path.join(dataDir, partitionDirName(TOPIC, PARTITION));
}

/** Removes the clean-shutdown marker, so the next open recovers as after a crash. */
export async function forgetCleanShutdown(dataDir: string): Promise<void> {
  await fs.rm(path.join(partitionDir(dataDir), 'clean-shutdown'), { force: true });
}

/** Files of the partition folder, sorted. */
export async function listPartitionFiles(dataDir: string): Promise<string[]> {
  return (await fs.readdir(partitionDir(dataDir))).sort();
}

/** Reads everything from `from` to the log end batch by batch; returns the whole bytes read. */
export async function readAll(
  log: SegmentedLog,
  from = log.logStartOffset,
  maxBytes = 1 << 20,
): Promise<Buffer> {
  const parts: Buffer[] = [];
  let offset = from;
  while (offset < log.logEndOffset) {
    const { batches, nextOffset } = await log.read(offset, maxBytes);
    if (batches.length === 0) break;
    parts.push(batches);
    offset = nextOffset;
  }
  return Buffer.concat(parts);
}
