/**
 * The task assignor of a streams application: runs on the group's leader instance (the group uses
 * the `client` assignor) and decides, from every instance's reported state, which instance runs
 * each task (active), which keep standby copies of its stores, and which warm up. Pure and
 * deterministic for a given input. The idea is Kafka Streams' KIP-441:
 *
 * 1. A balanced, sticky plan, per subtopology: each task stays with its current owner while that
 *    owner has fewer than ceil(subtopology's tasks / instances) of the subtopology; the rest go to
 *    the least-loaded instance.
 * 2. A stateful task whose planned instance is not caught up (its copy lags the changelogs by more
 *    than `acceptableRecoveryLag` records) stays on (or goes to) an instance that is — the current
 *    owner first — and the planned instance gets a **warm-up** copy instead (at most
 *    `maxWarmupReplicas` in the group at once). When the warm-up reports itself caught up, the
 *    leader is asked again and the task moves. If no instance is caught up, the plan stands.
 * 3. `numStandbys` standby copies of every stateful task, on other instances than its active one,
 *    preferring the instances whose copies lag least, then the least loaded.
 *
 * The caller turns tasks into input partitions (each task's inputs all go to its active
 * instance, so co-partitioned topics stay together).
 */

export interface AssignorTask {
  /** `<subtopology>_<partition>`. */
  id: string;
  /** Has logged stores: placement by lag matters. */
  stateful: boolean;
}

export interface AssignorInstance {
  memberId: string;
  /** Orders instances (instance id, else member id), as the coordinator orders members. */
  order: string;
  /** Tasks it runs now (owns every input of). */
  active: ReadonlySet<string>;
  /** Records its local copy of a task's stores is behind the changelogs (standbys, warm-ups). */
  lags: ReadonlyMap<string, number>;
}

export interface TaskAssignorConfig {
  numStandbys: number;
  acceptableRecoveryLag: number;
  maxWarmupReplicas: number;
}

export interface InstanceTasks {
  active: string[];
  standby: string[];
  warmup: string[];
}

export function assignTasks(
  tasks: readonly AssignorTask[],
  instances: readonly AssignorInstance[],
  config: TaskAssignorConfig,
): Map<string, InstanceTasks> {
  const members = [...instances].sort((a, b) => cmp(a.order, b.order) || cmp(a.memberId, b.memberId));
  const out = new Map<string, InstanceTasks>(
    members.map((m) => [m.memberId, { active: [], standby: [], warmup: [] }]),
  );
  if (members.length === 0) return out;
  const sorted = [...tasks].sort((a, b) => compareTaskIds(a.id, b.id));
  const caughtUp = (m: AssignorInstance, t: AssignorTask): boolean =>
    !t.stateful || m.active.has(t.id) || (m.lags.get(t.id) ?? Infinity) <= config.acceptableRecoveryLag;
  const lagOf = (m: AssignorInstance, t: AssignorTask): number =>
    m.active.has(t.id) ? 0 : (m.lags.get(t.id) ?? Infinity);

  // 1. The balanced, sticky plan, per subtopology (so each instance gets a share of every
  // subtopology's tasks, stateful and stateless alike).
  const planned = new Map<string, AssignorInstance>();
  const load = new Map<string, number>(members.map((m) => [m.memberId, 0]));
  for (const group of bySubtopology(sorted)) {
    const capacity = Math.ceil(group.length / members.length);
    const subLoad = new Map<string, number>(members.map((m) => [m.memberId, 0]));
    const place = (t: AssignorTask, m: AssignorInstance): void => {
      planned.set(t.id, m);
      subLoad.set(m.memberId, subLoad.get(m.memberId)! + 1);
      load.set(m.memberId, load.get(m.memberId)! + 1);
    };
    for (const t of group) {
      const owner = members.find((m) => m.active.has(t.id));
      if (owner && subLoad.get(owner.memberId)! < capacity) place(t, owner);
    }
    for (const t of group) {
      if (planned.has(t.id)) continue;
      place(
        t,
        pick(members, (m) => [
          subLoad.get(m.memberId)!,
          load.get(m.memberId)!,
          caughtUp(m, t) ? 0 : 1,
          lagOf(m, t),
        ]),
      );
    }
  }

  // 2. Warm-ups: a task goes only to an instance that is caught up.
  let warmups = 0;
  const active = new Map<string, AssignorInstance>();
  const activeLoad = new Map<string, number>(members.map((m) => [m.memberId, 0]));
  const warmupOf = new Map<string, AssignorInstance>();
  for (const t of sorted) {
    const dest = planned.get(t.id)!;
    let chosen = dest;
    if (!caughtUp(dest, t)) {
      const ready = members.filter((m) => caughtUp(m, t));
      if (ready.length > 0) {
        chosen =
          ready.find((m) => m.active.has(t.id)) ??
          pick(ready, (m) => [lagOf(m, t), activeLoad.get(m.memberId)!]);
        if (warmups < config.maxWarmupReplicas) {
          warmups++;
          warmupOf.set(t.id, dest);
          out.get(dest.memberId)!.warmup.push(t.id);
        }
      }
    }
    active.set(t.id, chosen);
    activeLoad.set(chosen.memberId, activeLoad.get(chosen.memberId)! + 1);
    out.get(chosen.memberId)!.active.push(t.id);
  }

  // 3. Standbys.
  const standbyLoad = new Map<string, number>(members.map((m) => [m.memberId, 0]));
  for (const t of sorted) {
    if (!t.stateful) continue;
    const taken = new Set([active.get(t.id)!.memberId, warmupOf.get(t.id)?.memberId]);
    for (let i = 0; i < config.numStandbys; i++) {
      const candidates = members.filter((m) => !taken.has(m.memberId));
      if (candidates.length === 0) break;
      const m = pick(candidates, (c) => [lagOf(c, t), standbyLoad.get(c.memberId)!]);
      taken.add(m.memberId);
      standbyLoad.set(m.memberId, standbyLoad.get(m.memberId)! + 1);
      out.get(m.memberId)!.standby.push(t.id);
    }
  }
  return out;
}

function bySubtopology(tasks: readonly AssignorTask[]): AssignorTask[][] {
  const groups = new Map<string, AssignorTask[]>();
  for (const t of tasks) {
    const sub = t.id.slice(0, t.id.indexOf('_'));
    groups.set(sub, [...(groups.get(sub) ?? []), t]);
  }
  return [...groups.values()];
}

/** The first member with the smallest score (lexicographic); members are in order. */
function pick<M>(members: readonly M[], score: (m: M) => number[]): M {
  let best = members[0];
  let bestScore = score(best);
  for (const m of members.slice(1)) {
    const s = score(m);
    if (lexLess(s, bestScore)) {
      best = m;
      bestScore = s;
    }
  }
  return best;
}

function lexLess(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i] < b[i];
  }
  return false;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Task ids by subtopology, then partition (numerically). */
export function compareTaskIds(a: string, b: string): number {
  const [sa, pa] = a.split('_').map(Number);
  const [sb, pb] = b.split('_').map(Number);
  return sa - sb || pa - pb;
}
