/**
 * ListOffsets: earliest, latest (the high watermark; the last stable offset under read_committed),
 * or the first offset at/after a time (below that same bound).
 */
import type { ListOffsetsRequest } from '../../common/grpc/generated/tide/v1/ListOffsetsRequest';
import type { ListOffsetsResponse__Input } from '../../common/grpc/generated/tide/v1/ListOffsetsResponse';
import { TideError } from '../../common/errors';
import { echo } from '../../common/echo';
import type { PartitionRegistry } from '../partition/partition-registry';
import { requirePartition, requireTopic } from './validate';
import { requireIsolation } from './fetch';

export async function listOffsets(
  partitions: PartitionRegistry,
  request: ListOffsetsRequest,
): Promise<ListOffsetsResponse__Input> {
  const topic = requireTopic(request.topic);
  const partitionId = requirePartition(request.partition);
  const isolation = requireIsolation(request.isolation);
  const partition = partitions.leaderFor(topic, partitionId);
  const lastStableOffset = partition.lastStableOffset;
  const latest = isolation === 'read_committed' ? lastStableOffset : partition.highWatermark;
  const base = {
    topic,
    partition: partitionId,
    log_start_offset: partition.log.logStartOffset,
    high_watermark: partition.highWatermark,
    last_stable_offset: lastStableOffset,
    timestamp_ms: -1,
  };
  switch (request.spec) {
    case 'OFFSET_SPEC_EARLIEST':
      return { ...base, offset: partition.log.logStartOffset };
    case 'OFFSET_SPEC_LATEST':
      return { ...base, offset: latest };
    case 'OFFSET_SPEC_TIMESTAMP': {
      if (!Number.isSafeInteger(request.timestamp_ms) || request.timestamp_ms < 0) {
        throw new TideError(
          'INVALID_REQUEST',
          `timestamp_ms must be a non-negative time in ms, got ${request.timestamp_ms}`,
        );
      }
      const found = await partition.log.offsetForTimestamp(request.timestamp_ms);
      // Records not yet committed are invisible, to this lookup as to fetch.
      if (!found || found.offset >= latest) return { ...base, offset: -1 };
      return { ...base, offset: found.offset, timestamp_ms: found.timestampMs };
    }
    default:
      throw new TideError('INVALID_REQUEST', `unknown offset spec ${echo(request.spec)}`);
  }
}
