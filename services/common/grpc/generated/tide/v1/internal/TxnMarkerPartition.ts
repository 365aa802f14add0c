// Original file: protos/tide/v1/internal/txn_markers.proto


export interface TxnMarkerPartition__Input {
  'topic'?: (string);
  'partition'?: (number);
}

export interface TxnMarkerPartition {
  'topic': (string);
  'partition': (number);
}
