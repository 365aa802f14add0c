/**
 * cleanup.policy (LogConfig.cleanupPolicy: "delete", "compact" or "compact,delete") parsed once
 * into what the log runs: retention deletes old segments (`delete`), the cleaner keeps the latest
 * record per key (`compact`). The log parses its config when it opens and on every config change;
 * everything after reads these flags, never the string.
 */
import { TideError } from '../../common/errors';

export interface CleanupPolicy {
  /** Retention (time and size) deletes old segments. */
  readonly delete: boolean;
  /** The cleaner compacts the log; records need keys, offsets may have gaps. */
  readonly compact: boolean;
}

const POLICIES: ReadonlyMap<string, CleanupPolicy> = new Map(
  (
    [
      ['delete', { delete: true, compact: false }],
      ['compact', { delete: false, compact: true }],
      ['compact,delete', { delete: true, compact: true }],
      ['delete,compact', { delete: true, compact: true }],
    ] as const
  ).map(([name, policy]) => [name, Object.freeze(policy)]),
);

/** The policy a cleanup.policy value names; undefined when it names none. */
export function parseCleanupPolicy(value: unknown): CleanupPolicy | undefined {
  return typeof value === 'string' ? POLICIES.get(value) : undefined;
}

/** The policy of a config; throws INVALID_CONFIG when the value names none. */
export function cleanupPolicyOf(config: { cleanupPolicy: unknown }): CleanupPolicy {
  const policy = parseCleanupPolicy(config.cleanupPolicy);
  if (!policy) {
    throw new TideError(
      'INVALID_CONFIG',
      `log config cleanupPolicy must be delete, compact or compact,delete, got ${String(config.cleanupPolicy)}`,
    );
  }
  return policy;
}
