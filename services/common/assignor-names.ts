/**
 * The server-side assignors a consumer group may ask for by name (the Membership protocol's
 * `assignor` field): a wire contract between clients and the group coordinator, which implements
 * them (services/group-coordinator/assignors.ts).
 */
export const ASSIGNOR_NAMES = ['uniform', 'range', 'roundrobin'] as const;
export type AssignorName = (typeof ASSIGNOR_NAMES)[number];
export const DEFAULT_ASSIGNOR: AssignorName = 'uniform';

export function isAssignorName(name: string): name is AssignorName {
  return (ASSIGNOR_NAMES as readonly string[]).includes(name);
}
