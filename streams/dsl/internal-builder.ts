/**
 * The builder's working state behind the DSL objects: nodes, stores, internal topics, and the
 * problems found while building (unnamed stateful nodes, duplicate names, missing serdes). Problems
 * are collected, not thrown, so `build()` reports all of them at once.
 */
import type { Serde } from '../serdes';
import type { NodeDef, StoreDef } from '../topology/nodes';

/** A name given by the user: `{ name: 'order-counts' }`. */
export interface Named {
  name: string;
}

export interface InternalTopicDef {
  name: string;
  /** The user's name it was made from (the `<name>` of `<app>-<name>-repartition`). */
  from: string;
  partitions?: number;
}

const NAME = /^[A-Za-z0-9._-]+$/;

/**
 * A store's key and value serdes: the runtime writes every store to its changelog, so a store
 * without them is a build problem today rather than a failure after a deploy.
 */
export function requireStoreSerdes(
  b: InternalBuilder,
  store: string,
  key: Serde<unknown> | Serde<never> | undefined,
  value: Serde<unknown> | Serde<never> | undefined,
  where: string,
): void {
  const hint = `pass it to ${where} (stores are written to their changelog)`;
  b.requireSerde(key, `the key of store "${store}"`, hint);
  b.requireSerde(value, `the value of store "${store}"`, `pass it to the operation that makes "${store}"`);
}

export class InternalBuilder {
  readonly nodes = new Map<string, NodeDef>();
  readonly stores = new Map<string, StoreDef>();
  readonly internalTopics = new Map<string, InternalTopicDef>();
  /** Topics read by sources, to refuse a topic read twice. */
  readonly sourceTopics = new Map<string, string>();
  readonly problems: string[] = [];
  /** Names already reported as duplicates (a stateful node's store and node share its name). */
  private readonly duplicates = new Set<string>();
  private counter = 0;

  constructor(readonly applicationId: string) {}

  /** A generated name for a stateless node: `<operation>-<n>`. */
  autoName(operation: string): string {
    let name: string;
    do name = `${operation}-${++this.counter}`;
    while (this.nodes.has(name));
    return name;
  }

  /**
   * The user's name for a stateful node, or a problem reported at build(). `after` names the
   * parent, so the message points at the place in the code.
   */
  statefulName(operation: string, named: Partial<Named> | undefined, after: string): string {
    const name = named?.name;
    if (typeof name === 'string' && NAME.test(name)) return name;
    if (name === undefined || name === '') {
      this.problems.push(
        `${operation}() after node "${after}" is stateful and has no name: pass { name: '...' } ` +
          `(names of stores and internal topics must stay stable across versions)`,
      );
    } else {
      this.problems.push(
        `${operation}() after node "${after}": name "${name}" may use only letters, digits, . _ -`,
      );
    }
    return this.autoName(`unnamed-${operation}`);
  }

  addNode(def: NodeDef): NodeDef {
    if (this.nodes.has(def.name)) {
      if (!this.duplicates.has(def.name)) {
        this.problems.push(`two nodes are named "${def.name}": names must be unique in a topology`);
        this.duplicates.add(def.name);
      }
      def = { ...def, name: this.autoName(`duplicate-${def.name}`) };
    }
    for (const p of def.parents) {
      if (!this.nodes.has(p)) throw new Error(`bug: node ${def.name} has unknown parent ${p}`);
    }
    this.nodes.set(def.name, def);
    return def;
  }

  addStore(def: StoreDef): void {
    if (this.stores.has(def.name)) {
      this.problems.push(`two stores are named "${def.name}": store names must be unique in a topology`);
      this.duplicates.add(def.name);
      return;
    }
    this.stores.set(def.name, def);
  }

  /** Registers a topic read by a source; false (and a problem) if it is read already. */
  addSourceTopic(topic: string, node: string): boolean {
    if (this.sourceTopics.has(topic)) {
      this.problems.push(`topic "${topic}" is read twice: read it once and reuse the stream (or merge)`);
      return false;
    }
    this.sourceTopics.set(topic, node);
    return true;
  }

  /** `<app>-<name>-<suffix>`, registered as an internal topic. */
  internalTopic(from: string, suffix: string, partitions?: number): string {
    const name = `${this.applicationId}-${from}-${suffix}`;
    if (this.internalTopics.has(name)) {
      this.problems.push(`internal topic "${name}" is made twice: give the operations different names`);
    }
    this.internalTopics.set(name, { name, from, partitions });
    return name;
  }

  /** Reports a missing serde where one is needed (a repartition topic, a store...). */
  requireSerde<T>(serde: Serde<T> | undefined, what: string, hint: string): Serde<T> | undefined {
    if (!serde) this.problems.push(`${what} has no serde: ${hint}`);
    return serde;
  }
}
