/**
 * Brokers reduced to one partition replica each, for replication scenarios on real logs: each
 * TestReplica has its log in its own temp dir, a Partition, and a ReplicaFetcherManager that
 * reaches the other replicas through the in-process connector (the same protocol code as gRPC,
 * minus the sockets). Roles are set by hand, as metadata would; "crash" closes everything and
 * "restart" reopens the log from disk.
 */
import { systemClock } from '../../../services/common/clock';
import { silentLogger } from '../../../services/common/logger';
import { decodeRecords } from '../../../services/common/records';
import { Partition, type IsrProposer } from '../../../services/broker/partition/partition';
import {
  replicationSettings,
  type ReplicationSettings,
} from '../../../services/broker/partition/replication-settings';
import type { SegmentedLog } from '../../../services/broker/log/partition-log';
import type { LogConfig } from '../../../services/broker/log/interface';
import { ReplicaFetcherManager } from '../../../services/broker/replication/fetcher-manager';
import { inProcessConnector } from '../../../services/broker/replication/in-process';
import type { LeaderFetchDeps } from '../../../services/broker/replication/leader-fetch';
import { buildBatch } from '../log/batches';
import { TempDirs, openLog, readAll, testConfig } from '../log/helpers';

export const FAST: Partial<ReplicationSettings> = {
  replicaFetchWaitMaxMs: 20,
  replicaFetchBackoffMs: 20,
  replicaReconnectBackoffMaxMs: 50,
  replicaLagTimeMaxMs: 1_000,
};

export class ReplicaSet {
  readonly replicas = new Map<number, TestReplica>();

  constructor(
    readonly dirs: TempDirs,
    readonly settings: Partial<ReplicationSettings> = FAST,
    readonly config: LogConfig = testConfig({ segmentBytes: 1 << 20 }),
  ) {}

  async add(id: number, proposer?: IsrProposer): Promise<TestReplica> {
    const replica = new TestReplica(this, id, await this.dirs.make(`tide-replica-${id}-`), proposer);
    this.replicas.set(id, replica);
    await replica.start();
    return replica;
  }

  get(id: number): TestReplica {
    const replica = this.replicas.get(id);
    if (!replica) throw new Error(`no replica ${id}`);
    return replica;
  }

  /** Leader-side deps of a replica that is up, for the in-process connector. */
  leaderDeps(id: number): LeaderFetchDeps | undefined {
    const replica = this.replicas.get(id);
    return replica?.up ? replica.leaderDeps : undefined;
  }

  async closeAll(): Promise<void> {
    for (const replica of this.replicas.values()) await replica.crash();
  }
}

export class TestReplica {
  up = false;
  log!: SegmentedLog;
  partition!: Partition;
  fetchers!: ReplicaFetcherManager;
  leaderDeps!: LeaderFetchDeps;

  constructor(
    private readonly set: ReplicaSet,
    readonly id: number,
    readonly dataDir: string,
    private readonly proposer?: IsrProposer,
  ) {}

  async start(): Promise<void> {
    const settings = replicationSettings(this.set.settings);
    this.log = await openLog(this.dataDir, this.set.config, systemClock);
    this.partition = new Partition(this.log, {
      brokerId: this.id,
      clock: systemClock,
      logger: silentLogger(),
      settings,
      isrProposer: this.proposer,
    });
    const partition = this.partition;
    this.leaderDeps = {
      partitions: { brokerId: this.id, hosted: () => partition },
      clock: systemClock,
      logger: silentLogger(),
      defaultMaxBytes: settings.replicaFetchMaxBytes,
    };
    this.fetchers = new ReplicaFetcherManager({
      brokerId: this.id,
      brokerEpoch: Date.now(),
      connect: inProcessConnector((id) => this.set.leaderDeps(id)),
      clock: systemClock,
      logger: silentLogger(),
      settings,
    });
    this.fetchers.setBrokers(
      [...this.set.replicas.keys()].map((id) => ({ id, host: `broker-${id}`, port: 1 })),
    );
    this.up = true;
  }

  /** Stops everything; the log closes cleanly (its files stay). */
  async crash(): Promise<void> {
    if (!this.up) return;
    this.up = false;
    await this.fetchers.close();
    this.partition.close();
    await this.log.close();
  }

  async restart(): Promise<void> {
    await this.crash();
    await this.start();
  }

  async lead(leaderEpoch: number, isr: number[], minIsr = 1): Promise<void> {
    this.fetchers.remove(this.partition);
    await this.partition.makeLeader(
      { leader: this.id, leaderEpoch, partitionEpoch: 0, replicas: [...this.set.replicas.keys()], isr },
      minIsr,
    );
  }

  follow(leader: number, leaderEpoch: number, isr: number[] = [...this.set.replicas.keys()]): void {
    this.partition.makeFollower({
      leader,
      leaderEpoch,
      partitionEpoch: 0,
      replicas: [...this.set.replicas.keys()],
      isr,
    });
    this.fetchers.add(this.partition, leader, leaderEpoch);
  }

  /** Keeps following, but stops fetching (a paused or cut-off follower). */
  pauseFetching(): void {
    this.fetchers.remove(this.partition);
  }

  produce(value: string, acks: 'leader' | 'all' = 'leader') {
    return this.partition.append(buildBatch({ records: [{ value }] }), { acks, timeoutMs: 5_000 });
  }

  /** (offset, value, leader epoch) of every record in the log. */
  async records(): Promise<{ offset: number; value: string }[]> {
    return decodeRecords(await readAll(this.log)).map((r) => ({
      offset: r.offset,
      value: r.value?.toString() ?? '',
    }));
  }

  async bytes(): Promise<Buffer> {
    return readAll(this.log);
  }
}

/** Polls `condition` until it holds (real time; fails after timeoutMs). */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 5_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}
