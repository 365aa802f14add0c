// Original file: protos/tide/v1/admin.proto


export interface ConfigEntry__Input {
  'name'?: (string);
  'value'?: (string);
  'is_default'?: (boolean);
}

export interface ConfigEntry {
  'name': (string);
  'value': (string);
  'is_default': (boolean);
}
