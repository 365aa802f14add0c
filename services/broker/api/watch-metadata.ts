/**
 * WatchMetadata: the Metadata answer, then a fresh one after every change of the broker's view,
 * so clients learn leader changes without polling. Changes that arrive while a response is still
 * being written are coalesced into the next one.
 */
import type * as grpc from '@grpc/grpc-js';
import type { MetadataRequest } from '../../common/grpc/generated/tide/v1/MetadataRequest';
import type { MetadataResponse__Input } from '../../common/grpc/generated/tide/v1/MetadataResponse';
import type { MetadataView } from './registry';

export function metadataResponse(metadata: MetadataView, request: MetadataRequest): MetadataResponse__Input {
  return {
    cluster_id: metadata.clusterId(),
    controller_id: metadata.controllerId(),
    brokers: metadata.brokers(),
    topics: metadata.topics(request.topics.length > 0 ? request.topics : undefined),
  };
}

export function watchMetadata(
  deps: { metadata: MetadataView },
  call: grpc.ServerWritableStream<MetadataRequest, MetadataResponse__Input>,
): void {
  let pending = false;
  let waitingForDrain = false;
  const send = () => {
    if (call.cancelled || call.destroyed) return;
    if (waitingForDrain) {
      pending = true;
      return;
    }
    pending = false;
    if (!call.write(metadataResponse(deps.metadata, call.request))) {
      waitingForDrain = true;
      call.once('drain', () => {
        waitingForDrain = false;
        if (pending) send();
      });
    }
  };
  const unsubscribe = deps.metadata.onChange(send);
  const stop = () => unsubscribe();
  call.on('cancelled', stop);
  call.on('close', stop);
  call.on('error', stop);
  send();
}
