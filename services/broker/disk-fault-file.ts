/**
 * A DiskFaults injector driven by a JSON file, so fault tests and `npm run chaos` can break the
 * disk of a running broker process (config key diskFaultsFile; never set in production). The file
 * holds a list of rules; each matching write or fsync throws the errno the rule names:
 *
 *   [{ "op": "write" | "fsync", "code": "ENOSPC" | "EIO", "topic": "t", "partition": 0 }]
 *
 * topic and partition are optional (absent: every log). The file is re-read every
 * pollIntervalMs; a missing or empty file means no faults.
 */
import * as fs from 'fs';
import type { Clock, Timer } from '../common/clock';
import type { Logger } from '../common/logger';
import { diskError, type DiskFaults, type DiskOp, type DiskOpTarget } from './log';

export interface DiskFaultRule {
  op: DiskOp;
  code: string;
  topic?: string;
  partition?: number;
}

export const DISK_FAULT_FILE_POLL_MS = 100;

export class DiskFaultFile implements DiskFaults {
  private rules: DiskFaultRule[] = [];
  private readonly timer: Timer;
  private lastText = '';

  constructor(
    private readonly file: string,
    private readonly deps: { clock: Clock; logger: Logger },
    pollIntervalMs = DISK_FAULT_FILE_POLL_MS,
  ) {
    this.reload();
    this.timer = deps.clock.setInterval(() => this.reload(), pollIntervalMs);
  }

  beforeIo(op: DiskOp, target: DiskOpTarget): void {
    for (const rule of this.rules) {
      if (rule.op !== op) continue;
      if (rule.topic !== undefined && rule.topic !== target.topic) continue;
      if (rule.partition !== undefined && rule.partition !== target.partition) continue;
      throw diskError(rule.code, op, target.file);
    }
  }

  close(): void {
    this.timer.cancel();
  }

  private reload(): void {
    let text = '';
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch {
      text = '';
    }
    if (text === this.lastText) return;
    this.lastText = text;
    try {
      const parsed: unknown = text.trim() ? JSON.parse(text) : [];
      this.rules = Array.isArray(parsed) ? (parsed as DiskFaultRule[]) : [];
      this.deps.logger.warn({ file: this.file, rules: this.rules }, 'injected disk faults changed');
    } catch (err) {
      this.deps.logger.warn(
        { err, file: this.file },
        'disk fault file unreadable; keeping the previous rules',
      );
    }
  }
}
