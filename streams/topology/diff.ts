/**
 * What changes between two versions of a topology for the state they keep. A store or internal
 * topic that the new version no longer has (usually: renamed) orphans its state — the new version
 * would start it empty and the old changelog or repartition topic would be left behind. The
 * runtime will refuse such a start unless the user says so; this is the check it will run, and
 * what a CI step can run on two `describe()` outputs today.
 */
import type { TopologyDescription } from './describe';

export interface TopologyDiff {
  /** Stores of the previous version the new one does not have: their state would be orphaned. */
  removedStores: string[];
  addedStores: string[];
  /** Internal topics (repartition, changelog) of the previous version the new one does not have. */
  removedInternalTopics: string[];
  addedInternalTopics: string[];
  /** Stores whose kind changed (key-value, window, session): their state cannot be reused. */
  changedStoreKinds: string[];
  /** True when starting the new version would lose or strand state. */
  orphansState: boolean;
}

export function diffTopologies(previous: TopologyDescription, next: TopologyDescription): TopologyDiff {
  const prevStores = new Map(previous.stores.map((s) => [s.name, s.kind]));
  const nextStores = new Map(next.stores.map((s) => [s.name, s.kind]));
  const prevTopics = new Set(previous.internalTopics.map((t) => t.name));
  const nextTopics = new Set(next.internalTopics.map((t) => t.name));
  const removedStores = [...prevStores.keys()].filter((s) => !nextStores.has(s)).sort();
  const addedStores = [...nextStores.keys()].filter((s) => !prevStores.has(s)).sort();
  const removedInternalTopics = [...prevTopics].filter((t) => !nextTopics.has(t)).sort();
  const addedInternalTopics = [...nextTopics].filter((t) => !prevTopics.has(t)).sort();
  const changedStoreKinds = [...prevStores]
    .filter(([name, kind]) => nextStores.has(name) && nextStores.get(name) !== kind)
    .map(([name]) => name)
    .sort();
  return {
    removedStores,
    addedStores,
    removedInternalTopics,
    addedInternalTopics,
    changedStoreKinds,
    orphansState: removedStores.length + removedInternalTopics.length + changedStoreKinds.length > 0,
  };
}
