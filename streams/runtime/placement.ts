/**
 * The streams application's client-side group assignor (the consumer group uses the `client`
 * assignor; whichever instance the coordinator picks as leader runs this): turns the group's
 * members and their user data into tasks per instance (assignor.ts) and those into input
 * partitions, plus each instance's assignment data (its standby and warm-up copies, and every
 * task's active endpoint for query routing).
 */
import type { ClientAssignment, ClientAssignorInput } from '../../client/index';
import type { TopicPartition } from '../../client/types';
import type { Topology } from '../topology/topology';
import { assignTasks, type TaskAssignorConfig } from './assignor';
import { decodeMemberInfo, encodeAssignmentInfo } from './membership-data';

export interface TaskLayout {
  id: string;
  inputs: TopicPartition[];
  stateful: boolean;
}

/** Every task of the topology with its input partitions. */
export function taskLayout(topology: Topology, partitions: ReadonlyMap<string, number>): TaskLayout[] {
  const out: TaskLayout[] = [];
  for (const s of topology.subtopologies) {
    const count = topology.taskCount(s, partitions);
    for (let p = 0; p < count; p++) {
      out.push({
        id: `${s.id}_${p}`,
        inputs: s.sourceTopics
          .filter((t) => (partitions.get(t) ?? 0) > p)
          .map((topic) => ({ topic, partition: p })),
        stateful: s.stores.some((d) => d.logged),
      });
    }
  }
  return out;
}

export function streamsAssignor(
  layout: () => TaskLayout[],
  config: TaskAssignorConfig,
): (input: ClientAssignorInput) => ClientAssignment {
  return (input) => {
    const tasks = layout();
    const endpoints = new Map<string, string>();
    const instances = input.members.map((m) => {
      const info = decodeMemberInfo(m.userData);
      endpoints.set(m.memberId, info.endpoint);
      const owned = new Set(m.owned.map((tp) => `${tp.topic}\u0000${tp.partition}`));
      const active = new Set(
        tasks
          .filter(
            (t) =>
              t.inputs.length > 0 && t.inputs.every((tp) => owned.has(`${tp.topic}\u0000${tp.partition}`)),
          )
          .map((t) => t.id),
      );
      return {
        memberId: m.memberId,
        order: m.instanceId ? `0${m.instanceId}` : `1${m.memberId}`,
        active,
        lags: info.lags,
      };
    });
    const placed = assignTasks(tasks, instances, config);
    const byId = new Map(tasks.map((t) => [t.id, t]));
    const owners = new Map<string, string>();
    for (const [memberId, p] of placed)
      for (const t of p.active) owners.set(t, endpoints.get(memberId) ?? '');
    const result: ClientAssignment = new Map();
    for (const [memberId, p] of placed) {
      result.set(memberId, {
        partitions: p.active.flatMap((t) => byId.get(t)!.inputs),
        userData: encodeAssignmentInfo({ active: p.active, standby: p.standby, warmup: p.warmup, owners }),
      });
    }
    return result;
  };
}
