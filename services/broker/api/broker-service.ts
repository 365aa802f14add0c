/** The Broker service: produce, fetch, offsets, metadata and producer ids, wired to their handlers. */
import type { BrokerHandlers } from '../../common/grpc/generated/tide/v1/Broker';
import type { Clock } from '../../common/clock';
import type { Logger } from '../../common/logger';
import { fetch, handleFetchStream } from './fetch';
import { listOffsets } from './offsets';
import { handleProduceStream, produce } from './produce';
import type { MetadataView, PartitionRegistry, ProducerIdSource } from './registry';
import { unary } from './unary';
import { metadataResponse, watchMetadata } from './watch-metadata';

export interface BrokerServiceDeps {
  partitions: PartitionRegistry;
  metadata: MetadataView;
  producerIds: ProducerIdSource;
  clock: Clock;
  logger: Logger;
}

export function brokerHandlers(deps: BrokerServiceDeps): BrokerHandlers {
  const { logger } = deps;
  return {
    Produce: unary(logger, 'Produce', (req) => produce(deps, req)),
    ProduceStream: (call) => handleProduceStream(deps, call),
    Fetch: unary(logger, 'Fetch', (req) => fetch(deps, req)),
    FetchStream: (call) => handleFetchStream(deps, call),
    ListOffsets: unary(logger, 'ListOffsets', (req) => listOffsets(deps.partitions, req)),
    Metadata: unary(logger, 'Metadata', async (req) => metadataResponse(deps.metadata, req)),
    WatchMetadata: (call) => watchMetadata(deps, call),
    InitProducerId: unary(logger, 'InitProducerId', async () => ({
      producer_id: await deps.producerIds.next(),
      producer_epoch: 0,
    })),
  };
}
