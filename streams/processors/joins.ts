/**
 * Join processors. Null rules follow Kafka Streams:
 * - stream–table and stream–globalTable: the stream drives; a record without a key or value is
 *   dropped; an inner join drops a record without a table value, a left join passes null.
 * - table–table: either side's change looks up the other; the result is a table change, and a
 *   result that becomes null is forwarded as a delete.
 * - stream–stream: records join when their timestamps are within the join windows; in left and
 *   outer joins an unmatched record is joined with null only once its window has closed (stream
 *   time > t + window + grace), never before a match could still arrive.
 */
import type { Processor, ProcessorContext, ValueGetter } from '../processor';
import type { Change, StreamRecord } from '../record';
import type { KeyValueStore, WindowStore } from '../state/stores';
import type { InternalProcessorContext } from '../runtime/internal-context';
import { ChangeForwarder, coarseExpiry, processorOf } from './common';

export type JoinKind = 'inner' | 'left' | 'outer';
type Getter = (ctx: ProcessorContext) => ValueGetter<unknown, unknown>;
type Joiner = (left: unknown, right: unknown, key: unknown) => unknown;

export function streamTableJoinProcessor(
  kind: JoinKind,
  getter: Getter,
  joiner: Joiner,
  keySelector?: (key: unknown, value: unknown) => unknown,
): Processor<unknown, unknown> {
  let get!: ValueGetter<unknown, unknown>;
  return processorOf<unknown, unknown>(
    (r, ctx) => {
      if (r.value === null || r.value === undefined) return;
      const lookup = keySelector ? keySelector(r.key, r.value) : r.key;
      const found = lookup === null || lookup === undefined ? null : get(lookup);
      if (found === null && kind === 'inner') return;
      ctx.forward({ ...r, value: joiner(r.value, found ? found.value : null, r.key) });
    },
    (ctx) => {
      get = getter(ctx);
    },
  );
}

/** The value of a table–table join for one side's value and the other's (null: none). */
export function joinValues(
  kind: JoinKind,
  joiner: Joiner,
  left: unknown,
  right: unknown,
  key: unknown,
): unknown {
  if (kind === 'inner' && (left === null || right === null)) return null;
  if (kind === 'left' && left === null) return null;
  if (left === null && right === null) return null;
  return joiner(left, right, key);
}

export function tableTableJoinProcessor(
  kind: JoinKind,
  side: 'left' | 'right',
  otherGetter: Getter,
  joiner: Joiner,
): Processor<unknown, unknown> {
  let other!: ValueGetter<unknown, unknown>;
  let out!: ChangeForwarder<unknown, unknown>;
  return processorOf<unknown, Change<unknown>>(
    (r) => {
      if (r.key === null || r.key === undefined) return;
      const found = other(r.key);
      const o = found ? found.value : null;
      const compute = (v: unknown): unknown =>
        side === 'left' ? joinValues(kind, joiner, v, o, r.key) : joinValues(kind, joiner, o, v, r.key);
      const newValue = compute(r.value.newValue);
      const oldValue = compute(r.value.oldValue);
      if (newValue === null && oldValue === null) return;
      const timestamp = Math.max(r.timestamp, found ? found.timestamp : -1);
      out.forward({ ...r, value: { newValue, oldValue }, timestamp });
    },
    (ctx) => {
      other = otherGetter(ctx);
      out = new ChangeForwarder(ctx);
    },
  );
}

export function tableJoinGetter(kind: JoinKind, left: Getter, right: Getter, joiner: Joiner): Getter {
  return (ctx) => {
    const l = left(ctx);
    const r = right(ctx);
    return (key) => {
      const a = l(key);
      const b = r(key);
      const value = joinValues(kind, joiner, a ? a.value : null, b ? b.value : null, key);
      if (value === null) return null;
      return { value, timestamp: Math.max(a ? a.timestamp : -1, b ? b.timestamp : -1) };
    };
  };
}

export interface StreamJoinStores {
  /** Window stores of each side's records: key, timestamp → values at that timestamp. */
  left: string;
  right: string;
  /** Left/outer joins: records without a match yet, by side, key and timestamp. */
  outer?: string;
}

interface OuterKey {
  side: 'L' | 'R';
  key: unknown;
  timestamp: number;
}

/**
 * One side of a stream–stream join. `beforeMs`/`afterMs` are relative to this side: a record at t
 * joins other-side records in [t - beforeMs, t + afterMs].
 */
