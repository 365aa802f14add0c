/**
 * The transactional workload of the anomaly checker (txn-checker.ts) against real processes:
 * transactional producers writing random multi-partition transactions of unique values (some
 * aborted on purpose), each recorded with its writes and outcome; readers that read partitions
 * to the end with either isolation; and a transactional producer in a child process (a real
 * SIGSTOP makes it a zombie).
 */
import { ChildProcess, spawn } from 'child_process';
import * as path from 'path';
import type { Tide, TransactionalProducer } from '../../client';
import type { IsolationLevel } from '../../client/consumer/fetch-decode';
import { REPO_ROOT } from './processes';
import type { ReaderHistory, TxnHistoryEntry, TxnWrite } from './txn-checker';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface TxnProducerOptions {
  tide: Tide;
  topic: string;
  partitions: number;
  transactionalId: string;
  history: TxnHistoryEntry[];
  random: () => number;
  /** Share of transactions aborted on purpose. */
  abortRatio: number;
  shouldStop: () => boolean;
  /** Called just before a commit; resolves to a function called once the commit is under way. */
  beforeCommit?: (transactionalId: string) => Promise<(() => void) | undefined>;
  transactionTimeoutMs?: number;
  /** Errors seen, by code (retried by starting over). */
  errors?: Map<string, number>;
}

/**
 * Runs transactions until shouldStop(). A transaction whose end failed is aborted when possible
 * (then recorded aborted), else recorded unknown and the producer replaced (its initTransactions
 * completes or aborts whatever was left open).
 */
export async function runTxnProducer(o: TxnProducerOptions): Promise<void> {
  const fresh = async (): Promise<TransactionalProducer | undefined> => {
    while (!o.shouldStop()) {
      const p = o.tide.producer({
        transactionalId: o.transactionalId,
        transactionTimeoutMs: o.transactionTimeoutMs,
        lingerMs: 0,
      });
      try {
        await p.initTransactions();
        return p;
      } catch (err) {
        count(o.errors, err);
        await p.close();
        await sleep(200);
      }
    }
    return undefined;
  };
  let current = await fresh();
  for (let seq = 0; current && !o.shouldStop(); seq++) {
    const producer = current;
    const id = `${o.transactionalId}/${seq}`;
    const writes: TxnWrite[] = [];
    const partitions = [...Array(o.partitions).keys()].filter(() => o.random() < 0.5);
    if (partitions.length === 0) partitions.push(Math.floor(o.random() * o.partitions));
    for (const partition of partitions)
      for (let k = 1 + Math.floor(o.random() * 3); k > 0; k--)
        writes.push({ partition, value: `${id}/${writes.length}` });
    const entry: TxnHistoryEntry = { id, producer: o.transactionalId, seq, writes, outcome: 'unknown' };
    o.history.push(entry);
    const abortOnPurpose = o.random() < o.abortRatio;
    try {
      producer.beginTransaction();
      await Promise.all(
        writes.map((w) => producer.send(o.topic, { value: w.value }, { partition: w.partition })),
      );
      if (abortOnPurpose) {
        await producer.abortTransaction();
        entry.outcome = 'aborted';
      } else {
        const underWay = await o.beforeCommit?.(o.transactionalId);
        const commit = producer.commitTransaction();
        underWay?.();
        await commit;
        entry.outcome = 'committed';
      }
    } catch (err) {
      count(o.errors, err);
      try {
        await producer.abortTransaction();
        entry.outcome = 'aborted';
      } catch (abortErr) {
        count(o.errors, abortErr);
        await producer.close();
        current = await fresh();
      }
    }
  }
  await current?.close();
}

function count(errors: Map<string, number> | undefined, err: unknown): void {
  const code = (err as { code?: string }).code ?? String(err);
  errors?.set(code, (errors.get(code) ?? 0) + 1);
}

/**
 * Reads partitions from offset 0 up to `ends` (an end offset per partition taken after every
 * transaction ended), retrying through leader changes. Every partition read is complete.
 */
