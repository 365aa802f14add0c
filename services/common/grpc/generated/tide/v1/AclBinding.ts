// Original file: protos/tide/v1/admin.proto


export interface AclBinding__Input {
  'principal'?: (string);
  'resource_type'?: (string);
  'pattern_type'?: (string);
  'name'?: (string);
  'operation'?: (string);
  'permission'?: (string);
}

export interface AclBinding {
  'principal': (string);
  'resource_type': (string);
  'pattern_type': (string);
  'name': (string);
  'operation': (string);
  'permission': (string);
}
