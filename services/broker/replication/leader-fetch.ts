/**
 * The leader's side of replication: answers one ReplicaFetchRequest from a follower broker, for
 * every partition it names (transport-free; replication-service.ts puts it on the gRPC stream).
 *
 * Per partition, in order:
 *   1. this broker must host and lead it, else NOT_LEADER (the message names the leader it knows);
 *   2. current_leader_epoch older than the leader's → FENCED_EPOCH (the follower has stale
 *      metadata); newer → NOT_LEADER (this broker has not applied the new epoch yet: it is no
 *      longer, or not yet, the leader the follower thinks it is). Both are retriable: the
 *      follower backs the partition off and its metadata watch settles which leader to fetch from;
 *   3. the requesting broker must be one of the partition's replicas, else NOT_LEADER;
 *   4. fetch_offset below the log start offset → OFFSET_OUT_OF_RANGE (the follower restarts at the
 *      leader's log start, which the answer carries);
 *   5. diverging-epoch check (KIP-320), when last_fetched_epoch >= 0: the leader looks up where
 *      that epoch ends in its own log (endOffsetForEpoch); if its largest epoch <= the follower's
 *      is older, or ends before fetch_offset, the follower's log has a suffix the leader's lacks:
 *      the answer is diverging_epoch {epoch, end_offset}, without records, and the fetch does not
 *      count as the follower's progress;
 *   6. fetch_offset above the leader's LEO → OFFSET_OUT_OF_RANGE (only after an unclean election);
 *   7. the fetch offset becomes the follower's LEO (Partition.recordFollowerFetch: HW, ISR
 *      expansion), then batches are read from fetch_offset as stored, up to max_bytes for the whole
 *      answer (at least one batch for the first partition that has data). A follower the
 *      throttle applies to (throttle.ts: a replica a move is adding, not yet in the ISR) reads
 *      at most what the throttle grants, possibly nothing for now.
 * The answer carries the HW, the log start offset and the leader's LEO for every partition; the
 * follower moves its own log start up to the leader's (DeleteRecords reaches followers so), and
 * its next request's log_start_offset is what the leader's low watermark counts.
 *
 * Long poll: when no partition has records, an error, a divergence or an HW or log start offset
 * other than the one this stream last sent, the leader waits up to max_wait_ms for a change of
 * any of them (a local append, an HW move, DeleteRecords, a role change) and answers then. So a caught-up follower hears of new data
 * at once. An HW move alone is answered after up to HW_ONLY_LINGER_MS (records arriving meanwhile
 * carry it), so that under load each produce request costs a follower one round trip, not two; the
 * first answer on a stream goes at once. A moved log start alone is answered the same way. When only a throttled partition has data the wait ends
 * when the throttle grants bytes again, so the stream never blocks on it.
 */
