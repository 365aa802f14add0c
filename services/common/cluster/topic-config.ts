/**
 * The topic config table: every key a topic accepts (Kafka's names), its default, its allowed
 * values and their canonical form (the broker turns them into its storage engine's LogConfig:
 * services/broker/partition/log-config.ts). docs/configuration.md mirrors this
 * table for users; keep them in step.
 *
 * Values are strings (as on the wire). A valid value is stored in canonical form ("007" → "7",
 * "delete,compact" → "compact,delete", "TRUE" → "true"), so describe shows what takes effect.
 * Writes reject unknown keys; readers (effectiveTopicConfig, describeConfigs) tolerate keys they do not know
 * so a newer controller can add keys without breaking older brokers.
 */
import { TideError } from '../errors';
import { echo } from '../echo';

export const DEFAULT_RETENTION_MS = 604_800_000; // 7 days
export const DEFAULT_RETENTION_BYTES = -1;
export const DEFAULT_SEGMENT_BYTES = 1_073_741_824; // 1 GiB
/** Smallest segment.bytes accepted: small enough for tests, large enough for any real batch header. */
export const MIN_SEGMENT_BYTES = 1024;
export const DEFAULT_SEGMENT_MS = 604_800_000; // 7 days
/** Kafka's default: 1 MiB plus the 12-byte log overhead. */
export const DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;
export const DEFAULT_INDEX_INTERVAL_BYTES = 4096;
/** fsync before acknowledging, appends sharing an fsync (group commit). See docs/configuration.md. */
export const DEFAULT_FLUSH_POLICY = 'sync';
export const DEFAULT_FLUSH_MS = 1000;
export const DEFAULT_MESSAGE_TIMESTAMP_TYPE = 'CreateTime';
export const DEFAULT_CLEANUP_POLICY = 'delete';
export const DEFAULT_DELETE_RETENTION_MS = 86_400_000; // 1 day
export const DEFAULT_MIN_COMPACTION_LAG_MS = 0;
/** Never: Kafka's default is Long.MAX_VALUE; larger values (that one too) are read as this. */
export const DEFAULT_MAX_COMPACTION_LAG_MS = Number.MAX_SAFE_INTEGER;
export const DEFAULT_MIN_CLEANABLE_DIRTY_RATIO = 0.5;
export const DEFAULT_MIN_INSYNC_REPLICAS = 1;
export const DEFAULT_UNCLEAN_LEADER_ELECTION_ENABLE = false;
export const DEFAULT_COMPRESSION_TYPE = 'producer';

const MAX_INT32 = 2 ** 31 - 1;

/** One topic config key. */
export interface TopicConfigDef {
  readonly name: string;
  /** The default, as a user would write it. */
  readonly defaultValue: string;
  /** What the key does, in one sentence. */
  readonly doc: string;
  /** The allowed values, as errors and docs show them. */
  readonly allowed: string;
  /** The canonical form of a valid value; throws INVALID_CONFIG naming the key otherwise. */
  normalize(raw: string): string;
}

function invalid(name: string, raw: string, allowed: string): TideError {
  return new TideError(
    'INVALID_CONFIG',
    `invalid value ${echo(raw)} for topic config ${echo(name)}: must be ${allowed}`,
  );
}

function integerKey(
  name: string,
  defaultValue: number,
  min: number,
  max: number,
  doc: string,
  allowed: string,
  excluded?: number,
): TopicConfigDef {
  return {
    name,
    defaultValue: String(defaultValue),
    doc,
    allowed,
    normalize(raw) {
      const value = /^[+-]?\d+$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(value) || value < min || value > max || value === excluded)
        throw invalid(name, raw, allowed);
      return String(value === 0 ? 0 : value); // "-0" → "0"
    },
  };
}

/**
 * max.compaction.lag.ms: an integer >= 1; values beyond Number.MAX_SAFE_INTEGER (Kafka's default,
 * Long.MAX_VALUE, among them) mean never and are stored as that.
 */
