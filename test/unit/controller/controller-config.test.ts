import * as fs from 'fs';
import * as path from 'path';
import { ConfigError, envNameOf, loadConfig } from '../../../services/common/config';
import { CONTROLLER_CONFIG_SCHEMA, etcdEndpointList } from '../../../services/controller/config';

const docs = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'controller.md'), 'utf8');

test.each(Object.keys(CONTROLLER_CONFIG_SCHEMA))('docs/controller.md documents controller key %s', (key) => {
  expect(docs).toMatch(new RegExp(`\\|\\s*\`${key}\`\\s*\\|\\s*\`${envNameOf(key)}\`\\s*\\|`));
});

test('layers: defaults < file < env < flags', () => {
  const file = path.join(fs.mkdtempSync('/tmp/tide-config-'), 'controller.json');
  fs.writeFileSync(file, JSON.stringify({ port: 1000, controllerId: 3, leaseTtlMs: 4000 }));
  const config = loadConfig(CONTROLLER_CONFIG_SCHEMA, {
    file,
    env: { TIDE_CONTROLLER_ID: '4', TIDE_ETCD_ENDPOINTS: 'http://a:2379, http://b:2379,' },
    flags: { controllerId: 5 },
  });
  expect(config).toMatchObject({
    port: 1000,
    controllerId: 5,
    leaseTtlMs: 4000,
    leaderImbalanceCheckIntervalMs: 30_000,
    clusterName: 'tide',
  });
  expect(etcdEndpointList(config)).toEqual(['http://a:2379', 'http://b:2379']);
});

test.each([
  [{ env: { TIDE_DATA_DIR: 'x' } }, /unknown environment variable TIDE_DATA_DIR/],
  [{ flags: { leaseTtlMs: 10 } }, /leaseTtlMs .* must be >= 1000/],
  [{ flags: { controllerId: -1 } }, /controllerId .* must be >= 0/],
])('bad config is rejected naming the key: %j', (sources, message) => {
  expect(() => loadConfig(CONTROLLER_CONFIG_SCHEMA, sources)).toThrow(ConfigError);
  expect(() => loadConfig(CONTROLLER_CONFIG_SCHEMA, sources)).toThrow(message);
});
