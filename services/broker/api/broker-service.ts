/** The Broker service: produce, fetch, offsets, metadata and producer ids, wired to their handlers. */
import type { BrokerHandlers } from '../../common/grpc/generated/tide/v1/Broker';
import type { Clock } from '../../common/clock';
import type { Logger } from '../../common/logger';
import { fetchRouted, handleFetchStream } from './fetch';
import { listOffsets } from './offsets';
import { handleProduceStream, produceRouted } from './produce';
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
  clock: Clock;
  logger: Logger;
}

export function brokerHandlers(deps: BrokerServiceDeps): BrokerHandlers {
  const logger = deps.metrics ? deps.metrics.edge(deps.logger) : deps.logger;
  return {
    Produce: unary(logger, 'Produce', (req, metadata) => produceRouted(deps, req, metadata)),
    ProduceStream: (call) => handleProduceStream(deps, call),
    Fetch: unary(logger, 'Fetch', (req, metadata) => fetchRouted(deps, req, metadata)),
    FetchStream: (call) => handleFetchStream(deps, call),
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
