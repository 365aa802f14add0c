import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ConfigError } from '../../../services/common/config';
import {
  configFilePath,
  parseConfigFile,
  readConfigFile,
  resolveContext,
  writeConfigFile,
} from '../../../cli/config-file';

describe('config file', () => {
  test('where it is: flag, TIDE_CONFIG_FILE, XDG_CONFIG_HOME, ~/.config', () => {
    expect(configFilePath('/a/b.yaml', { TIDE_CONFIG_FILE: '/x' })).toBe('/a/b.yaml');
    expect(configFilePath(undefined, { TIDE_CONFIG_FILE: '/x.yaml' })).toBe('/x.yaml');
    expect(configFilePath(undefined, { XDG_CONFIG_HOME: '/xdg', HOME: '/h' })).toBe('/xdg/tide/config.yaml');
    expect(configFilePath(undefined, { HOME: '/h' })).toBe('/h/.config/tide/config.yaml');
  });

  test('contexts and the current one', () => {
    const parsed = parseConfigFile(
      'current-context: b\ncontexts:\n  a:\n    bootstrap: h1:1\n  b:\n    bootstrap: h2:2,h3:3\n',
      'f',
    );
    expect(parsed).toEqual({
      currentContext: 'b',
      contexts: { a: { bootstrap: 'h1:1' }, b: { bootstrap: 'h2:2,h3:3' } },
    });
    expect(parseConfigFile('', 'f')).toEqual({ contexts: {} });
  });

  test.each([
    ['contexts:\n  a:\n    bootstrapp: x\n', /context "a" has unknown key "bootstrapp"/],
    ['context: {}\n', /unknown key "context"/],
    ['contexts: [1]\n', /contexts must be a mapping/],
    ['contexts:\n  a:\n    bootstrap: 5\n', /bootstrap must be a string/],
    ['current-context: [x]\n', /current-context must be a context name/],
    ['a: [\n', /not valid YAML/],
  ])('%j is refused', (text, why) => {
    expect(() => parseConfigFile(text, 'f')).toThrow(ConfigError);
    expect(() => parseConfigFile(text, 'f')).toThrow(why);
  });

  test('written and read back; resolveContext follows --context, then current-context', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-cfg-'));
    const file = path.join(dir, 'sub', 'config.yaml');
    expect(readConfigFile(file)).toEqual({ contexts: {} });
    expect(resolveContext({ file, env: {} })).toBeUndefined();
    writeConfigFile(file, {
      currentContext: 'a',
      contexts: { a: { bootstrap: 'h:1' }, b: { bootstrap: 'h:2' } },
    });
    expect(resolveContext({ file, env: {} })).toEqual({ name: 'a', bootstrap: 'h:1' });
    expect(resolveContext({ file, name: 'b', env: {} })).toEqual({ name: 'b', bootstrap: 'h:2' });
    expect(resolveContext({ file, env: { TIDE_CONTEXT: 'b' } })).toEqual({ name: 'b', bootstrap: 'h:2' });
    expect(() => resolveContext({ file, name: 'c', env: {} })).toThrow(/no context "c" .*contexts: a, b/);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('security keys of a context', () => {
  it('reads tls, tls-ca, tls-cert, tls-key, tls-server-name and token-file', () => {
    const parsed = parseConfigFile(
      'contexts:\n  prod:\n    bootstrap: b:9092\n    tls: true\n    tls-ca: ca.crt\n    tls-cert: me.crt\n    tls-key: me.key\n    tls-server-name: tide.svc\n    token-file: /var/run/token\n',
      'test',
    );
    expect(parsed.contexts.prod).toEqual({
      bootstrap: 'b:9092',
      tls: true,
      'tls-ca': 'ca.crt',
      'tls-cert': 'me.crt',
      'tls-key': 'me.key',
      'tls-server-name': 'tide.svc',
      'token-file': '/var/run/token',
    });
  });

  it('refuses a tls that is not a boolean', () => {
    expect(() => parseConfigFile('contexts:\n  x:\n    tls: yes-please\n', 'test')).toThrow(
      /tls must be true or false/,
    );
  });
});