export function streamStreamJoinProcessor(o: {
  kind: JoinKind;
  side: 'left' | 'right';
  beforeMs: number;
  afterMs: number;
  graceMs: number;
  stores: StreamJoinStores;
  joiner: Joiner;
}): Processor<unknown, unknown> {
  let mine!: WindowStore<unknown, unknown[]>;
  let theirs!: WindowStore<unknown, unknown[]>;
  let outer: KeyValueStore<OuterKey, unknown[]> | undefined;
  let ctx!: InternalProcessorContext;
  const me = o.side === 'left' ? 'L' : 'R';
  const them = o.side === 'left' ? 'R' : 'L';
  // Unmatched records of this side are kept (for a later null join) in left joins (left side) and outer joins.
  const tracksMine = o.kind === 'outer' || (o.kind === 'left' && o.side === 'left');
  const tracksTheirs = o.kind === 'outer' || (o.kind === 'left' && o.side === 'right');
  const span = o.beforeMs + o.afterMs + o.graceMs;
  const join = (mineValue: unknown, theirValue: unknown, key: unknown): unknown =>
    o.side === 'left' ? o.joiner(mineValue, theirValue, key) : o.joiner(theirValue, mineValue, key);

  // A left record's partners come up to `after` later, a right record's up to `before` later.
  const dueMs = (k: OuterKey): number =>
    k.timestamp + (k.side === me ? o.afterMs : o.beforeMs) + o.graceMs + 1;
  /** Earliest due time of the entries this side wrote (-Infinity: unknown, e.g. restored: scan). */
  let nextDueMs = -Infinity;

  /** Emits the null joins of unmatched records whose window has closed, oldest first. */
  const emitUnmatched = (streamTime: number): void => {
    if (!outer || streamTime < nextDueMs) return;
    const closed: [OuterKey, unknown[]][] = [];
    nextDueMs = Infinity;
    for (const [k, values] of outer.all()) {
      if (dueMs(k) <= streamTime) closed.push([k, values]);
      else nextDueMs = Math.min(nextDueMs, dueMs(k));
    }
    closed.sort((a, b) => a[0].timestamp - b[0].timestamp);
    for (const [k, values] of closed) {
      outer.delete(k);
      for (const v of values) {
        const value = k.side === me ? join(v, null, k.key) : join(null, v, k.key);
        ctx.forward({ key: k.key, value, timestamp: k.timestamp, headers: [] });
      }
    }
  };

  return processorOf<unknown, unknown>(
    (r: StreamRecord<unknown, unknown>) => {
      if (r.key === null || r.key === undefined || r.value === null || r.value === undefined) return;
      const t = r.timestamp;
      const streamTime = ctx.streamTime();
      if (t + o.afterMs + o.graceMs < streamTime) {
        ctx.recordDroppedLate();
        return;
      }
      mine.put(r.key, t, [...(mine.fetch(r.key, t) ?? []), r.value]);
      const partners = theirs.fetchRange(r.key, t - o.beforeMs, t + o.afterMs);
      if (partners.length === 0) {
        if (tracksMine && outer) {
          const k: OuterKey = { side: me, key: r.key, timestamp: t };
          outer.put(k, [...(outer.get(k) ?? []), r.value]);
          nextDueMs = Math.min(nextDueMs, dueMs(k));
        }
      }
      for (const p of partners) {
        if (tracksTheirs && outer) outer.delete({ side: them, key: r.key, timestamp: p.window.start });
        for (const v of p.value) {
          ctx.forward({ ...r, value: join(r.value, v, r.key), timestamp: Math.max(t, p.window.start) });
        }
      }
      mine.expire(coarseExpiry(streamTime - span, span));
      theirs.expire(coarseExpiry(streamTime - span, span));
    },
    (c) => {
      ctx = c;
      mine = c.getStateStore(o.side === 'left' ? o.stores.left : o.stores.right);
      theirs = c.getStateStore(o.side === 'left' ? o.stores.right : o.stores.left);
      if (o.stores.outer) outer = c.getStateStore<KeyValueStore<OuterKey, unknown[]>>(o.stores.outer);
      // Both sides share the outer store and both scan it when one of their own entries is due;
      // an entry is emitted (and deleted) by whichever scan finds it first.
      if (outer) c.schedule(1, 'streamTime', emitUnmatched);
    },
  );
}
