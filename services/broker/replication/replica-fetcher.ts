/**
 * The follower's side of replication towards ONE leader broker: one session (one bidi stream)
 * multiplexing every partition this broker follows on that leader, in a loop:
 *
 *   request (per partition: fetch_offset = LEO, current_leader_epoch, last_fetched_epoch = the
 *   newest epoch of the local log, log start) → the leader's answer (long-polled) → per partition:
 *     - records: drop the ones below the LEO, appendAsFollower, HW = min(leader HW, own LEO), log
 *       start up to the leader's (DeleteRecords), never past that HW;
 *     - diverging_epoch: truncate by leader epoch (Partition.truncateOnDivergence), fetch again;
 *     - OFFSET_OUT_OF_RANGE: restart at the leader's log start (behind it) or cut to its end (ahead
 *       of it, after an unclean election);
 *     - other errors (NOT_LEADER, FENCED_EPOCH...): the partition pauses for replica.fetch.backoff.ms
 *       while the metadata watch catches up; the others keep going.
 *   A broken stream (leader down, network) is reopened with exponential backoff (100 ms doubling
 *   to replicaReconnectBackoffMaxMs); no answer within max wait + replicaResponseTimeoutMs counts
 *   as broken. The leader's address comes from the live broker list (resolveLeader); a changed
 *   address reopens the stream there.
 * Partitions come and go as metadata changes (ReplicaFetcherManager). Every append or truncation
 * is done only while the partition still follows at the epoch the request named.
 */
