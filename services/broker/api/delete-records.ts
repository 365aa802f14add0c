/**
 * DeleteRecords (Admin): the partition's leader moves its log start offset (Partition.deleteRecords
 * has the rules) and answers with the low watermark once its in-sync followers followed. A broker
 * that does not lead the partition answers NOT_LEADER, or, for a client asking for proxy routing,
 * forwards the request to the leader (forward.ts). Internal topics (__consumer_offsets...) are
 * refused, as Kafka refuses them: their records belong to Tide's own services.
 */
import type * as grpc from '@grpc/grpc-js';
import { TideError } from '../../common/errors';
import { wantsProxy } from '../../common/grpc/routing-headers';
import type { DeleteRecordsRequest } from '../../common/grpc/generated/tide/v1/DeleteRecordsRequest';
import type { DeleteRecordsResponse__Input } from '../../common/grpc/generated/tide/v1/DeleteRecordsResponse';
import type { PartitionRegistry } from '../partition/partition-registry';
import { isLedElsewhere, type LeaderForwarder } from './forward';
import { requirePartition, requireTopic } from './validate';

/** How long the leader waits for its followers when the request gives no timeout (Kafka's default). */
export const DELETE_RECORDS_TIMEOUT_DEFAULT_MS = 30_000;

export interface DeleteRecordsDeps {
  partitions: PartitionRegistry;
  /** Proxy routing; absent: requests for partitions led elsewhere fail NOT_LEADER. */
  forwarder?: LeaderForwarder;
  /** True for Tide's internal topics; absent: none is. */
  isInternalTopic?: (topic: string) => boolean;
}

export async function deleteRecordsRouted(
  deps: DeleteRecordsDeps,
  request: DeleteRecordsRequest,
  metadata: grpc.Metadata | undefined,
): Promise<DeleteRecordsResponse__Input> {
  const topic = requireTopic(request.topic);
  const partitionId = requirePartition(request.partition);
  if (!Number.isSafeInteger(request.offset))
    throw new TideError('INVALID_REQUEST', `offset must be an integer below 2^53 or -1`);
  if (deps.isInternalTopic?.(topic)) {
    throw new TideError(
      'INTERNAL_TOPIC',
      `${topic} is an internal topic: its records are deleted only by Tide's own services`,
      { context: { topic, partition: partitionId } },
    );
  }
  const timeoutMs = request.timeout_ms > 0 ? request.timeout_ms : DELETE_RECORDS_TIMEOUT_DEFAULT_MS;
  let lowWatermark: number;
  try {
    const partition = deps.partitions.leaderFor(topic, partitionId);
    lowWatermark = await partition.deleteRecords(request.offset, timeoutMs);
  } catch (err) {
    if (!deps.forwarder || !wantsProxy(metadata) || !isLedElsewhere(err)) throw err;
    return deps.forwarder.deleteRecords(request, timeoutMs);
  }
  return { topic, partition: partitionId, low_watermark: lowWatermark };
}
