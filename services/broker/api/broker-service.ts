/** The Broker service: produce, fetch, offsets, metadata and producer ids, wired to their handlers. */
import type { BrokerHandlers } from '../../common/grpc/generated/tide/v1/Broker';
import type { Clock } from '../../common/clock';
import type { Logger } from '../../common/logger';
import {
  DEFAULT_FETCH_STREAM_LIMITS,
  fetchRouted,
  handleFetchStream,
  handleFetchStreamMulti,
  type FetchStreamLimits,
} from './fetch';
import { ConnectionBudgets } from './byte-budget';
import { listOffsets } from './offsets';
import { handleProduceStream, produceRouted, type InternalTopicGuard } from './produce';
import { isLedElsewhere, type LeaderForwarder } from './forward';
import { wantsProxy } from '../../common/grpc/routing-headers';
import type { MetadataView, ProducerIdSource } from './registry';
import type { PartitionRegistry } from '../partition/partition-registry';
import { unary } from '../../common/grpc/unary';
import type { BrokerMetrics } from '../metrics';
import { metadataResponse, watchMetadata } from './watch-metadata';

export interface BrokerServiceDeps {
  partitions: PartitionRegistry;
  metadata: MetadataView;
  producerIds: ProducerIdSource;
  /** Proxy routing (forward.ts); absent: requests for partitions led elsewhere fail NOT_LEADER. */
  forwarder?: LeaderForwarder;
  metrics?: BrokerMetrics;
  /** Refuses client writes to internal topics (INTERNAL_TOPIC). */
  internalTopics?: InternalTopicGuard;
  /** FetchStream bounds (positions, bytes per stream and per connection); defaults when absent. */
  streamLimits?: FetchStreamLimits;
  clock: Clock;
  logger: Logger;
}

export function brokerHandlers(deps: BrokerServiceDeps): BrokerHandlers {
  const logger = deps.metrics ? deps.metrics.edge(deps.logger) : deps.logger;
  const streamLimits = deps.streamLimits ?? DEFAULT_FETCH_STREAM_LIMITS;
  const fetchDeps = {
    ...deps,
    streamLimits,
    connectionBudgets: new ConnectionBudgets(streamLimits.connectionBufferBytes),
  };
  return {
    Produce: unary(logger, 'Produce', (req, metadata) => produceRouted(deps, req, metadata)),
    ProduceStream: (call) => handleProduceStream(deps, call),
    Fetch: unary(logger, 'Fetch', (req, metadata) => fetchRouted(deps, req, metadata)),
    FetchStream: (call) => handleFetchStream(fetchDeps, call),
    FetchStreamMulti: (call) => handleFetchStreamMulti(fetchDeps, call),
    ListOffsets: unary(logger, 'ListOffsets', (req, metadata) =>
      listOffsets(deps.partitions, req).catch((err: unknown) => {
        if (!deps.forwarder || !wantsProxy(metadata) || !isLedElsewhere(err)) throw err;
        return deps.forwarder.listOffsets(req, 10_000);
      }),
    ),
    Metadata: unary(logger, 'Metadata', async (req) => metadataResponse(deps.metadata, req)),
    WatchMetadata: (call) => watchMetadata(deps, call),
    InitProducerId: unary(logger, 'InitProducerId', async () => ({
      producer_id: await deps.producerIds.next(),
      producer_epoch: 0,
    })),
  };
}
