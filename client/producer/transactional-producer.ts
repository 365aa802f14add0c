/**
 * A transactional producer (docs/transactions.md): records sent between beginTransaction() and
 * commitTransaction() become visible to read_committed consumers together, or (abort) never;
 * consumed offsets can be committed in the same transaction (sendOffsets).
 *
 *   const p = tide.producer({ transactionalId: 'payments-writer' });
 *   await p.initTransactions();
 *   await p.transaction(async (tx) => {
 *     await tx.send('out', { value: 'x' });
 *     await tx.sendOffsets(consumer.groupMetadata(), [{ topic: 'in', partition: 0, offset: 42 }]);
 *   });
 *
 * Underneath a plain idempotent Producer whose batches carry the transactional bit and whose
 * requests carry the transactional id, with its identity from InitTransactions. Partitions join
 * the transaction implicitly (KIP-890 part 2): each partition's leader adds the partition at the
 * coordinator on the first batch of the transaction there, so the producer sends at once, with no
 * AddPartitionsToTxn round trip before its records. Every transaction end bumps the epoch
 * (KIP-890): EndTxn answers the next identity (once the end is decided; the markers follow), and
 * every partition starts over at sequence 0 with it.
 *
 * Errors. PRODUCER_FENCED (another producer with the same transactional id called
 * initTransactions) is fatal: every later call fails with it; close this producer. Any other
 * failure inside a transaction (a send, adding a partition, TRANSACTION_ABORTED after the
 * coordinator's timeout abort) makes the transaction abortable only: commitTransaction fails, and
 * abortTransaction() lets the producer begin again.
 */
import { TideError } from '../../services/common/errors';
import type { Logger } from '../../services/common/logger';
import type { Cluster } from '../cluster';
import type { CoordinatorClient } from '../group/coordinator-client';
import type { GroupMetadata } from '../group/group-consumer';
import type { BatchMetadata, ProducerRecord, RecordMetadata } from '../types';
import type { ProducerOptions, SendOptions } from './options';
import { Producer } from './producer';
import type { Identity } from './state';
import type { InitTransactionsResponse } from '../../services/common/grpc/generated/tide/v1/InitTransactionsResponse';
import type { EndTxnResponse } from '../../services/common/grpc/generated/tide/v1/EndTxnResponse';
import { TxnCalls } from './txn-calls';

export interface TransactionalProducerOptions extends ProducerOptions {
  /** Identifies the producer across restarts: a new producer with this id fences the previous one. */
  transactionalId: string;
  /** The coordinator aborts a transaction open longer than this. Default 60000. */
  transactionTimeoutMs?: number;
}

/** An offset to commit in the transaction: the next offset to consume. */
export interface TxnOffsetInput {
  topic: string;
  partition: number;
  offset: number;
  metadata?: string;
}

type TxnPhase = 'uninitialised' | 'ready' | 'in-transaction' | 'abortable' | 'fatal' | 'closed';

