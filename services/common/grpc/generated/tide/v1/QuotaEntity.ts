// Original file: protos/tide/v1/admin.proto


export interface QuotaEntity__Input {
  'user'?: (string);
  'client_id'?: (string);
}

export interface QuotaEntity {
  'user': (string);
  'client_id': (string);
}
