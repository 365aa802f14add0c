import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AbortedTransaction__Input as _tide_v1_AbortedTransaction__Input, AbortedTransaction as _tide_v1_AbortedTransaction } from './tide/v1/AbortedTransaction';
import type { BrokerClient as _tide_v1_BrokerClient, BrokerDefinition as _tide_v1_BrokerDefinition } from './tide/v1/Broker';
import type { BrokerInfo__Input as _tide_v1_BrokerInfo__Input, BrokerInfo as _tide_v1_BrokerInfo } from './tide/v1/BrokerInfo';
import type { Error__Input as _tide_v1_Error__Input, Error as _tide_v1_Error } from './tide/v1/Error';
import type { FetchPosition__Input as _tide_v1_FetchPosition__Input, FetchPosition as _tide_v1_FetchPosition } from './tide/v1/FetchPosition';
import type { FetchRequest__Input as _tide_v1_FetchRequest__Input, FetchRequest as _tide_v1_FetchRequest } from './tide/v1/FetchRequest';
import type { FetchResponse__Input as _tide_v1_FetchResponse__Input, FetchResponse as _tide_v1_FetchResponse } from './tide/v1/FetchResponse';
import type { FetchStreamMultiResponse__Input as _tide_v1_FetchStreamMultiResponse__Input, FetchStreamMultiResponse as _tide_v1_FetchStreamMultiResponse } from './tide/v1/FetchStreamMultiResponse';
import type { FetchStreamRequest__Input as _tide_v1_FetchStreamRequest__Input, FetchStreamRequest as _tide_v1_FetchStreamRequest } from './tide/v1/FetchStreamRequest';
import type { InitProducerIdRequest__Input as _tide_v1_InitProducerIdRequest__Input, InitProducerIdRequest as _tide_v1_InitProducerIdRequest } from './tide/v1/InitProducerIdRequest';
import type { InitProducerIdResponse__Input as _tide_v1_InitProducerIdResponse__Input, InitProducerIdResponse as _tide_v1_InitProducerIdResponse } from './tide/v1/InitProducerIdResponse';
import type { ListOffsetsRequest__Input as _tide_v1_ListOffsetsRequest__Input, ListOffsetsRequest as _tide_v1_ListOffsetsRequest } from './tide/v1/ListOffsetsRequest';
import type { ListOffsetsResponse__Input as _tide_v1_ListOffsetsResponse__Input, ListOffsetsResponse as _tide_v1_ListOffsetsResponse } from './tide/v1/ListOffsetsResponse';
import type { MetadataRequest__Input as _tide_v1_MetadataRequest__Input, MetadataRequest as _tide_v1_MetadataRequest } from './tide/v1/MetadataRequest';
import type { MetadataResponse__Input as _tide_v1_MetadataResponse__Input, MetadataResponse as _tide_v1_MetadataResponse } from './tide/v1/MetadataResponse';
import type { PartitionInfo__Input as _tide_v1_PartitionInfo__Input, PartitionInfo as _tide_v1_PartitionInfo } from './tide/v1/PartitionInfo';
import type { PortableProducer__Input as _tide_v1_PortableProducer__Input, PortableProducer as _tide_v1_PortableProducer } from './tide/v1/PortableProducer';
import type { ProduceRequest__Input as _tide_v1_ProduceRequest__Input, ProduceRequest as _tide_v1_ProduceRequest } from './tide/v1/ProduceRequest';
import type { ProduceResponse__Input as _tide_v1_ProduceResponse__Input, ProduceResponse as _tide_v1_ProduceResponse } from './tide/v1/ProduceResponse';
import type { Record__Input as _tide_v1_Record__Input, Record as _tide_v1_Record } from './tide/v1/Record';
import type { RecordHeader__Input as _tide_v1_RecordHeader__Input, RecordHeader as _tide_v1_RecordHeader } from './tide/v1/RecordHeader';
import type { TopicInfo__Input as _tide_v1_TopicInfo__Input, TopicInfo as _tide_v1_TopicInfo } from './tide/v1/TopicInfo';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  tide: {
    v1: {
      AbortedTransaction: MessageTypeDefinition<_tide_v1_AbortedTransaction__Input, _tide_v1_AbortedTransaction>
      Acks: EnumTypeDefinition
      Broker: SubtypeConstructor<typeof grpc.Client, _tide_v1_BrokerClient> & { service: _tide_v1_BrokerDefinition }
      BrokerInfo: MessageTypeDefinition<_tide_v1_BrokerInfo__Input, _tide_v1_BrokerInfo>
      Error: MessageTypeDefinition<_tide_v1_Error__Input, _tide_v1_Error>
      FetchPosition: MessageTypeDefinition<_tide_v1_FetchPosition__Input, _tide_v1_FetchPosition>
      FetchRequest: MessageTypeDefinition<_tide_v1_FetchRequest__Input, _tide_v1_FetchRequest>
      FetchResponse: MessageTypeDefinition<_tide_v1_FetchResponse__Input, _tide_v1_FetchResponse>
      FetchStreamMultiResponse: MessageTypeDefinition<_tide_v1_FetchStreamMultiResponse__Input, _tide_v1_FetchStreamMultiResponse>
      FetchStreamRequest: MessageTypeDefinition<_tide_v1_FetchStreamRequest__Input, _tide_v1_FetchStreamRequest>
      InitProducerIdRequest: MessageTypeDefinition<_tide_v1_InitProducerIdRequest__Input, _tide_v1_InitProducerIdRequest>
      InitProducerIdResponse: MessageTypeDefinition<_tide_v1_InitProducerIdResponse__Input, _tide_v1_InitProducerIdResponse>
      IsolationLevel: EnumTypeDefinition
      ListOffsetsRequest: MessageTypeDefinition<_tide_v1_ListOffsetsRequest__Input, _tide_v1_ListOffsetsRequest>
      ListOffsetsResponse: MessageTypeDefinition<_tide_v1_ListOffsetsResponse__Input, _tide_v1_ListOffsetsResponse>
      MetadataRequest: MessageTypeDefinition<_tide_v1_MetadataRequest__Input, _tide_v1_MetadataRequest>
      MetadataResponse: MessageTypeDefinition<_tide_v1_MetadataResponse__Input, _tide_v1_MetadataResponse>
      OffsetSpec: EnumTypeDefinition
      PartitionInfo: MessageTypeDefinition<_tide_v1_PartitionInfo__Input, _tide_v1_PartitionInfo>
      PortableProducer: MessageTypeDefinition<_tide_v1_PortableProducer__Input, _tide_v1_PortableProducer>
      ProduceRequest: MessageTypeDefinition<_tide_v1_ProduceRequest__Input, _tide_v1_ProduceRequest>
      ProduceResponse: MessageTypeDefinition<_tide_v1_ProduceResponse__Input, _tide_v1_ProduceResponse>
      Record: MessageTypeDefinition<_tide_v1_Record__Input, _tide_v1_Record>
      RecordFormat: EnumTypeDefinition
      RecordHeader: MessageTypeDefinition<_tide_v1_RecordHeader__Input, _tide_v1_RecordHeader>
      TopicInfo: MessageTypeDefinition<_tide_v1_TopicInfo__Input, _tide_v1_TopicInfo>
    }
  }
}

