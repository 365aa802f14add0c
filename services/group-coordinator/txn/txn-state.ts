/**
 * The state of one transactional id and its transitions, as pure functions (Kafka's
 * TransactionMetadata / TransactionState, to the KIP-890 "transactions v2" rules). The coordinator
 * (txn-coordinator.ts) persists each new state to `__transaction_state` before it applies and
 * answers it; nothing here does I/O.
 *
 *   Empty ──AddPartitions/AddOffsets──▶ Ongoing ──EndTxn(commit)──▶ PrepareCommit ──markers──▶ CompleteCommit
 *                                          │ EndTxn(abort), timeout,           PrepareAbort ──markers──▶ CompleteAbort
 *                                          └ InitTransactions of a new producer ─▶ PrepareAbort
 *   CompleteCommit / CompleteAbort behave as Empty for the next transaction.
 *
 * Epochs (KIP-890). Every transaction end bumps the epoch: Prepare* already carries epoch + 1, the
 * markers carry it, and partition leaders then refuse anything of the older epoch. The next
 * transaction uses the bumped epoch (EndTxn answers it). `lastProducerEpoch` remembers the epoch
 * the last end was called with, so that a retried EndTxn (its answer was lost) is recognised and
 * answered again, and a producer whose transaction the coordinator aborted on timeout gets
 * TRANSACTION_ABORTED (abort, then continue) rather than PRODUCER_FENCED. InitTransactions clears
 * it: an older producer with the same id is fenced for good.
 */
import { TideError } from '../../common/errors';
import { sortedKeys } from '../partitions';

export type TxnStateName =
  'Empty' | 'Ongoing' | 'PrepareCommit' | 'PrepareAbort' | 'CompleteCommit' | 'CompleteAbort';

export const TXN_STATES: readonly TxnStateName[] = [
  'Empty',
  'Ongoing',
  'PrepareCommit',
  'PrepareAbort',
  'CompleteCommit',
  'CompleteAbort',
];

/** Kafka's producer epochs are int16; past this a producer gets a new id at epoch 0. */
export const MAX_PRODUCER_EPOCH = 32_766;
export const DEFAULT_TRANSACTION_TIMEOUT_MS = 60_000;
/** Kafka's transaction.max.timeout.ms default (15 minutes). */
export const DEFAULT_TRANSACTION_MAX_TIMEOUT_MS = 900_000;
/** Kafka's transactional.id.expiration.ms default (7 days). */
export const DEFAULT_TRANSACTIONAL_ID_EXPIRATION_MS = 604_800_000;

export interface TxnMetadata {
  transactionalId: string;
  producerId: number;
  producerEpoch: number;
  /** The epoch the last EndTxn (or timeout abort) ended; -1 after InitTransactions. */
  lastProducerEpoch: number;
  timeoutMs: number;
  state: TxnStateName;
  /** Partition keys (partitions.ts tpKey), sorted. */
  partitions: string[];
  /** Consumer groups with offsets in the transaction, sorted. */
  groups: string[];
  /** When the open transaction started; 0 when none is open. */
  startTimeMs: number;
  lastUpdateMs: number;
  /**
   * Partitions of the producer's next transaction, durable in advance (EndTxn with
   * reserve_partitions; see reserve()). Absent: none.
   */
  reserved?: TxnReservation;
}

/**
 * The next transaction's partitions, made durable with the Prepare state of the one before it, so
 * that their implicit joins need no write of their own. `producerEpoch` is the next transaction's
 * epoch: the Prepare epoch + 1 (the markers keep the Prepare epoch, so a marker of the ended
 * transaction sent again after a takeover is fenced where the next one already wrote).
 */
export interface TxnReservation {
  producerEpoch: number;
  partitions: string[];
  /** The outcome of the transaction that reserved them: a retried EndTxn of it is answered again. */
  commit: boolean;
  /** Opened by a new owner's replay (openReservation): the producer may not have had its answer. */
  replayed?: boolean;
}

export type PrepareState = 'PrepareCommit' | 'PrepareAbort';

export function isPrepare(state: TxnStateName): state is PrepareState {
  return state === 'PrepareCommit' || state === 'PrepareAbort';
}

function isIdle(state: TxnStateName): boolean {
  return state === 'Empty' || state === 'CompleteCommit' || state === 'CompleteAbort';
}

