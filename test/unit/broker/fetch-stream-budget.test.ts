/**
 * FetchStream memory bounds: reads reserve their max bytes in the stream's and the connection's
 * byte budgets until grpc-js has handed the response to HTTP/2 (the write callback). A client that
 * never reads (the callbacks never fire) stops the partition loops at the budget instead of letting
 * responses pile up in the broker: one stream of many positions grew memory without bound before.
 * The call and the partitions are fakes; the handler is the real one.
 */
import { EventEmitter } from 'events';
import type * as grpc from '@grpc/grpc-js';
import { handleFetchStream, type FetchDeps } from '../../../services/broker/api/fetch';
import { ByteBudget, ConnectionBudgets } from '../../../services/broker/api/byte-budget';
import type { Partition } from '../../../services/broker/partition/partition';
import type { PartitionRegistry } from '../../../services/broker/partition/partition-registry';
import { systemClock } from '../../../services/common/clock';
import { silentLogger } from '../../../services/common/logger';

const MIB = 1024 * 1024;

/** A partition that always has another `maxBytes` of data; counts reads (stops at 100). */
function endlessPartitions(): { registry: PartitionRegistry; reads: () => number } {
  let reads = 0;
  const partition = {
    topic: 't',
    partition: 0,
    read: (offset: number, maxBytes: number) => {
      reads++;
      if (reads > 100) return new Promise(() => undefined); // unbounded: stop here
      return Promise.resolve({
        batches: Buffer.alloc(maxBytes),
        nextOffset: offset + 1,
        logStartOffset: 0,
        highWatermark: offset + 1_000,
      });
    },
    waitForData: () => new Promise(() => undefined),
  } as unknown as Partition;
  const registry = { leaderFor: () => partition } as unknown as PartitionRegistry;
  return { registry, reads: () => reads };
}

/** A FetchStream call whose client reads nothing: write callbacks are held until released. */
class StalledCall extends EventEmitter {
  readonly held: (() => void)[] = [];
  readonly metadata = { get: () => [] };
  cancelled = false;
  constructor(
    readonly request: unknown,
    private readonly peer = 'ipv4:127.0.0.1:5000',
  ) {
    super();
  }
  getPeer(): string {
    return this.peer;
  }
  write(_response: unknown, callback: () => void): boolean {
    this.held.push(callback);
    return true;
  }
  end(): void {}
  release(n: number): void {
    for (const cb of this.held.splice(0, n)) cb();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise((r) => setImmediate(r));
}

function request(partitions: number): unknown {
  return {
    positions: Array.from({ length: partitions }, (_, p) => ({ topic: 't', partition: p, offset: 0 })),
    max_bytes: MIB,
    format: 'RECORD_FORMAT_BATCHES',
  };
}

function start(deps: FetchDeps, call: StalledCall): void {
  handleFetchStream(deps, call as unknown as grpc.ServerWritableStream<never, never>);
}

test('a stream that is not read stops reading at its byte budget, and resumes as responses go out', async () => {
  const { registry, reads } = endlessPartitions();
  const deps: FetchDeps = {
    partitions: registry,
    clock: systemClock,
    logger: silentLogger(),
    streamLimits: { maxPositions: 10, streamBufferBytes: 4 * MIB, connectionBufferBytes: 64 * MIB },
    connectionBudgets: new ConnectionBudgets(64 * MIB),
  };
  const call = new StalledCall(request(3));
  start(deps, call);
  await settle();
  expect(reads()).toBe(4);
  call.release(2);
  await settle();
  expect(reads()).toBe(6);
  call.emit('cancelled');
});

test('the streams of one connection share its budget; another connection has its own', async () => {
  const { registry, reads } = endlessPartitions();
  const deps: FetchDeps = {
    partitions: registry,
    clock: systemClock,
    logger: silentLogger(),
    streamLimits: { maxPositions: 10, streamBufferBytes: 4 * MIB, connectionBufferBytes: 6 * MIB },
    connectionBudgets: new ConnectionBudgets(6 * MIB),
  };
  const calls = [new StalledCall(request(2)), new StalledCall(request(2))];
  for (const call of calls) start(deps, call);
  await settle();
  expect(reads()).toBe(6);
  const other = new StalledCall(request(1), 'ipv4:127.0.0.2:5000');
  start(deps, other);
  await settle();
  expect(reads()).toBe(10);
  for (const call of [...calls, other]) call.emit('cancelled');
  await settle();
  expect(deps.connectionBudgets!.size).toBe(0);
});

test('ByteBudget: first come first served, oversized asks take the whole budget, aborts give up', async () => {
  const budget = new ByteBudget(10);
  expect(await budget.acquire(6)).toBe(6);
  const order: string[] = [];
  const big = budget.acquire(50).then((n) => order.push(`big ${n}`));
  const small = budget.acquire(1).then((n) => order.push(`small ${n}`));
  const abort = new AbortController();
  const aborted = budget.acquire(1, abort.signal);
  abort.abort();
  expect(await aborted).toBe(0);
  await settle();
  expect(order).toEqual([]); // the small one waits behind the big one
  budget.release(6);
  await settle();
  expect(order).toEqual(['big 10']);
  budget.release(10);
  await Promise.all([big, small]);
  expect(order).toEqual(['big 10', 'small 1']);
  expect(budget.usedBytes).toBe(1);
});
