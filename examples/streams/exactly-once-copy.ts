/**
 * An exactly-once copy pipeline: every record of `payments-in` whose amount is positive is written
 * to `payments-out`, each exactly once even across crashes — with
 * `tide.streams({ applicationId, processingGuarantee: 'exactlyOnce' })` each commit interval is
 * one transaction (outputs and input offsets); readers use `isolation: 'read_committed'`.
 */
import { Serdes, type StreamsBuilder } from '../../streams';

export interface Payment {
  id: string;
  amount: number;
}

export function exactlyOnceCopy(b: StreamsBuilder): void {
  b.stream('payments-in', { key: Serdes.string, value: Serdes.json<Payment>() })
    .filter((_id, p) => p.amount > 0)
    .to('payments-out', { key: Serdes.string, value: Serdes.json<Payment>() });
}
