import * as fs from 'fs';
import * as path from 'path';
import { TideError } from '../../../services/common/errors';
import {
  DEFAULT_FLUSH_POLICY,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_RETENTION_MS,
  DEFAULT_SEGMENT_BYTES,
  TOPIC_CONFIGS,
  TOPIC_CONFIG_NAMES,
  applyConfigChanges,
  describeConfigs,
  toReplicationConfig,
  validateTopicConfigs,
} from '../../../services/common/cluster/topic-config';
import { validateTopicName } from '../../../services/common/cluster/topic-name';
import { toLogConfig } from '../../../services/broker/partition/log-config';

function errorOf(fn: () => unknown): TideError {
  try {
    fn();
  } catch (err) {
    if (err instanceof TideError) return err;
    throw err;
  }
  throw new Error('expected a TideError');
}

// [key, raw, canonical] for values accepted; [key, raw] for values rejected.
const VALID: [string, string, string][] = [
  ['retention.ms', '604800000', '604800000'],
  ['retention.ms', '-1', '-1'],
  ['retention.ms', '0', '0'],
  ['retention.ms', '007', '7'],
  ['retention.ms', '+5', '5'],
  ['retention.bytes', '-1', '-1'],
  ['retention.bytes', '1099511627776', '1099511627776'],
  ['segment.bytes', '1024', '1024'],
  ['segment.bytes', '2147483647', '2147483647'],
  ['segment.ms', '1', '1'],
  ['segment.ms', '-1', '-1'],
  ['max.message.bytes', '0', '0'],
  ['max.message.bytes', '1048588', '1048588'],
  ['index.interval.bytes', '0', '0'],
  ['index.interval.bytes', '4096', '4096'],
  ['flush.policy', 'sync', 'sync'],
  ['flush.policy', 'interval', 'interval'],
  ['flush.policy', 'os', 'os'],
  ['flush.ms', '1', '1'],
  ['flush.ms', '60000', '60000'],
  ['message.timestamp.type', 'CreateTime', 'CreateTime'],
  ['message.timestamp.type', 'LogAppendTime', 'LogAppendTime'],
  ['cleanup.policy', 'delete', 'delete'],
  ['cleanup.policy', 'compact', 'compact'],
  ['cleanup.policy', 'compact,delete', 'compact,delete'],
  ['cleanup.policy', 'delete, compact', 'compact,delete'],
  ['delete.retention.ms', '0', '0'],
  ['delete.retention.ms', '86400000', '86400000'],
  ['min.compaction.lag.ms', '60000', '60000'],
  ['max.compaction.lag.ms', '3600000', '3600000'],
  ['max.compaction.lag.ms', '1', '1'],
  // Kafka's default (Long.MAX_VALUE) and anything beyond the safe integers mean no limit.
  ['max.compaction.lag.ms', '9223372036854775807', String(Number.MAX_SAFE_INTEGER)],
  ['min.cleanable.dirty.ratio', '0.50', '0.5'],
  ['min.cleanable.dirty.ratio', '1', '1'],
  ['min.cleanable.dirty.ratio', '.25', '0.25'],
  ['min.cleanable.dirty.ratio', '0', '0'],
  ['min.insync.replicas', '1', '1'],
  ['min.insync.replicas', '3', '3'],
  ['unclean.leader.election.enable', 'true', 'true'],
  ['unclean.leader.election.enable', 'FALSE', 'false'],
  ['compression.type', 'producer', 'producer'],
  ['compression.type', 'zstd', 'zstd'],
  ['compression.type', 'uncompressed', 'uncompressed'],
];

const INVALID: [string, string][] = [
  ['retention.ms', '-2'],
  ['retention.ms', '1e3'],
  ['retention.ms', '1.5'],
  ['retention.ms', ''],
  ['retention.ms', ' 5'],
  ['retention.ms', '99999999999999999999'],
  ['retention.bytes', '-5'],
  ['retention.bytes', 'lots'],
  ['segment.bytes', '1023'],
  ['segment.bytes', '2147483648'],
  ['segment.bytes', '-1'],
  ['segment.ms', '0'],
  ['segment.ms', '-2'],
  ['max.message.bytes', '-1'],
  ['max.message.bytes', '2147483648'],
  ['index.interval.bytes', '-1'],
  ['flush.policy', 'SYNC'],
  ['flush.policy', 'always'],
  ['flush.ms', '0'],
  ['flush.ms', '-1'],
  ['message.timestamp.type', 'createtime'],
  ['message.timestamp.type', 'BrokerTime'],
  ['cleanup.policy', ''],
  ['cleanup.policy', 'delete,delete'],
  ['cleanup.policy', 'compact,delete,compact'],
  ['cleanup.policy', 'archive'],
  ['delete.retention.ms', '-1'],
  ['min.compaction.lag.ms', '-1'],
  ['max.compaction.lag.ms', '0'],
  ['max.compaction.lag.ms', '-1'],
  ['max.compaction.lag.ms', '1.5'],
  ['max.compaction.lag.ms', 'never'],
  ['min.cleanable.dirty.ratio', '1.5'],
  ['min.cleanable.dirty.ratio', '-0.1'],
  ['min.cleanable.dirty.ratio', 'half'],
  ['min.cleanable.dirty.ratio', ''],
  ['min.insync.replicas', '0'],
  ['min.insync.replicas', 'one'],
  ['unclean.leader.election.enable', 'yes'],
  ['unclean.leader.election.enable', '1'],
  ['compression.type', 'brotli'],
  ['compression.type', 'ZSTD'],
];

