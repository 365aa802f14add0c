/**
 * Continuous balancing (`balancerEnabled`): a move planner the reassigner consults when no other
 * move is in flight. It plans, at most `budget` at a time:
 *
 * 1. replicas on a broker gone longer than `brokerGraceMs` are re-created elsewhere (the
 *    replacement rules of replica-choice.ts, so racks stay spread);
 * 2. when replica counts differ from the average by more than the threshold (and by more than
 *    one), a replica moves from the most loaded broker to a less loaded one, rack-aware: the
 *    receiving broker keeps the partition on as many racks as before;
 * 3. when preferred-leader counts (first replicas) are skewed the same way, a partition's
 *    replica list is reordered (no data moves; the reconciler's preferred-leader pass then
 *    moves leadership).
 *
 * Safety: only partitions whose every replica is live and in the ISR are moved, and a move never
 * shrinks the ISR below its target (reassignment-steps.ts), so no partition goes below
 * min.insync.replicas because of the balancer. Decommissioned brokers get nothing.
 */
import type { Clock } from '../common/clock';
import type { ClusterView, MovePlanner } from './reassigner';
import type { StoredPartition } from './partition-store';
import { chooseReplacement, replicaCounts } from './replica-choice';

export interface BalancerOptions {
  thresholdPercent: number;
  brokerGraceMs: number;
  clock: Clock;
}

/** Largest minus smallest count over `ids`, and whether it passes the threshold. */
export function imbalance(
  counts: ReadonlyMap<number, number>,
  ids: readonly number[],
  thresholdPercent: number,
): { spread: number; over: boolean } {
  if (ids.length < 2) return { spread: 0, over: false };
  const values = ids.map((id) => counts.get(id) ?? 0);
  const avg = values.reduce((a, b) => a + b, 0) / ids.length;
  const spread = Math.max(...values) - Math.min(...values);
  const allowed = Math.max(1, Math.ceil((avg * thresholdPercent) / 100));
  return { spread, over: spread > allowed };
}

/**
 * A balance score in [0, 1] of partitions' replica lists over `brokerIds`: 1 when replica and
 * preferred-leader counts are even across the brokers, lower as the largest count exceeds the
 * average (average / maximum, the smaller of the two; tide_controller_balance_score).
 */
export function balanceScore(
  replicaLists: readonly (readonly number[])[],
  brokerIds: readonly number[],
): number {
  if (brokerIds.length === 0 || replicaLists.length === 0) return 1;
  const score = (counts: ReadonlyMap<number, number>): number => {
    const values = brokerIds.map((id) => counts.get(id) ?? 0);
    const max = Math.max(...values);
    const avg = values.reduce((a, b) => a + b, 0) / values.length;
    return max === 0 ? 1 : avg / max;
  };
  const replicas = replicaCounts(replicaLists);
  const leaders = replicaCounts(replicaLists.map((r) => [r[0]]));
  return Math.min(score(replicas), score(leaders));
}

