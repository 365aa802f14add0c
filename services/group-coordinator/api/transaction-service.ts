/**
 * gRPC handlers of `tide.v1.TransactionCoordinator` and of the internal `TxnOffsets` on a
 * coordinator instance: validate the request, call the transaction coordinator (or, for offsets,
 * the group coordinator), map errors at this edge. No transaction logic lives here.
 */
import { TideError } from '../../common/errors';
import { hasInternalToken } from '../../common/grpc/routing-headers';
import type { Logger } from '../../common/logger';
import { unary } from '../../common/grpc/unary';
import type { TransactionCoordinatorHandlers } from '../../common/grpc/generated/tide/v1/TransactionCoordinator';
import type { TxnOffsetsHandlers } from '../../common/grpc/generated/tide/v1/internal/TxnOffsets';
import type { TxnJoinsHandlers } from '../../common/grpc/generated/tide/v1/internal/TxnJoins';
import type { AddPartitionsToTxnRequest } from '../../common/grpc/generated/tide/v1/AddPartitionsToTxnRequest';
import type { AddPartitionsToTxnResponse__Input } from '../../common/grpc/generated/tide/v1/AddPartitionsToTxnResponse';
import type { EndTxnRequest } from '../../common/grpc/generated/tide/v1/EndTxnRequest';
import type { EndTxnResponse__Input } from '../../common/grpc/generated/tide/v1/EndTxnResponse';
import { StreamCallsServer } from '../../common/grpc/stream-calls';
import type { TransactionDescription__Input } from '../../common/grpc/generated/tide/v1/TransactionDescription';
import { validateGroupId } from '../../common/cluster/coordinator-shards';
import type { CoordinatorLocator } from '../../common/cluster/coordinator-locator';
import type { Coordinator } from '../coordinator';
import { fromWire, toWire, tpKey } from '../partitions';
import type { TransactionCoordinator } from '../txn/txn-coordinator';
import { TXN_STATES, type TxnMetadata } from '../txn/txn-state';

export interface TransactionServiceDeps {
  transactions: TransactionCoordinator;
  groups: Coordinator;
  locator: CoordinatorLocator;
  selfId: string;
  logger: Logger;
  observeRpc?: (method: string, code: string, seconds: number) => void;
  /** Serves EndTxnStream (endTxnStreams()). */
  endTxnStreams: EndTxnStreams;
}

function invalid(message: string): TideError {
  return new TideError('INVALID_REQUEST', message);
}

/** Transactional ids follow the rules of group ids (they hash to the same shards). */
export function validateTransactionalId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0)
    throw invalid('transactional_id is required (the producer option transactionalId)');
  return validateGroupId(id, 'transactional_id');
}

function validateProducer(req: { producer_id: number; producer_epoch: number }): {
  producerId: number;
  producerEpoch: number;
} {
  if (!Number.isSafeInteger(req.producer_id) || req.producer_id < 0)
    throw invalid(`producer_id ${req.producer_id} is not one InitTransactions answered`);
  if (!Number.isInteger(req.producer_epoch) || req.producer_epoch < 0)
    throw invalid(`producer_epoch ${req.producer_epoch} is not one InitTransactions answered`);
  return { producerId: req.producer_id, producerEpoch: req.producer_epoch };
}

export function describeTxn(m: TxnMetadata, coordinatorId: string): TransactionDescription__Input {
  return {
    transactional_id: m.transactionalId,
    state: m.state,
    producer_id: m.producerId,
    producer_epoch: m.producerEpoch,
    timeout_ms: m.timeoutMs,
    start_time_ms: m.startTimeMs,
    last_update_ms: m.lastUpdateMs,
    partitions: toWire(m.partitions),
    groups: m.groups,
    coordinator_id: coordinatorId,
  };
}

