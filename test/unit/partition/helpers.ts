/** Fixtures for partition tests: a Partition on a real temp log, a scriptable ISR proposer. */
import { ManualClock } from '../../../services/common/clock';
import { TideError } from '../../../services/common/errors';
import { silentLogger } from '../../../services/common/logger';
import type { PartitionState } from '../../../services/common/metadata/keys';
import { Partition, type IsrProposal, type IsrProposer } from '../../../services/broker/partition/partition';
import type { TxnPartitionJoiner } from '../../../services/broker/partition/txn-join';
import {
  replicationSettings,
  type ReplicationSettings,
} from '../../../services/broker/partition/replication-settings';
import type { SegmentedLog } from '../../../services/broker/log/partition-log';
import { TempDirs, openLog, testConfig } from '../log/helpers';

export const LAG_MS = 10_000;

/** An ISR proposer whose answers the test gives by hand. */
export class ScriptedProposer implements IsrProposer {
  readonly calls: {
    proposal: IsrProposal;
    resolve: (s: PartitionState) => void;
    reject: (e: Error) => void;
  }[] = [];

  alterPartition(proposal: IsrProposal): Promise<PartitionState> {
    return new Promise((resolve, reject) => this.calls.push({ proposal, resolve, reject }));
  }

  /** Accepts call i as the controller would: the proposed ISR with the partition epoch bumped. */
  accept(i: number, replicas: number[]): void {
    const { proposal, resolve } = this.calls[i];
    resolve({
      leader: proposal.brokerId,
      leaderEpoch: proposal.leaderEpoch,
      partitionEpoch: proposal.partitionEpoch + 1,
      replicas,
      isr: proposal.newIsr,
    });
  }

  fence(i: number): void {
    this.calls[i].reject(new TideError('FENCED_EPOCH', 'stale epochs'));
  }
}

export interface PartitionFixture {
  partition: Partition;
  log: SegmentedLog;
  clock: ManualClock;
  proposer: ScriptedProposer;
  lease: { ok: boolean };
}

export async function partitionOn(
  dirs: TempDirs,
  options: {
    brokerId?: number;
    settings?: Partial<ReplicationSettings>;
    clock?: ManualClock;
    txnJoiner?: TxnPartitionJoiner;
  } = {},
): Promise<PartitionFixture> {
  const clock = options.clock ?? new ManualClock();
  const log = await openLog(await dirs.make(), testConfig({ segmentBytes: 1 << 20 }), clock);
  const proposer = new ScriptedProposer();
  const lease = { ok: true };
  const partition = new Partition(log, {
    brokerId: options.brokerId ?? 1,
    clock,
    logger: silentLogger(),
    settings: replicationSettings({ replicaLagTimeMaxMs: LAG_MS, ...options.settings }),
    isrProposer: proposer,
    mayLead: () => lease.ok,
    txnJoiner: options.txnJoiner,
  });
  return { partition, log, clock, proposer, lease };
}

export function state(overrides: Partial<PartitionState> = {}): PartitionState {
  return { leader: 1, leaderEpoch: 5, partitionEpoch: 3, replicas: [1, 2, 3], isr: [1, 2, 3], ...overrides };
}

/** Lets I/O callbacks and microtasks run until `condition` holds (or fails after ~2 s). */
export async function until(condition: () => boolean, what = 'condition'): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The outcome of a promise without awaiting it: 'pending' | 'resolved' | the error code. */
export function track<T>(promise: Promise<T>): { readonly outcome: string; readonly value?: T } {
  const tracker: { outcome: string; value?: T } = { outcome: 'pending' };
  promise.then(
    (value) => {
      tracker.outcome = 'resolved';
      tracker.value = value;
    },
    (err: unknown) => {
      tracker.outcome = err instanceof TideError ? err.code : String(err);
    },
  );
  return tracker;
}