const partitionKey = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export class TransactionalProducer {
  readonly transactionalId: string;
  private readonly producer: Producer;
  private readonly calls: TxnCalls;
  private readonly logger: Logger;
  private readonly timeoutMs: number;
  private identity: Identity | undefined;
  private phase: TxnPhase = 'uninitialised';
  private failure: TideError | undefined;
  /** Partitions this transaction sent records to (their leaders added them to it). */
  private readonly written = new Set<string>();
  private readonly groupsAdded = new Set<string>();

  constructor(cluster: Cluster, coordinators: CoordinatorClient, options: TransactionalProducerOptions) {
    if (!options.transactionalId)
      throw new TideError('INVALID_REQUEST', 'transactionalId must be a non-empty string');
    if (options.idempotence === false)
      throw new TideError(
        'INVALID_CONFIG',
        'a transactional producer is idempotent: drop idempotence: false',
      );
    if (options.acks !== undefined && options.acks !== 'all')
      throw new TideError(
        'INVALID_CONFIG',
        `a transactional producer needs acks 'all' (got ${options.acks})`,
      );
    this.transactionalId = options.transactionalId;
    this.timeoutMs = options.transactionTimeoutMs ?? 0;
    this.calls = new TxnCalls(coordinators);
    this.producer = new Producer(
      cluster,
      { ...options, acks: 'all', idempotence: true },
      {
        transactionalId: options.transactionalId,
        initIdentity: async () => {
          if (this.identity) return this.identity;
          throw new TideError(
            'TRANSACTIONAL_ID_NOT_FOUND',
            `transactional producer ${this.transactionalId}: call initTransactions() before sending`,
          );
        },
        opened: (topic, partition) => this.written.add(partitionKey(topic, partition)),
      },
    );
    this.logger = (options.logger ?? cluster.logger).child({
      component: 'transactional-producer',
      transactionalId: this.transactionalId,
    });
  }

  /** The producer id and epoch of the current transaction (undefined before initTransactions). */
  get producerIdentity(): Identity | undefined {
    return this.identity;
  }

  /**
   * Registers the transactional id with its coordinator: fences any previous producer with the
   * same id (its open transaction is aborted first). Call once, before the first transaction.
   */
  async initTransactions(): Promise<void> {
    this.ensureUsable();
    if (this.phase !== 'uninitialised')
      throw new TideError('INVALID_TXN_STATE', 'initTransactions() was already called');
    const r = await this.calls.call<InitTransactionsResponse>(this.transactionalId, (c, o, cb) =>
      c.InitTransactions(
        { transactional_id: this.transactionalId, transaction_timeout_ms: this.timeoutMs },
        o,
        cb,
      ),
    );
    this.setIdentity({ producerId: r.producer_id, producerEpoch: r.producer_epoch });
    this.phase = 'ready';
  }

  beginTransaction(): void {
    this.ensureUsable();
    if (this.phase === 'uninitialised')
      throw new TideError('INVALID_TXN_STATE', 'call initTransactions() before beginTransaction()');
    if (this.phase !== 'ready')
      throw new TideError(
        'INVALID_TXN_STATE',
        'a transaction is already open: commitTransaction() or abortTransaction() it first',
      );
    this.phase = 'in-transaction';
    this.failure = undefined;
  }

  send(topic: string, record: ProducerRecord, options?: SendOptions): Promise<RecordMetadata>;
  send(topic: string, records: readonly ProducerRecord[], options?: SendOptions): Promise<BatchMetadata>;
  send(
    topic: string,
    recordOrRecords: ProducerRecord | readonly ProducerRecord[],
    options: SendOptions = {},
  ): Promise<RecordMetadata | BatchMetadata> {
    const refused = this.sendRefusal();
    if (refused) return Promise.reject(refused);
    if (Array.isArray(recordOrRecords))
      return this.watched(this.producer.send(topic, recordOrRecords as readonly ProducerRecord[], options));
    return this.watched(this.producer.send(topic, recordOrRecords as ProducerRecord, options));
  }

  sendBatch(
    topic: string,
    records: readonly (ProducerRecord | Buffer)[],
    options: SendOptions = {},
  ): Promise<BatchMetadata> {
    const refused = this.sendRefusal();
    if (refused) return Promise.reject(refused);
    return this.watched(this.producer.sendBatch(topic, records, options));
  }

  /**
   * Commits a consumer group's offsets inside the transaction: they become the group's committed
   * offsets only if the transaction commits. `group` is the consumer's groupMetadata(); a member
   * whose epoch is stale (a zombie after a rebalance) is refused.
   */
  async sendOffsets(group: GroupMetadata, offsets: readonly TxnOffsetInput[]): Promise<void> {
    const refused = this.sendRefusal();
    if (refused) throw refused;
    if (offsets.length === 0) return;
    const identity = this.identity as Identity;
    try {
      if (!this.groupsAdded.has(group.groupId)) {
        await this.calls.call(this.transactionalId, (c, o, cb) =>
          c.AddOffsetsToTxn(
            {
              transactional_id: this.transactionalId,
              producer_id: identity.producerId,
              producer_epoch: identity.producerEpoch,
              group_id: group.groupId,
            },
            o,
            cb,
          ),
        );
        this.groupsAdded.add(group.groupId);
      }
      await this.calls.call(group.groupId, (c, o, cb) =>
        c.TxnOffsetCommit(
          {
            transactional_id: this.transactionalId,
            producer_id: identity.producerId,
            producer_epoch: identity.producerEpoch,
            group_id: group.groupId,
            member_id: group.memberId,
            member_epoch: group.memberEpoch,
            offsets: offsets.map((o) => ({
              topic: o.topic,
              partition: o.partition,
              offset: o.offset,
              metadata: o.metadata ?? '',
            })),
          },
          o,
          cb,
        ),
      );
    } catch (err) {
      throw this.failed(err);
    }
  }

  /** Sends everything, then commits. Throws (and leaves the transaction abortable) when anything failed. */
  async commitTransaction(): Promise<void> {
    this.ensureUsable();
    if (this.phase === 'abortable')
      throw new TideError(
        'TRANSACTION_ABORTED',
        `the transaction cannot commit: ${this.failure?.message ?? 'an earlier call failed'}; call abortTransaction()`,
        { cause: this.failure },
      );
    if (this.phase !== 'in-transaction')
      throw new TideError('INVALID_TXN_STATE', 'no transaction is open: call beginTransaction() first');
    await this.producer.flush();
    // A send that failed during the flush made the transaction abortable (watched()).
    if (this.phase !== 'in-transaction') return this.commitTransaction();
    await this.end(true);
  }

  /** Aborts the open transaction: none of its records or offsets become visible. */
  async abortTransaction(): Promise<void> {
    this.ensureUsable();
    if (this.phase !== 'in-transaction' && this.phase !== 'abortable')
      throw new TideError('INVALID_TXN_STATE', 'no transaction is open: call beginTransaction() first');
    // In-flight batches settle first (failures included): the next epoch starts from a quiet pipeline.
    await this.producer.flush().catch(() => undefined);
    await this.end(false);
  }

  /** Runs `fn` in a transaction: commits when it resolves, aborts (and rethrows) when it throws. */
  async transaction<T>(fn: (tx: TransactionalProducer) => Promise<T>): Promise<T> {
    this.beginTransaction();
    let result: T;
    try {
      result = await fn(this);
    } catch (err) {
      if (this.phase === 'in-transaction' || this.phase === 'abortable')
        await this.abortTransaction().catch((abortErr: unknown) =>
          this.logger.warn({ err: abortErr }, 'aborting after a failed transaction body failed too'),
        );
      throw err;
    }
    try {
      await this.commitTransaction();
    } catch (err) {
      if (this.phase === 'abortable') await this.abortTransaction().catch(() => undefined);
      throw err;
    }
    return result;
  }

  async flush(): Promise<void> {
    await this.producer.flush();
  }

  /** Resolves when the buffer has room again (Producer.ready()). */
  ready(): Promise<void> {
    return this.producer.ready();
  }

  /** Closes the producer. An open transaction is left to the coordinator's timeout (or the next initTransactions). */
  async close(): Promise<void> {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    this.calls.close();
    await this.producer.close().catch(() => undefined);
  }

  // ---------------------------------------------------------------- internals

  private async end(commit: boolean): Promise<void> {
    // Nothing was written (no partition, no offsets): there is no transaction to end.
    if (this.written.size === 0 && this.groupsAdded.size === 0) {
      this.reset();
      return;
    }
    const identity = this.identity as Identity;
    let r: EndTxnResponse;
    try {
      r = await this.calls.endTxn({
        transactional_id: this.transactionalId,
        producer_id: identity.producerId,
        producer_epoch: identity.producerEpoch,
        commit,
        // The next transaction most likely writes where this one did: its leaders' joins there
        // then need no coordinator write (the Prepare write covers them).
        reserve_partitions: true,
      });
    } catch (err) {
      const error = this.failed(err);
      // A transaction the coordinator never saw (every send failed before its partition joined,
      // no offsets) has nothing to end.
      if (error.code === 'INVALID_TXN_STATE' && commit === false && this.groupsAdded.size === 0) {
        this.reset();
        return;
      }
      throw error;
    }
    this.setIdentity({ producerId: r.producer_id, producerEpoch: r.producer_epoch });
    this.reset();
  }

  private reset(): void {
    this.phase = 'ready';
    this.failure = undefined;
    this.written.clear();
    this.groupsAdded.clear();
  }

  private setIdentity(identity: Identity): void {
    this.identity = identity;
    this.producer.setIdentity(identity);
  }

  /** A send's failure makes the transaction abortable (or the producer fenced). */
  private watched<T>(sent: Promise<T>): Promise<T> {
    return sent.catch((err: unknown) => {
      throw this.failed(err);
    });
  }

  private failed(err: unknown): TideError {
    const error =
      err instanceof TideError ? err : new TideError('INVALID_REQUEST', String(err), { cause: err });
    if (error.code === 'PRODUCER_FENCED' || error.code === 'INVALID_PRODUCER_EPOCH') {
      if (error.code === 'INVALID_PRODUCER_EPOCH' && this.phase === 'abortable') return error;
      this.phase = 'fatal';
      this.failure = error;
      this.logger.warn({ msg: error.message }, 'fenced: another producer with this transactional id started');
      return error;
    }
    if (this.phase === 'in-transaction') {
      this.phase = 'abortable';
      this.failure = error;
    }
    return error;
  }

  private sendRefusal(): TideError | undefined {
    if (this.phase === 'in-transaction') return undefined;
    if (this.phase === 'fatal' || this.phase === 'closed') return this.usableError();
    if (this.phase === 'abortable')
      return new TideError(
        'TRANSACTION_ABORTED',
        `the transaction failed (${this.failure?.message ?? 'an earlier call failed'}); call abortTransaction()`,
      );
    return new TideError('INVALID_TXN_STATE', 'no transaction is open: call beginTransaction() first');
  }

  private usableError(): TideError {
    if (this.phase === 'closed') return new TideError('INVALID_REQUEST', 'the producer is closed');
    return new TideError(
      'PRODUCER_FENCED',
      `transactional producer ${this.transactionalId} is fenced (${this.failure?.message ?? ''}); close it`,
      { cause: this.failure },
    );
  }

  private ensureUsable(): void {
    if (this.phase === 'fatal' || this.phase === 'closed') throw this.usableError();
  }
}
