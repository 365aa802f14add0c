/**
 * A transactional anomaly checker in the spirit of Jepsen's Elle (Kafka workload): transactional
 * producers write multi-partition transactions of unique values, each transaction recorded with
 * its writes (in send order) and its outcome as the producer saw it; read_committed and
 * read_uncommitted consumers read partitions, recording every value with its offset and which
 * partitions they read to the end (up to an end offset taken after every transaction ended).
 *
 * Reported anomalies:
 * - abortedReads: read_committed saw a value of an aborted transaction (or a value no
 *   transaction wrote: garbage);
 * - tornReads: read_committed saw part of a transaction but not all of it in the partitions it
 *   read to the end (intermediate read / torn transaction; a transaction of unknown outcome whose
 *   write was seen committed must be seen whole too);
 * - lostWrites: a committed write no read_committed reader saw in a partition it read to the end;
 * - duplicated: a value read at two different offsets (by any readers);
 * - offsetConflicts: two values read at the same partition offset (readers disagree);
 * - orderAnomalies: a reader's reads of a partition not in increasing offset order, or a
 *   producer's writes to a partition read at offsets out of its send order (within and across
 *   its transactions).
 */

export type TxnOutcome = 'committed' | 'aborted' | 'unknown';

export interface TxnWrite {
  partition: number;
  value: string;
}

export interface TxnHistoryEntry {
  /** Unique id of the transaction, e.g. `p1/17`. */
  id: string;
  /** The producer (transactional id) that ran it; its transactions ran one after another. */
  producer: string;
  /** Position among the producer's transactions. */
  seq: number;
  /** Writes in send order. */
  writes: TxnWrite[];
  outcome: TxnOutcome;
}

export type Isolation = 'read_committed' | 'read_uncommitted';

export interface ReaderHistory {
  reader: string;
  isolation: Isolation;
  /** Partitions this reader read from the start to an end offset taken after every transaction ended. */
  completePartitions: number[];
  /** In the order the reader received them. */
  reads: { partition: number; offset: number; value: string }[];
}

export interface TxnReport {
  transactions: { committed: number; aborted: number; unknown: number };
  reads: number;
  abortedReads: { reader: string; value: string; txn?: string; at: string }[];
  tornReads: { reader: string; txn: string; seen: string[]; missing: string[] }[];
  lostWrites: { txn: string; value: string; partition: number }[];
  duplicated: { value: string; offsets: string[] }[];
  offsetConflicts: { at: string; values: string[] }[];
  orderAnomalies: {
    kind: 'reader' | 'producer';
    who: string;
    partition: number;
    before: string;
    after: string;
  }[];
  ok: boolean;
}

const where = (partition: number, offset: number) => `${partition}@${offset}`;

