/**
 * The foreign-key table–table join (Kafka's KIP-213), as three processors over two internal topics:
 *
 * 1. left side (task of the left table's partition): each left change subscribes its key to its
 *    foreign key, writing to `<app>-<name>-subscription-registration` (keyed by the foreign key, so
 *    it lands on the right table's partition), and unsubscribes the old foreign key when it changed;
 * 2. right side (task of the right table's partition): keeps the subscriptions per foreign key and
 *    answers each subscription, and each right-table change, on `<app>-<name>-subscription-response`
 *    (keyed by the left key, back to the left key's partition);
 * 3. left side again: a response is used only if it answers the left key's current value (same
 *    hash): an answer to an older value is stale and dropped. The join result is kept in a store.
 */
import { createHash } from 'node:crypto';
import type { Processor, ProcessorContext, ValueGetter } from '../processor';
import type { Change } from '../record';
import type { Serde } from '../serdes';
import { keyId } from '../state/key-id';
import type { KeyValueStore } from '../state/stores';
import { ChangeForwarder, processorOf, type Stamped } from './common';
import type { JoinKind } from './joins';

type Getter = (ctx: ProcessorContext) => ValueGetter<unknown, unknown>;

/** The hash of a left value a subscription was made for (stable across processes). */
export function valueHash(value: unknown): string | null {
  return value === null ? null : createHash('sha1').update(keyId(value)).digest('base64');
}

/** A message on the registration topic. `pk` is the left key, serialized. */
export interface Subscription {
  op: 'subscribe' | 'unsubscribe';
  pk: string;
  hash: string | null;
}

/** A message on the response topic: the right value for the left value with `hash`. */
export interface SubscriptionResponse {
  hash: string | null;
  right: string | null;
}

export function jsonSerde<T>(name: string): Serde<T> {
  return {
    name,
    serialize: (v) => Buffer.from(JSON.stringify(v), 'utf8'),
    deserialize: (b) => JSON.parse(b.toString('utf8')) as T,
  };
}

/** Left changes → subscriptions (to the registration sink) and local answers (to the result node). */
export function fkSubscribeProcessor(o: {
  foreignKey: (value: unknown) => unknown;
  leftKey: Serde<unknown>;
  registrationSink: string;
  resultNode: string;
}): Processor<unknown, unknown> {
  return processorOf<unknown, Change<unknown>>((r, ctx) => {
    const pk = o.leftKey.serialize(r.key).toString('base64');
    const newFk = r.value.newValue === null ? null : o.foreignKey(r.value.newValue);
    const oldFk = r.value.oldValue === null ? null : o.foreignKey(r.value.oldValue);
    const hash = valueHash(r.value.newValue);
    const has = (fk: unknown): boolean => fk !== null && fk !== undefined;
    if (has(oldFk) && (!has(newFk) || keyId(oldFk) !== keyId(newFk))) {
      const unsub: Subscription = { op: 'unsubscribe', pk, hash: null };
      ctx.forward({ ...r, key: oldFk, value: unsub }, o.registrationSink);
    }
    if (has(newFk)) {
      const sub: Subscription = { op: 'subscribe', pk, hash };
      ctx.forward({ ...r, key: newFk, value: sub }, o.registrationSink);
    } else {
      // A delete, or a value without a foreign key: the answer is known here (no right value).
      const local: SubscriptionResponse = { hash, right: null };
      ctx.forward({ ...r, value: local }, o.resultNode);
    }
  });
}

interface Subscribers {
  /** keyId of the left key → the serialized left key and the hash of the value it subscribed with. */
  [id: string]: { pk: string; hash: string | null };
}

function respond(
  ctx: ProcessorContext,
  pk: string,
  hash: string | null,
  right: { value: unknown; timestamp: number } | null,
  rightValue: Serde<unknown>,
  timestamp: number,
  leftKey: Serde<unknown>,
): void {
  const response: SubscriptionResponse = {
    hash,
    right: right === null ? null : rightValue.serialize(right.value).toString('base64'),
  };
  ctx.forward({
    key: leftKey.deserialize(Buffer.from(pk, 'base64')),
    value: response,
    timestamp,
    headers: [],
  });
}

/** Right side: subscriptions in, responses out (to the response sink). */
export function fkSubscriptionProcessor(o: {
  store: string;
  rightGetter: Getter;
  rightValue: Serde<unknown>;
  leftKey: Serde<unknown>;
}): Processor<unknown, unknown> {
  let subs!: KeyValueStore<unknown, Subscribers>;
  let get!: ValueGetter<unknown, unknown>;
  return processorOf<unknown, Subscription>(
    (r, ctx) => {
      if (r.key === null || r.key === undefined) return;
      const current = { ...(subs.get(r.key) ?? {}) };
      const id = r.value.pk;
      if (r.value.op === 'unsubscribe') {
        delete current[id];
      } else {
        current[id] = { pk: r.value.pk, hash: r.value.hash };
        respond(ctx, r.value.pk, r.value.hash, get(r.key), o.rightValue, r.timestamp, o.leftKey);
      }
      subs.put(r.key, Object.keys(current).length === 0 ? null : current);
    },
    (ctx) => {
      subs = ctx.getStateStore(o.store);
      get = o.rightGetter(ctx);
    },
  );
}

/** Right side: a right-table change answers every subscriber of that foreign key again. */
export function fkRightChangeProcessor(o: {
  store: string;
  rightValue: Serde<unknown>;
  leftKey: Serde<unknown>;
}): Processor<unknown, unknown> {
  let subs!: KeyValueStore<unknown, Subscribers>;
  return processorOf<unknown, Change<unknown>>(
    (r, ctx) => {
      if (r.key === null || r.key === undefined) return;
      const right = r.value.newValue === null ? null : { value: r.value.newValue, timestamp: r.timestamp };
      for (const s of Object.values(subs.get(r.key) ?? {})) {
        respond(ctx, s.pk, s.hash, right, o.rightValue, r.timestamp, o.leftKey);
      }
    },
    (ctx) => {
      subs = ctx.getStateStore(o.store);
    },
  );
}

/** Left side: responses (and local answers) → join results, kept in `store`. */
export function fkResultProcessor(o: {
  kind: JoinKind;
  store: string;
  leftGetter: Getter;
  rightValue: Serde<unknown>;
  joiner: (left: unknown, right: unknown, key: unknown) => unknown;
}): Processor<unknown, unknown> {
  let results!: KeyValueStore<unknown, Stamped<unknown>>;
  let left!: ValueGetter<unknown, unknown>;
  let out!: ChangeForwarder<unknown, unknown>;
  return processorOf<unknown, SubscriptionResponse>(
    (r) => {
      const current = left(r.key);
      const currentValue = current ? current.value : null;
      // An answer to an older value of the left key: a newer answer is on its way.
      if (valueHash(currentValue) !== r.value.hash) return;
      const right =
        r.value.right === null ? null : o.rightValue.deserialize(Buffer.from(r.value.right, 'base64'));
      let value: unknown = null;
      if (currentValue !== null && (right !== null || o.kind === 'left'))
        value = o.joiner(currentValue, right, r.key);
      const old = results.get(r.key);
      if (value === null && old === null) return;
      const timestamp = Math.max(r.timestamp, current ? current.timestamp : -1);
      results.put(r.key, value === null ? null : { value, timestamp });
      out.forward({
        key: r.key,
        value: { newValue: value, oldValue: old ? old.value : null },
        timestamp,
        headers: [],
      });
    },
    (ctx) => {
      results = ctx.getStateStore(o.store);
      left = o.leftGetter(ctx);
      out = new ChangeForwarder(ctx);
    },
  );
}
