/**
 * Building the foreign-key table–table join: see processors/fk-join.ts for how it works. Its two
 * internal topics are `<app>-<name>-subscription-registration` (co-partitioned with the right
 * table) and `<app>-<name>-subscription-response` (co-partitioned with the left table).
 */
import type { Serde } from '../serdes';
import {
  fkResultProcessor,
  fkRightChangeProcessor,
  fkSubscribeProcessor,
  fkSubscriptionProcessor,
  jsonSerde,
  type Subscription,
  type SubscriptionResponse,
} from '../processors/fk-join';
import type { JoinKind } from '../processors/joins';
import { sinkProcessor, sourceProcessor } from '../processors/source-sink';
import { storeGetter } from '../processors/table-ops';
import type { Named } from './internal-builder';
import { KTable } from './ktable';

export function foreignKeyJoin<K, V, KO, VO, VR>(
  kind: JoinKind,
  left: KTable<K, V>,
  right: KTable<KO, VO>,
  foreignKey: (value: V) => KO,
  joiner: (value: V, other: VO | null, key: K) => VR,
  options: Named,
): KTable<K, VR> {
  const b = left.builder;
  const name = b.statefulName(`fk-${kind}-join`, options, left.node);
  const hint = `the foreign-key join "${name}" writes internal topics`;
  const leftKey = b.requireSerde(
    left.serdes.key,
    `the key of the left table of "${name}"`,
    hint,
  ) as Serde<unknown>;
  const rightKey = b.requireSerde(
    right.serdes.key,
    `the key of the right table of "${name}"`,
    hint,
  ) as Serde<unknown>;
  const rightValue = b.requireSerde(
    right.serdes.value,
    `the value of the right table of "${name}"`,
    hint,
  ) as Serde<unknown>;
  const registration = b.internalTopic(name, 'subscription-registration');
  const response = b.internalTopic(name, 'subscription-response');
  const subscriptions = `${name}-subscriptions`;
  const subscriptionSerde = jsonSerde<Subscription>('subscription') as Serde<unknown>;
  const responseSerde = jsonSerde<SubscriptionResponse>('subscription-response') as Serde<unknown>;
  b.addStore({
    name: subscriptions,
    kind: 'keyValue',
    key: rightKey,
    persistent: false,
    logged: true,
    global: false,
  });
  b.addStore({
    name,
    kind: 'keyValue',
    key: leftKey,
    persistent: false,
    logged: true,
    global: false,
    timestamped: true,
  });
  const n = {
    subscribe: `${name}-subscribe`,
    registrationSink: `${name}-registration-sink`,
    registrationSource: `${name}-registration-source`,
    subscriptions: `${name}-subscription`,
    rightChange: `${name}-right-change`,
    responseSink: `${name}-response-sink`,
    responseSource: `${name}-response-source`,
  };
  const processor = { kind: 'processor' as const, stores: [] as string[], stateful: false };
  b.addNode({
    ...processor,
    name: n.subscribe,
    operation: 'fk-join-subscribe',
    parents: [left.node],
    create: () =>
      fkSubscribeProcessor({
        foreignKey: foreignKey as (v: unknown) => unknown,
        leftKey,
        registrationSink: n.registrationSink,
        resultNode: name,
      }),
  });
  b.addNode({
    ...processor,
    kind: 'sink',
    name: n.registrationSink,
    operation: 'fk-join-registration',
    parents: [n.subscribe],
    sink: { topic: registration, key: rightKey, value: subscriptionSerde, internal: true },
    create: () =>
      sinkProcessor({ topic: registration, key: rightKey, value: subscriptionSerde, fromTable: false }),
  });
  b.addNode({
    ...processor,
    kind: 'source',
    name: n.registrationSource,
    operation: 'fk-join-registration',
    parents: [],
    source: {
      topics: [registration],
      key: rightKey,
      value: subscriptionSerde,
      internal: true,
      global: false,
    },
    create: sourceProcessor,
  });
  b.addSourceTopic(registration, n.registrationSource);
  b.addNode({
    ...processor,
    name: n.subscriptions,
    operation: 'fk-join-subscriptions',
    parents: [n.registrationSource],
    stores: [subscriptions, ...right.storeNames],
    stateful: true,
    coPartitioned: true,
    create: () =>
      fkSubscriptionProcessor({ store: subscriptions, rightGetter: right.getter, rightValue, leftKey }),
  });
  b.addNode({
    ...processor,
    name: n.rightChange,
    operation: 'fk-join-right-change',
    parents: [right.node],
    stores: [subscriptions],
    stateful: true,
    create: () => fkRightChangeProcessor({ store: subscriptions, rightValue, leftKey }),
  });
  b.addNode({
    ...processor,
    kind: 'sink',
    name: n.responseSink,
    operation: 'fk-join-response',
    parents: [n.subscriptions, n.rightChange],
    sink: { topic: response, key: leftKey, value: responseSerde, internal: true },
    create: () => sinkProcessor({ topic: response, key: leftKey, value: responseSerde, fromTable: false }),
  });
  b.addNode({
    ...processor,
    kind: 'source',
    name: n.responseSource,
    operation: 'fk-join-response',
    parents: [],
    source: { topics: [response], key: leftKey, value: responseSerde, internal: true, global: false },
    create: sourceProcessor,
  });
  b.addSourceTopic(response, n.responseSource);
  const getter = storeGetter(name);
  b.addNode({
    ...processor,
    name,
    operation: `fk-${kind}-join`,
    parents: [n.subscribe, n.responseSource],
    stores: [name, ...left.storeNames],
    stateful: true,
    coPartitioned: true,
    create: () =>
      fkResultProcessor({
        kind,
        store: name,
        leftGetter: left.getter,
        rightValue,
        joiner: joiner as (l: unknown, r: unknown, k: unknown) => unknown,
      }),
    valueGetter: getter,
  });
  return new KTable<K, VR>(b, name, { key: left.serdes.key }, getter, [name]);
}
