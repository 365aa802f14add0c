// Original file: protos/tide/v1/coordinator.proto


export interface UserDataUpdate__Input {
  'user_data'?: (Buffer | Uint8Array | string);
}

export interface UserDataUpdate {
  'user_data': (Buffer);
}
