/**
 * Choosing where a replica goes when one must leave a broker (decommission) or a broker carries
 * too many (balancing): pure functions over broker racks and replica counts.
 *
 * A replacement for broker `from` in a partition's replica list is a live broker that holds no
 * replica of the partition and is not excluded, preferring (1) `from`'s rack, so the partition's
 * rack spread stays as it was, then (2) a rack the partition does not use yet, then (3) any; within
 * a preference, the broker with the fewest replicas (ties to the lower id).
 */
export interface CandidateBroker {
  id: number;
  rack?: string;
}

export function chooseReplacement(
  replicas: readonly number[],
  from: number,
  brokers: readonly CandidateBroker[],
  load: ReadonlyMap<number, number>,
  excluded: ReadonlySet<number>,
): number | undefined {
  const rackOf = new Map(brokers.map((b) => [b.id, b.rack || '']));
  const usedRacks = new Set(replicas.filter((id) => id !== from).map((id) => rackOf.get(id) ?? ''));
  const fromRack = rackOf.get(from) ?? '';
  const candidates = brokers.filter((b) => !replicas.includes(b.id) && !excluded.has(b.id) && b.id !== from);
  const rank = (b: CandidateBroker): number => {
    const rack = b.rack || '';
    if (fromRack && rack === fromRack) return 0;
    if (!usedRacks.has(rack)) return 1;
    return 2;
  };
  candidates.sort(
    (a, b) => rank(a) - rank(b) || (load.get(a.id) ?? 0) - (load.get(b.id) ?? 0) || a.id - b.id,
  );
  return candidates[0]?.id;
}

/** Replicas per broker over the given replica lists. */
export function replicaCounts(replicaLists: Iterable<readonly number[]>): Map<number, number> {
  const counts = new Map<number, number>();
  for (const replicas of replicaLists) for (const id of replicas) counts.set(id, (counts.get(id) ?? 0) + 1);
  return counts;
}
