/**
 * The consumer's offset resolution: where a partition's position comes from when the application
 * did not give one. A partition is either at a known position (`moveTo`: a seek, an assignment
 * with an offset, a committed offset from the group) or waiting for a lookup (`resetTo`): the
 * reset policy ('earliest', 'latest'), a timestamp (`seekToTimestamp`; no record that late: the
 * end), or nothing ('none': the partition surfaces OFFSET_OUT_OF_RANGE and waits for a seek).
 * The lookup is one ListOffsets to the partition's leader, shared by concurrent callers and
 * discarded when the partition moved meanwhile (its generation changed).
 */
import type { Clock } from '../../services/common/clock';
import { TideError } from '../../services/common/errors';
import type { Cluster } from '../cluster';
import type { OffsetSpec } from '../../services/common/grpc/generated/tide/v1/OffsetSpec';
import type { RetryOptions } from '../retry';
import type { TopicPartition } from '../types';
import type { AssignedPartition, Reset } from './partition-state';
import { wireIsolation, type IsolationLevel } from './fetch-decode';

export type AutoOffsetReset = 'earliest' | 'latest' | 'none';

export interface ListedOffset {
  offset: number;
  timestampMs: number;
  logStartOffset: number;
  highWatermark: number;
  /** The last stable offset (read_committed consumers read below it); <= highWatermark. */
  lastStableOffset: number;
}

export interface OffsetHooks {
  /** Positions changed: the streams should follow. */
  changed(): void;
  /** Hands a partition's terminal error to the application. */
  surface(state: AssignedPartition, error: TideError): void;
}

export class OffsetResolver {
  constructor(
    private readonly cluster: Cluster,
    readonly autoOffsetReset: AutoOffsetReset,
    private readonly settings: {
      retry: Omit<RetryOptions, 'signal'>;
      clock: Clock;
      /** read_committed: 'latest' is the last stable offset. */
      isolation?: IsolationLevel;
    },
    private readonly hooks: OffsetHooks,
  ) {
    if (!['earliest', 'latest', 'none'].includes(autoOffsetReset)) {
      throw new TideError(
        'INVALID_REQUEST',
        `autoOffsetReset must be 'earliest', 'latest' or 'none', not '${autoOffsetReset}'`,
      );
    }
  }

  /** The reset a newly assigned partition without an offset starts with (none: wait for a seek). */
  get initialReset(): Reset | undefined {
    return this.autoOffsetReset === 'none' ? undefined : this.autoOffsetReset;
  }

  /** Puts the partition at `offset`: buffered data of it is void, its stream reopens there. */
  moveTo(state: AssignedPartition, offset: number, clearBackoff = true): void {
    state.position = offset;
    state.fetchOffset = offset;
    state.reset = undefined;
    state.resolving = undefined;
    state.error = undefined;
    if (clearBackoff) state.retryAtMs = 0;
    state.generation++;
    state.streamEpoch++;
  }

  /** Forgets the position; it is looked up per `reset` (undefined: the partition waits for a seek). */
  resetTo(state: AssignedPartition, reset: Reset | undefined): void {
    state.position = undefined;
    state.reset = reset;
    state.resolving = undefined;
    state.error = undefined;
    state.generation++;
    state.streamEpoch++;
    if (!reset)
      this.hooks.surface(
        state,
        new TideError(
          'OFFSET_OUT_OF_RANGE',
          `${state.topic}/${state.partition} has no position and autoOffsetReset is 'none': seek first`,
          { context: { topic: state.topic, partition: state.partition } },
        ),
      );
  }

  /** Resets the partitions, then waits until each has its position (or throws the first failure). */
  async seekByReset(states: AssignedPartition[], reset: Reset): Promise<void> {
    for (const state of states) this.resetTo(state, reset);
    this.hooks.changed();
    await Promise.all(states.map((s) => this.resolve(s)));
    const failed = states.find((s) => s.error !== undefined);
    if (failed) throw failed.error;
  }

  /** Looks up the offset of a partition's pending reset (once; concurrent callers share it). */
  resolve(state: AssignedPartition): Promise<void> {
    if (state.position !== undefined || !state.reset) return Promise.resolve();
    if (state.resolving) return state.resolving;
    const generation = state.generation;
    const reset = state.reset;
    const resolving = this.listOffset(state, reset).then(
      async (r) => {
        if (state.generation !== generation) return;
        let offset = r.offset;
        if (offset < 0) offset = (await this.listOffset(state, 'latest')).offset; // no record at/after the timestamp
        if (state.generation !== generation) return;
        this.moveTo(state, offset, false);
        this.hooks.changed();
      },
      (err: unknown) => {
        if (state.generation !== generation) return;
        state.resolving = undefined;
        this.hooks.surface(state, err as TideError);
      },
    );
    state.resolving = resolving;
    return resolving;
  }

  /** Offsets of a partition: 'earliest' (log start), 'latest' (high watermark), or by timestamp (-1 when none). */
  async listOffset(tp: TopicPartition, spec: Reset): Promise<ListedOffset> {
    const wireSpec: OffsetSpec =
      spec === 'earliest'
        ? 'OFFSET_SPEC_EARLIEST'
        : spec === 'latest'
          ? 'OFFSET_SPEC_LATEST'
          : 'OFFSET_SPEC_TIMESTAMP';
    const r = await this.cluster.withLeader(
      tp,
      (address) =>
        this.cluster.calls.listOffsets(address, {
          topic: tp.topic,
          partition: tp.partition,
          spec: wireSpec,
          timestamp_ms: typeof spec === 'object' ? spec.timestampMs : 0,
          isolation: wireIsolation(this.settings.isolation ?? 'read_uncommitted'),
        }),
      this.settings.retry,
      this.settings.clock,
    );
    return {
      offset: r.offset,
      timestampMs: r.timestamp_ms,
      logStartOffset: r.log_start_offset,
      highWatermark: r.high_watermark,
      lastStableOffset: r.last_stable_offset,
    };
  }
}