export function transactionHandlers(deps: TransactionServiceDeps): TransactionCoordinatorHandlers {
  const { transactions, groups, locator } = deps;
  const edge = { logger: deps.logger, observeRpc: deps.observeRpc };
  return {
    FindTransactionCoordinator: unary(edge, 'FindTransactionCoordinator', (req) =>
      locator.find(validateTransactionalId(req.transactional_id)),
    ),
    InitTransactions: unary(edge, 'InitTransactions', async (req) => {
      const id = validateTransactionalId(req.transactional_id);
      if (req.transaction_timeout_ms < 0)
        throw new TideError('INVALID_TRANSACTION_TIMEOUT', 'transaction_timeout_ms must be >= 0 (0 = 60000)');
      const identity = await transactions.initTransactions(id, req.transaction_timeout_ms);
      return { producer_id: identity.producerId, producer_epoch: identity.producerEpoch };
    }),
    AddPartitionsToTxn: unary(edge, 'AddPartitionsToTxn', (req) => addPartitions(transactions, req)),
    AddOffsetsToTxn: unary(edge, 'AddOffsetsToTxn', async (req) => {
      const id = validateTransactionalId(req.transactional_id);
      const { producerId, producerEpoch } = validateProducer(req);
      await transactions.addOffsets(id, producerId, producerEpoch, validateGroupId(req.group_id));
      return {};
    }),
    TxnOffsetCommit: unary(edge, 'TxnOffsetCommit', async (req) => {
      const transactionalId = validateTransactionalId(req.transactional_id);
      const producer = validateProducer(req);
      const groupId = validateGroupId(req.group_id);
      if (req.offsets.length === 0) throw invalid('offsets is empty');
      const entries = req.offsets.map((o, i) => {
        if (!o.topic) throw invalid(`offsets[${i}].topic is required`);
        if (o.partition < 0) throw invalid(`offsets[${i}].partition must be >= 0`);
        if (o.offset < 0) throw invalid(`offsets[${i}].offset must be >= 0 (the next offset to consume)`);
        return { key: tpKey(o.topic, o.partition), offset: o.offset, metadata: o.metadata };
      });
      await groups.txnOffsetCommit(
        groupId,
        { transactionalId, ...producer },
        { memberId: req.member_id, memberEpoch: req.member_epoch },
        entries,
      );
      return {};
    }),
    EndTxn: unary(edge, 'EndTxn', (req) => endTxn(transactions, req)),
    EndTxnStream: deps.endTxnStreams.handler,
    ListTransactions: unary(edge, 'ListTransactions', async (req) => {
      for (const s of req.states)
        if (!(TXN_STATES as readonly string[]).includes(s))
          throw invalid(`states: ${JSON.stringify(s)} is not one of ${TXN_STATES.join(', ')}`);
      return {
        transactions: transactions.list(req.states).map((m) => ({
          transactional_id: m.transactionalId,
          producer_id: m.producerId,
          producer_epoch: m.producerEpoch,
          state: m.state,
          coordinator_id: deps.selfId,
        })),
      };
    }),
    DescribeTransaction: unary(edge, 'DescribeTransaction', async (req) => {
      const id = validateTransactionalId(req.transactional_id);
      return { transaction: describeTxn(transactions.describe(id), deps.selfId) };
    }),
  };
}

async function endTxn(
  transactions: TransactionCoordinator,
  req: EndTxnRequest,
): Promise<EndTxnResponse__Input> {
  const id = validateTransactionalId(req.transactional_id);
  const { producerId, producerEpoch } = validateProducer(req);
  const next = await transactions.endTxn(id, producerId, producerEpoch, req.commit, req.reserve_partitions);
  return { producer_id: next.producerId, producer_epoch: next.producerEpoch };
}

export type EndTxnStreams = StreamCallsServer<EndTxnRequest, EndTxnResponse__Input>;

/** EndTxnStream: EndTxn calls on one stream per client; `closeStreams()` before the server stops. */
export function endTxnStreams(
  deps: Pick<TransactionServiceDeps, 'transactions' | 'logger' | 'observeRpc'>,
): EndTxnStreams {
  return new StreamCallsServer<EndTxnRequest, EndTxnResponse__Input>({
    handle: (request) => endTxn(deps.transactions, request),
    method: 'EndTxnStream',
    logger: deps.logger,
    observeRpc: deps.observeRpc,
    shutdownCode: 'NOT_COORDINATOR',
  });
}

async function addPartitions(
  transactions: TransactionCoordinator,
  req: AddPartitionsToTxnRequest,
): Promise<AddPartitionsToTxnResponse__Input> {
  const id = validateTransactionalId(req.transactional_id);
  const { producerId, producerEpoch } = validateProducer(req);
  const keys = fromWire('partitions', req.partitions);
  if (keys.length === 0) throw invalid('partitions is empty');
  await transactions.addPartitions(id, producerId, producerEpoch, keys);
  return {};
}

export interface TxnJoinsService {
  handlers: TxnJoinsHandlers;
  /** Ends the brokers' open JoinStream streams (before the server stops). */
  closeStreams(): void;
}

/**
 * The partition leaders' implicit joins (protos/tide/v1/internal/txn_joins.proto): AddPartitionsToTxn
 * on one stream per broker. Only Tide's brokers (holding the cluster's internal token) call it.
 */
export function txnJoinsService(
  deps: Pick<TransactionServiceDeps, 'transactions' | 'logger' | 'observeRpc'> & { internalToken: string },
): TxnJoinsService {
  const streams = new StreamCallsServer<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse__Input>({
    handle: async (request, metadata) => {
      if (!hasInternalToken(metadata, deps.internalToken))
        throw new TideError('AUTHORIZATION_FAILED', 'JoinStream is internal: only partition leaders call it');
      return addPartitions(deps.transactions, request);
    },
    method: 'JoinStream',
    logger: deps.logger,
    observeRpc: deps.observeRpc,
    shutdownCode: 'NOT_COORDINATOR',
  });
  return { handlers: { JoinStream: streams.handler }, closeStreams: () => streams.closeStreams() };
}

/** Only coordinators (holding the cluster's internal token) may end a group's transactional offsets. */
export function txnOffsetsHandlers(
  deps: Pick<TransactionServiceDeps, 'groups' | 'logger'> & { internalToken: string },
): TxnOffsetsHandlers {
  return {
    CompleteTxnOffsets: unary(deps.logger, 'CompleteTxnOffsets', async (req, metadata) => {
      if (!hasInternalToken(metadata, deps.internalToken))
        throw new TideError(
          'AUTHORIZATION_FAILED',
          'CompleteTxnOffsets is internal: only transaction coordinators call it',
        );
      const groupId = validateGroupId(req.group_id);
      validateProducer(req);
      await deps.groups.completeTxnOffsets(groupId, req.producer_id, req.producer_epoch, req.commit);
      return {};
    }),
  };
}
