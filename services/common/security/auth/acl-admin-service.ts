/**
 * The Admin ACL calls (CreateAcls, DescribeAcls, DeleteAcls), served by every broker and
 * controller straight against the metadata store; every service's AclCache hears the change
 * through its watch. The interceptor has already checked the caller's alter/describe on the
 * cluster; every change is written to the audit log.
 */
import type * as grpc from '@grpc/grpc-js';
import type { Logger } from '../../logger';
import type { MetadataStore } from '../../metadata/store';
import { unary, type RpcEdge } from '../../grpc/unary';
import type { AdminHandlers } from '../../grpc/generated/tide/v1/Admin';
import type {
  AclBinding as AclBindingWire,
  AclBinding__Input,
} from '../../grpc/generated/tide/v1/AclBinding';
import type { AclFilter as AclFilterWire } from '../../grpc/generated/tide/v1/AclFilter';
import {
  parseAclBinding,
  type AclBinding,
  type AclFilter,
  OPERATIONS,
  PATTERN_TYPES,
  PERMISSIONS,
  RESOURCE_TYPES,
} from './acl';
import { AclStore } from './acl-store';
import { PRINCIPAL_HEADER } from './auth-interceptor';
import { TideError } from '../../errors';
import type { AppMetadataRpc } from '../../app-metadata/app-metadata-admin-service';

export type AclRpc = 'CreateAcls' | 'DescribeAcls' | 'DeleteAcls';

type KnownKeys<T> = keyof {
  [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K];
};
/**
 * The Admin handlers besides the ACL, quota and application-metadata calls (which every Admin
 * server adds from here, ../quota/quota-admin-service.ts and app-metadata/).
 */
export type AdminHandlersWithoutAcls = Pick<
  AdminHandlers,
  Exclude<KnownKeys<AdminHandlers>, AclRpc | 'AlterClientQuotas' | 'DescribeClientQuotas' | AppMetadataRpc>
>;

function toBinding(wire: AclBindingWire): AclBinding {
  return parseAclBinding({
    principal: wire.principal,
    resourceType: wire.resource_type,
    patternType: wire.pattern_type,
    name: wire.name,
    operation: wire.operation,
    permission: wire.permission,
  });
}

function toWire(acl: AclBinding): AclBinding__Input {
  return {
    principal: acl.principal,
    resource_type: acl.resourceType,
    pattern_type: acl.patternType,
    name: acl.name,
    operation: acl.operation,
    permission: acl.permission,
  };
}

function pick<T extends string>(field: string, value: string, allowed: readonly T[]): T | undefined {
  if (value === '') return undefined;
  const lower = value.toLowerCase();
  if ((allowed as readonly string[]).includes(lower)) return lower as T;
  throw new TideError('INVALID_REQUEST', `acl filter ${field} must be empty or one of ${allowed.join(', ')}`);
}

export function toFilter(wire: AclFilterWire | null | undefined): AclFilter {
  if (!wire) return {};
  const filter: AclFilter = {};
  if (wire.principal) filter.principal = wire.principal;
  if (wire.name) filter.name = wire.name;
  const resourceType = pick('resource type', wire.resource_type, RESOURCE_TYPES);
  const patternType = pick('pattern type', wire.pattern_type, PATTERN_TYPES);
  const operation = pick('operation', wire.operation, OPERATIONS);
  const permission = pick('permission', wire.permission, PERMISSIONS);
  if (resourceType) filter.resourceType = resourceType;
  if (patternType) filter.patternType = patternType;
  if (operation) filter.operation = operation;
  if (permission) filter.permission = permission;
  return filter;
}

function caller(metadata: grpc.Metadata): string {
  const value = metadata.get(PRINCIPAL_HEADER)[0];
  return typeof value === 'string' ? value : 'ANONYMOUS';
}

export function aclAdminHandlers(deps: {
  store: MetadataStore;
  clusterName: string;
  edge: RpcEdge;
  audit: Logger;
}): Pick<AdminHandlers, AclRpc> {
  const acls = new AclStore(deps.store, deps.clusterName);
  return {
    CreateAcls: unary(deps.edge, 'CreateAcls', async (req, metadata) => {
      const bindings = req.acls.map(toBinding);
      if (bindings.length === 0) throw new TideError('INVALID_REQUEST', 'give at least one acl to create');
      const created = await acls.create(bindings);
      deps.audit.info({ principal: caller(metadata), acls: bindings }, 'ACLs created');
      return { created };
    }),
    DescribeAcls: unary(deps.edge, 'DescribeAcls', async (req) => ({
      acls: (await acls.list(toFilter(req.filter))).map(toWire),
    })),
    DeleteAcls: unary(deps.edge, 'DeleteAcls', async (req, metadata) => {
      if (req.filters.length === 0)
        throw new TideError('INVALID_REQUEST', 'give at least one filter of the acls to delete');
      const deleted = await acls.delete(req.filters.map(toFilter));
      deps.audit.info({ principal: caller(metadata), acls: deleted }, 'ACLs deleted');
      return { deleted: deleted.map(toWire) };
    }),
  };
}
