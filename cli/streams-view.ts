/**
 * What `tide streams list` and `tide streams describe` show, built from what the cluster holds: the
 * recorded topology (application metadata `streams.topology`), the status each running instance
 * publishes (`streams.instance.<id>`, with a TTL), and the consumer group `<applicationId>`
 * (members, owned partitions, committed offsets and lag). Pure: the command fetches, this joins.
 */
import type { ApplicationMetadataEntry, GroupDescription, GroupListing, TopicPartition } from '../client';
import {
  INSTANCE_METADATA_PREFIX,
  TOPOLOGY_METADATA_KEY,
  parseInstanceStatus,
  parseRecordedTopology,
  type GlobalTableSnapshot,
  type InstanceStatus,
  type RecordedTopology,
  type WindowStoreStatus,
} from '../streams';

export interface StreamsListing {
  application: string;
  /** The group's state, '-' when it has no group (never started, or deleted). */
  state: string;
  members: number;
  /** Instances whose status is published now. */
  instances: number;
  subtopologies: number;
  stores: number;
  recordedAtMs: number;
}

/** One row per application with a recorded topology. */
export function streamsListing(
  entries: ApplicationMetadataEntry[],
  groups: GroupListing[],
): StreamsListing[] {
  const byApp = new Map<string, ApplicationMetadataEntry[]>();
  for (const e of entries) byApp.set(e.application, [...(byApp.get(e.application) ?? []), e]);
  const out: StreamsListing[] = [];
  for (const [application, list] of byApp) {
    const recordedEntry = list.find((e) => e.key === TOPOLOGY_METADATA_KEY);
    const recorded = recordedEntry && parseRecordedTopology(recordedEntry.value);
    if (!recorded) continue;
    const group = groups.find((g) => g.groupId === application);
    out.push({
      application,
      state: group?.state ?? '-',
      members: group?.members ?? 0,
      instances: list.filter((e) => e.key.startsWith(INSTANCE_METADATA_PREFIX)).length,
      subtopologies: recorded.description.subtopologies.length,
      stores: recorded.description.stores.length,
      recordedAtMs: recorded.recordedAtMs,
    });
  }
  return out.sort((a, b) => (a.application < b.application ? -1 : 1));
}

export interface TaskView {
  id: string;
  /** The instance running it ('' when only derived from the group's assignment). */
  instance: string;
  memberId: string;
  inputs: TopicPartition[];
  /** Absent when no instance status tells. */
  recordsIn?: number;
  recordsOut?: number;
  droppedLateRecords?: number;
  droppedRecords?: number;
  streamTimeMs?: number;
  lag?: number;
  restoring?: boolean;
  restoredRecords?: number;
  restoreTotal?: number;
}

export interface StreamsDescription {
  application: string;
  topology?: RecordedTopology;
  group?: GroupDescription;
  instances: InstanceStatus[];
  tasks: TaskView[];
  windows: (WindowStoreStatus & { instance: string })[];
  /** Each instance's copy of each global table. */
  globalTables: (GlobalTableSnapshot & { instance: string })[];
}

export function streamsDescription(
  application: string,
  entries: ApplicationMetadataEntry[],
  group: GroupDescription | undefined,
): StreamsDescription {
  const recordedEntry = entries.find((e) => e.key === TOPOLOGY_METADATA_KEY);
  const topology = recordedEntry ? parseRecordedTopology(recordedEntry.value) : undefined;
  const instances = entries
    .filter((e) => e.key.startsWith(INSTANCE_METADATA_PREFIX))
    .map((e) => parseInstanceStatus(e.value))
    .filter((s): s is InstanceStatus => s !== undefined)
    .sort((a, b) => (a.instance < b.instance ? -1 : 1));
  const tasks: TaskView[] = [];
  const seen = new Set<string>();
  for (const s of instances) {
    for (const t of s.tasks) {
      seen.add(t.id);
      tasks.push({ ...t, instance: s.instance, memberId: s.memberId });
    }
  }
  // Members without a published status (publishing off, or not yet): tasks from their partitions.
  const published = new Set(instances.map((s) => s.memberId));
  for (const m of group?.members ?? []) {
    if (published.has(m.memberId) || !topology) continue;
    for (const t of tasksOfPartitions(topology, m.owned)) {
      if (seen.has(t.id)) continue;
      seen.add(t.id);
      tasks.push({ ...t, instance: '', memberId: m.memberId });
    }
  }
  tasks.sort((a, b) => compareTaskIds(a.id, b.id));
  const windows = instances.flatMap((s) => s.windows.map((w) => ({ ...w, instance: s.instance })));
  const globalTables = instances.flatMap((s) =>
    (s.globalTables ?? []).map((g) => ({ ...g, instance: s.instance })),
  );
  return { application, topology, group, instances, tasks, windows, globalTables };
}