export async function readToEnd(
  tide: Tide,
  topic: string,
  ends: number[],
  isolation: IsolationLevel,
  reader: string,
  history: ReaderHistory = { reader, isolation, completePartitions: [], reads: [] },
  from: number[] = ends.map(() => 0),
): Promise<ReaderHistory> {
  const consumer = tide.consumer({ isolation });
  try {
    for (let partition = 0; partition < ends.length; partition++) {
      for (let offset = from[partition]; offset < ends[partition];) {
        let result;
        try {
          result = await consumer.fetch({ topic, partition }, offset, { maxWaitMs: 100 });
        } catch {
          await sleep(200);
          continue;
        }
        for (const r of result.records)
          if (r.offset >= offset && r.offset < ends[partition])
            history.reads.push({ partition, offset: r.offset, value: String(r.value) });
        if (result.nextOffset > offset) offset = result.nextOffset;
      }
      history.completePartitions.push(partition);
    }
    return history;
  } finally {
    await consumer.close();
  }
}

/**
 * A read_committed reader tailing every partition while the workload runs (it sees transactions
 * complete one partition at a time); finish() reads on to the final end offsets.
 */
export class TailReader {
  readonly history: ReaderHistory;
  private readonly next: number[];
  private stopped = false;
  private readonly loop: Promise<void>;

  constructor(
    private readonly tide: Tide,
    private readonly topic: string,
    partitions: number,
    reader: string,
  ) {
    this.history = { reader, isolation: 'read_committed', completePartitions: [], reads: [] };
    this.next = Array.from({ length: partitions }, () => 0);
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    const consumer = this.tide.consumer({ isolation: 'read_committed' });
    try {
      while (!this.stopped) {
        for (let partition = 0; partition < this.next.length && !this.stopped; partition++) {
          try {
            const result = await consumer.fetch({ topic: this.topic, partition }, this.next[partition], {
              maxWaitMs: 50,
            });
            for (const r of result.records)
              if (r.offset >= this.next[partition])
                this.history.reads.push({ partition, offset: r.offset, value: String(r.value) });
            if (result.nextOffset > this.next[partition]) this.next[partition] = result.nextOffset;
          } catch {
            await sleep(200);
          }
        }
      }
    } finally {
      await consumer.close();
    }
  }

  /** Stops tailing (finish() reads on to the end). */
  stop(): Promise<void> {
    this.stopped = true;
    return this.loop;
  }

  async finish(ends: number[]): Promise<ReaderHistory> {
    this.stopped = true;
    await this.loop;
    return readToEnd(
      this.tide,
      this.topic,
      ends,
      'read_committed',
      this.history.reader,
      this.history,
      this.next,
    );
  }
}

export interface ChildReply {
  op: string;
  ok: boolean;
  value?: string;
  offset?: number;
  code?: string;
  message?: string;
  producerId?: number;
  producerEpoch?: number;
}

let children: ChildProcess[] = [];
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

/** A transactional producer in a child process (test/harness/txn-client-child.ts, from dist/). */
export class ChildTxnProducer {
  readonly child: ChildProcess;
  private readonly replies: ChildReply[] = [];
  private waiting: ((r: ChildReply) => void)[] = [];
  private stderr = '';

  constructor(bootstrap: string, topic: string, transactionalId: string, timeoutMs: number) {
    this.child = spawn(
      process.execPath,
      [
        path.join(REPO_ROOT, 'dist', 'test', 'harness', 'txn-client-child.js'),
        bootstrap,
        topic,
        transactionalId,
        String(timeoutMs),
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    children.push(this.child);
    let buffer = '';
    this.child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const reply = JSON.parse(buffer.slice(0, nl)) as ChildReply;
        buffer = buffer.slice(nl + 1);
        const w = this.waiting.shift();
        if (w) w(reply);
        else this.replies.push(reply);
      }
    });
    this.child.stderr!.on('data', (c: Buffer) => (this.stderr = (this.stderr + c.toString()).slice(-10_000)));
  }

  /** Sends one command; resolves with its reply (commands are answered in order). */
  call(command: { op: string; partition?: number; value?: string }): Promise<ChildReply> {
    this.child.stdin!.write(JSON.stringify(command) + '\n');
    const ready = this.replies.shift();
    if (ready) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      this.waiting.push(resolve);
      this.child.once('exit', () => reject(new Error(`the child producer exited: ${this.stderr}`)));
    });
  }

  pause(): void {
    this.child.kill('SIGSTOP');
  }

  resume(): void {
    this.child.kill('SIGCONT');
  }

  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGCONT');
    this.child.kill('SIGKILL');
    await exited;
    children = children.filter((c) => c !== this.child);
  }
}
