/**
 * What changes between two versions of a topology for the state they keep. A store or internal
 * topic that the new version no longer has (usually: renamed) orphans its state — the new version
 * would start it empty and the old changelog or repartition topic would be left behind. The
 * runtime refuses such a start unless the user says so (runtime/topology-record.ts), and a CI step
 * can run the same check on two `describe()` outputs.
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

/** The parts of a description the diff reads (a recorded description has no Mermaid text). */
export type DescribedState = Pick<TopologyDescription, 'stores' | 'internalTopics'>;

export function diffTopologies(previous: DescribedState, next: DescribedState): TopologyDiff {
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

/** The diff as lines for a person, orphaning changes first; empty when nothing changed. */
export function formatTopologyDiff(diff: TopologyDiff): string[] {
  const lines: string[] = [];
  const add = (label: string, names: string[]) => {
    if (names.length > 0) lines.push(`${label}: ${names.join(', ')}`);
  };
  add('- stores removed or renamed (their state would be orphaned)', diff.removedStores);
  add('- stores whose kind changed (their state cannot be reused)', diff.changedStoreKinds);
  add('- internal topics no longer used (left behind)', diff.removedInternalTopics);
  add('+ stores added (start empty)', diff.addedStores);
  add('+ internal topics added', diff.addedInternalTopics);
  return lines;
}
