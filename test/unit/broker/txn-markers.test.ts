/**
 * The WriteTxnMarkers handler over real Partitions (temp logs, single-replica leaders): one marker
 * per partition with a result each, the internal token required, a malformed request refused whole
 * before anything is written, a partition led elsewhere answered with its own retriable error.
 */
import * as grpc from '@grpc/grpc-js';
import { writeTxnMarkers } from '../../../services/broker/api/txn-markers';
import type { Partition } from '../../../services/broker/partition/partition';
import type { PartitionRegistry } from '../../../services/broker/partition/partition-registry';
import { TideError } from '../../../services/common/errors';
import { INTERNAL_TOKEN_HEADER } from '../../../services/common/grpc/routing-headers';
import type { WriteTxnMarkersRequest } from '../../../services/common/grpc/generated/tide/v1/internal/WriteTxnMarkersRequest';
import { encodeBatch } from '../../../services/common/records';
import { TempDirs } from '../log/helpers';
import { partitionOn, state, type PartitionFixture } from '../partition/helpers';

const dirs = new TempDirs();
const fixtures: PartitionFixture[] = [];
afterEach(async () => {
  for (const f of fixtures.splice(0)) {
    f.partition.close();
    await f.log.close();
  }
  await dirs.cleanup();
});

const TOKEN = 'secret-internal-token';

function metadata(token = TOKEN): grpc.Metadata {
  const m = new grpc.Metadata();
  m.set(INTERNAL_TOKEN_HEADER, token);
  return m;
}

const txn = (producerId: number, value: string): Buffer =>
  encodeBatch([{ key: null, value: Buffer.from(value) }], {
    producerId,
    producerEpoch: 0,
    baseSequence: 0,
    transactional: true,
    nowMs: 1000,
  });

/** Partitions t-0 and t-1 led here with producer 7's transaction open on both; t-2 led elsewhere. */
async function setup(): Promise<{ registry: PartitionRegistry; partitions: Partition[] }> {
  const partitions: Partition[] = [];
  for (let i = 0; i < 2; i++) {
    const f = await partitionOn(dirs);
    fixtures.push(f);
    await f.partition.makeLeader(state({ replicas: [1], isr: [1] }), 1);
    await f.partition.append(txn(7, `v${i}`));
    partitions.push(f.partition);
  }
  const registry = {
    leaderFor: (topic: string, partition: number) => {
      if (partition < 2) return partitions[partition];
      throw new TideError('NOT_LEADER', `broker 1 does not lead ${topic}-${partition}`);
    },
  } as unknown as PartitionRegistry;
  return { registry, partitions };
}

function request(overrides: Partial<WriteTxnMarkersRequest['markers'][0]> = {}): WriteTxnMarkersRequest {
  return {
    timeout_ms: 0,
    markers: [
      {
        producer_id: 7,
        producer_epoch: 1,
        coordinator_epoch: 3,
        result: 'TXN_RESULT_COMMIT',
        partitions: [
          { topic: 't', partition: 0 },
          { topic: 't', partition: 1 },
          { topic: 't', partition: 2 },
        ],
        ...overrides,
      },
    ],
  };
}

describe('WriteTxnMarkers', () => {
  it('writes one marker per partition led here and answers each partition on its own', async () => {
    const { registry, partitions } = await setup();
    const deps = { partitions: registry, internalToken: TOKEN };
    const response = await writeTxnMarkers(deps, request(), metadata());
    expect(response.results).toEqual([
      { producer_id: 7, topic: 't', partition: 0 },
      { producer_id: 7, topic: 't', partition: 1 },
      {
        producer_id: 7,
        topic: 't',
        partition: 2,
        error: expect.objectContaining({ code: 'NOT_LEADER', retriable: true }) as unknown,
      },
    ]);
    for (const p of partitions) {
      expect(p.log.openTransactions()).toEqual([]);
      expect([p.log.logEndOffset, p.lastStableOffset]).toEqual([2, 2]);
    }
    // A retry (the coordinator after a failover) writes nothing more and succeeds.
    const again = await writeTxnMarkers(deps, request(), metadata());
    expect(again.results?.slice(0, 2).every((r) => r.error === undefined)).toBe(true);
    expect(partitions.map((p) => p.log.logEndOffset)).toEqual([2, 2]);
    // An older producer epoch is fenced.
    const stale = await writeTxnMarkers(deps, request({ producer_epoch: 0 }), metadata());
    expect(stale.results?.[0].error?.code).toBe('PRODUCER_FENCED');
  });

  it('refuses calls without the internal token', async () => {
    const { registry, partitions } = await setup();
    const deps = { partitions: registry, internalToken: TOKEN };
    await expect(writeTxnMarkers(deps, request(), metadata('guess'))).rejects.toMatchObject({
      code: 'AUTHORIZATION_FAILED',
    });
    await expect(writeTxnMarkers(deps, request(), new grpc.Metadata())).rejects.toMatchObject({
      code: 'AUTHORIZATION_FAILED',
    });
    expect(partitions[0].log.openTransactions()).toHaveLength(1);
  });

  it.each([
    ['an unspecified result', { result: 'TXN_RESULT_UNSPECIFIED' as const }],
    ['a negative producer id', { producer_id: -1 }],
    ['a producer epoch past int16', { producer_epoch: 40_000 }],
    ['no partitions', { partitions: [] }],
    [
      'a partition twice',
      {
        partitions: [
          { topic: 't', partition: 0 },
          { topic: 't', partition: 0 },
        ],
      },
    ],
  ])('refuses %s whole, writing nothing', async (_what, overrides) => {
    const { registry, partitions } = await setup();
    const deps = { partitions: registry, internalToken: TOKEN };
    await expect(writeTxnMarkers(deps, request(overrides), metadata())).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    expect(partitions.map((p) => p.log.logEndOffset)).toEqual([1, 1]);
  });
});