import type { Clock } from '../../common/clock';
import { TideError, toTideError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../../common/grpc/server';
import type { ReplicaFetchPartition } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchPartition';
import type { ReplicaFetchPartitionResponse__Input } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchPartitionResponse';
import type { ReplicaFetchRequest } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchRequest';
import type { ReplicaFetchResponse__Input } from '../../common/grpc/generated/tide/v1/internal/ReplicaFetchResponse';
import type { Partition } from '../partition/partition';

/**
 * How long an answer whose only news is an HW move waits for records to carry it. Followers learn
 * the HW this much later at most; nothing waits on a follower's HW but its own consumers-to-be
 * after a failover.
 */
export const HW_ONLY_LINGER_MS = 5;

/** Longest long poll a follower may ask for. */
export const REPLICA_FETCH_MAX_WAIT_MS_LIMIT = 30_000;
/** Largest answer, leaving room for the message framing. */
export const REPLICA_FETCH_MAX_BYTES_LIMIT = DEFAULT_MAX_MESSAGE_BYTES - 1024 * 1024;

/** The partitions a broker hosts, in any role. */
export interface HostedPartitions {
  readonly brokerId: number;
  hosted(topic: string, partition: number): Partition | undefined;
}

export interface LeaderFetchDeps {
  partitions: HostedPartitions;
  clock: Clock;
  logger: Logger;
  /** max_bytes when the request gives 0. */
  defaultMaxBytes: number;
  /** Limits some followers' reads (the reassignment throttle, throttle.ts); absent: none. */
  throttle?: FetchThrottle;
}

/** A limit on the bytes some followers may read (see throttle.ts). */
export interface FetchThrottle {
  /**
   * The most `replicaId` may read of `partition` now (<= budget; 0 = nothing for now), or
   * undefined when the throttle does not apply to it.
   */
  limit(partition: Partition, replicaId: number, budget: number): number | undefined;
  /** Bytes just sent to a follower limit() applied to. */
  served(bytes: number): void;
  /** How long until limit() may grant bytes again. */
  msUntilAvailable(): number;
}

/**
 * What one replication stream remembers between requests: the HW and the log start offset it
 * last sent per partition.
 */
export class ReplicaFetchSession {
  readonly sentHighWatermarks = new Map<string, number>();
  readonly sentLogStartOffsets = new Map<string, number>();
}

function keyOf(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/** Answers one request; waits (long poll) as described above. Rejects only on a malformed request. */
export async function serveReplicaFetch(
  deps: LeaderFetchDeps,
  session: ReplicaFetchSession,
  request: ReplicaFetchRequest,
  signal: AbortSignal,
): Promise<ReplicaFetchResponse__Input> {
  checkRequest(deps, request);
  const maxWaitMs = Math.min(Math.max(request.max_wait_ms, 0), REPLICA_FETCH_MAX_WAIT_MS_LIMIT);
  const maxBytes =
    request.max_bytes > 0 ? Math.min(request.max_bytes, REPLICA_FETCH_MAX_BYTES_LIMIT) : deps.defaultMaxBytes;
  const deadlineMs = deps.clock.nowMs() + maxWaitMs;
  let hwOnlyDeadlineMs = Number.POSITIVE_INFINITY;
  for (;;) {
    const { partitions, news, held } = await onePass(deps, session, request, maxBytes);
    const nowMs = deps.clock.nowMs();
    if (news === 'hw' && hwOnlyDeadlineMs === Number.POSITIVE_INFINITY)
      hwOnlyDeadlineMs = nowMs + HW_ONLY_LINGER_MS;
    const remainingMs = Math.min(deadlineMs, hwOnlyDeadlineMs) - nowMs;
    if (news === 'data' || remainingMs <= 0 || signal.aborted) {
      for (const p of partitions) {
        const key = keyOf(p.topic ?? '', p.partition ?? 0);
        if (p.high_watermark !== undefined) session.sentHighWatermarks.set(key, Number(p.high_watermark));
        if (p.log_start_offset !== undefined)
          session.sentLogStartOffsets.set(key, Number(p.log_start_offset));
      }
      return { partitions };
    }
    const throttleMs = held && deps.throttle ? Math.max(1, deps.throttle.msUntilAvailable()) : Infinity;
    await waitForChange(deps, request, Math.min(remainingMs, throttleMs), signal);
  }
}

function checkRequest(deps: LeaderFetchDeps, request: ReplicaFetchRequest): void {
  if (!Number.isInteger(request.replica_id) || request.replica_id < 0) {
    throw new TideError('INVALID_REQUEST', `replica_id must be a broker id, got ${request.replica_id}`);
  }
  if (request.replica_id === deps.partitions.brokerId) {
    throw new TideError('INVALID_REQUEST', `broker ${request.replica_id} cannot replicate from itself`);
  }
  for (const p of request.partitions) {
    if (
      !p.topic ||
      !Number.isInteger(p.partition) ||
      p.partition < 0 ||
      !Number.isSafeInteger(p.fetch_offset) ||
      p.fetch_offset < 0
    ) {
      throw new TideError('INVALID_REQUEST', `malformed partition entry ${JSON.stringify({ ...p })}`);
    }
  }
}

async function onePass(
  deps: LeaderFetchDeps,
  session: ReplicaFetchSession,
  request: ReplicaFetchRequest,
  maxBytes: number,
): Promise<{
  partitions: ReplicaFetchPartitionResponse__Input[];
  news: 'none' | 'hw' | 'data';
  held: boolean;
}> {
  let budget = maxBytes;
  let news: 'none' | 'hw' | 'data' = 'none';
  let held = false;
  const partitions: ReplicaFetchPartitionResponse__Input[] = [];
  for (const wanted of request.partitions) {
    const answer = await answerPartition(deps, request, wanted, budget, () => (held = true));
    partitions.push(answer);
    const bytes = (answer.record_batches as Buffer | undefined)?.length ?? 0;
    budget -= bytes;
    const key = keyOf(wanted.topic, wanted.partition);
    const sentHw = session.sentHighWatermarks.get(key);
    const sentStart = session.sentLogStartOffsets.get(key);
    if (bytes > 0 || answer.error_code || answer.diverging_epoch || sentHw === undefined) news = 'data';
    else if ((sentHw !== answer.high_watermark || sentStart !== answer.log_start_offset) && news === 'none')
      news = 'hw';
  }
  return { partitions, news, held };
}

async function answerPartition(
  deps: LeaderFetchDeps,
  request: ReplicaFetchRequest,
  wanted: ReplicaFetchPartition,
  budget: number,
  /** Called when the throttle holds back data this follower lacks. */
  onHeld: () => void,
): Promise<ReplicaFetchPartitionResponse__Input> {
  const base = { topic: wanted.topic, partition: wanted.partition };
  const fail = (
    code: TideError['code'],
    message: string,
    partition?: Partition,
  ): ReplicaFetchPartitionResponse__Input => ({
    ...base,
    error_code: code,
    error_message: message,
    ...(partition ? positions(partition) : {}),
  });
  const name = `${wanted.topic}-${wanted.partition}`;
  const me = deps.partitions.brokerId;
  const partition = deps.partitions.hosted(wanted.topic, wanted.partition);
  if (!partition) return fail('NOT_LEADER', `broker ${me} does not host ${name}`);
  if (partition.role !== 'leader') {
    const leader =
      partition.leaderId >= 0 && partition.leaderId !== me ? `; broker ${partition.leaderId} does` : '';
    return fail(
      'NOT_LEADER',
      `broker ${me} does not lead ${name} at epoch ${partition.leaderEpoch}${leader}`,
    );
  }
  const epoch = partition.leaderEpoch;
  if (wanted.current_leader_epoch < epoch) {
    return fail(
      'FENCED_EPOCH',
      `${name} is at leader epoch ${epoch}; the fetch carries ${wanted.current_leader_epoch}`,
    );
  }
  if (wanted.current_leader_epoch > epoch) {
    return fail(
      'NOT_LEADER',
      `broker ${me} leads ${name} at epoch ${epoch} and has not seen epoch ${wanted.current_leader_epoch} yet`,
    );
  }
  if (!partition.replicas.includes(request.replica_id)) {
    return fail(
      'NOT_LEADER',
      `broker ${request.replica_id} is not a replica of ${name} (replicas ${JSON.stringify(partition.replicas)})`,
    );
  }
  const log = partition.log;
  if (wanted.fetch_offset < log.logStartOffset) {
    return fail(
      'OFFSET_OUT_OF_RANGE',
      `fetch offset ${wanted.fetch_offset} is below the log start offset ${log.logStartOffset} of ${name}`,
      partition,
    );
  }
  if (wanted.last_fetched_epoch >= 0) {
    const end = log.endOffsetForEpoch(wanted.last_fetched_epoch);
    if (!end) {
      deps.logger.error(
        { topic: wanted.topic, partition: wanted.partition, lastFetchedEpoch: wanted.last_fetched_epoch },
        'leader cannot place a fetched epoch',
      );
      return fail(
        'OFFSET_OUT_OF_RANGE',
        `leader of ${name} cannot tell where epoch ${wanted.last_fetched_epoch} ends`,
        partition,
      );
    }
    if (end.epoch < wanted.last_fetched_epoch || end.endOffset < wanted.fetch_offset) {
      return {
        ...base,
        ...positions(partition),
        diverging_epoch: { epoch: end.epoch, end_offset: end.endOffset },
      };
    }
  }
  if (wanted.fetch_offset > log.logEndOffset) {
    return fail(
      'OFFSET_OUT_OF_RANGE',
      `fetch offset ${wanted.fetch_offset} is above the log end offset ${log.logEndOffset} of ${name}`,
      partition,
    );
  }
  partition.recordFollowerFetch(
    request.replica_id,
    request.broker_epoch,
    wanted.fetch_offset,
    wanted.log_start_offset,
  );
  let batches: Buffer | undefined;
  // A throttled (reassignment) replica reads the log within its grant; the others are served
  // from memory when they fetch from an entry of the replication tail.
  const limit = deps.throttle?.limit(partition, request.replica_id, budget);
  const readBytes = limit ?? budget;
  if (limit === 0 && budget > 0 && wanted.fetch_offset < log.logEndOffset) onHeld();
  if (limit === undefined && budget > 0 && wanted.fetch_offset < log.logEndOffset) {
    batches = partition.replicationTail(wanted.fetch_offset, budget);
  }
  if (!batches && readBytes > 0 && wanted.fetch_offset < log.logEndOffset) {
    try {
      batches = (await log.read(wanted.fetch_offset, readBytes)).batches;
      if (limit !== undefined) deps.throttle!.served(batches.length);
    } catch (err) {
      const error = toTideError(err);
      if (error.code !== 'OFFSET_OUT_OF_RANGE')
        deps.logger.error(
          { err, topic: wanted.topic, partition: wanted.partition },
          'replication read failed',
        );
      return fail(error.code, error.message, partition);
    }
  }
  return {
    ...base,
    ...positions(partition),
    ...(batches && batches.length > 0 ? { record_batches: batches } : {}),
  };
}

function positions(
  partition: Partition,
): Pick<
  ReplicaFetchPartitionResponse__Input,
  'high_watermark' | 'log_start_offset' | 'leader_log_end_offset'
> {
  return {
    high_watermark: partition.highWatermark,
    log_start_offset: partition.log.logStartOffset,
    leader_log_end_offset: partition.log.logEndOffset,
  };
}

/** Resolves on the first change of any requested partition, after timeoutMs, or on abort. */
function waitForChange(
  deps: LeaderFetchDeps,
  request: ReplicaFetchRequest,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<void> {
  return new Promise<void>((resolve) => {
    const unsubscribes: (() => void)[] = [];
    const done = () => {
      timer.cancel();
      signal.removeEventListener('abort', done);
      for (const unsubscribe of unsubscribes) unsubscribe();
      resolve();
    };
    const timer = deps.clock.setTimeout(done, timeoutMs);
    signal.addEventListener('abort', done, { once: true });
    for (const wanted of request.partitions) {
      const partition = deps.partitions.hosted(wanted.topic, wanted.partition);
      if (partition) unsubscribes.push(partition.onChange(done));
    }
  });
}
