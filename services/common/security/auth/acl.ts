/**
 * Kafka's ACL model: a binding says that a principal may (allow) or may not (deny) perform an
 * operation on the resources whose name matches a literal or prefixed pattern. Deny wins over
 * allow; with no matching allow the call is denied (super users bypass every check).
 *
 * Implied operations follow Kafka: read, write, delete and alter each imply describe, and
 * alter_configs implies describe_configs; `all` matches every operation.
 */
import { TideError } from '../../errors';

export const RESOURCE_TYPES = ['topic', 'group', 'cluster', 'transactional_id'] as const;
export type ResourceType = (typeof RESOURCE_TYPES)[number];

export const PATTERN_TYPES = ['literal', 'prefixed'] as const;
export type PatternType = (typeof PATTERN_TYPES)[number];

export const OPERATIONS = [
  'read',
  'write',
  'create',
  'delete',
  'alter',
  'describe',
  'describe_configs',
  'alter_configs',
  'cluster_action',
  'idempotent_write',
  'all',
] as const;
export type Operation = (typeof OPERATIONS)[number];

export const PERMISSIONS = ['allow', 'deny'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** The only name a cluster resource has (Kafka's "kafka-cluster"). */
export const CLUSTER_RESOURCE = 'tide-cluster';
/** The principal and literal name that match everything. */
export const WILDCARD = '*';

export interface AclBinding {
  principal: string;
  resourceType: ResourceType;
  patternType: PatternType;
  /** The resource name, a prefix (prefixed), or `*` (literal: every resource of the type). */
  name: string;
  operation: Operation;
  permission: Permission;
}

/** What one call needs: the operation on one named resource. */
export interface AccessRequest {
  resourceType: ResourceType;
  name: string;
  operation: Operation;
}

/** Operations an ACL for `granted` also grants (an allow for write also allows describe). */
const IMPLIES: Partial<Record<Operation, readonly Operation[]>> = {
  describe: ['read', 'write', 'delete', 'alter', 'describe'],
  describe_configs: ['alter_configs', 'describe_configs'],
};

function operationMatches(aclOperation: Operation, wanted: Operation, permission: Permission): boolean {
  if (aclOperation === 'all' || aclOperation === wanted) return true;
  // A deny never implies: denying write does not deny describe (Kafka's rule).
  if (permission === 'deny') return false;
  return IMPLIES[wanted]?.includes(aclOperation) ?? false;
}

function nameMatches(acl: AclBinding, name: string): boolean {
  if (acl.patternType === 'prefixed') return name.startsWith(acl.name);
  return acl.name === WILDCARD || acl.name === name;
}

function principalMatches(acl: AclBinding, principal: string): boolean {
  return acl.principal === WILDCARD || acl.principal === principal;
}

/** True when `acl` applies to the principal and request (ignoring its permission). */
export function aclMatches(acl: AclBinding, principal: string, request: AccessRequest): boolean {
  return (
    acl.resourceType === request.resourceType &&
    principalMatches(acl, principal) &&
    nameMatches(acl, request.name) &&
    operationMatches(acl.operation, request.operation, acl.permission)
  );
}

/** Deny wins; otherwise an allow is needed. */
export function isAllowed(acls: Iterable<AclBinding>, principal: string, request: AccessRequest): boolean {
  let allowed = false;
  for (const acl of acls) {
    if (!aclMatches(acl, principal, request)) continue;
    if (acl.permission === 'deny') return false;
    allowed = true;
  }
  return allowed;
}

/**
 * True when some resource of the type could allow the operation: an allow binding exists for the
 * principal (Kafka's authorizeByResourceType, used for idempotent producers holding write on any
 * topic). A literal deny of `*` for the operation wins.
 */
export function mayOnSomeResource(
  acls: Iterable<AclBinding>,
  principal: string,
  resourceType: ResourceType,
  operation: Operation,
): boolean {
  let allowed = false;
  for (const acl of acls) {
    if (acl.resourceType !== resourceType || !principalMatches(acl, principal)) continue;
    if (!operationMatches(acl.operation, operation, acl.permission)) continue;
    if (acl.permission === 'deny' && acl.patternType === 'literal' && acl.name === WILDCARD) return false;
    if (acl.permission === 'allow') allowed = true;
  }
  return allowed;
}

/** A filter for describe and delete: every absent field matches anything. */
export interface AclFilter {
  principal?: string;
  resourceType?: ResourceType;
  patternType?: PatternType;
  name?: string;
  operation?: Operation;
  permission?: Permission;
}

/** Exact field match (a filter is not a pattern: name `orders` matches the binding named `orders`). */
export function filterMatches(filter: AclFilter, acl: AclBinding): boolean {
  return (
    (filter.principal === undefined || filter.principal === acl.principal) &&
    (filter.resourceType === undefined || filter.resourceType === acl.resourceType) &&
    (filter.patternType === undefined || filter.patternType === acl.patternType) &&
    (filter.name === undefined || filter.name === acl.name) &&
    (filter.operation === undefined || filter.operation === acl.operation) &&
    (filter.permission === undefined || filter.permission === acl.permission)
  );
}

function oneOf<T extends string>(field: string, value: unknown, allowed: readonly T[]): T {
  const text = typeof value === 'string' ? value.toLowerCase() : value;
  if (typeof text === 'string' && (allowed as readonly string[]).includes(text)) return text as T;
  throw new TideError(
    'INVALID_REQUEST',
    `acl ${field} must be one of ${allowed.join(', ')} (got ${String(value)})`,
  );
}

/** Validates and normalizes a binding from a request or the metadata store. */
export function parseAclBinding(input: Record<string, unknown>): AclBinding {
  const principal = input['principal'];
  if (typeof principal !== 'string' || principal.trim() === '') {
    throw new TideError('INVALID_REQUEST', 'acl principal must be a non-empty string (or * for everyone)');
  }
  const resourceType = oneOf('resource type', input['resourceType'], RESOURCE_TYPES);
  const patternType = oneOf('pattern type', input['patternType'] || 'literal', PATTERN_TYPES);
  let name = input['name'];
  if (resourceType === 'cluster' && (name === '' || name === undefined)) name = CLUSTER_RESOURCE;
  if (typeof name !== 'string' || name === '') {
    throw new TideError(
      'INVALID_REQUEST',
      'acl resource name must be non-empty (* for every resource of the type)',
    );
  }
  if (patternType === 'prefixed' && name === WILDCARD) {
    throw new TideError(
      'INVALID_REQUEST',
      'a prefixed acl cannot use * as its prefix; use a literal * instead',
    );
  }
  return {
    principal: principal.trim(),
    resourceType,
    patternType,
    name,
    operation: oneOf('operation', input['operation'], OPERATIONS),
    permission: oneOf('permission', input['permission'] || 'allow', PERMISSIONS),
  };
}

/** A stable identity of a binding (its metadata key), so adding the same binding twice is one binding. */
export function aclId(acl: AclBinding): string {
  return [acl.principal, acl.resourceType, acl.patternType, acl.name, acl.operation, acl.permission]
    .map((part) => encodeURIComponent(part))
    .join('|');
}
