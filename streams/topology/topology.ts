/**
 * A built topology: the nodes split into subtopologies (connected parts between repartition
 * topics; a task runs one subtopology on one partition), the global part (global tables), and
 * the co-partitioning groups of joins. `resolvePartitions` is the start-time check both the test
 * driver and the runtime run: it sizes the internal topics and refuses joins of topics whose
 * partition counts differ.
 */
import { StreamsError } from '../errors';
import type { NodeDef, StoreDef } from './nodes';
import type { InternalTopicDef } from '../dsl/internal-builder';
import { describeTopology, type TopologyDescription } from './describe';
import { diffTopologies, type TopologyDiff } from './diff';

export interface Subtopology {
  id: number;
  /** Parents before children. */
  nodes: NodeDef[];
  sourceTopics: string[];
  sinkTopics: string[];
  stores: StoreDef[];
}

export interface GlobalPart {
  nodes: NodeDef[];
  topics: string[];
  stores: StoreDef[];
}

export interface CoPartitionGroup {
  /** The join node that requires it. */
  node: string;
  topics: string[];
}

export class Topology {
  readonly subtopologies: Subtopology[];
  readonly global: GlobalPart;
  readonly coPartitionGroups: CoPartitionGroup[];

  /** @internal Made by StreamsBuilder.build(). */
  constructor(
    readonly applicationId: string,
    readonly nodes: ReadonlyMap<string, NodeDef>,
    readonly stores: ReadonlyMap<string, StoreDef>,
    readonly internalTopics: ReadonlyMap<string, InternalTopicDef>,
  ) {
    const { subtopologies, global } = split(nodes, stores);
    this.subtopologies = subtopologies;
    this.global = global;
    this.coPartitionGroups = coPartitionGroups(nodes);
  }

  /** Topics the application reads that it does not create (user topics and global topics). */
  externalSourceTopics(): string[] {
    const out = new Set<string>();
    for (const s of this.subtopologies)
      for (const t of s.sourceTopics) if (!this.internalTopics.has(t)) out.add(t);
    for (const t of this.global.topics) out.add(t);
    return [...out];
  }

  /** Tasks of a subtopology: one per partition of its widest source topic. */
  taskCount(subtopology: Subtopology, partitions: ReadonlyMap<string, number>): number {
    return Math.max(0, ...subtopology.sourceTopics.map((t) => partitions.get(t) ?? 0));
  }

  /**
   * Partition counts of every source topic, internal topics included, given the counts of the
   * existing topics (`undefined`: the topic does not exist). Throws CO_PARTITIONING when a join's
   * input topics have different counts, naming them and their counts.
   */
  resolvePartitions(existing: (topic: string) => number | undefined): Map<string, number> {
    const counts = new Map<string, number>();
    for (const topic of this.externalSourceTopics()) {
      const n = existing(topic);
      if (n === undefined) {
        throw new StreamsError(
          'TOPOLOGY',
          `source topic "${topic}" does not exist: create it before starting the application`,
        );
      }
      counts.set(topic, n);
    }
    for (const t of this.internalTopics.values())
      if (t.partitions !== undefined) counts.set(t.name, t.partitions);
    // Sized first from upstream; topics in a cycle of subtopologies (foreign-key joins) are sized
    // by their co-partitioning groups below.
    this.sizeRepartitionTopics(counts, false);
    for (const group of this.coPartitionGroups) {
      const external = group.topics.filter((t) => !this.internalTopics.has(t));
      const flexible = group.topics.filter(
        (t) => this.internalTopics.get(t)?.partitions === undefined && this.internalTopics.has(t),
      );
      const fixed = group.topics.filter((t) => !flexible.includes(t) && counts.has(t));
      if (fixed.length > 0) {
        const target = Math.max(...(external.length > 0 ? external : fixed).map((t) => counts.get(t)!));
        for (const t of flexible) counts.set(t, target);
      }
      const distinct = new Set(group.topics.map((t) => counts.get(t)));
      if (distinct.size > 1) {
        const list = group.topics.map((t) => `${t} (${counts.get(t)} partitions)`).join(', ');
        throw new StreamsError(
          'CO_PARTITIONING',
          `join "${group.node}" needs co-partitioned inputs, but its topics have different partition counts: ${list}. ` +
            `Give them the same number of partitions, or repartition one side (stream.repartition({ name, partitions }))`,
        );
      }
    }
    this.sizeRepartitionTopics(counts, true);
    return counts;
  }