describe('topic configs', () => {
  it('covers every key in both tables', () => {
    const keys = new Set(TOPIC_CONFIG_NAMES);
    expect(new Set(VALID.map(([k]) => k))).toEqual(keys);
    expect(new Set(INVALID.map(([k]) => k))).toEqual(keys);
  });

  it.each(VALID)('accepts %s=%j as %j', (key, raw, canonical) => {
    expect(validateTopicConfigs({ [key]: raw })).toEqual({ [key]: canonical });
  });

  it.each(INVALID)('rejects %s=%j with INVALID_CONFIG naming the key and the allowed values', (key, raw) => {
    const err = errorOf(() => validateTopicConfigs({ [key]: raw }));
    expect(err.code).toBe('INVALID_CONFIG');
    expect(err.message).toContain(key);
    expect(err.message).toContain(JSON.stringify(raw));
    expect(err.message).toContain(TOPIC_CONFIGS.get(key)!.allowed);
  });

  it('accepts every default as a valid value of its key', () => {
    for (const def of TOPIC_CONFIGS.values()) expect(def.normalize(def.defaultValue)).toBe(def.defaultValue);
  });

  it('rejects unknown keys, listing the known ones', () => {
    const err = errorOf(() => validateTopicConfigs({ 'retention.msx': '1' }));
    expect(err.code).toBe('INVALID_CONFIG');
    expect(err.message).toContain('unknown topic config "retention.msx"');
    expect(err.message).toContain('retention.ms');
  });

  it('reports every problem at once', () => {
    const err = errorOf(() =>
      validateTopicConfigs({ 'segment.bytes': '1', bogus: 'x', 'flush.policy': 'never' }),
    );
    expect(err.message).toMatch(/bogus/);
    expect(err.message).toMatch(/segment\.bytes/);
    expect(err.message).toMatch(/flush\.policy/);
  });

  it('refuses a min.compaction.lag.ms above max.compaction.lag.ms, in one set or after an alter', () => {
    const err = errorOf(() =>
      validateTopicConfigs({ 'min.compaction.lag.ms': '20000', 'max.compaction.lag.ms': '10000' }),
    );
    expect(err.code).toBe('INVALID_CONFIG');
    expect(err.message).toMatch(
      /min.compaction.lag.ms \(20000\) must not exceed max.compaction.lag.ms \(10000\)/,
    );
    expect(
      errorOf(() =>
        applyConfigChanges({ 'max.compaction.lag.ms': '10000' }, { 'min.compaction.lag.ms': '20000' }, []),
      ).message,
    ).toMatch(/must not exceed/);
    expect(
      applyConfigChanges({ 'max.compaction.lag.ms': '10000' }, { 'min.compaction.lag.ms': '10000' }, []),
    ).toEqual({ 'max.compaction.lag.ms': '10000', 'min.compaction.lag.ms': '10000' });
  });

  describe('toLogConfig', () => {
    it('gives the defaults for an empty config', () => {
      expect(toLogConfig({})).toEqual({
        segmentBytes: DEFAULT_SEGMENT_BYTES,
        segmentMs: 604_800_000,
        retentionMs: DEFAULT_RETENTION_MS,
        retentionBytes: -1,
        maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
        indexIntervalBytes: 4096,
        flushPolicy: DEFAULT_FLUSH_POLICY,
        flushIntervalMs: 1000,
        timestampType: 'CreateTime',
        cleanupPolicy: 'delete',
        deleteRetentionMs: 86_400_000,
        minCompactionLagMs: 0,
        maxCompactionLagMs: Number.MAX_SAFE_INTEGER,
        minCleanableDirtyRatio: 0.5,
      });
    });

    it('applies explicit values and ignores keys a newer version may have added', () => {
      const config = toLogConfig({
        'retention.ms': '-1',
        'segment.bytes': '1048576',
        'flush.policy': 'interval',
        'flush.ms': '250',
        'message.timestamp.type': 'LogAppendTime',
        'cleanup.policy': 'delete,compact',
        'future.key': 'whatever',
      });
      expect(config).toMatchObject({
        retentionMs: -1,
        segmentBytes: 1_048_576,
        flushPolicy: 'interval',
        flushIntervalMs: 250,
        timestampType: 'LogAppendTime',
        cleanupPolicy: 'compact,delete',
      });
    });

    it('throws INVALID_CONFIG for an invalid value of a known key', () => {
      expect(errorOf(() => toLogConfig({ 'segment.bytes': 'big' })).code).toBe('INVALID_CONFIG');
    });

    it('gives the replication settings apart', () => {
      expect(toReplicationConfig({})).toEqual({ minInsyncReplicas: 1, uncleanLeaderElectionEnable: false });
      expect(
        toReplicationConfig({ 'min.insync.replicas': '2', 'unclean.leader.election.enable': 'true' }),
      ).toEqual({
        minInsyncReplicas: 2,
        uncleanLeaderElectionEnable: true,
      });
    });
  });

  describe('describeConfigs', () => {
    it('lists every key in name order with its effective value and whether it is the default', () => {
      const entries = describeConfigs({ 'retention.ms': '1000' });
      expect(entries.map((e) => e.name)).toEqual(TOPIC_CONFIG_NAMES);
      expect(entries.find((e) => e.name === 'retention.ms')).toEqual({
        name: 'retention.ms',
        value: '1000',
        isDefault: false,
      });
      expect(entries.find((e) => e.name === 'flush.policy')).toEqual({
        name: 'flush.policy',
        value: 'sync',
        isDefault: true,
      });
    });

    it('shows an explicit value equal to the default as set', () => {
      expect(
        describeConfigs({ 'cleanup.policy': 'delete' }).find((e) => e.name === 'cleanup.policy')?.isDefault,
      ).toBe(false);
    });

    it('does not hide stored keys it does not know', () => {
      expect(describeConfigs({ 'future.key': 'x' })).toContainEqual({
        name: 'future.key',
        value: 'x',
        isDefault: false,
      });
    });
  });

  describe('applyConfigChanges', () => {
    const explicit = { 'retention.ms': '1000', 'flush.policy': 'os' };

    it('sets, normalizes and deletes keys', () => {
      expect(applyConfigChanges(explicit, { 'segment.bytes': '02048' }, ['flush.policy'])).toEqual({
        'retention.ms': '1000',
        'segment.bytes': '2048',
      });
    });

    it.each([
      ['an unknown key to set', { nope: '1' }, [], /unknown topic config "nope"/],
      ['an unknown key to delete', {}, ['nope'], /unknown topic config "nope"/],
      ['an invalid value', { 'retention.ms': 'x' }, [], /retention\.ms/],
      ['a key both set and deleted', { 'retention.ms': '5' }, ['retention.ms'], /both set and deleted/],
    ])('rejects %s whole', (_what, set, remove, message) => {
      const before = { ...explicit };
      const err = errorOf(() => applyConfigChanges(explicit, set, remove));
      expect(err.code).toBe('INVALID_CONFIG');
      expect(err.message).toMatch(message);
      expect(explicit).toEqual(before);
    });

    it('deleting a key that is not set is a no-op', () => {
      expect(applyConfigChanges(explicit, {}, ['segment.ms'])).toEqual(explicit);
    });
  });
});

