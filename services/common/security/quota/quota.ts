/**
 * Client quotas in Kafka's model: an entity is a user (principal), a client id, or both, each
 * either a name or `<default>`; a caller gets, for each quota key separately, the value of the
 * most specific entity that sets it (Kafka's precedence, see resolveQuota). Byte and request rates
 * slow a caller down; max_streams and max_connections refuse the excess stream or connection.
 */
import { TideError } from '../../errors';

export const DEFAULT_ENTITY = '<default>';

export const QUOTA_KEYS = [
  'producer_byte_rate',
  'consumer_byte_rate',
  'request_rate',
  'controller_mutation_rate',
  'max_streams',
  'max_connections',
] as const;
export type QuotaKey = (typeof QUOTA_KEYS)[number];

/** A user-only entity has clientId undefined; a client-only entity has user undefined. */
export interface QuotaEntity {
  user?: string;
  clientId?: string;
}

export type QuotaValues = Partial<Record<QuotaKey, number>>;

export interface ClientQuota {
  entity: QuotaEntity;
  values: QuotaValues;
}

export function isQuotaKey(key: string): key is QuotaKey {
  return (QUOTA_KEYS as readonly string[]).includes(key);
}

export function checkQuotaValue(key: string, value: number): void {
  if (!isQuotaKey(key)) {
    throw new TideError('INVALID_REQUEST', `unknown quota ${key}; use one of ${QUOTA_KEYS.join(', ')}`);
  }
  if (!Number.isFinite(value) || value <= 0) {
    throw new TideError('INVALID_REQUEST', `quota ${key} must be a positive number, got ${value}`);
  }
  if ((key === 'max_streams' || key === 'max_connections') && !Number.isInteger(value)) {
    throw new TideError('INVALID_REQUEST', `quota ${key} must be a whole number, got ${value}`);
  }
}

/** Empty strings mean "not part of the entity"; at least one part must be given. */
export function entityOf(user: string | undefined, clientId: string | undefined): QuotaEntity {
  const entity: QuotaEntity = {};
  if (user) entity.user = user;
  if (clientId) entity.clientId = clientId;
  if (entity.user === undefined && entity.clientId === undefined) {
    throw new TideError(
      'INVALID_REQUEST',
      `a quota entity needs a user, a client id, or both (${DEFAULT_ENTITY} for the default)`,
    );
  }
  return entity;
}

/** The metadata store key suffix of an entity; reversible by entityFromId. */
export function entityId(entity: QuotaEntity): string {
  const part = (kind: string, name: string | undefined) =>
    name === undefined ? '' : `${kind}=${encodeURIComponent(name)}`;
  return [part('user', entity.user), part('client', entity.clientId)].filter(Boolean).join(';');
}

export function parseClientQuota(raw: Record<string, unknown>): ClientQuota {
  const entityRaw = (raw['entity'] ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const entity = entityOf(str(entityRaw['user']), str(entityRaw['clientId']));
  const values: QuotaValues = {};
  for (const [key, value] of Object.entries((raw['values'] ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'number') throw new TideError('INVALID_REQUEST', `quota ${key} must be a number`);
    checkQuotaValue(key, value);
    values[key as QuotaKey] = value;
  }
  return { entity, values };
}

/** The quota one caller gets for one key, and which entity's sensor counts its usage. */
export interface ResolvedQuota {
  limit: number;
  /**
   * The sensor key: callers resolving to the same entity share one budget, as in Kafka
   * (a `<default>` user part still gives every user a budget of its own).
   */
  sensor: string;
}

/** Kafka's order, most specific first (user and client id, then user, then client id). */
const PRECEDENCE: ReadonlyArray<(user: string, clientId: string) => QuotaEntity> = [
  (u, c) => ({ user: u, clientId: c }),
  (u) => ({ user: u, clientId: DEFAULT_ENTITY }),
  (u) => ({ user: u }),
  (_u, c) => ({ user: DEFAULT_ENTITY, clientId: c }),
  () => ({ user: DEFAULT_ENTITY, clientId: DEFAULT_ENTITY }),
  () => ({ user: DEFAULT_ENTITY }),
  (_u, c) => ({ clientId: c }),
  () => ({ clientId: DEFAULT_ENTITY }),
];

/** An index of the quotas by entity, answering "what does this caller get". */
export class QuotaTable {
  private readonly byId = new Map<string, ClientQuota>();

  constructor(readonly quotas: readonly ClientQuota[]) {
    for (const quota of quotas) this.byId.set(entityId(quota.entity), quota);
  }

  get empty(): boolean {
    return this.byId.size === 0;
  }

  resolve(key: QuotaKey, user: string, clientId: string): ResolvedQuota | undefined {
    for (const candidate of PRECEDENCE) {
      const entity = candidate(user, clientId);
      const limit = this.byId.get(entityId(entity))?.values[key];
      if (limit === undefined) continue;
      // The sensor belongs to the caller's own user / client id wherever the entity names a part.
      const sensor = entityId({
        ...(entity.user !== undefined ? { user } : {}),
        ...(entity.clientId !== undefined ? { clientId } : {}),
      });
      return { limit, sensor };
    }
    return undefined;
  }
}

/** The client id a Tide client announces in its user agent (`tide-client/<id>`), or ''. */
export function clientIdOfUserAgent(userAgent: string | undefined): string {
  if (!userAgent) return '';
  const match = /(?:^|\s)tide-client\/(\S+)/.exec(userAgent);
  return match ? match[1]! : '';
}
