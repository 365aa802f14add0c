/**
 * Checks a produce/consume history the way a Jepsen-style checker would: every acknowledged
 * record must be read back exactly once, at the offset it was acknowledged with, and each
 * producer's records must appear in the order they were sent within a partition.
 */

export interface AckedRecord {
  partition: number;
  offset: number;
  value: string;
  /** Which producer sent it and its send order within that producer. */
  producer: string;
  seq: number;
  /** When the acknowledgement arrived (ms since the epoch), for unavailability figures. */
  atMs?: number;
}

export interface ReadRecord {
  partition: number;
  offset: number;
  value: string;
}

export interface HistoryReport {
  acked: number;
  read: number;
  /** Acknowledged but never read. */
  lost: AckedRecord[];
  /** Read at more than one offset. */
  duplicated: { value: string; offsets: string[] }[];
  /** Two different values read at the same partition/offset (offset reuse). */
  offsetConflicts: { partition: number; offset: number; values: string[] }[];
  /** Read at an offset other than the acknowledged one. */
  moved: { value: string; acked: string; read: string }[];
  /** A producer's records in one partition not in send order. */
  reordered: { producer: string; partition: number; before: string; after: string }[];
  /** True when nothing above is non-empty. */
  ok: boolean;
}

export function checkHistory(acked: AckedRecord[], read: ReadRecord[]): HistoryReport {
  const where = (r: { partition: number; offset: number }) => `${r.partition}@${r.offset}`;
  const readByValue = new Map<string, ReadRecord[]>();
  const readByOffset = new Map<string, Set<string>>();
  for (const r of read) {
    const seen = readByValue.get(r.value);
    if (seen) seen.push(r);
    else readByValue.set(r.value, [r]);
    const key = where(r);
    readByOffset.set(key, (readByOffset.get(key) ?? new Set()).add(r.value));
  }

  const lost: AckedRecord[] = [];
  const moved: HistoryReport['moved'] = [];
  for (const a of acked) {
    const seen = readByValue.get(a.value);
    if (!seen) lost.push(a);
    else if (!seen.some((r) => r.partition === a.partition && r.offset === a.offset)) {
      moved.push({ value: a.value, acked: where(a), read: seen.map(where).join(',') });
    }
  }

  const duplicated: HistoryReport['duplicated'] = [];
  for (const [value, rs] of readByValue) {
    const offsets = [...new Set(rs.map(where))];
    if (offsets.length > 1) duplicated.push({ value, offsets });
  }

  const offsetConflicts: HistoryReport['offsetConflicts'] = [];
  for (const [key, values] of readByOffset) {
    if (values.size > 1) {
      const [partition, offset] = key.split('@').map(Number);
      offsetConflicts.push({ partition, offset, values: [...values] });
    }
  }

  // Per producer and partition, offsets must increase with the send order.
  const reordered: HistoryReport['reordered'] = [];
  const streams = new Map<string, AckedRecord[]>();
  for (const a of acked) {
    const key = `${a.producer}/${a.partition}`;
    const stream = streams.get(key);
    if (stream) stream.push(a);
    else streams.set(key, [a]);
  }
  for (const records of streams.values()) {
    records.sort((x, y) => x.seq - y.seq);
    for (let i = 1; i < records.length; i++) {
      if (records[i].offset <= records[i - 1].offset) {
        reordered.push({
          producer: records[i].producer,
          partition: records[i].partition,
          before: records[i - 1].value,
          after: records[i].value,
        });
      }
    }
  }

  const ok = lost.length + duplicated.length + offsetConflicts.length + moved.length + reordered.length === 0;
  return { acked: acked.length, read: read.length, lost, duplicated, offsetConflicts, moved, reordered, ok };
}

/** A short human summary for test failure messages. */
export function summarize(report: HistoryReport): string {
  const first = <T>(xs: T[]) => JSON.stringify(xs.slice(0, 5));
  return [
    `acked ${report.acked}, read ${report.read}`,
    `lost ${report.lost.length} ${first(report.lost)}`,
    `duplicated ${report.duplicated.length} ${first(report.duplicated)}`,
    `offset conflicts ${report.offsetConflicts.length} ${first(report.offsetConflicts)}`,
    `moved ${report.moved.length} ${first(report.moved)}`,
    `reordered ${report.reordered.length} ${first(report.reordered)}`,
  ].join('\n');
}