function maxCompactionLagKey(): TopicConfigDef {
  const name = 'max.compaction.lag.ms';
  const allowed = 'an integer >= 1 (ms); 9223372036854775807 (the default) = no limit';
  return {
    name,
    defaultValue: String(DEFAULT_MAX_COMPACTION_LAG_MS),
    doc: 'On compacted topics, the longest a record stays uncompacted: a log holding older dirty records is cleaned whatever its dirty ratio, and its active segment rolls at this age.',
    allowed,
    normalize(raw) {
      if (!/^\+?\d+$/.test(raw)) throw invalid(name, raw, allowed);
      const value = BigInt(raw);
      if (value < 1n) throw invalid(name, raw, allowed);
      return String(value >= BigInt(DEFAULT_MAX_COMPACTION_LAG_MS) ? DEFAULT_MAX_COMPACTION_LAG_MS : value);
    },
  };
}

/** Keys that must agree with each other: every problem, for one INVALID_CONFIG error. */
function crossKeyProblems(configs: Record<string, string>): string[] {
  const problems: string[] = [];
  let minLag: number;
  let maxLag: number;
  try {
    minLag = Number(effective(configs, 'min.compaction.lag.ms'));
    maxLag = Number(effective(configs, 'max.compaction.lag.ms'));
  } catch {
    return problems; // the values themselves are reported already
  }
  if (minLag > maxLag) {
    problems.push(
      `min.compaction.lag.ms (${minLag}) must not exceed max.compaction.lag.ms (${maxLag}): a record cannot have to wait longer than the most it may wait`,
    );
  }
  return problems;
}

function enumKey(
  name: string,
  defaultValue: string,
  values: readonly string[],
  doc: string,
  caseInsensitive = false,
): TopicConfigDef {
  const allowed = `one of ${values.join(', ')}`;
  return {
    name,
    defaultValue,
    doc,
    allowed,
    normalize(raw) {
      const found = values.find((v) => (caseInsensitive ? v.toLowerCase() === raw.toLowerCase() : v === raw));
      if (found === undefined) throw invalid(name, raw, allowed);
      return found;
    },
  };
}

/** A decimal number in [min, max], stored in JavaScript's shortest form ("0.50" → "0.5"). */
function ratioKey(name: string, defaultValue: number, min: number, max: number, doc: string): TopicConfigDef {
  const allowed = `a number in ${min}..${max}`;
  return {
    name,
    defaultValue: String(defaultValue),
    doc,
    allowed,
    normalize(raw) {
      const value = /^[+]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(raw) ? Number(raw) : NaN;
      if (!Number.isFinite(value) || value < min || value > max) throw invalid(name, raw, allowed);
      return String(value);
    },
  };
}

const cleanupPolicy: TopicConfigDef = {
  name: 'cleanup.policy',
  defaultValue: DEFAULT_CLEANUP_POLICY,
  doc: 'delete drops old segments by retention; compact keeps the latest record per key (compact,delete does both).',
  allowed: 'delete, compact, or compact,delete',
  normalize(raw) {
    const parts = raw.split(',').map((p) => p.trim());
    const ok =
      parts.length <= 2 &&
      parts.every((p) => p === 'delete' || p === 'compact') &&
      new Set(parts).size === parts.length;
    if (!ok) throw invalid('cleanup.policy', raw, 'delete, compact, or compact,delete');
    return [...parts].sort().join(',');
  },
};

