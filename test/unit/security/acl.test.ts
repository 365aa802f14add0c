import {
  isAllowed,
  mayOnSomeResource,
  parseAclBinding,
  aclId,
  type AclBinding,
  type AccessRequest,
} from '../../../services/common/security/auth/acl';
import { AclCache, AclStore } from '../../../services/common/security/auth/acl-store';
import { Authorizer } from '../../../services/common/security/auth/authorizer';
import { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
import { silentLogger } from '../../../services/common/logger';
import { systemClock } from '../../../services/common/clock';

const acl = (fields: Partial<AclBinding> & Pick<AclBinding, 'name' | 'operation'>): AclBinding => ({
  principal: 'alice',
  resourceType: 'topic',
  patternType: 'literal',
  permission: 'allow',
  ...fields,
});
const topic = (name: string, operation: AccessRequest['operation']): AccessRequest => ({
  resourceType: 'topic',
  name,
  operation,
});

describe('ACL matching (Kafka semantics)', () => {
  it('a literal allow grants exactly its topic and operation', () => {
    const acls = [acl({ name: 'orders', operation: 'read' })];
    expect(isAllowed(acls, 'alice', topic('orders', 'read'))).toBe(true);
    expect(isAllowed(acls, 'alice', topic('orders', 'write'))).toBe(false);
    expect(isAllowed(acls, 'alice', topic('orders-eu', 'read'))).toBe(false);
    expect(isAllowed(acls, 'bob', topic('orders', 'read'))).toBe(false);
    expect(isAllowed(acls, 'alice', { resourceType: 'group', name: 'orders', operation: 'read' })).toBe(
      false,
    );
  });

  it('prefixed patterns, the * name and the * principal', () => {
    const acls = [
      acl({ name: 'orders.', patternType: 'prefixed', operation: 'write' }),
      acl({ name: '*', operation: 'describe', principal: '*' }),
    ];
    expect(isAllowed(acls, 'alice', topic('orders.eu', 'write'))).toBe(true);
    expect(isAllowed(acls, 'alice', topic('order', 'write'))).toBe(false);
    expect(isAllowed(acls, 'bob', topic('anything', 'describe'))).toBe(true);
  });

  it('deny wins over allow, including a prefixed deny over a literal allow', () => {
    const acls = [
      acl({ name: 'orders', operation: 'all' }),
      acl({ name: 'ord', patternType: 'prefixed', operation: 'write', permission: 'deny' }),
    ];
    expect(isAllowed(acls, 'alice', topic('orders', 'read'))).toBe(true);
    expect(isAllowed(acls, 'alice', topic('orders', 'write'))).toBe(false);
  });

  it('read/write/delete/alter imply describe and alter_configs implies describe_configs; deny does not imply', () => {
    for (const op of ['read', 'write', 'delete', 'alter'] as const) {
      expect(isAllowed([acl({ name: 't', operation: op })], 'alice', topic('t', 'describe'))).toBe(true);
    }
    expect(isAllowed([acl({ name: 't', operation: 'create' })], 'alice', topic('t', 'describe'))).toBe(false);
    expect(
      isAllowed([acl({ name: 't', operation: 'alter_configs' })], 'alice', topic('t', 'describe_configs')),
    ).toBe(true);
    const acls = [
      acl({ name: 't', operation: 'all' }),
      acl({ name: 't', operation: 'write', permission: 'deny' }),
    ];
    expect(isAllowed(acls, 'alice', topic('t', 'describe'))).toBe(true);
  });

  it('all grants every operation, and a deny of all refuses every one', () => {
    expect(isAllowed([acl({ name: 't', operation: 'all' })], 'alice', topic('t', 'delete'))).toBe(true);
    const denied = [
      acl({ name: '*', operation: 'read' }),
      acl({ name: 't', operation: 'all', permission: 'deny' }),
    ];
    expect(isAllowed(denied, 'alice', topic('t', 'read'))).toBe(false);
    expect(isAllowed(denied, 'alice', topic('u', 'read'))).toBe(true);
  });

  it('write on some topic lets an idempotent producer in (authorizeByResourceType)', () => {
    expect(
      mayOnSomeResource(
        [acl({ name: 'x.', patternType: 'prefixed', operation: 'write' })],
        'alice',
        'topic',
        'write',
      ),
    ).toBe(true);
    expect(mayOnSomeResource([acl({ name: 'x', operation: 'read' })], 'alice', 'topic', 'write')).toBe(false);
    const deniedAll = [
      acl({ name: 'x', operation: 'write' }),
      acl({ name: '*', operation: 'write', permission: 'deny' }),
    ];
    expect(mayOnSomeResource(deniedAll, 'alice', 'topic', 'write')).toBe(false);
  });
});

describe('bindings', () => {
  it('normalizes case and defaults; the cluster resource needs no name', () => {
    expect(parseAclBinding({ principal: 'alice', resourceType: 'CLUSTER', operation: 'Alter' })).toEqual({
      principal: 'alice',
      resourceType: 'cluster',
      patternType: 'literal',
      name: 'tide-cluster',
      operation: 'alter',
      permission: 'allow',
    });
  });

  it.each([
    [{ resourceType: 'topic', name: 't', operation: 'read' }, /principal/],
    [{ principal: 'a', resourceType: 'table', name: 't', operation: 'read' }, /resource type must be one of/],
    [{ principal: 'a', resourceType: 'topic', name: 't', operation: 'fly' }, /operation must be one of/],
    [{ principal: 'a', resourceType: 'topic', name: '', operation: 'read' }, /name must be non-empty/],
    [
      { principal: 'a', resourceType: 'topic', name: '*', patternType: 'prefixed', operation: 'read' },
      /prefixed/,
    ],
  ])('refuses %j', (input, message) => {
    expect(() => parseAclBinding(input)).toThrow(message);
  });

  it('ids are stable and distinct per field', () => {
    const a = acl({ name: 'a/b', operation: 'read' });
    expect(aclId(a)).toBe(aclId({ ...a }));
    expect(aclId(a)).not.toBe(aclId({ ...a, permission: 'deny' }));
    expect(aclId(a)).not.toContain('/');
  });
});

describe('AclStore and AclCache', () => {
  it('create is idempotent, delete takes filters, and every cache hears changes', async () => {
    const store = new EmbeddedMetadataStore({ clock: systemClock, logger: silentLogger() });
    const acls = new AclStore(store, 'c1');
    const cache = await AclCache.start({
      store,
      clusterName: 'c1',
      clock: systemClock,
      logger: silentLogger(),
    });
    let changes = 0;
    cache.onChange(() => changes++);
    try {
      const read = acl({ name: 'orders', operation: 'read' });
      const write = acl({ name: 'orders', operation: 'write' });
      expect(await acls.create([read, write])).toBe(2);
      expect(await acls.create([read])).toBe(0);
      await waitFor(() => cache.acls.length === 2);
      expect(await acls.list({ operation: 'write' })).toEqual([write]);
      const authorizer = new Authorizer({
        enabled: true,
        superUsers: new Set(['root']),
        internalPrincipals: new Set(['broker']),
        acls: cache,
      });
      expect(authorizer.can('alice', topic('orders', 'read'))).toBe(true);
      expect(authorizer.can('root', topic('orders', 'delete'))).toBe(true);
      expect(authorizer.can('broker', topic('orders', 'delete'))).toBe(true);
      expect(authorizer.mayCallInternal('root')).toBe(false);
      expect(authorizer.mayCallInternal('broker')).toBe(true);
      expect(await acls.delete([{ operation: 'read' }])).toEqual([read]);
      await waitFor(() => cache.acls.length === 1);
      expect(authorizer.can('alice', topic('orders', 'read'))).toBe(false);
      expect(changes).toBeGreaterThanOrEqual(2);
    } finally {
      await cache.close();
      await store.close();
    }
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
}
