/**
 * The transaction coordinator's Prometheus metrics, on the coordinator's registry (metrics.ts):
 *
 *   tide_transactions{state}                                   transactional ids this instance
 *                                                              holds, by state (the active ones:
 *                                                              Ongoing, PrepareCommit, PrepareAbort)
 *   tide_transactions_ended_total{result,reason}               ends decided (Prepare written):
 *                                                              result commit|abort, reason client
 *                                                              (EndTxn) | timeout | fenced
 *                                                              (InitTransactions of a new producer)
 *   tide_transaction_end_txn_duration_seconds                  EndTxn, arrival to answer
 *   tide_transaction_completion_duration_seconds               an end's markers and group offsets,
 *                                                              from its start to the last written
 *   tide_transactional_ids_expired_total                       ids forgotten after
 *                                                              transactionalIdExpirationMs
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { ServiceMetrics } from '../../common/metrics';
import { TXN_STATES, type TxnMetadata } from './txn-state';
import type { TxnObserver } from './txn-coordinator';

const SECONDS_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface TxnMetrics {
  /** What the transaction coordinator reports to (TxnCoordinatorOptions.observer). */
  observer: TxnObserver;
  /** The transactions to count at each scrape (set once the coordinator exists). */
  watch(list: () => readonly TxnMetadata[]): void;
}

export function transactionMetrics(metrics: ServiceMetrics): TxnMetrics {
  const registers = [metrics.registry];
  let list: () => readonly TxnMetadata[] = () => [];
  new Gauge({
    name: 'tide_transactions',
    help: 'Transactional ids this coordinator holds, by state (Ongoing and Prepare* are open transactions)',
    labelNames: ['state'],
    registers,
    collect() {
      const counts = new Map<string, number>(TXN_STATES.map((s) => [s, 0]));
      for (const m of list()) counts.set(m.state, (counts.get(m.state) ?? 0) + 1);
      for (const [state, count] of counts) this.set({ state }, count);
    },
  });
  const ended = new Counter({
    name: 'tide_transactions_ended_total',
    help: 'Transaction ends decided (their Prepare state written), by result and reason (client EndTxn, timeout, fenced by a new producer)',
    labelNames: ['result', 'reason'],
    registers,
  });
  const endTxn = new Histogram({
    name: 'tide_transaction_end_txn_duration_seconds',
    help: 'EndTxn latency at the coordinator, arrival to answer (the answer comes once the end is durable; the markers follow)',
    buckets: SECONDS_BUCKETS,
    registers,
  });
  const completion = new Histogram({
    name: 'tide_transaction_completion_duration_seconds',
    help: 'Time to write the markers and group offsets of an ended transaction',
    buckets: SECONDS_BUCKETS,
    registers,
  });
  const expired = new Counter({
    name: 'tide_transactional_ids_expired_total',
    help: 'Transactional ids forgotten after transactionalIdExpirationMs without a transaction',
    registers,
  });
  return {
    observer: {
      expired: () => expired.inc(),
      prepared: (result, reason) => ended.inc({ result, reason }),
      endTxnAnswered: (ms) => endTxn.observe(ms / 1000),
      completed: (ms) => completion.observe(ms / 1000),
    },
    watch: (source) => {
      list = source;
    },
  };
}
