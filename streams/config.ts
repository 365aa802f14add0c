/** The configuration of a streams application. */
import { StreamsError } from './errors';
import type { TimestampExtractor } from './record';

export type ProcessingGuarantee = 'atLeastOnce' | 'exactlyOnce';

export interface StreamsConfig {
  /**
   * Names the consumer group, the internal topics (`<applicationId>-<name>-repartition`,
   * `-changelog`) and the state directory. Letters, digits, '.', '_' and '-'.
   */
  applicationId: string;
  /**
   * 'atLeastOnce' (default). 'exactlyOnce': each commit interval is one transaction covering the
   * outputs, the changelog writes and the input offsets; input is read read_committed.
   */
  processingGuarantee?: ProcessingGuarantee;
  /** Event time of records of sources that do not set their own (default: the record's timestamp). */
  defaultTimestampExtractor?: TimestampExtractor;
}

const APPLICATION_ID = /^[A-Za-z0-9._-]+$/;

export function validateConfig(
  config: StreamsConfig,
): Required<Omit<StreamsConfig, 'defaultTimestampExtractor'>> &
  Pick<StreamsConfig, 'defaultTimestampExtractor'> {
  if (typeof config?.applicationId !== 'string' || !APPLICATION_ID.test(config.applicationId)) {
    throw new StreamsError(
      'TOPOLOGY',
      `applicationId must be a non-empty string of letters, digits, '.', '_' and '-', got ${JSON.stringify(config?.applicationId)}`,
    );
  }
  const guarantee = config.processingGuarantee ?? 'atLeastOnce';
  if (guarantee !== 'atLeastOnce' && guarantee !== 'exactlyOnce') {
    throw new StreamsError(
      'TOPOLOGY',
      `processingGuarantee must be 'atLeastOnce' or 'exactlyOnce', got ${JSON.stringify(guarantee)}`,
    );
  }
  return {
    applicationId: config.applicationId,
    processingGuarantee: guarantee,
    defaultTimestampExtractor: config.defaultTimestampExtractor,
  };
}
