/**
 * The server-side assignors a consumer group may ask for by name (the Membership protocol's
 * `assignor` field): a wire contract between clients and the group coordinator, which implements
 * them (services/group-coordinator/assignors.ts). `client` is not computed by the coordinator: the
 * group's leader member computes the target (ComputeAssignment / AssignmentResult).
 */
export const ASSIGNOR_NAMES = ['uniform', 'range', 'roundrobin', 'client'] as const;
export type AssignorName = (typeof ASSIGNOR_NAMES)[number];
export const DEFAULT_ASSIGNOR: AssignorName = 'uniform';

export function isAssignorName(name: string): name is AssignorName {
  return (ASSIGNOR_NAMES as readonly string[]).includes(name);
}
