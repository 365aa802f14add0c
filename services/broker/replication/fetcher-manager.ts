/**
 * ReplicaFetcherManager: the FollowerFetchers the ReplicaManager drives. One ReplicaFetcher (one
 * stream) per leader broker, created when the first partition led there is added and stopped when
 * its last one leaves; leader addresses come from the live broker list (setBrokers, fed by the
 * BrokerRegistry watch).
 *
 * It also watches each fetcher's silence: a fetcher with partitions to follow whose registered
 * leader has not answered for replicaLeaderUnreachableMs is reported (onLeaderUnreachable, about
 * once a second while it lasts), so the controller can move leadership away from a leader that is
 * cut off from its followers but still holds its etcd lease.
 */
import type { Clock, Timer } from '../../common/clock';
import type { Logger } from '../../common/logger';
import type { Partition } from '../partition/partition';
import type { FollowerFetchers } from '../partition/replica-manager';
import type { ReplicationSettings } from '../partition/replication-settings';
import { ReplicaFetcher } from './replica-fetcher';
import type { LeaderEndpoint, ReplicationConnector } from './session';

export interface ReplicaFetcherManagerDeps {
  brokerId: number;
  /** This broker's incarnation (e.g. its start time): lets leaders tell a restarted follower apart. */
  brokerEpoch: number;
  connect: ReplicationConnector;
  clock: Clock;
  logger: Logger;
  settings: ReplicationSettings;
  /** Told (repeatedly) of a leader broker that has not answered for forMs; absent: no reports. */
  onLeaderUnreachable?: (leaderId: number, forMs: number) => Promise<void>;
}

/** Where a follower reports a leader broker it cannot reach (the controller's RPC). */
export interface LeaderUnreachableReporter {
  reportLeaderUnreachable(brokerId: number, leaderId: number, forMs: number): Promise<void>;
}

/** Shortest pause between two reports about the same leader. */
const REPORT_INTERVAL_MS = 1_000;

export class ReplicaFetcherManager implements FollowerFetchers {
  private readonly brokers = new Map<number, LeaderEndpoint>();
  private readonly fetchers = new Map<number, ReplicaFetcher>();
  private readonly leaderOf = new Map<Partition, number>();
  private closed = false;
  private readonly lastReportMs = new Map<number, number>();
  private readonly silenceTimer: Timer | undefined;

  constructor(private readonly deps: ReplicaFetcherManagerDeps) {
    if (deps.onLeaderUnreachable) {
      const everyMs = Math.max(50, Math.floor(deps.settings.replicaLeaderUnreachableMs / 4));
      this.silenceTimer = deps.clock.setInterval(() => this.checkSilence(), everyMs);
    }
  }

  private checkSilence(): void {
    const nowMs = this.deps.clock.nowMs();
    for (const [leaderId, fetcher] of this.fetchers) {
      const silentMs = fetcher.silentForMs(nowMs);
      if (silentMs < this.deps.settings.replicaLeaderUnreachableMs) continue;
      if (!this.brokers.has(leaderId)) continue; // not registered: the lease path handles it
      if (nowMs - (this.lastReportMs.get(leaderId) ?? 0) < REPORT_INTERVAL_MS) continue;
      this.lastReportMs.set(leaderId, nowMs);
      this.deps.logger.warn({ leader: leaderId, silentMs }, 'no answer from the leader broker; reporting it');
      this.deps.onLeaderUnreachable!(leaderId, silentMs).catch((err: unknown) =>
        this.deps.logger.warn({ err, leader: leaderId }, 'could not report an unreachable leader'),
      );
    }
  }

  /** The live brokers (id, host, port); fetchers whose leader moved reconnect. */
  setBrokers(brokers: readonly LeaderEndpoint[]): void {
    const before = new Map(this.brokers);
    this.brokers.clear();
    for (const b of brokers) this.brokers.set(b.id, { id: b.id, host: b.host, port: b.port });
    for (const [leaderId, fetcher] of this.fetchers) {
      const was = before.get(leaderId);
      const now = this.brokers.get(leaderId);
      if (was?.host !== now?.host || was?.port !== now?.port) fetcher.leaderAddressChanged();
    }
  }

  add(partition: Partition, leaderId: number, leaderEpoch: number): void {
    if (this.closed) return;
    this.remove(partition);
    let fetcher = this.fetchers.get(leaderId);
    if (!fetcher) {
      fetcher = new ReplicaFetcher({
        brokerId: this.deps.brokerId,
        brokerEpoch: this.deps.brokerEpoch,
        leaderId,
        connect: this.deps.connect,
        resolveLeader: (id) => this.brokers.get(id),
        clock: this.deps.clock,
        logger: this.deps.logger,
        settings: this.deps.settings,
      });
      this.fetchers.set(leaderId, fetcher);
      fetcher.start();
    }
    fetcher.add(partition, leaderEpoch);
    this.leaderOf.set(partition, leaderId);
  }

  remove(partition: Partition): void {
    const leaderId = this.leaderOf.get(partition);
    if (leaderId === undefined) return;
    this.leaderOf.delete(partition);
    const fetcher = this.fetchers.get(leaderId);
    if (!fetcher) return;
    fetcher.remove(partition);
    if (fetcher.size === 0) {
      this.fetchers.delete(leaderId);
      void fetcher.stop();
    }
  }

  /** Leader broker ids with a running fetcher (for tests and describe). */
  leaders(): number[] {
    return [...this.fetchers.keys()].sort((a, b) => a - b);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.silenceTimer?.cancel();
    const fetchers = [...this.fetchers.values()];
    this.fetchers.clear();
    this.leaderOf.clear();
    await Promise.all(fetchers.map((f) => f.stop()));
  }
}