  describe(): TopologyDescription {
    return describeTopology(this);
  }

  /** What starting this topology over `previous` (an earlier version's describe()) does to its state. */
  diff(previous: TopologyDescription): TopologyDiff {
    return diffTopologies(previous, this.describe());
  }

  /** An internal topic without an explicit count gets the widest source count of the subtopology writing it. */
  private sizeRepartitionTopics(counts: Map<string, number>, complete: boolean): void {
    for (let changed = true; changed;) {
      changed = false;
      for (const s of this.subtopologies) {
        const known = s.sourceTopics.map((t) => counts.get(t));
        if (known.some((n) => n === undefined)) continue;
        const width = Math.max(...(known as number[]));
        for (const t of s.sinkTopics) {
          if (!this.internalTopics.has(t) || counts.has(t)) continue;
          counts.set(t, width);
          changed = true;
        }
      }
    }
    if (!complete) return;
    for (const t of this.internalTopics.keys()) {
      if (!counts.has(t)) throw new Error(`bug: internal topic ${t} could not be sized`);
    }
  }
}

function split(
  nodes: ReadonlyMap<string, NodeDef>,
  stores: ReadonlyMap<string, StoreDef>,
): { subtopologies: Subtopology[]; global: GlobalPart } {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  const union = (a: string, b: string): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(rb, ra);
  };
  for (const n of nodes.keys()) parent.set(n, n);
  const storeOwner = new Map<string, string>();
  for (const n of nodes.values()) {
    for (const p of n.parents) union(n.name, p);
    for (const s of n.stores) {
      if (stores.get(s)?.global) continue;
      const owner = storeOwner.get(s);
      if (owner === undefined) storeOwner.set(s, n.name);
      else union(owner, n.name);
    }
  }
  const groups = new Map<string, NodeDef[]>();
  for (const n of nodes.values()) {
    const r = find(n.name);
    if (!groups.has(r)) groups.set(r, []);
    groups.get(r)!.push(n);
  }
  const subtopologies: Subtopology[] = [];
  const global: GlobalPart = { nodes: [], topics: [], stores: [] };
  for (const members of groups.values()) {
    const topics = members.flatMap((n) => n.source?.topics ?? []);
    const storeDefs = [...new Set(members.flatMap((n) => n.stores))].map((s) => stores.get(s)!);
    if (members.some((n) => n.source?.global)) {
      global.nodes.push(...members);
      global.topics.push(...topics);
      global.stores.push(...storeDefs.filter((s) => s.global));
      continue;
    }
    subtopologies.push({
      id: subtopologies.length,
      nodes: members,
      sourceTopics: topics,
      sinkTopics: [...new Set(members.flatMap((n) => (n.sink ? [n.sink.topic] : [])))],
      stores: storeDefs.filter((s) => !s.global),
    });
  }
  return { subtopologies, global };
}

function coPartitionGroups(nodes: ReadonlyMap<string, NodeDef>): CoPartitionGroup[] {
  const upstreamTopics = (start: string[]): string[] => {
    const seen = new Set<string>();
    const topics = new Set<string>();
    const stack = [...start];
    while (stack.length > 0) {
      const name = stack.pop()!;
      if (seen.has(name)) continue;
      seen.add(name);
      const n = nodes.get(name)!;
      for (const t of n.source?.topics ?? []) topics.add(t);
      stack.push(...n.parents);
    }
    return [...topics];
  };
  const out: CoPartitionGroup[] = [];
  for (const n of nodes.values()) {
    if (!n.coPartitioned) continue;
    // The join's own inputs, and the inputs of every node sharing a store with it (the other side).
    const sharing = [...nodes.values()].filter((m) => m.stores.some((s) => n.stores.includes(s)));
    const topics = upstreamTopics([...n.parents, ...sharing.map((m) => m.name)]);
    out.push({ node: n.name, topics: topics.sort() });
  }
  return out;
}
