/**
 * Windowed aggregations: tumbling/hopping, sliding and session windows. A record whose every
 * window is closed (stream time >= window end + grace) is dropped and counted as late. Results
 * are table changes keyed by Windowed<K>.
 */
import type { Processor } from '../processor';
import type { StreamRecord } from '../record';
import type { Window, Windowed } from '../serdes';
import type { KeyValueStore, SessionStore, WindowStore } from '../state/stores';
import type { SessionWindows, SlidingWindows, TimeWindows } from '../windows';
import type { InternalProcessorContext } from '../runtime/internal-context';
import { addTo, type AggregateFns } from './aggregate';
import { ChangeForwarder, coarseExpiry, processorOf, type Stamped } from './common';

function skip(r: StreamRecord<unknown, unknown>): boolean {
  return r.key === null || r.key === undefined || r.value === null || r.value === undefined;
}

export function timeWindowAggregate<K, V, VA>(
  store: string,
  windows: TimeWindows,
  fns: AggregateFns<K, V, VA>,
  retentionMs: number,
): Processor<unknown, unknown> {
  let ws!: WindowStore<K, Stamped<VA>>;
  let ctx!: InternalProcessorContext;
  let out!: ChangeForwarder<Windowed<K>, VA>;
  return processorOf<K, V>(
    (r) => {
      if (skip(r)) return;
      const streamTime = ctx.streamTime();
      let accepted = false;
      for (const window of windows.windowsFor(r.timestamp)) {
        if (windows.isClosed(window, streamTime)) continue;
        accepted = true;
        const old = ws.fetch(r.key, window.start);
        const value = addTo(fns, r.key, r.value, old ? old.value : null);
        const timestamp = Math.max(old?.timestamp ?? -1, r.timestamp);
        ws.put(r.key, window.start, { value, timestamp });
        out.forward({
          key: { key: r.key, window },
          value: { newValue: value, oldValue: old ? old.value : null },
          timestamp,
          headers: r.headers,
        });
      }
      if (!accepted) ctx.recordDroppedLate();
      ws.expire(coarseExpiry(streamTime - retentionMs, retentionMs));
    },
    (c) => {
      ctx = c;
      ws = c.getStateStore(store);
      out = new ChangeForwarder(c, ws);
    },
  );
}

/**
 * Sliding windows (Kafka's KIP-450 semantics): every record defines its left window [t - d, t] and,
 * once a later record falls in it, its right window [t + 1, t + 1 + d]. The records of each key are
 * kept (in `recordsStore`) for as long as an open window may need them, and each window the new
 * record touches is recomputed from them, so out-of-order records land in every window they belong to.
 */
export function slidingWindowAggregate<K, V, VA>(
  store: string,
  recordsStore: string,
  windows: SlidingWindows,
  fns: AggregateFns<K, V, VA>,
  retentionMs: number,
): Processor<unknown, unknown> {
  let ws!: WindowStore<K, Stamped<VA>>;
  let rs!: KeyValueStore<K, [number, V][]>;
  let ctx!: InternalProcessorContext;
  let out!: ChangeForwarder<Windowed<K>, VA>;
  const d = windows.timeDifferenceMs;
  return processorOf<K, V>(
    (r) => {
      if (skip(r)) return;
      const t = r.timestamp;
      const streamTime = ctx.streamTime();
      if (t + d + windows.graceMs <= streamTime) {
        ctx.recordDroppedLate();
        return;
      }
      const keep = streamTime - windows.graceMs - d - 1;
      const list = (rs.get(r.key) ?? []).filter(([ts]) => ts >= keep);
      let at = list.length;
      while (at > 0 && list[at - 1][0] > t) at--;
      list.splice(at, 0, [t, r.value]);
      rs.put(r.key, list);

      const starts = new Set<number>();
      for (const [ts] of list) {
        if (ts >= t && ts <= t + d) starts.add(ts - d); // left windows holding t
        if (ts >= t - d - 1 && ts <= t - 1) starts.add(ts + 1); // right windows of earlier records
      }
      if (list.some(([ts]) => ts > t && ts <= t + 1 + d)) starts.add(t + 1); // t's own right window
      for (const start of [...starts].sort((a, b) => a - b)) {
        const window: Window = { start, end: start + d };
        if (windows.isClosed(window, streamTime)) continue;
        let value: VA | null = null;
        let timestamp = -1;
        for (const [ts, v] of list) {
          if (ts < start || ts > window.end) continue;
          value = addTo(fns, r.key, v, value);
          timestamp = Math.max(timestamp, ts);
        }
        if (value === null) continue;
        const old = ws.fetch(r.key, start);
        ws.put(r.key, start, { value, timestamp });
        out.forward({
          key: { key: r.key, window },
          value: { newValue: value, oldValue: old ? old.value : null },
          timestamp,
          headers: r.headers,
        });
      }
      ws.expire(coarseExpiry(streamTime - retentionMs, retentionMs));
    },
    (c) => {
      ctx = c;
      ws = c.getStateStore(store);
      rs = c.getStateStore(recordsStore);
      out = new ChangeForwarder(c, ws);
    },
  );
}

/**
 * Session windows: a record merges every session of its key within the inactivity gap into one
 * [first, last] session. Merged-away sessions are forwarded as deletes (new value null).
 */
export function sessionWindowAggregate<K, V, VA>(
  store: string,
  windows: SessionWindows,
  fns: AggregateFns<K, V, VA> & { merge: (key: K, left: VA, right: VA) => VA },
  retentionMs: number,
): Processor<unknown, unknown> {
  let ss!: SessionStore<K, Stamped<VA>>;
  let ctx!: InternalProcessorContext;
  let out!: ChangeForwarder<Windowed<K>, VA>;
  const gap = windows.inactivityGapMs;
  return processorOf<K, V>(
    (r) => {
      if (skip(r)) return;
      const t = r.timestamp;
      const streamTime = ctx.streamTime();
      const overlapping = ss.findSessions(r.key, t - gap, t + gap);
      const merged: Window = { start: t, end: t };
      for (const s of overlapping) {
        merged.start = Math.min(merged.start, s.window.start);
        merged.end = Math.max(merged.end, s.window.end);
      }
      if (windows.isClosed(merged, streamTime)) {
        ctx.recordDroppedLate();
        return;
      }
      let value: VA | null = fns.init ? fns.init() : null;
      let timestamp = t;
      for (const s of overlapping) {
        value = value === null ? s.value.value : fns.merge(r.key, value, s.value.value);
        timestamp = Math.max(timestamp, s.value.timestamp);
      }
      value = addTo(fns, r.key, r.value, value);
      let old: VA | null = null;
      for (const s of overlapping) {
        if (s.window.start === merged.start && s.window.end === merged.end) {
          old = s.value.value;
          continue;
        }
        ss.remove(r.key, s.window);
        out.forward({
          key: { key: r.key, window: s.window },
          value: { newValue: null, oldValue: s.value.value },
          timestamp,
          headers: r.headers,
        });
      }
      ss.put(r.key, merged, { value, timestamp });
      out.forward({
        key: { key: r.key, window: merged },
        value: { newValue: value, oldValue: old },
        timestamp,
        headers: r.headers,
      });
      ss.expire(coarseExpiry(streamTime - retentionMs, retentionMs));
    },
    (c) => {
      ctx = c;
      ss = c.getStateStore(store);
      out = new ChangeForwarder(c, ss);
    },
  );
}
