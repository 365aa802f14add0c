// Original file: protos/tide/v1/common.proto

export const Acks = {
  ACKS_UNSPECIFIED: 'ACKS_UNSPECIFIED',
  ACKS_NONE: 'ACKS_NONE',
  ACKS_LEADER: 'ACKS_LEADER',
  ACKS_ALL: 'ACKS_ALL',
} as const;

export type Acks__Input =
  | 'ACKS_UNSPECIFIED'
  | 0
  | 'ACKS_NONE'
  | 1
  | 'ACKS_LEADER'
  | 2
  | 'ACKS_ALL'
  | 3

export type Acks = typeof Acks[keyof typeof Acks]
