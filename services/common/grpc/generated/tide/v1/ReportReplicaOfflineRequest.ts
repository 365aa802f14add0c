// Original file: protos/tide/v1/controller.proto


export interface ReportReplicaOfflineRequest__Input {
  'broker_id'?: (number);
  'topic'?: (string);
  'partition'?: (number);
}

export interface ReportReplicaOfflineRequest {
  'broker_id': (number);
  'topic': (string);
  'partition': (number);
}