export function balancePlanner(options: BalancerOptions): MovePlanner {
  const lastSeen = new Map<number, number>();
  return (view: ClusterView, budget: number) => {
    const now = options.clock.nowMs();
    for (const b of view.brokers) lastSeen.set(b.id, now);
    const live = new Set(view.brokers.map((b) => b.id));
    const eligible = view.brokers.filter((b) => !view.decommissioned.has(b.id));
    const ids = eligible.map((b) => b.id);
    const excluded = new Set([
      ...view.decommissioned,
      ...view.brokers.map((b) => b.id).filter((id) => !ids.includes(id)),
    ]);
    const load = replicaCounts(view.partitions.map((p) => p.state.replicas));
    const planned: { partition: StoredPartition; target: number[] }[] = [];
    const healthy = (p: StoredPartition): boolean =>
      !view.moving.has(`${p.topic}/${p.partition}`) &&
      p.state.leader >= 0 &&
      p.state.replicas.every((id) => live.has(id) && p.state.isr.includes(id));

    // 1. Brokers gone past the grace period.
    const gone = (id: number): boolean => {
      if (live.has(id)) return false;
      if (!lastSeen.has(id)) lastSeen.set(id, now); // first seen missing now: the grace starts
      return now - lastSeen.get(id)! >= options.brokerGraceMs;
    };
    for (const p of view.partitions) {
      if (planned.length >= budget) return planned;
      if (view.moving.has(`${p.topic}/${p.partition}`) || p.state.leader < 0) continue;
      if (!p.state.replicas.some(gone)) continue;
      const target = [...p.state.replicas];
      let ok = true;
      for (let i = 0; i < target.length && ok; i++) {
        if (live.has(target[i])) continue;
        const r = chooseReplacement(target, target[i], eligible, load, excluded);
        if (r === undefined) ok = false;
        else {
          load.set(r, (load.get(r) ?? 0) + 1);
          target[i] = r;
        }
      }
      if (ok) planned.push({ partition: p, target });
    }
    if (planned.length > 0) return planned;

    // 2. Replica counts.
    while (planned.length < budget && imbalance(load, ids, options.thresholdPercent).over) {
      const byLoad = [...ids].sort((a, b) => (load.get(b) ?? 0) - (load.get(a) ?? 0) || a - b);
      const from = byLoad[0];
      const fromLoad = load.get(from) ?? 0;
      const tooFull = new Set([...excluded, ...ids.filter((id) => (load.get(id) ?? 0) + 1 >= fromLoad)]);
      const rackOf = new Map(eligible.map((b) => [b.id, b.rack || '']));
      let move: { partition: StoredPartition; target: number[] } | undefined;
      for (const p of view.partitions) {
        if (!p.state.replicas.includes(from) || !healthy(p) || planned.some((m) => m.partition === p))
          continue;
        const to = chooseReplacement(p.state.replicas, from, eligible, load, tooFull);
        if (to === undefined) continue;
        // Rack-aware: never put the partition on fewer racks than it has now.
        const racksBefore = new Set(p.state.replicas.map((id) => rackOf.get(id) ?? ''));
        const target = p.state.replicas.map((id) => (id === from ? to : id));
        const racksAfter = new Set(target.map((id) => rackOf.get(id) ?? ''));
        if (racksAfter.size < racksBefore.size) continue;
        move = { partition: p, target };
        load.set(from, fromLoad - 1);
        load.set(to, (load.get(to) ?? 0) + 1);
        break;
      }
      if (!move) break;
      planned.push(move);
    }
    if (planned.length > 0) return planned;

    // 3. Preferred leaders: reorder a partition so a less loaded replica comes first.
    const leaders = replicaCounts(view.partitions.map((p) => [p.state.replicas[0]]));
    for (const id of ids) if (!leaders.has(id)) leaders.set(id, 0);
    while (planned.length < budget && imbalance(leaders, ids, options.thresholdPercent).over) {
      const byLeaders = [...ids].sort((a, b) => (leaders.get(b) ?? 0) - (leaders.get(a) ?? 0) || a - b);
      const from = byLeaders[0];
      const fromCount = leaders.get(from) ?? 0;
      let move: { partition: StoredPartition; target: number[] } | undefined;
      for (const p of view.partitions) {
        if (p.state.replicas[0] !== from || !healthy(p) || planned.some((m) => m.partition === p)) continue;
        const to = p.state.replicas
          .slice(1)
          .filter((id) => ids.includes(id) && (leaders.get(id) ?? 0) + 1 < fromCount)
          .sort((a, b) => (leaders.get(a) ?? 0) - (leaders.get(b) ?? 0) || a - b)[0];
        if (to === undefined) continue;
        move = { partition: p, target: [to, ...p.state.replicas.filter((id) => id !== to)] };
        leaders.set(from, fromCount - 1);
        leaders.set(to, (leaders.get(to) ?? 0) + 1);
        break;
      }
      if (!move) break;
      planned.push(move);
    }
    return planned;
  };
}
