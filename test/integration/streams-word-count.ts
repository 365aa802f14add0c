/**
 * The word-count fixture the streams integration tests share: a real cluster (etcd, a controller,
 * a broker, a coordinator) with the app's input `text` and output `word-counts` topics (4
 * partitions each unless told), a reader that keeps the latest count the app wrote for each word, the counts
 * the produced lines should give, and app instances (streams-harness.ts) each on a state
 * directory of its own under one temp dir.
 */
import * as path from 'path';
import { Tide, type Consumer, type IsolationLevel } from '../../client';
import { Serdes } from '../../streams';
import { TestCluster } from '../harness/cluster';
import { makeTempDir } from '../harness/processes';
import { killAllApps, startApp, type AppProcess } from './streams-harness';

/** What a test may choose for an app instance it starts (the rest comes from the fixture). */
export type WordCountAppOptions = Pick<
  Parameters<typeof startApp>[0],
  'guarantee' | 'commitIntervalMs' | 'numStandbys' | 'query'
>;

export interface WordCountOptions {
  /** The streams application id (it names the app's internal topics). */
  appId: string;
  /** Prefix of the temp dir that holds every instance's state directory. */
  stateDirPrefix: string;
  /** The words of input line number `line`: each test has its own pattern. */
  wordsOfLine: (line: number) => string[];
  /** Session timeout of the app instances (default 10 s). */
  sessionTimeoutMs?: number;
  /** Partitions of `text` and `word-counts` (default 4). */
  partitions?: number;
  /** How the reader of `word-counts` reads (default read_uncommitted). */
  isolation?: IsolationLevel;
  /** Environment of the coordinator process. */
  coordinatorEnv?: NodeJS.ProcessEnv;
}

export class WordCountFixture {
  /** The latest count the app wrote for each word. */
  readonly latest = new Map<string, number>();
  /** The count each word should reach from the lines produced so far. */
  readonly expected = new Map<string, number>();
  private readonly stateRoot: string;
  private line = 0;
  private startedCluster: TestCluster | undefined;
  private client: Tide | undefined;

  constructor(private readonly options: WordCountOptions) {
    this.stateRoot = makeTempDir(options.stateDirPrefix);
  }

  get cluster(): TestCluster {
    if (!this.startedCluster) throw new Error('WordCountFixture: start() first');
    return this.startedCluster;
  }

  get tide(): Tide {
    if (!this.client) throw new Error('WordCountFixture: start() first');
    return this.client;
  }

  /** Starts the cluster, creates the topics and starts reading the counts. */
  async start(): Promise<void> {
    const partitions = this.options.partitions ?? 4;
    this.startedCluster = await TestCluster.start({ brokers: 1, controllers: 1 });
    await this.startedCluster.startCoordinator('c1', { env: this.options.coordinatorEnv });
    this.client = new Tide({ bootstrap: this.startedCluster.bootstrap() });
    await this.client.admin().createTopic('text', { partitions, replicationFactor: 1 });
    await this.client.admin().createTopic('word-counts', { partitions, replicationFactor: 1 });
    const reader = this.client.consumer({ autoOffsetReset: 'earliest', isolation: this.options.isolation });
    reader.assign(
      Array.from({ length: partitions }, (_, partition) => ({ topic: 'word-counts', partition, offset: 0 })),
    );
    void this.readCounts(reader);
  }

  /** Kills every app instance, then closes the client and stops the cluster (whatever started). */
  async stop(): Promise<void> {
    await killAllApps();
    await this.client?.close();
    await this.startedCluster?.stop();
  }

  /** Produces the next `n` input lines, keyed by line number, and adds their words to `expected`. */
  async produce(n: number): Promise<void> {
    const producer = this.tide.producer();
    const records = [];
    for (let i = 0; i < n; i++, this.line++) {
      const words = this.options.wordsOfLine(this.line);
      for (const w of words) this.expected.set(w, (this.expected.get(w) ?? 0) + 1);
      records.push({ key: `line-${this.line}`, value: words.join(' ') });
    }
    try {
      await producer.send('text', records);
    } finally {
      await producer.close();
    }
  }

  /** Every word's latest count is its expected count. */
  exact(): boolean {
    return [...this.expected].every(([w, n]) => this.latest.get(w) === n);
  }

  /** Every word's latest count is at least its expected count (at-least-once may count twice). */
  atLeastExact(): boolean {
    return [...this.expected].every(([w, n]) => (this.latest.get(w) ?? 0) >= n);
  }

  /** Starts an app instance named `tag` on its own state directory (the same one on a restart). */
  startApp(tag: string, options: WordCountAppOptions = {}): AppProcess {
    return startApp({
      bootstrap: this.cluster.bootstrap(),
      appId: this.options.appId,
      stateDir: path.join(this.stateRoot, tag),
      tag,
      sessionTimeoutMs: this.options.sessionTimeoutMs ?? 10_000,
      ...options,
    });
  }

  private async readCounts(reader: Consumer): Promise<void> {
    for await (const r of reader) {
      this.latest.set(Serdes.string.deserialize(r.key!), Serdes.number.deserialize(r.value!));
    }
  }
}