/** Every topic config key, by name. */
export const TOPIC_CONFIGS: ReadonlyMap<string, TopicConfigDef> = new Map(
  [
    integerKey(
      'retention.ms',
      DEFAULT_RETENTION_MS,
      -1,
      Number.MAX_SAFE_INTEGER,
      'Delete a segment once its newest record is older than this.',
      'an integer >= -1 (ms; -1 = keep forever)',
    ),
    integerKey(
      'retention.bytes',
      DEFAULT_RETENTION_BYTES,
      -1,
      Number.MAX_SAFE_INTEGER,
      'Delete the oldest segments while a partition is larger than this.',
      'an integer >= -1 (bytes per partition; -1 = no limit)',
    ),
    integerKey(
      'segment.bytes',
      DEFAULT_SEGMENT_BYTES,
      MIN_SEGMENT_BYTES,
      MAX_INT32,
      'Roll to a new segment when the active one reaches this size.',
      `an integer in ${MIN_SEGMENT_BYTES}..${MAX_INT32} (bytes)`,
    ),
    integerKey(
      'segment.ms',
      DEFAULT_SEGMENT_MS,
      -1,
      Number.MAX_SAFE_INTEGER,
      'Roll to a new segment when the active one is older than this, so retention can delete it.',
      'an integer >= 1 (ms), or -1 = never roll by age',
      0,
    ),
    integerKey(
      'max.message.bytes',
      DEFAULT_MAX_MESSAGE_BYTES,
      0,
      MAX_INT32,
      'Largest record batch the topic accepts (after compression).',
      `an integer in 0..${MAX_INT32} (bytes)`,
    ),
    integerKey(
      'index.interval.bytes',
      DEFAULT_INDEX_INTERVAL_BYTES,
      0,
      MAX_INT32,
      'Bytes of log between two entries of the sparse offset and time indexes.',
      `an integer in 0..${MAX_INT32} (bytes)`,
    ),
    enumKey(
      'flush.policy',
      DEFAULT_FLUSH_POLICY,
      ['sync', 'interval', 'os'],
      'When appended data is fsynced: before acknowledging (sync, group commit), every flush.ms (interval), or never explicitly (os).',
    ),
    integerKey(
      'flush.ms',
      DEFAULT_FLUSH_MS,
      1,
      Number.MAX_SAFE_INTEGER,
      'With flush.policy=interval: how often to fsync.',
      'an integer >= 1 (ms)',
    ),
    enumKey(
      'message.timestamp.type',
      DEFAULT_MESSAGE_TIMESTAMP_TYPE,
      ['CreateTime', 'LogAppendTime'],
      "CreateTime keeps the producer's timestamps; LogAppendTime stamps the broker's time.",
    ),
    cleanupPolicy,
    integerKey(
      'delete.retention.ms',
      DEFAULT_DELETE_RETENTION_MS,
      0,
      Number.MAX_SAFE_INTEGER,
      'On compacted topics, how long a tombstone stays readable after the cleaner first kept it.',
      'an integer >= 0 (ms)',
    ),
    integerKey(
      'min.compaction.lag.ms',
      DEFAULT_MIN_COMPACTION_LAG_MS,
      0,
      Number.MAX_SAFE_INTEGER,
      'On compacted topics, records newer than this are never compacted away.',
      'an integer >= 0 (ms)',
    ),
    maxCompactionLagKey(),
    ratioKey(
      'min.cleanable.dirty.ratio',
      DEFAULT_MIN_CLEANABLE_DIRTY_RATIO,
      0,
      1,
      'On compacted topics, the cleaner starts when dirty bytes / (clean + dirty bytes) exceeds this.',
    ),
    integerKey(
      'min.insync.replicas',
      DEFAULT_MIN_INSYNC_REPLICAS,
      1,
      MAX_INT32,
      'Fewest in-sync replicas for an acks=all produce to succeed (else NOT_ENOUGH_REPLICAS).',
      'an integer >= 1',
    ),
    enumKey(
      'unclean.leader.election.enable',
      String(DEFAULT_UNCLEAN_LEADER_ELECTION_ENABLE),
      ['true', 'false'],
      'Allow a replica outside the ISR to become leader when no in-sync replica is left (may lose records).',
      true,
    ),
    enumKey(
      'compression.type',
      DEFAULT_COMPRESSION_TYPE,
      ['producer', 'uncompressed', 'gzip', 'snappy', 'lz4', 'zstd'],
      'Informational: batches are stored as the producer compressed them (producer); the broker does not recompress.',
    ),
  ].map((def) => [def.name, def]),
);

/** The config keys in name order. */
export const TOPIC_CONFIG_NAMES: readonly string[] = [...TOPIC_CONFIGS.keys()].sort();