function fenced(m: TxnMetadata, producerId: number, producerEpoch: number): TideError {
  return new TideError(
    'PRODUCER_FENCED',
    `transactional id ${m.transactionalId}: producer ${producerId} epoch ${producerEpoch} is fenced (current producer ${m.producerId} epoch ${m.producerEpoch}); another producer with this id called initTransactions`,
  );
}

function concurrent(m: TxnMetadata): TideError {
  return new TideError(
    'CONCURRENT_TRANSACTIONS',
    `transactional id ${m.transactionalId} is in ${m.state}: the previous transaction is still writing its markers`,
  );
}

/**
 * The check every call but InitTransactions starts with. 'current': the call carries the current
 * epoch. 'previous': the epoch the last end ended (a retry, or a producer whose transaction the
 * coordinator aborted). Anything else is fenced.
 */
export function checkProducer(
  m: TxnMetadata,
  producerId: number,
  producerEpoch: number,
): 'current' | 'previous' {
  if (producerId === m.producerId && producerEpoch === m.producerEpoch) return 'current';
  if (producerId === m.producerId && producerEpoch === m.lastProducerEpoch && m.lastProducerEpoch >= 0)
    return 'previous';
  if (producerId === m.producerId && producerEpoch > m.producerEpoch)
    throw new TideError(
      'INVALID_PRODUCER_EPOCH',
      `transactional id ${m.transactionalId}: epoch ${producerEpoch} is newer than the coordinator's ${m.producerEpoch}; call initTransactions again`,
    );
  throw fenced(m, producerId, producerEpoch);
}

function aborted(m: TxnMetadata): TideError {
  return new TideError(
    'TRANSACTION_ABORTED',
    `transactional id ${m.transactionalId}: the coordinator aborted the transaction (it was open longer than ${m.timeoutMs} ms, or a fatal error); call abortTransaction and begin again`,
  );
}

export interface InitInput {
  timeoutMs: number;
  nowMs: number;
  /** A fresh producer id (for a new transactional id, or when the epoch would overflow). */
  newProducerId: () => Promise<number>;
}

/**
 * InitTransactions on an idle id: the epoch moves on (a previous producer is fenced). The caller
 * must first abort an Ongoing transaction (beginAbortForInit) and wait out a Prepare state.
 */
export async function init(
  existing: TxnMetadata | undefined,
  transactionalId: string,
  input: InitInput,
): Promise<TxnMetadata> {
  if (!existing)
    return {
      transactionalId,
      producerId: await input.newProducerId(),
      producerEpoch: 0,
      lastProducerEpoch: -1,
      timeoutMs: input.timeoutMs,
      state: 'Empty',
      partitions: [],
      groups: [],
      startTimeMs: 0,
      lastUpdateMs: input.nowMs,
    };
  if (!isIdle(existing.state)) throw concurrent(existing);
  const overflow = existing.producerEpoch >= MAX_PRODUCER_EPOCH;
  return {
    ...withoutReservation(existing),
    producerId: overflow ? await input.newProducerId() : existing.producerId,
    producerEpoch: overflow ? 0 : existing.producerEpoch + 1,
    lastProducerEpoch: -1,
    timeoutMs: input.timeoutMs,
    state: 'Empty',
    partitions: [],
    groups: [],
    startTimeMs: 0,
    lastUpdateMs: input.nowMs,
  };
}

/** Adds partitions and groups to the transaction, opening it when none is open. */
export function add(
  m: TxnMetadata,
  producerId: number,
  producerEpoch: number,
  what: { partitions?: readonly string[]; groups?: readonly string[] },
  nowMs: number,
): TxnMetadata {
  // The next transaction's first call while the previous one (which reserved its epoch) still
  // writes its markers: waited out like any call of the next transaction.
  if (isPrepare(m.state) && producerId === m.producerId && producerEpoch === m.reserved?.producerEpoch)
    throw concurrent(m);
  const which = checkProducer(m, producerId, producerEpoch);
  if (which === 'previous') {
    if (m.state === 'CompleteAbort' || m.state === 'PrepareAbort') throw aborted(m);
    throw fenced(m, producerId, producerEpoch);
  }
  if (isPrepare(m.state)) throw concurrent(m);
  const opening = m.state !== 'Ongoing';
  const partitions = new Set(opening ? [] : m.partitions);
  for (const p of what.partitions ?? []) partitions.add(p);
  const groups = new Set(opening ? [] : m.groups);
  for (const g of what.groups ?? []) groups.add(g);
  return {
    ...m,
    state: 'Ongoing',
    partitions: sortedKeys(partitions),
    groups: [...groups].sort(),
    startTimeMs: opening ? nowMs : m.startTimeMs,
    lastUpdateMs: nowMs,
  };
}