import type { Clock, Timer } from '../../common/clock';
import { toTideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import type { ReplicaFetchPartition } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchPartition';
import type { ReplicaFetchPartitionResponse } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchPartitionResponse';
import type { ReplicaFetchRequest } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchRequest';
import type { ReplicaFetchResponse } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchResponse';
import type { Partition } from '../partition/partition';
import type { ReplicationSettings } from '../partition/replication-settings';
import { batchesFrom } from './fetched-batches';
import type { LeaderEndpoint, ReplicationConnector, ReplicationSession } from './session';

const RECONNECT_BACKOFF_MIN_MS = 100;

export interface ReplicaFetcherDeps {
  /** This (follower) broker. */
  brokerId: number;
  /** This broker's incarnation, sent as broker_epoch. */
  brokerEpoch: number;
  leaderId: number;
  connect: ReplicationConnector;
  /** The leader's current address, undefined while it is not registered. */
  resolveLeader: (brokerId: number) => LeaderEndpoint | undefined;
  clock: Clock;
  logger: Logger;
  settings: ReplicationSettings;
}

interface FetchedPartition {
  partition: Partition;
  leaderEpoch: number;
  backoffUntilMs: number;
  /** The last partition-level error code, to log each new problem once. */
  lastError: string;
}

function keyOf(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

export class ReplicaFetcher {
  private readonly partitions = new Map<string, FetchedPartition>();
  private readonly logger: Logger;
  private session: ReplicationSession | undefined;
  private sessionAddress = '';
  private reconnectDelayMs = RECONNECT_BACKOFF_MIN_MS;
  private failures = 0;
  private rotation = 0;
  private stopped = false;
  private running: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** When the leader last answered (or when there was last nothing to ask it). */
  private lastAnswerMs: number;

  constructor(private readonly deps: ReplicaFetcherDeps) {
    this.logger = deps.logger.child({ component: 'replica-fetcher', leader: deps.leaderId });
    this.lastAnswerMs = deps.clock.nowMs();
  }

  /**
   * How long the leader has kept this fetcher waiting: 0 while nothing here follows it, else the
   * time since its last answer (or since there was something to ask).
   */
  silentForMs(nowMs: number): number {
    const following = [...this.partitions.values()].some((e) => e.partition.isFollowing(e.leaderEpoch));
    if (!following) {
      this.lastAnswerMs = nowMs;
      return 0;
    }
    return nowMs - this.lastAnswerMs;
  }

  get leaderId(): number {
    return this.deps.leaderId;
  }

  get size(): number {
    return this.partitions.size;
  }

  /** Starts (or moves to a new epoch) fetching `partition`. */
  add(partition: Partition, leaderEpoch: number): void {
    if (this.partitions.size === 0) this.lastAnswerMs = this.deps.clock.nowMs();
    this.partitions.set(keyOf(partition.topic, partition.partition), {
      partition,
      leaderEpoch,
      backoffUntilMs: 0,
      lastError: '',
    });
    this.wakeUp();
  }

  remove(partition: Partition): void {
    const key = keyOf(partition.topic, partition.partition);
    if (this.partitions.get(key)?.partition === partition) this.partitions.delete(key);
  }

  /** The leader's registration changed: reconnect when its address did. */
  leaderAddressChanged(): void {
    this.lastAnswerMs = this.deps.clock.nowMs();
    const endpoint = this.deps.resolveLeader(this.deps.leaderId);
    if (this.session && (!endpoint || `${endpoint.host}:${endpoint.port}` !== this.sessionAddress))
      this.dropSession();
    this.wakeUp();
  }

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.dropSession();
    this.wakeUp();
    await this.running;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await this.iterate();
      } catch (err) {
        // A bug in the loop must not stop replication for good; pause and go on.
        this.logger.error({ err }, 'replica fetcher iteration failed');
        await this.sleep(this.deps.settings.replicaFetchBackoffMs);
      }
    }
  }

  private async iterate(): Promise<void> {
    const request = this.buildRequest();
    if (!request) {
      await this.sleep(this.untilNextBackoffExpiryMs());
      return;
    }
    const session = this.ensureSession();
    if (!session) {
      await this.sleep(this.reconnectDelayMs);
      return;
    }
    let response: ReplicaFetchResponse;
    try {
      response = await this.withTimeout(
        session,
        session.fetch(request),
        request.max_wait_ms + this.deps.settings.replicaResponseTimeoutMs,
      );
    } catch (err) {
      if (this.stopped) return;
      this.onStreamFailure(err);
      await this.sleep(this.reconnectDelayMs);
      this.reconnectDelayMs = Math.min(
        this.reconnectDelayMs * 2,
        this.deps.settings.replicaReconnectBackoffMaxMs,
      );
      return;
    }
    this.lastAnswerMs = this.deps.clock.nowMs();
    if (this.failures > 0)
      this.logger.info({ failures: this.failures }, 'replication stream to leader re-established');
    this.failures = 0;
    this.reconnectDelayMs = RECONNECT_BACKOFF_MIN_MS;
    const requested = new Map(request.partitions.map((p) => [keyOf(p.topic, p.partition), p]));
    await Promise.all(
      response.partitions.map((answer) => {
        const asked = requested.get(keyOf(answer.topic, answer.partition));
        return asked ? this.handleAnswer(asked, answer) : Promise.resolve();
      }),
    );
  }

  private buildRequest(): ReplicaFetchRequest | undefined {
    const nowMs = this.deps.clock.nowMs();
    const ready = [...this.partitions.values()].filter(
      (e) => e.backoffUntilMs <= nowMs && e.partition.isFollowing(e.leaderEpoch),
    );
    if (ready.length === 0) return undefined;
    // Rotate the order so that max_bytes does not always favour the same partitions.
    const start = this.rotation++ % ready.length;
    const ordered = [...ready.slice(start), ...ready.slice(0, start)];
    const partitions: ReplicaFetchPartition[] = ordered.map((e) => ({
      topic: e.partition.topic,
      partition: e.partition.partition,
      fetch_offset: e.partition.log.logEndOffset,
      current_leader_epoch: e.leaderEpoch,
      last_fetched_epoch: e.partition.log.latestEpoch,
      log_start_offset: e.partition.log.logStartOffset,
    }));
    return {
      replica_id: this.deps.brokerId,
      broker_epoch: this.deps.brokerEpoch,
      partitions,
      max_wait_ms: this.deps.settings.replicaFetchWaitMaxMs,
      max_bytes: this.deps.settings.replicaFetchMaxBytes,
    };
  }

  private async handleAnswer(
    asked: ReplicaFetchPartition,
    answer: ReplicaFetchPartitionResponse,
  ): Promise<void> {
    const entry = this.partitions.get(keyOf(asked.topic, asked.partition));
    if (!entry || entry.leaderEpoch !== asked.current_leader_epoch) return; // moved meanwhile
    const { partition } = entry;
    const epoch = asked.current_leader_epoch;
    try {
      if (answer.error_code) {
        await this.handleError(entry, answer);
        return;
      }
      entry.lastError = '';
      if (answer.diverging_epoch) {
        await partition.truncateOnDivergence(epoch, {
          epoch: answer.diverging_epoch.epoch,
          endOffset: answer.diverging_epoch.end_offset,
        });
        return;
      }
      let batches = answer.record_batches;
      if (batches.length > 0) {
        const prepared = batchesFrom(batches, partition.log.logEndOffset);
        if (prepared.kind === 'misaligned') {
          this.logger.warn(
            {
              topic: partition.topic,
              partition: partition.partition,
              baseOffset: prepared.baseOffset,
              logEndOffset: partition.log.logEndOffset,
            },
            'leader batch straddles the local log end: truncating to its base offset',
          );
          await partition.truncateTo(epoch, prepared.baseOffset);
          return;
        }
        batches = prepared.batches;
      }
      await partition.appendFromLeader(epoch, batches, answer.high_watermark, answer.log_start_offset);
    } catch (err) {
      const error = toTideError(err);
      entry.backoffUntilMs = this.deps.clock.nowMs() + this.deps.settings.replicaFetchBackoffMs;
      if (entry.lastError !== error.code) {
        this.logger.warn(
          { err, topic: partition.topic, partition: partition.partition },
          'applying fetched data failed',
        );
      }
      entry.lastError = error.code;
    }
  }

  private async handleError(entry: FetchedPartition, answer: ReplicaFetchPartitionResponse): Promise<void> {
    const { partition } = entry;
    if (answer.error_code === 'OFFSET_OUT_OF_RANGE') {
      const reset = await partition.resetToLeaderRange(
        entry.leaderEpoch,
        answer.log_start_offset,
        answer.leader_log_end_offset,
      );
      if (reset) return;
    }
    entry.backoffUntilMs = this.deps.clock.nowMs() + this.deps.settings.replicaFetchBackoffMs;
    const fields = {
      topic: partition.topic,
      partition: partition.partition,
      code: answer.error_code,
      msg: answer.error_message,
    };
    if (entry.lastError !== answer.error_code)
      this.logger.info(fields, 'leader refused a partition fetch; backing off');
    else this.logger.debug(fields, 'leader refused a partition fetch; backing off');
    entry.lastError = answer.error_code;
  }

  private ensureSession(): ReplicationSession | undefined {
    const endpoint = this.deps.resolveLeader(this.deps.leaderId);
    if (!endpoint) {
      this.dropSession();
      if (this.failures++ === 0) this.logger.warn('leader broker is not registered; waiting for it');
      return undefined;
    }
    const address = `${endpoint.host}:${endpoint.port}`;
    if (this.session && this.sessionAddress !== address) this.dropSession();
    if (!this.session) {
      this.session = this.deps.connect(endpoint);
      this.sessionAddress = address;
    }
    return this.session;
  }

  private onStreamFailure(err: unknown): void {
    this.dropSession();
    const fields = { err, address: this.sessionAddress, retryInMs: this.reconnectDelayMs };
    if (this.failures++ === 0) this.logger.warn(fields, 'replication stream to leader failed; reconnecting');
    else this.logger.debug(fields, 'replication stream to leader failed again');
  }

  private dropSession(): void {
    this.session?.close();
    this.session = undefined;
  }

  /** Rejects (and drops the session) when no answer came within timeoutMs. */
  private withTimeout<T>(session: ReplicationSession, promise: Promise<T>, timeoutMs: number): Promise<T> {
    let timer: Timer | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = this.deps.clock.setTimeout(() => {
        reject(new Error(`no answer from leader ${this.deps.leaderId} within ${timeoutMs} ms`));
        if (this.session === session) this.dropSession();
      }, timeoutMs);
    });
    return Promise.race([promise, timeout]).finally(() => timer?.cancel());
  }

  private untilNextBackoffExpiryMs(): number {
    const nowMs = this.deps.clock.nowMs();
    let next = Number.POSITIVE_INFINITY;
    for (const e of this.partitions.values()) {
      if (e.backoffUntilMs > nowMs && e.partition.isFollowing(e.leaderEpoch))
        next = Math.min(next, e.backoffUntilMs - nowMs);
    }
    return next;
  }

  /** Sleeps up to ms (Infinity: until woken); add(), stop() and address changes wake it. */
  private sleep(ms: number): Promise<void> {
    if (this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let timer: Timer | undefined;
      const done = () => {
        timer?.cancel();
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      if (Number.isFinite(ms)) timer = this.deps.clock.setTimeout(done, ms);
      this.wake = done;
    });
  }

  private wakeUp(): void {
    this.wake?.();
  }
}