/** Tasks `<subtopology>_<p>` whose every input partition is in `owned` (as the runtime forms them). */
export function tasksOfPartitions(
  topology: RecordedTopology,
  owned: TopicPartition[],
): { id: string; inputs: TopicPartition[] }[] {
  const has = new Set(owned.map((tp) => `${tp.topic}\0${tp.partition}`));
  const out: { id: string; inputs: TopicPartition[] }[] = [];
  for (const s of topology.description.subtopologies) {
    const sources = [...new Set(s.nodes.filter((n) => n.kind === 'source').flatMap((n) => n.topics))];
    const partitions = new Set(owned.filter((tp) => sources.includes(tp.topic)).map((tp) => tp.partition));
    for (const p of [...partitions].sort((a, b) => a - b)) {
      const inputs = sources
        .filter((topic) => has.has(`${topic}\0${p}`))
        .map((topic) => ({ topic, partition: p }));
      out.push({ id: `${s.id}_${p}`, inputs });
    }
  }
  return out;
}

function compareTaskIds(a: string, b: string): number {
  const [sa, pa] = a.split('_').map(Number);
  const [sb, pb] = b.split('_').map(Number);
  return sa - sb || pa - pb;
}

/** The topology as indented text: per subtopology its nodes in order, then stores and internal topics. */
export function topologyText(t: RecordedTopology): string[] {
  const d = t.description;
  const lines: string[] = [];
  for (const s of d.subtopologies) {
    lines.push(`Sub-topology ${s.id}`);
    for (const n of s.nodes) {
      const topics =
        n.topics.length > 0 ? ` ${n.kind === 'source' ? '<-' : '->'} ${n.topics.join(', ')}` : '';
      const stores = n.stores.length > 0 ? `  [stores: ${n.stores.join(', ')}]` : '';
      lines.push(`  ${n.name} (${n.operation})${topics}${stores}`);
    }
  }
  for (const g of d.globalStores) lines.push(`Global store ${g.store} <- ${g.topic}`);
  if (d.stores.length > 0) {
    lines.push('Stores');
    for (const s of d.stores)
      lines.push(`  ${s.name} (${s.kind}${s.changelogTopic ? `, changelog ${s.changelogTopic}` : ''})`);
  }
  const repartition = d.internalTopics.filter((i) => i.kind === 'repartition');
  if (repartition.length > 0) {
    lines.push('Repartition topics');
    for (const i of repartition)
      lines.push(`  ${i.name}${i.partitions ? ` (${i.partitions} partitions)` : ''}`);
  }
  return lines;
}

/** A time as ISO-8601, '-' for none (negative). */
export function timeText(ms: number | undefined): string {
  return ms === undefined || ms < 0 ? '-' : new Date(ms).toISOString();
}

/** A duration in ms as a short text: 850ms, 12.5s, 3m20s, 2h5m. */
export function durationText(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${+(ms / 1000).toFixed(1)}s`;
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)}m${Math.floor((ms % 60_000) / 1000)}s`;
  return `${Math.floor(ms / 3_600_000)}h${Math.floor((ms % 3_600_000) / 60_000)}m`;
}