function unknownKey(name: string): TideError {
  return new TideError(
    'INVALID_CONFIG',
    `unknown topic config ${echo(name)}; known keys are ${TOPIC_CONFIG_NAMES.join(', ')}`,
  );
}

/**
 * Checks a whole set of explicit configs and returns it in canonical form. Every problem is
 * reported in one INVALID_CONFIG error, so a user fixes them in one round.
 */
export function validateTopicConfigs(configs: Record<string, string>): Record<string, string> {
  const problems: string[] = [];
  const normalized: Record<string, string> = {};
  for (const name of Object.keys(configs).sort()) {
    const def = TOPIC_CONFIGS.get(name);
    const raw = configs[name];
    try {
      if (!def) throw unknownKey(name);
      if (typeof raw !== 'string') throw invalid(name, String(raw), def.allowed);
      normalized[name] = def.normalize(raw);
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  if (problems.length === 0) problems.push(...crossKeyProblems(normalized));
  if (problems.length > 0) throw new TideError('INVALID_CONFIG', problems.join('; '));
  return normalized;
}

/**
 * The explicit configs after an alter: `set` applied, `remove` keys back to their defaults. The
 * result is validated whole; a key in both lists or an unknown key fails the whole change.
 */
export function applyConfigChanges(
  explicit: Record<string, string>,
  set: Record<string, string>,
  remove: readonly string[],
): Record<string, string> {
  const problems: string[] = [];
  for (const name of remove) {
    if (!TOPIC_CONFIGS.has(name)) problems.push(unknownKey(name).message);
    else if (Object.prototype.hasOwnProperty.call(set, name))
      problems.push(`topic config ${echo(name)} is both set and deleted`);
  }
  if (problems.length > 0) throw new TideError('INVALID_CONFIG', problems.join('; '));
  const validatedSet = validateTopicConfigs(set);
  const next: Record<string, string> = { ...explicit, ...validatedSet };
  for (const name of remove) delete next[name];
  const conflicts = crossKeyProblems(next);
  if (conflicts.length > 0) throw new TideError('INVALID_CONFIG', conflicts.join('; '));
  return next;
}

function effective(configs: Record<string, string>, name: string): string {
  const def = TOPIC_CONFIGS.get(name)!;
  const raw = configs[name];
  return raw === undefined ? def.defaultValue : def.normalize(raw);
}

/**
 * The effective value of a known key: the explicit value (in canonical form) over the default.
 * Throws INVALID_CONFIG for an invalid value.
 */
export function effectiveTopicConfig(configs: Record<string, string>, name: string): string {
  return effective(configs, name);
}

/**
 * Checks every known key's value (explicit or default) without building anything; ignores keys this
 * version does not know (written by a newer one). Throws INVALID_CONFIG.
 */
export function checkStoredConfigs(configs: Record<string, string>): void {
  for (const name of TOPIC_CONFIG_NAMES) effective(configs, name);
}

/** The replication settings the broker's partition layer needs (not part of LogConfig). */
export interface ReplicationConfig {
  minInsyncReplicas: number;
  uncleanLeaderElectionEnable: boolean;
}

export function toReplicationConfig(configs: Record<string, string>): ReplicationConfig {
  return {
    minInsyncReplicas: Number(effective(configs, 'min.insync.replicas')),
    uncleanLeaderElectionEnable: effective(configs, 'unclean.leader.election.enable') === 'true',
  };
}

/** One row of DescribeConfigs. */
export interface ConfigEntry {
  name: string;
  value: string;
  /** True when the topic does not set the key and the default applies. */
  isDefault: boolean;
}

/**
 * Every key with its effective value, in name order. Keys this version does not know are listed
 * as set (isDefault false) so nothing stored is hidden.
 */
export function describeConfigs(explicit: Record<string, string>): ConfigEntry[] {
  const names = new Set([...TOPIC_CONFIG_NAMES, ...Object.keys(explicit)]);
  return [...names].sort().map((name) => {
    const value = explicit[name];
    if (value !== undefined) return { name, value, isDefault: false };
    return { name, value: TOPIC_CONFIGS.get(name)!.defaultValue, isDefault: true };
  });
}
