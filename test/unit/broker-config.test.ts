import * as fs from 'fs';
import * as path from 'path';
import { BROKER_CONFIG_SCHEMA, cleanerConfigOf } from '../../services/broker/config';
import { ConfigError, envNameOf, loadConfig } from '../../services/common/config';

const docs = fs.readFileSync(path.join(__dirname, '..', '..', 'docs', 'configuration.md'), 'utf8');

test.each(Object.keys(BROKER_CONFIG_SCHEMA))('docs/configuration.md documents broker key %s', (key) => {
  expect(docs).toMatch(new RegExp(`\\|\\s*\`${key}\`\\s*\\|\\s*\`${envNameOf(key)}\`\\s*\\|`));
});

test('layers: defaults < file < env < flags', () => {
  const file = path.join(fs.mkdtempSync('/tmp/tide-config-'), 'broker.json');
  fs.writeFileSync(file, JSON.stringify({ port: 1000, rack: 'file', brokerId: 3 }));
  const config = loadConfig(BROKER_CONFIG_SCHEMA, {
    file,
    env: { TIDE_RACK: 'env', TIDE_BROKER_ID: '4' },
    flags: { brokerId: 5 },
  });
  expect(config).toMatchObject({ port: 1000, rack: 'env', brokerId: 5, dataDir: './tide-data' });
});

test.each([
  [{ env: { TIDE_PROT: '1' } }, /unknown environment variable TIDE_PROT/],
  [{ env: { TIDE_PORT: 'eighty' } }, /port \(from env TIDE_PORT\) must be an integer/],
  [{ env: { TIDE_PORT: '70000' } }, /port .* must be <= 65535/],
  [{ env: { TIDE_LOG_LEVEL: 'loud' } }, /logLevel .* must be one of/],
  [{ flags: { nope: 1 } }, /unknown flag --nope/],
])('bad config is rejected naming the key: %j', (sources, message) => {
  expect(() => loadConfig(BROKER_CONFIG_SCHEMA, sources)).toThrow(ConfigError);
  expect(() => loadConfig(BROKER_CONFIG_SCHEMA, sources)).toThrow(message);
});

test('an unknown key in the file is rejected', () => {
  const file = path.join(fs.mkdtempSync('/tmp/tide-config-'), 'broker.json');
  fs.writeFileSync(file, JSON.stringify({ prot: 1 }));
  expect(() => loadConfig(BROKER_CONFIG_SCHEMA, { file })).toThrow(/unknown config key "prot"/);
});

test('the cleaner keys reach the log cleaner settings (Kafka log.cleaner.*)', () => {
  const config = loadConfig(BROKER_CONFIG_SCHEMA, {
    env: {
      TIDE_CLEANER_ENABLED: 'false',
      TIDE_CLEANER_IO_MAX_BYTES_PER_SECOND: '50000000',
      TIDE_CLEANER_DEDUPE_BUFFER_BYTES: '8388608',
      TIDE_CLEANER_BACKOFF_MS: '250',
    },
  });
  expect(cleanerConfigOf(config)).toEqual({
    enabled: false,
    ioBytesPerSecond: 50_000_000,
    dedupeBufferBytes: 8_388_608,
    backoffMs: 250,
  });
  expect(cleanerConfigOf(loadConfig(BROKER_CONFIG_SCHEMA, {}))).toEqual({
    enabled: true,
    ioBytesPerSecond: 25_000_000,
    dedupeBufferBytes: 32 * 1024 * 1024,
    backoffMs: 5_000,
  });
  expect(() =>
    loadConfig(BROKER_CONFIG_SCHEMA, { env: { TIDE_CLEANER_DEDUPE_BUFFER_BYTES: '1000' } }),
  ).toThrow(/cleanerDedupeBufferBytes .* must be >= 1048576/);
});
