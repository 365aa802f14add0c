/**
 * Building joins whose left side is a stream: with another stream (windowed), a table, or a
 * global table. A re-keyed stream side is repartitioned first, through
 * `<app>-<name>-repartition` (stream–table) or `<app>-<name>-left|right-repartition` (stream–stream).
 */
import type { Serde } from '../serdes';
import type { JoinWindows } from '../windows';
import { processorOf } from '../processors/common';
import { streamStreamJoinProcessor, streamTableJoinProcessor, type JoinKind } from '../processors/joins';
import { storeGetter } from '../processors/table-ops';
import type { Named } from './internal-builder';
import { KStream, type StreamJoinOptions } from './kstream';
import type { KTable } from './ktable';
import type { GlobalKTable } from './global-ktable';
import { addRepartition } from './repartition';
import { listSerde } from '../state/list-serde';

export type { JoinKind };
type Joiner = (left: unknown, right: unknown, key: unknown) => unknown;

function sideInput<K, V>(
  stream: KStream<K, V>,
  name: string,
  suffix: string,
  serdes: { key?: Serde<unknown>; value?: Serde<unknown> },
  reason: string,
): string {
  if (!stream.repartitionRequired) return stream.node;
  return addRepartition(stream.builder, {
    name,
    suffix,
    parent: stream.node,
    key: serdes.key,
    value: serdes.value,
    reason,
  });
}

export function streamStreamJoin<K, V, VO>(
  kind: JoinKind,
  left: KStream<K, V>,
  right: KStream<K, VO>,
  joiner: Joiner,
  windows: JoinWindows,
  options: StreamJoinOptions<K, V, VO>,
): KStream<K, unknown> {
  const b = left.builder;
  const name = b.statefulName(`stream-stream-${kind}-join`, options, left.node);
  const key = (options.key ?? left.serdes.key ?? right.serdes.key) as Serde<unknown> | undefined;
  const leftValue = (options.value ?? left.serdes.value) as Serde<unknown> | undefined;
  const rightValue = (options.otherValue ?? right.serdes.value) as Serde<unknown> | undefined;
  const reason = `join "${name}" after a key change`;
  const leftIn = sideInput(left, name, 'left-repartition', { key, value: leftValue }, reason);
  const rightIn = sideInput(right, name, 'right-repartition', { key, value: rightValue }, reason);
  const stores = {
    left: `${name}-this-join-store`,
    right: `${name}-other-join-store`,
    outer: kind === 'inner' ? undefined : `${name}-outer-join-store`,
  };
  const span = windows.beforeMs + windows.afterMs + windows.graceMs;
  // Each entry holds every value seen at its (key, timestamp): a list, through the side's serde.
  b.addStore({
    name: stores.left,
    kind: 'window',
    key,
    value: leftValue && (listSerde(leftValue) as Serde<unknown>),
    windowSizeMs: 0,
    retentionMs: span,
    persistent: false,
    logged: true,
    global: false,
  });
  b.addStore({
    name: stores.right,
    kind: 'window',
    key,
    value: rightValue && (listSerde(rightValue) as Serde<unknown>),
    windowSizeMs: 0,
    retentionMs: span,
    persistent: false,
    logged: true,
    global: false,
  });
  if (stores.outer)
    b.addStore({ name: stores.outer, kind: 'keyValue', persistent: false, logged: true, global: false });
  const storeNames = [stores.left, stores.right, ...(stores.outer ? [stores.outer] : [])];
  const common = { kind, graceMs: windows.graceMs, stores, joiner };
  const l = b.addNode({
    name: `${name}-this`,
    kind: 'processor',
    operation: `stream-stream-${kind}-join`,
    parents: [leftIn],
    stores: storeNames,
    stateful: true,
    create: () =>
      streamStreamJoinProcessor({
        ...common,
        side: 'left',
        beforeMs: windows.beforeMs,
        afterMs: windows.afterMs,
      }),
  });
  const r = b.addNode({
    name: `${name}-other`,
    kind: 'processor',
    operation: `stream-stream-${kind}-join`,
    parents: [rightIn],
    stores: storeNames,
    stateful: true,
    create: () =>
      streamStreamJoinProcessor({
        ...common,
        side: 'right',
        beforeMs: windows.afterMs,
        afterMs: windows.beforeMs,
      }),
  });
  const merged = b.addNode({
    name,
    kind: 'processor',
    operation: 'join-merge',
    parents: [l.name, r.name],
    stores: [],
    stateful: false,
    coPartitioned: true,
    create: () => processorOf((rec, ctx) => ctx.forward(rec)),
  });
  return new KStream<K, unknown>(b, merged.name, { key: key as Serde<K> | undefined }, false);
}

export function streamTableJoin<K, V, VT>(
  kind: JoinKind,
  stream: KStream<K, V>,
  table: KTable<K, VT>,
  joiner: Joiner,
  options: Named,
): KStream<K, unknown> {
  if (kind === 'outer') throw new Error('bug: there is no stream–table outer join');
  const b = stream.builder;
  const name = b.statefulName(`stream-table-${kind}-join`, options, stream.node);
  const key = (stream.serdes.key ?? table.serdes.key) as Serde<unknown> | undefined;
  const input = sideInput(
    stream,
    name,
    'repartition',
    { key, value: stream.serdes.value as Serde<unknown> },
    `join "${name}" after a key change`,
  );
  const def = b.addNode({
    name,
    kind: 'processor',
    operation: `stream-table-${kind}-join`,
    parents: [input],
    stores: table.storeNames,
    stateful: true,
    coPartitioned: true,
    create: () => streamTableJoinProcessor(kind, table.getter, joiner),
  });
  return new KStream<K, unknown>(b, def.name, { key: key as Serde<K> | undefined }, false);
}

export function streamGlobalJoin<K, V, KG, VG>(
  kind: JoinKind,
  stream: KStream<K, V>,
  table: GlobalKTable<KG, VG>,
  keySelector: (key: unknown, value: unknown) => unknown,
  joiner: Joiner,
  options: Named,
): KStream<K, unknown> {
  if (kind === 'outer') throw new Error('bug: there is no stream–globalTable outer join');
  const b = stream.builder;
  const name = b.statefulName(`stream-globalTable-${kind}-join`, options, stream.node);
  const def = b.addNode({
    name,
    kind: 'processor',
    operation: `stream-globalTable-${kind}-join`,
    parents: [stream.node],
    stores: [table.storeName],
    stateful: true,
    create: () => streamTableJoinProcessor(kind, storeGetter(table.storeName), joiner, keySelector),
  });
  // The key is unchanged and the global table needs no co-partitioning: the marks carry over.
  return new KStream<K, unknown>(b, def.name, { key: stream.serdes.key }, stream.repartitionRequired);
}
