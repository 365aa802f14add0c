/**
 * Decides what an authenticated principal may do: super users and internal principals (the
 * identities of Tide's own services) may do everything; with authorization on (`authorization:
 * acl`) everyone else needs an ACL; internal RPCs accept internal principals only.
 */
import { isAllowed, mayOnSomeResource, type AccessRequest } from './acl';
import type { AclCache } from './acl-store';
import type { Need } from './rpc-access';

export interface AuthorizerSettings {
  /** ACL checks on; off = every authenticated caller may call every client RPC. */
  enabled: boolean;
  superUsers: ReadonlySet<string>;
  /** Principals of brokers, controllers and coordinators; also super users. */
  internalPrincipals: ReadonlySet<string>;
  acls: AclCache;
}

/** Decisions remembered per (principal, request) until the ACLs change; cleared past this size. */
const MAX_CACHED_DECISIONS = 100_000;

export class Authorizer {
  /** A produce stream asks the same question for every batch: answer it from here. */
  private readonly decisions = new Map<string, boolean>();

  constructor(private readonly settings: AuthorizerSettings) {
    settings.acls.onChange(() => this.decisions.clear());
  }

  get enabled(): boolean {
    return this.settings.enabled;
  }

  get acls(): AclCache {
    return this.settings.acls;
  }

  isSuperUser(principal: string): boolean {
    return this.settings.superUsers.has(principal) || this.settings.internalPrincipals.has(principal);
  }

  /**
   * Internal RPCs: internal principals only. With no internal principals configured and ACLs off,
   * any authenticated caller may (there is nothing to tell services and clients apart by).
   */
  mayCallInternal(principal: string): boolean {
    if (this.settings.internalPrincipals.size === 0) return !this.settings.enabled;
    return this.settings.internalPrincipals.has(principal);
  }

  can(principal: string, request: AccessRequest): boolean {
    if (!this.settings.enabled || this.isSuperUser(principal)) return true;
    const key = `${principal}\0${request.resourceType}\0${request.operation}\0${request.name}`;
    let allowed = this.decisions.get(key);
    if (allowed === undefined) {
      allowed = isAllowed(this.settings.acls.acls, principal, request);
      if (this.decisions.size >= MAX_CACHED_DECISIONS) this.decisions.clear();
      this.decisions.set(key, allowed);
    }
    return allowed;
  }

  satisfies(principal: string, need: Need): boolean {
    if (!('anyOf' in need)) return this.can(principal, need);
    if (!this.settings.enabled || this.isSuperUser(principal)) return true;
    return need.anyOf.some((alt) =>
      alt.name === undefined
        ? mayOnSomeResource(this.settings.acls.acls, principal, alt.resourceType, alt.operation)
        : this.can(principal, alt),
    );
  }
}
