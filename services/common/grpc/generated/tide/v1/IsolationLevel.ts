// Original file: protos/tide/v1/broker.proto

export const IsolationLevel = {
  ISOLATION_LEVEL_READ_UNCOMMITTED: 'ISOLATION_LEVEL_READ_UNCOMMITTED',
  ISOLATION_LEVEL_READ_COMMITTED: 'ISOLATION_LEVEL_READ_COMMITTED',
} as const;

export type IsolationLevel__Input =
  | 'ISOLATION_LEVEL_READ_UNCOMMITTED'
  | 0
  | 'ISOLATION_LEVEL_READ_COMMITTED'
  | 1

export type IsolationLevel = typeof IsolationLevel[keyof typeof IsolationLevel]
