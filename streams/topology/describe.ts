/**
 * describe(): the topology as JSON (subtopologies, nodes, stores, internal topics) and as a
 * Mermaid flowchart for docs and reviews. Names are the ones the user gave stateful nodes, so the
 * description of two versions can be diffed to see a renamed store or repartition topic.
 */
import type { Topology } from './topology';

export interface NodeDescription {
  name: string;
  kind: 'source' | 'processor' | 'sink';
  operation: string;
  parents: string[];
  children: string[];
  stores: string[];
  /** Sources: the topics read; sinks: the topic written. */
  topics: string[];
}

export interface TopologyDescription {
  applicationId: string;
  subtopologies: { id: number; nodes: NodeDescription[] }[];
  globalStores: { store: string; topic: string; nodes: NodeDescription[] }[];
  stores: { name: string; kind: string; changelogTopic?: string; global: boolean }[];
  internalTopics: { name: string; kind: 'repartition' | 'changelog'; partitions?: number }[];
  /** The same graph as a Mermaid flowchart. */
  mermaid: string;
}

export function describeTopology(t: Topology): TopologyDescription {
  const children = new Map<string, string[]>();
  for (const n of t.nodes.values())
    for (const p of n.parents) children.set(p, [...(children.get(p) ?? []), n.name]);
  const node = (name: string): NodeDescription => {
    const n = t.nodes.get(name)!;
    return {
      name,
      kind: n.kind,
      operation: n.operation,
      parents: [...n.parents],
      children: children.get(name) ?? [],
      stores: [...n.stores],
      topics: n.source ? [...n.source.topics] : n.sink ? [n.sink.topic] : [],
    };
  };
  const changelog = (store: string): string => `${t.applicationId}-${store}-changelog`;
  const stores = [...t.stores.values()].map((s) => ({
    name: s.name,
    kind: s.kind,
    global: s.global,
    ...(s.logged && !s.global ? { changelogTopic: changelog(s.name) } : {}),
  }));
  const description: Omit<TopologyDescription, 'mermaid'> = {
    applicationId: t.applicationId,
    subtopologies: t.subtopologies.map((s) => ({ id: s.id, nodes: s.nodes.map((n) => node(n.name)) })),
    globalStores: t.global.stores.map((s) => ({
      store: s.name,
      topic: s.sourceTopic ?? '',
      nodes: t.global.nodes
        .filter((n) => n.stores.includes(s.name) || n.source?.topics.includes(s.sourceTopic ?? ''))
        .map((n) => node(n.name)),
    })),
    stores,
    internalTopics: [
      ...[...t.internalTopics.values()].map((i) => ({
        name: i.name,
        kind: 'repartition' as const,
        partitions: i.partitions,
      })),
      ...stores
        .filter((s) => s.changelogTopic)
        .map((s) => ({ name: s.changelogTopic!, kind: 'changelog' as const })),
    ],
  };
  return { ...description, mermaid: mermaid(description) };
}

/** The Mermaid flowchart of a description (e.g. one recorded without its `mermaid` text). */
export function mermaidOf(d: Omit<TopologyDescription, 'mermaid'>): string {
  return mermaid(d);
}

function mermaid(d: Omit<TopologyDescription, 'mermaid'>): string {
  const ids = new Map<string, string>();
  const id = (prefix: string, name: string): string => {
    const key = `${prefix}:${name}`;
    if (!ids.has(key)) ids.set(key, `${prefix}${ids.size}`);
    return ids.get(key)!;
  };
  const label = (s: string): string => `"${s.replace(/"/g, "'")}"`;
  const lines = ['flowchart TD'];
  const edges: string[] = [];
  const topicNodes = new Set<string>();
  const addNodes = (nodes: NodeDescription[]): void => {
    for (const n of nodes) {
      lines.push(`    ${id('n', n.name)}[${label(`${n.name}<br/>${n.operation}`)}]`);
      for (const c of n.children) edges.push(`  ${id('n', n.name)} --> ${id('n', c)}`);
      for (const s of n.stores) edges.push(`  ${id('n', n.name)} -.- ${id('s', s)}`);
      for (const topic of n.topics) {
        topicNodes.add(topic);
        edges.push(
          n.kind === 'source'
            ? `  ${id('t', topic)} --> ${id('n', n.name)}`
            : `  ${id('n', n.name)} --> ${id('t', topic)}`,
        );
      }
    }
  };
  for (const s of d.subtopologies) {
    lines.push(`  subgraph sub${s.id}[${label(`Sub-topology ${s.id}`)}]`);
    addNodes(s.nodes);
    lines.push('  end');
  }
  if (d.globalStores.length > 0) {
    lines.push(`  subgraph global[${label('Global tables')}]`);
    const seen = new Set<string>();
    addNodes(d.globalStores.flatMap((g) => g.nodes).filter((n) => !seen.has(n.name) && seen.add(n.name)));
    lines.push('  end');
  }
  for (const topic of topicNodes) lines.push(`  ${id('t', topic)}([${label(topic)}])`);
  for (const s of d.stores) lines.push(`  ${id('s', s.name)}[(${label(s.name)})]`);
  return [...lines, ...edges].join('\n') + '\n';
}