export function checkTransactions(history: TxnHistoryEntry[], readers: ReaderHistory[]): TxnReport {
  const txnOf = new Map<string, TxnHistoryEntry>();
  for (const t of history)
    for (const w of t.writes) {
      if (txnOf.has(w.value)) throw new Error(`value ${w.value} written twice: values must be unique`);
      txnOf.set(w.value, t);
    }

  // Where each value was read, over all readers (offsets must agree between readers).
  const offsetsOfValue = new Map<string, Set<string>>();
  const valuesAtOffset = new Map<string, Set<string>>();
  for (const r of readers)
    for (const x of r.reads) {
      const at = where(x.partition, x.offset);
      offsetsOfValue.set(x.value, (offsetsOfValue.get(x.value) ?? new Set()).add(at));
      valuesAtOffset.set(at, (valuesAtOffset.get(at) ?? new Set()).add(x.value));
    }

  const abortedReads: TxnReport['abortedReads'] = [];
  const tornReads: TxnReport['tornReads'] = [];
  const orderAnomalies: TxnReport['orderAnomalies'] = [];
  const seenCommitted = new Set<string>();
  for (const r of readers) {
    const lastOffset = new Map<number, { offset: number; value: string }>();
    for (const x of r.reads) {
      const last = lastOffset.get(x.partition);
      if (last && x.offset <= last.offset)
        orderAnomalies.push({
          kind: 'reader',
          who: r.reader,
          partition: x.partition,
          before: last.value,
          after: x.value,
        });
      lastOffset.set(x.partition, { offset: x.offset, value: x.value });
    }
    if (r.isolation !== 'read_committed') continue;
    const seen = new Set(r.reads.map((x) => x.value));
    const complete = new Set(r.completePartitions);
    const touched = new Set<TxnHistoryEntry>();
    for (const x of r.reads) {
      const t = txnOf.get(x.value);
      if (!t || t.outcome === 'aborted') {
        abortedReads.push({ reader: r.reader, value: x.value, txn: t?.id, at: where(x.partition, x.offset) });
      } else {
        touched.add(t);
        if (complete.has(x.partition)) seenCommitted.add(x.value);
      }
    }
    for (const t of touched) {
      const missing = t.writes
        .filter((w) => complete.has(w.partition) && !seen.has(w.value))
        .map((w) => w.value);
      if (missing.length > 0)
        tornReads.push({
          reader: r.reader,
          txn: t.id,
          seen: t.writes.filter((w) => seen.has(w.value)).map((w) => w.value),
          missing,
        });
    }
  }

  // A committed write must be read by every read_committed reader that read its partition to the
  // end; reported once per write, when no such reader saw it (torn reads cover the others).
  const lostWrites: TxnReport['lostWrites'] = [];
  const committedReaders = readers.filter((r) => r.isolation === 'read_committed');
  for (const t of history) {
    if (t.outcome !== 'committed') continue;
    for (const w of t.writes) {
      const covering = committedReaders.filter((r) => r.completePartitions.includes(w.partition));
      if (covering.length > 0 && !seenCommitted.has(w.value))
        lostWrites.push({ txn: t.id, value: w.value, partition: w.partition });
    }
  }
  // Also lost when a covering reader missed it while another saw it.
  for (const r of committedReaders) {
    const seen = new Set(r.reads.map((x) => x.value));
    for (const t of history) {
      if (t.outcome !== 'committed') continue;
      for (const w of t.writes)
        if (r.completePartitions.includes(w.partition) && !seen.has(w.value) && seenCommitted.has(w.value)) {
          const touchedByReader = t.writes.some((o) => seen.has(o.value));
          // Partly seen: already a torn read of this reader; not seen at all: lost for this reader.
          if (!touchedByReader) lostWrites.push({ txn: t.id, value: w.value, partition: w.partition });
        }
    }
  }

  const duplicated: TxnReport['duplicated'] = [];
  for (const [value, offsets] of offsetsOfValue)
    if (offsets.size > 1) duplicated.push({ value, offsets: [...offsets] });
  const offsetConflicts: TxnReport['offsetConflicts'] = [];
  for (const [at, values] of valuesAtOffset)
    if (values.size > 1) offsetConflicts.push({ at, values: [...values] });

  // A producer's writes to one partition, in send order over its transactions, must be read at
  // increasing offsets (only values read at one offset take part).
  const streams = new Map<string, { order: number; value: string; offset: number; partition: number }[]>();
  for (const t of history) {
    t.writes.forEach((w, i) => {
      const offsets = offsetsOfValue.get(w.value);
      if (!offsets || offsets.size !== 1) return;
      const offset = Number([...offsets][0].split('@')[1]);
      const key = `${t.producer}/${w.partition}`;
      const stream = streams.get(key) ?? [];
      stream.push({ order: t.seq * 1_000_000 + i, value: w.value, offset, partition: w.partition });
      streams.set(key, stream);
    });
  }
  for (const [key, stream] of streams) {
    stream.sort((a, b) => a.order - b.order);
    for (let i = 1; i < stream.length; i++)
      if (stream[i].offset <= stream[i - 1].offset)
        orderAnomalies.push({
          kind: 'producer',
          who: key.split('/')[0],
          partition: stream[i].partition,
          before: stream[i - 1].value,
          after: stream[i].value,
        });
  }

  const count = (o: TxnOutcome) => history.filter((t) => t.outcome === o).length;
  const ok =
    abortedReads.length +
      tornReads.length +
      lostWrites.length +
      duplicated.length +
      offsetConflicts.length +
      orderAnomalies.length ===
    0;
  return {
    transactions: { committed: count('committed'), aborted: count('aborted'), unknown: count('unknown') },
    reads: readers.reduce((n, r) => n + r.reads.length, 0),
    abortedReads,
    tornReads,
    lostWrites,
    duplicated,
    offsetConflicts,
    orderAnomalies,
    ok,
  };
}

/** Anomaly counts by kind, for test messages and the docs' results table. */
export function anomalyCounts(report: TxnReport): Record<string, number> {
  return {
    abortedReads: report.abortedReads.length,
    tornReads: report.tornReads.length,
    lostWrites: report.lostWrites.length,
    duplicated: report.duplicated.length,
    offsetConflicts: report.offsetConflicts.length,
    orderAnomalies: report.orderAnomalies.length,
  };
}

/** A short human summary for test failure messages. */
export function summarizeTxnReport(report: TxnReport): string {
  const first = <T>(xs: T[]) => JSON.stringify(xs.slice(0, 5));
  const t = report.transactions;
  return [
    `transactions committed ${t.committed}, aborted ${t.aborted}, unknown ${t.unknown}; reads ${report.reads}`,
    `aborted reads ${report.abortedReads.length} ${first(report.abortedReads)}`,
    `torn reads ${report.tornReads.length} ${first(report.tornReads)}`,
    `lost writes ${report.lostWrites.length} ${first(report.lostWrites)}`,
    `duplicated ${report.duplicated.length} ${first(report.duplicated)}`,
    `offset conflicts ${report.offsetConflicts.length} ${first(report.offsetConflicts)}`,
    `order anomalies ${report.orderAnomalies.length} ${first(report.orderAnomalies)}`,
  ].join('\n');
}
