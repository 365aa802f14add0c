import { loadConfig } from '../../../services/common/config';
import { BROKER_CONFIG_SCHEMA } from '../../../services/broker/config';
import { NO_AUTH, startServiceAuth } from '../../../services/common/security/auth/service-auth';
import { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
import { silentLogger } from '../../../services/common/logger';
import { systemClock } from '../../../services/common/clock';

const store = new EmbeddedMetadataStore({ clock: systemClock, logger: silentLogger() });
afterAll(() => store.close());
const deps = { store, clock: systemClock, logger: silentLogger() };
const configWith = (env: Record<string, string>) => loadConfig(BROKER_CONFIG_SCHEMA, { env });

it('with every auth key at its default there is no interceptor at all', async () => {
  expect(await startServiceAuth(configWith({}), deps)).toBe(NO_AUTH);
});

it.each<[Record<string, string>, RegExp]>([
  [{ TIDE_AUTHORIZATION: 'acl', TIDE_AUTH_STATIC_TOKENS_FILE: '/x' }, /needs TLS/],
  [{ TIDE_AUTH_MTLS: 'true' }, /authMtls needs client certificates/],
  [{ TIDE_AUTHORIZATION: 'acl' }, /needs internalPrincipals/],
  [{ TIDE_AUTHORIZATION: 'acl', TIDE_INTERNAL_PRINCIPALS: 'broker' }, /needs an authentication mechanism/],
  [{ TIDE_AUTH_MTLS_PRINCIPAL_RULES: 'RULE:bad' }, /authMtlsPrincipalRules/],
])('refuses unusable settings with a message saying what to set: %j', async (env, message) => {
  const config = configWith(env);
  if (env['TIDE_AUTH_MTLS_PRINCIPAL_RULES'])
    Object.assign(config, { authMtls: true, tlsClientAuth: 'request' });
  await expect(startServiceAuth(config, deps)).rejects.toThrow(message);
});
