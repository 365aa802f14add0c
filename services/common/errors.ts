/**
 * Tide's error codes: one table says, for each code, whether a client may retry it and what the
 * user should do; which gRPC status carries each code lives at the API edge, so the storage
 * engine and everything else below it stay free of gRPC. Servers throw `TideError`; the API edge turns it into a gRPC status
 * with the trailers `tide-error-code` and `tide-retriable`; clients turn the status back into a
 * `TideError` (see services/common/grpc/status.ts).
 */
export interface ErrorSpec {
  retriable: boolean;
  /** What the caller should do about it. */
  hint: string;
}

export const ERROR_CODES = {
  UNKNOWN_TOPIC: {
    retriable: false,
    hint: 'create the topic first (tide topics create)',
  },
  UNKNOWN_PARTITION: {
    retriable: false,
    hint: "use a partition number below the topic's partition count",
  },
  TOPIC_ALREADY_EXISTS: {
    retriable: false,
    hint: 'pick another name or delete the topic first',
  },
  INVALID_TOPIC: {
    retriable: false,
    hint: 'topic names use [a-zA-Z0-9._-], 1 to 249 characters, not "." or "..", and must not equal an existing name once "." and "_" are treated alike',
  },
  INVALID_PARTITIONS: {
    retriable: false,
    hint: "give a partition count between 1 and the cluster's limit named in the message",
  },
  INVALID_REPLICATION_FACTOR: {
    retriable: false,
    hint: 'the replication factor must be between 1 and the number of live brokers',
  },
  INVALID_CONFIG: {
    retriable: false,
    hint: 'see docs/configuration.md for topic config keys and their values',
  },
  INVALID_REQUEST: {
    retriable: false,
    hint: 'fix the request fields named in the message',
  },
  INVALID_RECORD: {
    retriable: false,
    hint: 'send well-formed Kafka RecordBatch v2 bytes, or use the portable records field',
  },
  CORRUPT_MESSAGE: {
    retriable: true,
    hint: 'the batch failed its CRC32C check; the client resends it',
  },
  MESSAGE_TOO_LARGE: {
    retriable: false,
    hint: "split the batch or raise the topic's max.message.bytes",
  },
  REQUEST_TOO_LARGE: {
    retriable: false,
    hint: 'send smaller records or batches, or raise the limit named in the message',
  },
  INTERNAL_TOPIC: {
    retriable: false,
    hint: "internal topics (e.g. __consumer_offsets) are written and deleted only by Tide's own services; use the groups API (tide groups) to change committed offsets",
  },
  OFFSET_OUT_OF_RANGE: {
    retriable: false,
    hint: 'seek to an offset between the log start offset and the high watermark',
  },
  NOT_LEADER: {
    retriable: true,
    hint: 'refresh metadata and send to the current leader',
  },
  LEADER_NOT_AVAILABLE: {
    retriable: true,
    hint: 'the partition has no leader right now; retry after a metadata refresh',
  },
  FENCED_EPOCH: {
    retriable: true,
    hint: 'the sender used a stale epoch; refresh metadata and retry',
  },
  NOT_ENOUGH_REPLICAS: {
    retriable: true,
    hint: 'fewer in-sync replicas than min.insync.replicas; wait for replicas to catch up',
  },
  REQUEST_TIMED_OUT: {
    retriable: true,
    hint: 'the broker could not complete the request in time; retry',
  },
  OUT_OF_ORDER_SEQUENCE: {
    retriable: false,
    hint: 'the idempotent producer lost a batch; restart the producer (records after the gap were not written)',
  },
  INVALID_PRODUCER_EPOCH: {
    retriable: false,
    hint: 'a newer producer with the same id exists; close this one',
  },
  PRODUCER_FENCED: {
    retriable: false,
    hint: 'another producer with the same transactional id started (initTransactions); close this one',
  },
  INVALID_TXN_STATE: {
    retriable: false,
    hint: 'the call does not fit the transaction state (e.g. commit without beginTransaction); see docs/transactions.md',
  },
  CONCURRENT_TRANSACTIONS: {
    retriable: true,
    hint: 'the previous transaction of this transactional id is still completing; retry shortly',
  },
  UNSTABLE_OFFSET_COMMIT: {
    retriable: true,
    hint: 'a transaction that committed offsets for the partition has not completed yet; retry shortly (read_committed consumers wait for it, KIP-447)',
  },
  TRANSACTIONAL_ID_NOT_FOUND: {
    retriable: false,
    hint: 'call initTransactions first (InitProducerId with the transactional id)',
  },
  INVALID_TRANSACTION_TIMEOUT: {
    retriable: false,
    hint: 'transaction.timeout.ms must be between 1 and the coordinator transactionMaxTimeoutMs',
  },
  TRANSACTION_ABORTED: {
    retriable: false,
    hint: 'the transaction was aborted (timeout or a fatal send error); abortTransaction and begin again',
  },
  UNKNOWN_PRODUCER_ID: {
    retriable: false,
    hint: 'call InitProducerId to get a producer id',
  },
  KAFKA_STORAGE_ERROR: {
    retriable: true,
    hint: 'the broker found corrupt or unreadable data on disk; check its log and disk',
  },
  BROKER_NOT_AVAILABLE: {
    retriable: true,
    hint: 'the broker is unreachable or shutting down; retry against another broker',
  },
  METADATA_UNAVAILABLE: {
    retriable: true,
    hint: 'the metadata store did not answer; check etcd and retry',
  },
  NOT_CONTROLLER: {
    retriable: true,
    hint: 'send to the active controller',
  },
  COORDINATOR_NOT_AVAILABLE: {
    retriable: true,
    hint: "the group's shard has no coordinator right now (it is moving or loading); retry",
  },
  NOT_COORDINATOR: {
    retriable: true,
    hint: 'find the group coordinator again (FindCoordinator) and send there',
  },
  UNKNOWN_MEMBER_ID: {
    retriable: false,
    hint: 'the group no longer knows this member (session expired, or replaced); join again as a new member',
  },
  FENCED_MEMBER_EPOCH: {
    retriable: false,
    hint: "the member's epoch is stale (the group was fenced, e.g. by an offset reset); use the latest assignment's epoch or rejoin",
  },
  ILLEGAL_GENERATION: {
    retriable: false,
    hint: 'the partition is not assigned to this member in the current generation; commit only owned partitions',
  },
  NON_EMPTY_GROUP: {
    retriable: false,
    hint: 'stop the consumers of the group first (and wait for their sessions to expire), then delete it',
  },
  GROUP_ID_NOT_FOUND: {
    retriable: false,
    hint: 'no such consumer group (no members and no committed offsets); check the name with `tide groups list`',
  },
  STORE_NOT_AVAILABLE: {
    retriable: true,
    hint: "a streams application's store partition is restoring or moving between instances, or its instance is not known yet; retry shortly (any instance routes the query to the owner)",
  },
  TLS_FAILED: {
    retriable: false,
    hint: 'the TLS handshake failed: check --tls-ca trusts the broker certificate, that the certificate names the host you dial (or set --tls-server-name), and that the broker asks for a client certificate you have (--tls-cert/--tls-key); see docs/security.md',
  },
  AUTHENTICATION_FAILED: {
    retriable: false,
    hint: 'the broker did not accept who you are: give a client certificate (--tls-cert/--tls-key) or a token (--token/--token-file) the cluster trusts, and renew an expired one; see docs/security.md',
  },
  AUTHORIZATION_FAILED: {
    retriable: false,
    hint: 'you are authenticated but no ACL allows this: ask an administrator for the grant (tide acls add); see docs/security.md',
  },
  TOO_MANY_STREAMS: {
    retriable: false,
    hint: 'your principal has as many open streams as its max_streams quota allows on this broker: close a stream (e.g. reuse one client) or ask an administrator to raise the quota (tide quotas set); see docs/security.md',
  },
  TOO_MANY_CONNECTIONS: {
    retriable: false,
    hint: 'your principal has as many connections open to this service as its max_connections quota allows: share one client (one connection per broker) or ask an administrator to raise the quota (tide quotas set); see docs/security.md',
  },
  UNKNOWN: {
    retriable: false,
    hint: 'see the broker log for details',
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CODES;

export function isErrorCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CODES, code);
}

/** Where an error happened; any field may be absent. */
export interface ErrorContext {
  topic?: string;
  partition?: number;
  broker?: number;
  offset?: number;
}

/** A typed Tide error. `retriable` comes from the code table unless the thrower overrides it. */
export class TideError extends Error {
  readonly code: ErrorCode;
  readonly retriable: boolean;
  readonly context: ErrorContext;

  constructor(
    code: ErrorCode,
    message: string,
    options: { context?: ErrorContext; cause?: unknown; retriable?: boolean } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TideError';
    this.code = code;
    this.retriable = options.retriable ?? ERROR_CODES[code].retriable;
    this.context = options.context ?? {};
  }

  /** The message followed by what to do about it. */
  get hint(): string {
    return ERROR_CODES[this.code].hint;
  }
}

/** Converts anything thrown into a TideError, keeping TideErrors as they are. */
export function toTideError(err: unknown): TideError {
  if (err instanceof TideError) return err;
  const message = err instanceof Error ? err.message : String(err);
  return new TideError('UNKNOWN', message, { cause: err });
}
