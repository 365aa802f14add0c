/**
 * What the consumer keeps per assigned partition, and the entries of its buffer.
 *
 * Each assigned partition keeps two offsets: `position` (the next offset the application gets)
 * and `fetchOffset` (where the stream's data ends; data between them is buffered). A seek bumps
 * the partition's `generation`, which invalidates buffered data, and its `streamEpoch`, which
 * makes the stream to its leader be reopened from the new offset. Pause drops buffered data and
 * takes the partition out of its stream; resume puts it back at `position`.
 */
import type { TideError } from '../../services/common/errors';
import type { FetchResponse } from '../../services/common/grpc/generated/tide/v1/FetchResponse';

/** Where to look up a position: the log start, the high watermark, or the first record at/after a time. */
export type Reset = 'earliest' | 'latest' | { timestampMs: number };

export class AssignedPartition {
  position: number | undefined;
  fetchOffset = 0;
  paused = false;
  generation = 0;
  streamEpoch = 0;
  /** How to find the position when it is undefined. */
  reset: Reset | undefined;
  resolving: Promise<void> | undefined;
  /** A terminal error of this partition; cleared by a seek. */
  error: TideError | undefined;
  retryAtMs = 0;
  failures = 0;
  /** Consecutive chunks that failed their CRC check. */
  corruptions = 0;
  highWatermark = -1;
  constructor(
    readonly topic: string,
    readonly partition: number,
  ) {}

  /** Out of its stream; buffered data is void (refetched from `position` on resume). */
  pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.generation++;
    this.streamEpoch++;
    if (this.position !== undefined) this.fetchOffset = this.position;
  }

  /** Back into its stream, from where it paused. */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.streamEpoch++;
  }
}

/** Fetched data of one partition waiting to be read, or an error to hand to the application. */
export type Entry =
  | {
      kind: 'data';
      state: AssignedPartition;
      generation: number;
      response: FetchResponse;
      /** The complete batches of the response. */
      complete: Buffer;
      fromOffset: number;
      nextOffset: number;
      bytes: number;
    }
  | { kind: 'error'; state: AssignedPartition; generation: number; error: TideError };
