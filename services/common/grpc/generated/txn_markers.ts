import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { BrokerInfo__Input as _tide_v1_BrokerInfo__Input, BrokerInfo as _tide_v1_BrokerInfo } from './tide/v1/BrokerInfo';
import type { Error__Input as _tide_v1_Error__Input, Error as _tide_v1_Error } from './tide/v1/Error';
import type { PartitionInfo__Input as _tide_v1_PartitionInfo__Input, PartitionInfo as _tide_v1_PartitionInfo } from './tide/v1/PartitionInfo';
import type { Record__Input as _tide_v1_Record__Input, Record as _tide_v1_Record } from './tide/v1/Record';
import type { RecordHeader__Input as _tide_v1_RecordHeader__Input, RecordHeader as _tide_v1_RecordHeader } from './tide/v1/RecordHeader';
import type { TopicInfo__Input as _tide_v1_TopicInfo__Input, TopicInfo as _tide_v1_TopicInfo } from './tide/v1/TopicInfo';
import type { TxnMarker__Input as _tide_v1_internal_TxnMarker__Input, TxnMarker as _tide_v1_internal_TxnMarker } from './tide/v1/internal/TxnMarker';
import type { TxnMarkerPartition__Input as _tide_v1_internal_TxnMarkerPartition__Input, TxnMarkerPartition as _tide_v1_internal_TxnMarkerPartition } from './tide/v1/internal/TxnMarkerPartition';
import type { TxnMarkerPartitionResult__Input as _tide_v1_internal_TxnMarkerPartitionResult__Input, TxnMarkerPartitionResult as _tide_v1_internal_TxnMarkerPartitionResult } from './tide/v1/internal/TxnMarkerPartitionResult';
import type { TxnMarkersClient as _tide_v1_internal_TxnMarkersClient, TxnMarkersDefinition as _tide_v1_internal_TxnMarkersDefinition } from './tide/v1/internal/TxnMarkers';
import type { WriteTxnMarkersRequest__Input as _tide_v1_internal_WriteTxnMarkersRequest__Input, WriteTxnMarkersRequest as _tide_v1_internal_WriteTxnMarkersRequest } from './tide/v1/internal/WriteTxnMarkersRequest';
import type { WriteTxnMarkersResponse__Input as _tide_v1_internal_WriteTxnMarkersResponse__Input, WriteTxnMarkersResponse as _tide_v1_internal_WriteTxnMarkersResponse } from './tide/v1/internal/WriteTxnMarkersResponse';
import type { WriteTxnMarkersStreamRequest__Input as _tide_v1_internal_WriteTxnMarkersStreamRequest__Input, WriteTxnMarkersStreamRequest as _tide_v1_internal_WriteTxnMarkersStreamRequest } from './tide/v1/internal/WriteTxnMarkersStreamRequest';
import type { WriteTxnMarkersStreamResponse__Input as _tide_v1_internal_WriteTxnMarkersStreamResponse__Input, WriteTxnMarkersStreamResponse as _tide_v1_internal_WriteTxnMarkersStreamResponse } from './tide/v1/internal/WriteTxnMarkersStreamResponse';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  tide: {
    v1: {
      Acks: EnumTypeDefinition
      BrokerInfo: MessageTypeDefinition<_tide_v1_BrokerInfo__Input, _tide_v1_BrokerInfo>
      Error: MessageTypeDefinition<_tide_v1_Error__Input, _tide_v1_Error>
      PartitionInfo: MessageTypeDefinition<_tide_v1_PartitionInfo__Input, _tide_v1_PartitionInfo>
      Record: MessageTypeDefinition<_tide_v1_Record__Input, _tide_v1_Record>
      RecordFormat: EnumTypeDefinition
      RecordHeader: MessageTypeDefinition<_tide_v1_RecordHeader__Input, _tide_v1_RecordHeader>
      TopicInfo: MessageTypeDefinition<_tide_v1_TopicInfo__Input, _tide_v1_TopicInfo>
      internal: {
        TxnMarker: MessageTypeDefinition<_tide_v1_internal_TxnMarker__Input, _tide_v1_internal_TxnMarker>
        TxnMarkerPartition: MessageTypeDefinition<_tide_v1_internal_TxnMarkerPartition__Input, _tide_v1_internal_TxnMarkerPartition>
        TxnMarkerPartitionResult: MessageTypeDefinition<_tide_v1_internal_TxnMarkerPartitionResult__Input, _tide_v1_internal_TxnMarkerPartitionResult>
        TxnMarkers: SubtypeConstructor<typeof grpc.Client, _tide_v1_internal_TxnMarkersClient> & { service: _tide_v1_internal_TxnMarkersDefinition }
        TxnResult: EnumTypeDefinition
        WriteTxnMarkersRequest: MessageTypeDefinition<_tide_v1_internal_WriteTxnMarkersRequest__Input, _tide_v1_internal_WriteTxnMarkersRequest>
        WriteTxnMarkersResponse: MessageTypeDefinition<_tide_v1_internal_WriteTxnMarkersResponse__Input, _tide_v1_internal_WriteTxnMarkersResponse>
        WriteTxnMarkersStreamRequest: MessageTypeDefinition<_tide_v1_internal_WriteTxnMarkersStreamRequest__Input, _tide_v1_internal_WriteTxnMarkersStreamRequest>
        WriteTxnMarkersStreamResponse: MessageTypeDefinition<_tide_v1_internal_WriteTxnMarkersStreamResponse__Input, _tide_v1_internal_WriteTxnMarkersStreamResponse>
      }
    }
  }
}