/**
 * Whether the state `add` makes (`next`) is already durable: its partitions were reserved at its
 * epoch by the previous transaction's Prepare record, which (or a later record of the same epoch,
 * every one of which carries the reservation) is the id's last record in `__transaction_state`.
 * A replay of that record opens the reservation (openReservation), so the join may be answered
 * without a write of its own.
 */
export function coveredByReservation(
  m: TxnMetadata,
  what: { partitions?: readonly string[]; groups?: readonly string[] },
): boolean {
  const r = m.reserved;
  if (!r || r.producerEpoch !== m.producerEpoch) return false;
  if (!(m.state === 'Ongoing' || m.state === 'CompleteCommit' || m.state === 'CompleteAbort')) return false;
  if ((what.groups ?? []).length > 0) return false;
  return (what.partitions ?? []).every((p) => r.partitions.includes(p));
}

/**
 * A reservation found by replay, once the transaction before it is complete: the next transaction
 * may have written to the reserved partitions (its joins were answered without a write), so it is
 * taken as open there; its timeout runs from now. Anything else is returned as is.
 */
export function openReservation(m: TxnMetadata, nowMs: number): TxnMetadata {
  const r = m.reserved;
  if (!r || r.producerEpoch !== m.producerEpoch) return m;
  // An Ongoing record lists the partitions joined with a write; reserved ones may have joined since.
  if (m.state === 'Ongoing')
    return {
      ...m,
      partitions: sortedKeys(new Set([...m.partitions, ...r.partitions])),
      reserved: { ...r, replayed: true },
    };
  if (!(m.state === 'CompleteCommit' || m.state === 'CompleteAbort')) return m;
  return {
    ...m,
    state: 'Ongoing',
    partitions: [...r.partitions],
    groups: [],
    startTimeMs: nowMs,
    lastUpdateMs: nowMs,
    reserved: { ...r, replayed: true },
  };
}

function withoutReservation(m: TxnMetadata): TxnMetadata {
  if (!m.reserved) return m;
  const { reserved: _, ...rest } = m;
  return rest;
}

/** Whether `add` would change nothing (every partition and group is in the open transaction). */
export function alreadyAdded(
  m: TxnMetadata,
  what: { partitions?: readonly string[]; groups?: readonly string[] },
): boolean {
  if (m.state !== 'Ongoing') return false;
  return (
    (what.partitions ?? []).every((p) => m.partitions.includes(p)) &&
    (what.groups ?? []).every((g) => m.groups.includes(g))
  );
}

export type EndDecision =
  /** Write this Prepare state, send the markers, then complete. */
  | { kind: 'prepare'; next: TxnMetadata }
  /** A retry of the last end, already complete: answer the current identity again. */
  | { kind: 'done' }
  /** A retry of the last end while its markers are still being written: wait for them. */
  | { kind: 'wait' };

