/**
 * The quota model: Kafka's (user, client-id) precedence with defaults, shared and per-user
 * budgets, validation, the store round trip, and the client id taken from the user agent.
 */
import { systemClock } from '../../../services/common/clock';
import { TideError } from '../../../services/common/errors';
import { silentLogger } from '../../../services/common/logger';
import { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
import {
  clientIdOfUserAgent,
  entityOf,
  parseClientQuota,
  QuotaTable,
  type ClientQuota,
} from '../../../services/common/security/quota/quota';
import { QuotaCache, QuotaStore } from '../../../services/common/security/quota/quota-store';

const D = '<default>';

const table = (quotas: ClientQuota[]) => new QuotaTable(quotas);

describe('QuotaTable.resolve', () => {
  const quotas = table([
    { entity: { user: 'alice', clientId: 'etl' }, values: { producer_byte_rate: 1 } },
    { entity: { user: 'alice', clientId: D }, values: { producer_byte_rate: 2 } },
    { entity: { user: 'alice' }, values: { producer_byte_rate: 3, consumer_byte_rate: 30 } },
    { entity: { user: D, clientId: 'etl' }, values: { producer_byte_rate: 4 } },
    { entity: { user: D }, values: { producer_byte_rate: 6 } },
    { entity: { clientId: 'batch' }, values: { producer_byte_rate: 7, request_rate: 70 } },
    { entity: { clientId: D }, values: { request_rate: 80 } },
  ]);

  it('takes the most specific entity that sets the key, key by key', () => {
    expect(quotas.resolve('producer_byte_rate', 'alice', 'etl')?.limit).toBe(1);
    expect(quotas.resolve('producer_byte_rate', 'alice', 'other')?.limit).toBe(2);
    expect(quotas.resolve('consumer_byte_rate', 'alice', 'etl')?.limit).toBe(30);
    expect(quotas.resolve('producer_byte_rate', 'bob', 'etl')?.limit).toBe(4);
    expect(quotas.resolve('producer_byte_rate', 'bob', 'batch')?.limit).toBe(6);
    expect(quotas.resolve('request_rate', 'bob', 'batch')?.limit).toBe(70);
    expect(quotas.resolve('request_rate', 'bob', 'x')?.limit).toBe(80);
    expect(quotas.resolve('max_streams', 'bob', 'x')).toBeUndefined();
  });

  it('gives every user its own budget under a default user quota, one shared budget under a client one', () => {
    expect(quotas.resolve('producer_byte_rate', 'bob', '')?.sensor).toBe('user=bob');
    expect(quotas.resolve('producer_byte_rate', 'carol', '')?.sensor).toBe('user=carol');
    expect(quotas.resolve('producer_byte_rate', 'alice', 'x')?.sensor).toBe('user=alice;client=x');
    // A client-id-only entity: every user with that client id shares it (Kafka).
    expect(quotas.resolve('request_rate', 'bob', 'batch')?.sensor).toBe('client=batch');
    expect(quotas.resolve('request_rate', 'carol', 'batch')?.sensor).toBe('client=batch');
  });
});

describe('validation', () => {
  it('refuses an entity with neither part, unknown keys, and values that are not positive', () => {
    expect(() => entityOf('', '')).toThrow(/needs a user, a client id, or both/);
    expect(() => parseClientQuota({ entity: { user: 'a' }, values: { bytes: 1 } })).toThrow(
      /unknown quota bytes/,
    );
    expect(() => parseClientQuota({ entity: { user: 'a' }, values: { request_rate: 0 } })).toThrow(
      /must be a positive number/,
    );
    expect(() => parseClientQuota({ entity: { user: 'a' }, values: { max_streams: 1.5 } })).toThrow(
      TideError,
    );
  });
});

it('reads the client id a Tide client announces in its user agent', () => {
  expect(clientIdOfUserAgent('tide-client/etl-7 grpc-node-js/1.12.0')).toBe('etl-7');
  expect(clientIdOfUserAgent('grpc-node-js/1.12.0 tide-client/x')).toBe('x');
  expect(clientIdOfUserAgent('grpc-node-js/1.12.0')).toBe('');
  expect(clientIdOfUserAgent(undefined)).toBe('');
});

describe('QuotaStore and QuotaCache', () => {
  let store: EmbeddedMetadataStore;
  beforeEach(() => {
    store = new EmbeddedMetadataStore({ clock: systemClock, logger: silentLogger() });
  });
  afterEach(async () => store.close());

  it('merges sets, removes keys, deletes an emptied entity, and the cache follows', async () => {
    const quotas = new QuotaStore(store, 'c');
    const cache = await QuotaCache.start({
      store,
      clusterName: 'c',
      clock: systemClock,
      logger: silentLogger(),
    });
    try {
      await quotas.alter([{ entity: { user: 'alice' }, set: { producer_byte_rate: 100 }, remove: [] }]);
      const after = await quotas.alter([
        { entity: { user: 'alice' }, set: { request_rate: 5 }, remove: [] },
        { entity: { clientId: D }, set: { max_streams: 3 }, remove: [] },
      ]);
      expect(after).toEqual([
        { entity: { user: 'alice' }, values: { producer_byte_rate: 100, request_rate: 5 } },
        { entity: { clientId: D }, values: { max_streams: 3 } },
      ]);
      expect(await quotas.list({ user: 'alice' })).toHaveLength(1);
      expect(await quotas.list({ clientId: D })).toHaveLength(1);
      await waitFor(() => cache.table.resolve('request_rate', 'alice', '')?.limit === 5);

      await quotas.alter([
        { entity: { user: 'alice' }, set: {}, remove: ['producer_byte_rate', 'request_rate'] },
      ]);
      expect(await quotas.list({ user: 'alice' })).toEqual([]);
      await waitFor(() => cache.table.resolve('request_rate', 'alice', '') === undefined);
      await expect(
        quotas.alter([{ entity: { user: 'a' }, set: { request_rate: -1 }, remove: [] }]),
      ).rejects.toThrow(/positive/);
    } finally {
      await cache.close();
    }
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
}