describe('validateTopicName', () => {
  it.each(['a', 'orders', 'Orders.v2', 'a_b', 'a-b', '__consumer_offsets', '...', 'x'.repeat(249), '0'])(
    'accepts %j',
    (name) => {
      expect(() => validateTopicName(name)).not.toThrow();
    },
  );

  it.each([
    ['', /empty/],
    ['.', /"\." and "\.\." are not allowed/],
    ['..', /"\." and "\.\." are not allowed/],
    ['x'.repeat(250), /250 characters long; the limit is 249/],
    ['a b', /contains " "/],
    ['a/b', /contains "\/"/],
    ['topic!', /contains "!"/],
    ['tópico', /contains "ó"/],
    ['a\nb', /contains "\\n"/],
  ])('rejects %j with INVALID_TOPIC', (name, message) => {
    const err = errorOf(() => validateTopicName(name));
    expect(err.code).toBe('INVALID_TOPIC');
    expect(err.message).toMatch(message);
    expect(err.context.topic).toBe(name);
  });
});

describe('docs/configuration.md', () => {
  it('documents every topic config key with its default', () => {
    const doc = fs.readFileSync(path.join(__dirname, '../../../docs/configuration.md'), 'utf8');
    for (const def of TOPIC_CONFIGS.values()) {
      const cells = doc
        .split('\n')
        .map((line) => line.split('|').map((cell) => cell.trim()))
        .find((row) => row[1] === `\`${def.name}\``);
      expect({ key: def.name, documented: cells !== undefined }).toEqual({ key: def.name, documented: true });
      expect(cells?.[2]).toContain(`\`${def.defaultValue}\``);
    }
  });
});