/** EndTxn(commit | abort). */
export function end(
  m: TxnMetadata,
  producerId: number,
  producerEpoch: number,
  commit: boolean,
  nowMs: number,
  /** Reserve this transaction's partitions for the next one (EndTxn reserve_partitions). */
  reserve = false,
): EndDecision {
  // The next transaction (at the reserved epoch) ended while the previous one writes its markers.
  if (isPrepare(m.state) && producerId === m.producerId && producerEpoch === m.reserved?.producerEpoch)
    throw concurrent(m);
  const which = checkProducer(m, producerId, producerEpoch);
  const wanted: PrepareState = commit ? 'PrepareCommit' : 'PrepareAbort';
  const completed = commit ? 'CompleteCommit' : 'CompleteAbort';
  if (which === 'previous') {
    if (m.state === completed) return { kind: 'done' };
    // A new owner opened the reservation of the ended transaction (its replay cannot tell whether
    // the producer had the answer): the producer's retried end of that transaction is answered
    // again. Without a takeover the producer had its answer, and a late end is refused below.
    if (
      m.state === 'Ongoing' &&
      m.reserved?.replayed === true &&
      m.reserved.producerEpoch === m.producerEpoch &&
      m.reserved.commit === commit
    )
      return { kind: 'done' };
    if (m.state === wanted) return { kind: 'wait' };
    if (commit && (m.state === 'PrepareAbort' || m.state === 'CompleteAbort')) throw aborted(m);
    throw new TideError(
      'INVALID_TXN_STATE',
      `transactional id ${m.transactionalId}: ${commit ? 'commit' : 'abort'} of epoch ${producerEpoch}, but that transaction ended with ${m.state}`,
    );
  }
  if (isPrepare(m.state)) throw concurrent(m);
  if (m.state !== 'Ongoing')
    throw new TideError(
      'INVALID_TXN_STATE',
      `transactional id ${m.transactionalId} has no open transaction (state ${m.state}): add partitions or offsets before ending one`,
    );
  const next = prepare(m, wanted, nowMs);
  // Two epochs ahead must stay below the last one (the exhausted id rotates without a reservation).
  if (reserve && m.partitions.length > 0 && next.producerEpoch + 1 < MAX_PRODUCER_EPOCH)
    next.reserved = { producerEpoch: next.producerEpoch + 1, partitions: [...m.partitions], commit };
  return { kind: 'prepare', next };
}

/** Ongoing → Prepare*, with the epoch bump the markers carry. */
export function prepare(m: TxnMetadata, state: PrepareState, nowMs: number): TxnMetadata {
  return {
    ...withoutReservation(m),
    state,
    lastProducerEpoch: m.producerEpoch,
    producerEpoch: m.producerEpoch + 1,
    lastUpdateMs: nowMs,
  };
}

/**
 * After an end whose bumped epoch reached the largest one, the id moves to a fresh producer id at
 * epoch 0 (KIP-890: the markers of the ended transaction still carry the old id's last epoch).
 */
export async function rotateIfExhausted(
  m: TxnMetadata,
  newProducerId: () => Promise<number>,
): Promise<TxnMetadata> {
  if (m.producerEpoch < MAX_PRODUCER_EPOCH) return m;
  return {
    ...withoutReservation(m),
    producerId: await newProducerId(),
    producerEpoch: 0,
    lastProducerEpoch: -1,
  };
}

/**
 * Whether the id may be forgotten: no transaction open or ending (Empty or Complete*), and the
 * last change older than `expirationMs`.
 */
export function expired(m: TxnMetadata, nowMs: number, expirationMs: number): boolean {
  return isIdle(m.state) && nowMs - m.lastUpdateMs > expirationMs;
}

/** Whether the coordinator must abort the open transaction now (it outlived its timeout). */
export function timedOut(m: TxnMetadata, nowMs: number): boolean {
  return m.state === 'Ongoing' && nowMs - m.startTimeMs > m.timeoutMs;
}

/**
 * Prepare* → Complete*: the markers are written. With a reservation the id moves on to the reserved
 * epoch (the one EndTxn answered), the reservation kept for the next transaction's joins.
 */
export function complete(m: TxnMetadata, nowMs: number): TxnMetadata {
  if (!isPrepare(m.state))
    throw new TideError('INVALID_TXN_STATE', `${m.transactionalId} is not in a prepare state`);
  return {
    ...m,
    producerEpoch: m.reserved ? m.reserved.producerEpoch : m.producerEpoch,
    state: m.state === 'PrepareCommit' ? 'CompleteCommit' : 'CompleteAbort',
    partitions: [],
    groups: [],
    startTimeMs: 0,
    lastUpdateMs: nowMs,
  };
}

/** Validates a client's transaction timeout: 0 = the default. */
export function transactionTimeout(requested: number, maxMs: number): number {
  const timeout = requested || DEFAULT_TRANSACTION_TIMEOUT_MS;
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > maxMs)
    throw new TideError(
      'INVALID_TRANSACTION_TIMEOUT',
      `transaction timeout ${timeout} ms must be between 1 and the coordinator's transactionMaxTimeoutMs (${maxMs})`,
    );
  return timeout;
}
