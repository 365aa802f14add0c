/**
 * StreamsBuilder: where a topology starts. `stream`, `table` and `globalTable` read topics with
 * the serdes given here, whose types become the stream's types (a serde that does not match the
 * declared type does not compile); `build()` checks the whole topology and reports every problem
 * (unnamed stateful nodes, duplicate names, missing serdes) in one StreamsError.
 */
import { StreamsError } from './errors';
import { validateConfig, type StreamsConfig } from './config';
import type { TimestampExtractor } from './record';
import type { Serde } from './serdes';
import { InternalBuilder, type Named } from './dsl/internal-builder';
import { KStream } from './dsl/kstream';
import { materializeStream, type KTable } from './dsl/ktable';
import { GlobalKTable } from './dsl/global-ktable';
import { materializeProcessor } from './processors/table-ops';
import { sourceProcessor } from './processors/source-sink';
import { Topology } from './topology/topology';
import type { Tide } from '../client/index';
import { StreamsApp, type StreamsAppOptions } from './runtime/app';

export interface SourceOptions<K, V> {
  key: Serde<K>;
  value: Serde<V>;
  /** Event time of this topic's records (default: the config's, else the record timestamp). */
  timestampExtractor?: TimestampExtractor;
}

export class StreamsBuilder {
  readonly config: StreamsConfig;
  private readonly b: InternalBuilder;
  private built = false;

  /** `client` is the Tide client a runtime will run on; the test driver does not need one. */
  constructor(
    config: StreamsConfig,
    readonly client?: unknown,
  ) {
    this.config = validateConfig(config);
    this.b = new InternalBuilder(config.applicationId);
  }

  /** A stream of a topic's records. */
  stream<K, V>(topic: string, options: SourceOptions<K, V>): KStream<K, V> {
    const name = this.source(topic, options, false);
    return new KStream<K, V>(this.b, name, { key: options.key, value: options.value }, false);
  }

  /** A table of a topic (a changelog: the latest value per key, null deletes), kept in the store `name`. */
  table<K, V>(topic: string, options: SourceOptions<K, V> & Named): KTable<K, V> {
    const source = this.source(topic, options, false);
    const stream = new KStream<K, V>(this.b, source, { key: options.key, value: options.value }, false);
    return materializeStream(stream, { name: options.name }, 'table');
  }

  /** A table every task can read in full (all partitions), for joins through any key. */
  globalTable<K, V>(topic: string, options: SourceOptions<K, V> & Named): GlobalKTable<K, V> {
    const source = this.source(topic, options, true);
    const name = this.b.statefulName('globalTable', options, source);
    this.b.addStore({
      name,
      kind: 'keyValue',
      key: options.key as Serde<unknown>,
      value: options.value as Serde<unknown>,
      persistent: false,
      logged: false,
      global: true,
      sourceTopic: topic,
      timestamped: true,
    });
    this.b.addNode({
      name,
      kind: 'processor',
      operation: 'globalTable',
      parents: [source],
      stores: [name],
      stateful: true,
      create: () => materializeProcessor(name),
    });
    return new GlobalKTable<K, V>(name, topic, { key: options.key, value: options.value });
  }

  /** Checks the topology and returns it; the builder cannot be changed afterwards. */
  build(): Topology {
    if (this.built) throw new StreamsError('STATE', 'build() was already called on this builder');
    if (this.b.nodes.size === 0)
      throw new StreamsError('TOPOLOGY', 'the topology is empty: add a stream, table or globalTable');
    if (this.b.problems.length > 0) {
      throw new StreamsError(
        'TOPOLOGY',
        `the topology of ${this.config.applicationId} has ${this.b.problems.length} problem(s):\n` +
          this.b.problems.map((p) => `  - ${p}`).join('\n'),
      );
    }
    this.built = true;
    return new Topology(this.config.applicationId, this.b.nodes, this.b.stores, this.b.internalTopics);
  }

  /**
   * The application that runs `topology` on this builder's cluster (`tide.streams(...)` gives the
   * builder its client): `await app.start()`, `await app.close()`.
   */
  app(topology: Topology, options: StreamsAppOptions = {}): StreamsApp {
    if (!this.client) {
      throw new StreamsError(
        'STATE',
        'this builder has no client: make it with tide.streams({ applicationId }), or use new StreamsApp(tide, topology)',
      );
    }
    return new StreamsApp(this.client as Tide, topology, {
      processingGuarantee: this.config.processingGuarantee,
      ...options,
    });
  }

  private source<K, V>(topic: string, options: SourceOptions<K, V>, global: boolean): string {
    if (typeof topic !== 'string' || topic.length === 0) {
      throw new StreamsError(
        'TOPOLOGY',
        `a source topic must be a non-empty string, got ${JSON.stringify(topic)}`,
      );
    }
    if (!options?.key || !options?.value) {
      throw new StreamsError(
        'TOPOLOGY',
        `reading "${topic}" needs { key, value } serdes (Serdes.string, Serdes.json<T>()...)`,
      );
    }
    const name = this.b.addSourceTopic(topic, `source-${topic}`)
      ? `source-${topic}`
      : this.b.autoName(`source-${topic}`);
    this.b.addNode({
      name,
      kind: 'source',
      operation: global ? 'globalTable-source' : 'source',
      parents: [],
      stores: [],
      stateful: false,
      source: {
        topics: [topic],
        key: options.key as Serde<unknown>,
        value: options.value as Serde<unknown>,
        timestampExtractor: options.timestampExtractor ?? this.config.defaultTimestampExtractor,
        internal: false,
        global,
      },
      create: sourceProcessor,
    });
    return name;
  }
}
