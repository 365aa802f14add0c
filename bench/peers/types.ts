/**
 * The contracts of the peer benchmark: a Target (one system under test, servers and client, as the
 * workloads drive it) and a ResultRow (one measured line of one workload's table).
 */

/** How an acknowledged record survives a crash, so rows are compared like with like. */
export type Durability =
  /** fsync before the acknowledgement (Tide flush.policy=sync, Redis appendfsync always). */
  | 'fsync-per-ack'
  /** written before the ack, fsync'd on a timer (Tide interval, Redis everysec, JetStream 2.9). */
  | 'fsync-periodic';

export type WorkloadId = 1 | 2 | 3 | 4;

export const WORKLOAD_TITLES: Record<WorkloadId, string> = {
  1: 'Workload 1: one producer, produce then consume, 1 replica',
  2: 'Workload 2: 3 replicas, strongest ack',
  3: 'Workload 3: end-to-end latency at a fixed rate',
  4: 'Workload 4: produce across many partitions',
};

/**
 * One system under test, running: its servers are up when the Target exists, and close() stops
 * them. A "stream" is a topic of `partitions` partitions (JetStream: one stream per partition;
 * Redis: one stream key per partition).
 */
export interface Target {
  /** e.g. 'Tide'. */
  readonly system: string;
  /** e.g. 'R1, flush.policy=sync'. */
  readonly config: string;
  readonly durability: Durability;
  readonly replicas: number;
  /** What the benchmark drives it with, e.g. 'ioredis 5.11.1 (pipelines of 1,000)'. */
  readonly client: string;
  /** host:port of each server clients connect to. */
  readonly endpoints: string[];
  /** Every server process (for peak RSS and CPU), the data path's and the metadata's. */
  serverPids(): number[];
  createStream(name: string, partitions: number): Promise<void>;
  /**
   * Sends `count` records: record i has value values[i % values.length] and goes to partition
   * i % partitions. At most `inflight` records are unacknowledged at once (Tide: its producer
   * buffer). Resolves when every record is acknowledged; rejects on any failed record.
   */
  produce(name: string, values: Buffer[], count: number, partitions: number, inflight: number): Promise<void>;
  /** Reads `count` records back from the start of every partition; resolves with how many it read. */
  consume(name: string, count: number, partitions: number): Promise<number>;
  /**
   * Starts a reader at the end of partition 0 that calls onValue for every new record, and a
   * sender for single records; for the latency workload.
   */
  openLatencyPath(name: string, onValue: (value: Buffer) => void): Promise<LatencyPath>;
  /** Stops the client and every server, and removes their data. Idempotent. */
  close(): Promise<void>;
}

export interface LatencyPath {
  /** Sends one record to partition 0 now; the promise settles with its acknowledgement. */
  send(value: Buffer): Promise<void>;
  close(): Promise<void>;
}

export interface LatencyMs {
  p50: number;
  p99: number;
  p999: number;
}

/** One line of a workload's table; also the unit of the results JSON. */
export interface ResultRow {
  workload: WorkloadId;
  system: string;
  config: string;
  durability: Durability;
  replicas: number;
  client: string;
  /** A native (non-Node) client measured the row: its own benchmark tool. */
  native: boolean;
  records: number;
  recordBytes: number;
  partitions: number;
  produceRecordsPerSec?: number;
  produceMBPerSec?: number;
  consumeRecordsPerSec?: number;
  /** End-to-end (produce call to consumer receipt) for workload 3. */
  latencyMs?: LatencyMs;
  /** Workload 3: from the send call to the producer's acknowledgement. */
  ackLatencyMs?: LatencyMs;
  /** Workload 3: records sent per second, and how many never arrived before the deadline. */
  rate?: number;
  lost?: number;
  /** Sum over the server processes of their peak RSS (VmHWM). */
  serverPeakRssBytes?: number;
  /** Server CPU seconds over the whole case (produce and consume), and while producing. */
  serverCpuSec?: number;
  serverProduceCpuSec?: number;
  /** CPU of the benchmark process while producing (and consuming): the Node client's cost. */
  clientProduceCpuSec?: number;
  clientConsumeCpuSec?: number;
  /** The Node client, not the server, limited the produce phase (see isClientBound). */
  clientBound?: boolean;
  note?: string;
}
