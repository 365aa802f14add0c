// Original file: protos/tide/v1/admin.proto


export interface QuotaValue__Input {
  'key'?: (string);
  'value'?: (number | string);
}

export interface QuotaValue {
  'key': (string);
  'value': (number);
}
