/**
 * Fetch and ListOffsets with an isolation level, on a real Partition over a temp log: the BATCHES
 * format returns the aborted ranges and the LSO, the RECORDS (portable) format drops aborted and
 * control records on the broker, LATEST under read_committed is the LSO, and an unknown isolation
 * value is refused.
 */
import { fetch, type FetchDeps } from '../../../services/broker/api/fetch';
import { listOffsets } from '../../../services/broker/api/offsets';
import type { PartitionRegistry } from '../../../services/broker/partition/partition-registry';
import type { FetchRequest } from '../../../services/common/grpc/generated/tide/v1/FetchRequest';
import type { ListOffsetsRequest } from '../../../services/common/grpc/generated/tide/v1/ListOffsetsRequest';
import { silentLogger } from '../../../services/common/logger';
import { decodeRecords, encodeBatch } from '../../../services/common/records';
import { TempDirs } from '../log/helpers';
import { partitionOn, state, type PartitionFixture } from '../partition/helpers';

const dirs = new TempDirs();
let fixture: PartitionFixture | undefined;
afterEach(async () => {
  fixture?.partition.close();
  await fixture?.log.close();
  fixture = undefined;
  await dirs.cleanup();
});

const txn = (producerId: number, seq: number, value: string): Buffer =>
  encodeBatch([{ key: null, value: Buffer.from(value) }], {
    producerId,
    producerEpoch: 0,
    baseSequence: seq,
    transactional: true,
    nowMs: 1000,
  });
const plain = (value: string): Buffer =>
  encodeBatch([{ key: null, value: Buffer.from(value) }], { nowMs: 1000 });

/**
 * A single-replica leader holding: 0 a1 (pid 7, aborted) · 1 c1 (pid 8, committed) · 2 p ·
 * 3 ABORT(7) · 4 COMMIT(8) · 5 o1 (pid 9, still open) · 6 q. HW 7, LSO 5.
 */
async function setup(): Promise<FetchDeps> {
  fixture = await partitionOn(dirs);
  const { partition } = fixture;
  await partition.makeLeader(state({ replicas: [1], isr: [1] }), 1);
  await partition.append(txn(7, 0, 'a1'));
  await partition.append(txn(8, 0, 'c1'));
  await partition.append(plain('p'));
  const marker = { producerEpoch: 1, coordinatorEpoch: 0, timeoutMs: 1000 };
  await partition.writeTxnMarker({ ...marker, type: 'ABORT', producerId: 7 });
  await partition.writeTxnMarker({ ...marker, type: 'COMMIT', producerId: 8 });
  await partition.append(txn(9, 0, 'o1'));
  await partition.append(plain('q'));
  const registry = { leaderFor: () => partition } as unknown as PartitionRegistry;
  return { partitions: registry, clock: fixture.clock, logger: silentLogger() };
}

function fetchRequest(overrides: Partial<FetchRequest>): FetchRequest {
  return {
    topic: 't',
    partition: 0,
    offset: 0,
    max_bytes: 0,
    max_wait_ms: 0,
    min_bytes: 0,
    format: 'RECORD_FORMAT_BATCHES',
    isolation: 'ISOLATION_LEVEL_READ_UNCOMMITTED',
    ...overrides,
  };
}

const text = (v: unknown): string => Buffer.from(v as Uint8Array).toString();

describe('fetch with an isolation level', () => {
  it('BATCHES: read_committed stops at the LSO and returns the aborted ranges', async () => {
    const deps = await setup();
    const committed = await fetch(deps, fetchRequest({ isolation: 'ISOLATION_LEVEL_READ_COMMITTED' }));
    expect([committed.high_watermark, committed.last_stable_offset, committed.next_offset]).toEqual([
      7, 5, 5,
    ]);
    expect(committed.aborted_transactions).toEqual([{ producer_id: 7, first_offset: 0 }]);
    const batches = committed.record_batches as Buffer;
    const aborted = [{ producerId: 7, firstOffset: 0 }];
    expect(decodeRecords(batches, 0, aborted).map((r) => text(r.value))).toEqual(['c1', 'p']);

    const uncommitted = await fetch(deps, fetchRequest({}));
    expect([uncommitted.last_stable_offset, uncommitted.next_offset]).toEqual([5, 7]);
    expect(uncommitted.aborted_transactions).toBeUndefined();
    expect(decodeRecords(uncommitted.record_batches as Buffer, 0).map((r) => text(r.value))).toEqual([
      'a1',
      'c1',
      'p',
      'o1',
      'q',
    ]);
  });

  it('RECORDS: the broker drops aborted and control records; a portable client needs no filter', async () => {
    const deps = await setup();
    const committed = await fetch(
      deps,
      fetchRequest({ format: 'RECORD_FORMAT_RECORDS', isolation: 'ISOLATION_LEVEL_READ_COMMITTED' }),
    );
    expect((committed.records ?? []).map((r) => [Number(r.offset), text(r.value)])).toEqual([
      [1, 'c1'],
      [2, 'p'],
    ]);
    expect(committed.next_offset).toBe(5);
    const uncommitted = await fetch(deps, fetchRequest({ format: 'RECORD_FORMAT_RECORDS' }));
    expect((uncommitted.records ?? []).map((r) => Number(r.offset))).toEqual([0, 1, 2, 5, 6]);
  });

  it('a read_committed fetch at the LSO answers empty after its wait, not out of range', async () => {
    const deps = await setup();
    const response = await fetch(
      deps,
      fetchRequest({ offset: 5, isolation: 'ISOLATION_LEVEL_READ_COMMITTED' }),
    );
    expect([response.next_offset, (response.record_batches as Buffer).length]).toEqual([5, 0]);
  });

  it('refuses an unknown isolation value', async () => {
    const deps = await setup();
    await expect(fetch(deps, fetchRequest({ isolation: 7 as never }))).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
  });
});

describe('ListOffsets with an isolation level', () => {
  const request = (overrides: Partial<ListOffsetsRequest>): ListOffsetsRequest => ({
    topic: 't',
    partition: 0,
    spec: 'OFFSET_SPEC_LATEST',
    timestamp_ms: 0,
    isolation: 'ISOLATION_LEVEL_READ_UNCOMMITTED',
    ...overrides,
  });

  it('LATEST is the HW for read_uncommitted and the LSO for read_committed', async () => {
    const deps = await setup();
    const uncommitted = await listOffsets(deps.partitions, request({}));
    expect([uncommitted.offset, uncommitted.high_watermark, uncommitted.last_stable_offset]).toEqual([
      7, 7, 5,
    ]);
    const committed = await listOffsets(
      deps.partitions,
      request({ isolation: 'ISOLATION_LEVEL_READ_COMMITTED' }),
    );
    expect(committed.offset).toBe(5);
  });
});
