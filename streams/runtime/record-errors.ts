/**
 * What the runtime does with a record its serdes cannot read or whose processing throws: the
 * `deserializationErrors` and `processingErrors` options (Kafka's deserialization and processing
 * exception handlers, with KIP-1034's dead-letter topic). The task applies them (task.ts); this
 * checks them and logs what they skip.
 */
import type { Logger } from '../../services/common/logger';
import { StreamsError } from '../errors';
import type { DroppedRecord, FailedPunctuation, RecordErrorPolicy } from './task';
import type { Topology } from '../topology/topology';

export function checkRecordErrorPolicy(option: string, policy: RecordErrorPolicy | undefined): void {
  if (policy === undefined || policy === 'fail' || policy === 'continue') return;
  if (
    typeof policy === 'object' &&
    policy !== null &&
    typeof policy.deadLetterTopic === 'string' &&
    policy.deadLetterTopic
  ) {
    return;
  }
  throw new StreamsError(
    'TOPOLOGY',
    `${option} must be 'fail', 'continue' or { deadLetterTopic: '<topic>' }, got ${JSON.stringify(policy)}`,
  );
}

/**
 * Refuses a dead-letter topic the topology reads (or writes to internally): a record copied there
 * would come back and fail again, for ever.
 */
export function checkDeadLetterTopics(
  topology: Topology,
  ...policies: (RecordErrorPolicy | undefined)[]
): void {
  const read = new Set([
    ...topology.subtopologies.flatMap((s) => s.sourceTopics),
    ...topology.global.topics,
    ...topology.internalTopics.keys(),
  ]);
  for (const topic of deadLetterTopics(...policies)) {
    if (read.has(topic)) {
      throw new StreamsError(
        'TOPOLOGY',
        `the dead-letter topic ${topic} is read by the application: records copied there would fail again; name another topic`,
      );
    }
  }
}

/** The dead-letter topics the policies name (they must exist before start). */
export function deadLetterTopics(...policies: (RecordErrorPolicy | undefined)[]): string[] {
  const topics = policies.flatMap((p) => (typeof p === 'object' ? [p.deadLetterTopic] : []));
  return [...new Set(topics)];
}

/**
 * The policy of global tables' records: they write to no topic, so a dead-letter topic means skip
 * (the record stays in the table's topic).
 */
export function globalTablePolicy(policy: RecordErrorPolicy | undefined): 'fail' | 'continue' {
  return (policy ?? 'fail') === 'fail' ? 'fail' : 'continue';
}

/** Warnings logged per second at most; the ones held back are counted into the next. */
const WARNINGS_PER_SECOND = 1;

/**
 * Logs what processingErrors / deserializationErrors pass over (skipped records, failing
 * punctuations) at warn, at most one line a second between them: a topic full of unreadable
 * records or a punctuator that always throws must not flood the logs (the counts are in the
 * metrics).
 */
export class PassedOverLogger {
  private windowStartMs = -Infinity;
  private logged = 0;
  private held = 0;

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  readonly dropped = (d: DroppedRecord): void =>
    this.warn(
      {
        task: d.taskId,
        topic: d.topic,
        partition: d.partition,
        offset: d.offset,
        stage: d.stage,
        error: d.error.message,
        ...(d.deadLetterTopic ? { deadLetterTopic: d.deadLetterTopic } : {}),
      },
      d.deadLetterTopic ? 'record skipped, copied to the dead-letter topic' : 'record skipped',
    );

  readonly punctuationFailed = (p: FailedPunctuation): void =>
    this.warn(
      { task: p.taskId, node: p.node, punctuation: p.type, timestamp: p.timestamp, error: p.error.message },
      'punctuation failed and was passed over; it fires again at its next interval',
    );

  private warn(fields: Record<string, unknown>, message: string): void {
    const t = this.now();
    if (t - this.windowStartMs >= 1_000) {
      this.windowStartMs = t;
      this.logged = 0;
    }
    if (this.logged >= WARNINGS_PER_SECOND) {
      this.held++;
      return;
    }
    this.logged++;
    this.logger.warn(
      { ...fields, ...(this.held > 0 ? { alsoSkippedSinceLastWarning: this.held } : {}) },
      message,
    );
    this.held = 0;
  }
}
