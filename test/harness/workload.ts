/**
 * A produce workload for fault tests: idempotent acks=all producers writing unique values, and a
 * full read-back, feeding the history checker.
 */
import { Tide, TideError, type ProducerOptions } from '../../client';
import type { AckedRecord, ReadRecord } from './history-checker';

export class Workload {
  readonly acked: AckedRecord[] = [];
  readonly errors = new Map<string, number>();
  private running = false;
  private loop: Promise<void> | undefined;
  private seq = 0;

  constructor(
    private readonly tide: Tide,
    private readonly topic: string,
    private readonly partitions: number,
    private readonly name = 'w1',
    private readonly inFlight = 20,
    private readonly producerOptions: ProducerOptions = {},
  ) {}

  /** Starts writing in the background until stop(). */
  start(): void {
    this.running = true;
    const producer = this.tide.producer({
      acks: 'all',
      lingerMs: 1,
      retry: { attempts: 30, maxBackoffMs: 500 },
      ...this.producerOptions,
    });
    const one = async (): Promise<void> => {
      while (this.running) {
        const seq = this.seq++;
        const partition = seq % this.partitions;
        const value = `${this.name}-${seq}`;
        try {
          const meta = await producer.send(this.topic, { value, partition });
          this.acked.push({
            partition: meta.partition,
            offset: meta.offset,
            value,
            producer: `${this.name}/${partition}`,
            seq,
            atMs: Date.now(),
          });
        } catch (err) {
          const code = err instanceof TideError ? err.code : String(err);
          this.errors.set(code, (this.errors.get(code) ?? 0) + 1);
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    this.loop = Promise.all(Array.from({ length: this.inFlight }, one)).then(() =>
      producer.close().catch(() => undefined),
    );
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Acks so far (for waiting on progress). */
  get count(): number {
    return this.acked.length;
  }
}

/** Reads every committed record of every partition from the start. */
export async function readEverything(tide: Tide, topic: string, partitions: number): Promise<ReadRecord[]> {
  const out: ReadRecord[] = [];
  const consumer = tide.consumer({ autoOffsetReset: 'earliest' });
  try {
    for (let partition = 0; partition < partitions; partition++) {
      let offset = 0;
      for (;;) {
        const result = await consumer.fetch({ topic, partition }, offset, { maxWaitMs: 0 });
        for (const r of result.records)
          out.push({ partition, offset: r.offset, value: r.value?.toString() ?? '' });
        if (result.records.length === 0 || result.nextOffset >= result.highWatermark) break;
        offset = result.nextOffset;
      }
    }
  } finally {
    await consumer.close();
  }
  return out;
}
