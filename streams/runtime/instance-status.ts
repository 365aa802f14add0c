/**
 * Each running instance publishes what only it knows — its tasks with their stream time, lag and
 * restore progress, the open windows of its window stores, and its copies of the global tables — as the application metadata entry
 * `streams.instance.<instance>`, with a TTL of three intervals: written every `statusIntervalMs`,
 * deleted on close, and gone by itself a few intervals after a crash. `tide streams describe`
 * reads these entries beside the group's members and lag.
 */
import { hostname } from 'node:os';
import type { Admin } from '../../client/index';
import type { Logger } from '../../services/common/logger';
import type { StreamsAppMetrics } from './app';
import type { GlobalTableSnapshot } from './global-tables';
import type { WindowStoreStatus } from './window-status';

/** Key prefix of the instance entries; the instance id follows. */
export const INSTANCE_METADATA_PREFIX = 'streams.instance.';
export const DEFAULT_STATUS_INTERVAL_MS = 10_000;
/** Open windows listed per store and task in a published status (the app's own view lists more). */
export const PUBLISHED_WINDOWS_MAX = 5;
const FORMAT = 1;

export interface InstanceTaskStatus {
  id: string;
  inputs: { topic: string; partition: number }[];
  recordsIn: number;
  recordsOut: number;
  droppedLateRecords: number;
  /** Unreadable or failing records skipped (absent in statuses of older versions). */
  droppedRecords?: number;
  /** -1: no record processed yet. */
  streamTimeMs: number;
  lag: number;
  restoring: boolean;
  restoredRecords: number;
  restoreTotal: number;
}

/** The published entry's value (JSON). */
export interface InstanceStatus {
  format: typeof FORMAT;
  instance: string;
  /** The group member id ('' before the first join), to match `describeGroup` members. */
  memberId: string;
  clientId: string;
  host: string;
  pid: number;
  state: string;
  startedAtMs: number;
  updatedAtMs: number;
  commits: number;
  tasks: InstanceTaskStatus[];
  windows: WindowStoreStatus[];
  /** Absent in entries of versions without global tables on the cluster. */
  globalTables?: GlobalTableSnapshot[];
}

export type InstanceSnapshot = Omit<InstanceStatus, 'format' | 'instance' | 'host' | 'pid' | 'updatedAtMs'>;

/** What the snapshot reads of an app (StreamsApp has it). */
export interface StatusSource {
  readonly memberId: string;
  metrics(): StreamsAppMetrics;
  windowedStores(): string[];
  windowStatus(store: string, limit?: number): WindowStoreStatus[];
}

export function instanceSnapshotOf(
  app: StatusSource,
  o: { clientId: string; startedAtMs: number },
): InstanceSnapshot {
  const m = app.metrics();
  return {
    memberId: app.memberId,
    clientId: o.clientId,
    state: m.state,
    startedAtMs: o.startedAtMs,
    commits: m.commits,
    tasks: m.tasks.map((t) => ({
      id: t.id,
      inputs: t.inputs,
      recordsIn: t.recordsIn,
      recordsOut: t.recordsOut,
      droppedLateRecords: t.droppedLateRecords,
      droppedRecords: t.droppedRecords,
      streamTimeMs: t.streamTimeMs,
      lag: t.lag,
      restoring: t.restoring,
      restoredRecords: t.restoredRecords,
      restoreTotal: t.restoreTotal,
    })),
    windows: app.windowedStores().flatMap((s) => app.windowStatus(s, PUBLISHED_WINDOWS_MAX)),
    globalTables: m.globalTables,
  };
}

/** Undefined for a value this version cannot read. */
export function parseInstanceStatus(value: Buffer): InstanceStatus | undefined {
  try {
    const parsed = JSON.parse(value.toString('utf8')) as Partial<InstanceStatus>;
    if (parsed.format !== FORMAT || !Array.isArray(parsed.tasks) || !Array.isArray(parsed.windows))
      return undefined;
    return parsed as InstanceStatus;
  } catch {
    return undefined;
  }
}

/** An instance id usable as a metadata key: the given one, else host, pid and a random suffix. */
export function instanceKeyOf(instanceId: string | undefined): string {
  const raw = instanceId ?? `${hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 6)}`;
  return raw.replace(/[^a-zA-Z0-9._-]/g, '_').slice(0, 200 - INSTANCE_METADATA_PREFIX.length);
}

export class InstanceStatusPublisher {
  private timer: NodeJS.Timeout | undefined;
  private publishing: Promise<void> | undefined;
  private closed = false;
  private warned = false;

  constructor(
    private readonly deps: {
      admin: Admin;
      applicationId: string;
      instance: string;
      intervalMs: number;
      snapshot: () => InstanceSnapshot;
      logger: Logger;
    },
  ) {}

  start(): void {
    this.publishNow();
    this.timer = setInterval(() => this.publishNow(), this.deps.intervalMs);
    this.timer.unref();
  }

  /** Publishes now unless a publication is still in flight. Failures are logged once, not fatal. */
  publishNow(): void {
    if (this.closed || this.publishing) return;
    this.publishing = this.publish()
      .catch((err: unknown) => {
        if (!this.warned) this.deps.logger.warn({ err }, 'publishing the instance status failed; retrying');
        this.warned = true;
      })
      .finally(() => (this.publishing = undefined));
  }

  /** Stops publishing and deletes the entry. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.publishing;
    await this.deps.admin
      .deleteApplicationMetadata(this.deps.applicationId, this.key())
      .catch(() => undefined);
  }

  private async publish(): Promise<void> {
    const status: InstanceStatus = {
      format: FORMAT,
      instance: this.deps.instance,
      host: hostname(),
      pid: process.pid,
      updatedAtMs: Date.now(),
      ...this.deps.snapshot(),
    };
    await this.deps.admin.putApplicationMetadata(
      this.deps.applicationId,
      this.key(),
      JSON.stringify(status),
      { ttlMs: 3 * this.deps.intervalMs },
    );
    this.warned = false;
  }

  private key(): string {
    return `${INSTANCE_METADATA_PREFIX}${this.deps.instance}`;
  }
}
