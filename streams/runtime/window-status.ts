/**
 * "Why no output yet?" for windowed aggregations: per task, its stream time against the close
 * time of every window still open in a window or session store. A window's final result (and a
 * suppress({ untilWindowCloses }) emission) comes only once the task's own stream time reaches
 * the window's close time — records of other partitions, and wall-clock time, do not move it.
 *
 * Windows are grouped by their bounds (tumbling and hopping windows of many keys share them), the
 * earliest to close first, and cut at `limit`; `openWindows` counts them all.
 */
import { StreamsError } from '../errors';
import type { Window } from '../serdes';
import type { SessionStore, StateStore, WindowStore } from '../state/stores';
import type { Topology } from '../topology/topology';

export interface OpenWindow {
  start: number;
  end: number;
  /** The stream time at which the window closes (end + grace, by the window type's rule). */
  closesAtMs: number;
  /** How far the task's stream time is from it. */
  waitingForMs: number;
  /** Keys with a value in this window. */
  keys: number;
}

export interface WindowStoreStatus {
  store: string;
  taskId: string;
  /** The task's stream time (-1: it has processed no record yet). */
  streamTimeMs: number;
  /** Distinct open windows (bounds) in the task's store. */
  openWindows: number;
  /** Closed windows the store still keeps for queries (retention). */
  closedWindows: number;
  /** The open windows, earliest to close first, at most `limit`. */
  windows: OpenWindow[];
}

/** What the status needs of a task (StreamTask has it). */
export interface TaskStores {
  readonly id: string;
  /** The store as queries read it (through the record cache, if any). */
  readableStore(name: string): StateStore | undefined;
  readonly metrics: { readonly streamTimeMs: number };
}

export const DEFAULT_WINDOW_STATUS_LIMIT = 20;

/** Names of the topology's stores that have a window status (windowed aggregations). */
export function windowedStoreNames(topology: Topology): string[] {
  return [...topology.stores.values()].filter((s) => s.closesAt !== undefined).map((s) => s.name);
}

/** The status of `store` in each of `tasks` that has it. STORE error for a store without windows. */
export function windowStatusOf(
  topology: Topology,
  store: string,
  tasks: Iterable<TaskStores>,
  limit = DEFAULT_WINDOW_STATUS_LIMIT,
): WindowStoreStatus[] {
  const def = topology.stores.get(store);
  if (!def?.closesAt) {
    const known = windowedStoreNames(topology);
    throw new StreamsError(
      'STORE',
      `"${store}" is not the store of a windowed aggregation; ` +
        (known.length > 0 ? `the topology's are: ${known.join(', ')}` : 'the topology has none'),
    );
  }
  const closesAt = def.closesAt;
  const out: WindowStoreStatus[] = [];
  for (const task of tasks) {
    const s = task.readableStore(store);
    if (!s) continue;
    const streamTimeMs = task.metrics.streamTimeMs;
    const bounds = new Map<string, { window: Window; keys: number }>();
    for (const entry of entries(s)) {
      const id = `${entry.window.start}:${entry.window.end}`;
      const b = bounds.get(id);
      if (b) b.keys++;
      else bounds.set(id, { window: entry.window, keys: 1 });
    }
    const open: OpenWindow[] = [];
    let closed = 0;
    for (const { window, keys } of bounds.values()) {
      const closesAtMs = closesAt(window);
      if (closesAtMs <= streamTimeMs) {
        closed++;
        continue;
      }
      open.push({
        start: window.start,
        end: window.end,
        closesAtMs,
        waitingForMs: closesAtMs - streamTimeMs,
        keys,
      });
    }
    open.sort((a, b) => a.closesAtMs - b.closesAtMs || a.start - b.start);
    out.push({
      store,
      taskId: task.id,
      streamTimeMs,
      openWindows: open.length,
      closedWindows: closed,
      windows: open.slice(0, Math.max(0, limit)),
    });
  }
  return out.sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));
}

function entries(store: StateStore): { window: Window }[] {
  if (store.kind === 'window') return (store as WindowStore<unknown, unknown>).all();
  if (store.kind === 'session') return (store as SessionStore<unknown, unknown>).all();
  return [];
}
