/**
 * The `__consumer_offsets` record codec: golden bytes of each key and value type (the on-disk
 * format is forever), round trips, tombstones, records of a newer format skipped, bad framing named.
 */
import { TideError } from '../../../services/common/errors';
import type { GroupSnapshot } from '../../../services/group-coordinator/group';
import {
  decodeOffsetsRecord,
  groupKey,
  groupValue,
  markerKey,
  markerValue,
  offsetKey,
  offsetValue,
} from '../../../services/group-coordinator/offsets-codec';
import { tpKey } from '../../../services/group-coordinator/partitions';

const hex = (b: Buffer) => b.toString('hex');

describe('golden bytes', () => {
  it('offset commit key and value', () => {
    // type 0 | "g" | "t" | partition 2
    expect(hex(offsetKey('g', 't', 2))).toBe('0000' + '0001' + '67' + '0001' + '74' + '00000002');
    // version 0 | coordinatorEpoch 7 | offset 42 | commitTimestampMs 1000 | metadata "m"
    expect(
      hex(offsetValue({ coordinatorEpoch: 7, offset: 42, commitTimestampMs: 1000, metadata: 'm' })),
    ).toBe('0000' + '0000000000000007' + '000000000000002a' + '00000000000003e8' + '00000001' + '6d');
  });

  it('group metadata key and shard marker', () => {
    expect(hex(groupKey('ab'))).toBe('0001' + '0002' + '6162');
    // type 3 | shard 5 | coordinatorEpoch 9: one key per epoch, so compaction keeps every marker
    expect(hex(markerKey(5, 9))).toBe('0003' + '00000005' + '0000000000000009');
    expect(hex(markerValue(9, 16))).toBe('0000' + '0000000000000009' + '0000000000000010');
  });
});

describe('round trips', () => {
  it('offset commits, including tombstones', () => {
    const key = offsetKey('billing', 'orders', 11);
    const value = offsetValue({
      coordinatorEpoch: 123456789,
      offset: 2 ** 40,
      commitTimestampMs: 1_700_000_000_000,
      metadata: 'ü',
    });
    expect(decodeOffsetsRecord(key, value)).toEqual({
      type: 'offset',
      group: 'billing',
      topic: 'orders',
      partition: 11,
      value: {
        coordinatorEpoch: 123456789,
        offset: 2 ** 40,
        commitTimestampMs: 1_700_000_000_000,
        metadata: 'ü',
      },
    });
    expect(decodeOffsetsRecord(key, null)).toEqual({
      type: 'offset',
      group: 'billing',
      topic: 'orders',
      partition: 11,
      value: null,
    });
  });

  it('group metadata snapshots', () => {
    const snapshot: GroupSnapshot = {
      groupId: 'billing',
      protocol: 'consumer',
      generation: 4,
      assignor: 'range',
      members: [
        {
          memberId: 'm1',
          instanceId: 'pod-0',
          clientId: 'c',
          clientHost: '10.0.0.1:5555',
          topics: ['orders', 'refunds'],
          sessionTimeoutMs: 45_000,
          rebalanceTimeoutMs: 300_000,
          epoch: 4,
          fenceEpoch: 2,
          owned: [tpKey('orders', 0), tpKey('orders', 1), tpKey('refunds', 3)],
          revoking: [tpKey('orders', 1)],
          userData: Buffer.from([0, 1, 0xfe, 0xff]),
        },
        {
          memberId: 'm2',
          instanceId: '',
          clientId: 'c',
          clientHost: '10.0.0.2:5555',
          topics: ['orders'],
          sessionTimeoutMs: 45_000,
          rebalanceTimeoutMs: 300_000,
          epoch: 4,
          fenceEpoch: 0,
          owned: [],
          revoking: [],
        },
      ],
    };
    expect(decodeOffsetsRecord(groupKey('billing'), groupValue(8, snapshot))).toEqual({
      type: 'group',
      group: 'billing',
      value: { coordinatorEpoch: 8, snapshot },
    });
  });

  it("an empty group's snapshot keeps when its last member left (absent in older snapshots)", () => {
    const snapshot = {
      groupId: 'billing',
      protocol: 'consumer' as const,
      generation: 3,
      assignor: 'uniform',
      members: [],
      emptySinceMs: 1_700_000_000_123,
    };
    expect(decodeOffsetsRecord(groupKey('billing'), groupValue(8, snapshot))).toEqual({
      type: 'group',
      group: 'billing',
      value: { coordinatorEpoch: 8, snapshot },
    });
    const { emptySinceMs: _, ...older } = snapshot;
    const decoded = decodeOffsetsRecord(groupKey('billing'), groupValue(8, older));
    expect(decoded.type === 'group' && decoded.value?.snapshot).toEqual(older);
  });

  it('shard markers', () => {
    expect(decodeOffsetsRecord(markerKey(63, 77), markerValue(77, 5))).toEqual({
      type: 'marker',
      shard: 63,
      value: { coordinatorEpoch: 77, timestampMs: 5 },
    });
    expect(decodeOffsetsRecord(markerKey(63, 77), null)).toEqual({ type: 'marker', shard: 63, value: null });
  });

  it('shard markers of earlier versions (type 2, keyed by shard only) read as before', () => {
    const legacyKey = Buffer.from('0002' + '0000003f', 'hex');
    expect(decodeOffsetsRecord(legacyKey, markerValue(77, 5))).toEqual({
      type: 'marker',
      shard: 63,
      value: { coordinatorEpoch: 77, timestampMs: 5 },
    });
  });
});

describe('forward compatibility and corruption', () => {
  it('an unknown key type or value version is skipped, not an error', () => {
    expect(decodeOffsetsRecord(Buffer.from('0009', 'hex'), Buffer.from('0000', 'hex')).type).toBe('unknown');
    const newer = Buffer.concat([
      Buffer.from('0001', 'hex'),
      offsetValue({ coordinatorEpoch: 1, offset: 1, commitTimestampMs: 1, metadata: '' }).subarray(2),
    ]);
    expect(decodeOffsetsRecord(offsetKey('g', 't', 0), newer)).toEqual({
      type: 'unknown',
      why: 'value version 1 (type 0)',
    });
  });

  it.each([
    ['no key', null, null, /without a key/],
    ['a truncated key', offsetKey('g', 't', 2).subarray(0, 10), null, /partition needs 4 bytes/],
    ['trailing key bytes', Buffer.concat([groupKey('g'), Buffer.from([0])]), null, /1 trailing byte/],
    [
      'a truncated value',
      offsetKey('g', 't', 2),
      offsetValue({ coordinatorEpoch: 1, offset: 1, commitTimestampMs: 1, metadata: '' }).subarray(0, 12),
      /offset needs 8 bytes/,
    ],
    [
      'a type 2 marker key with an epoch',
      Buffer.concat([Buffer.from('0002', 'hex'), markerKey(1, 7).subarray(2)]),
      null,
      /8 trailing byte/,
    ],
    [
      'a marker whose key and value epochs differ',
      markerKey(1, 7),
      markerValue(8, 0),
      /shard 1 marker: key epoch 7, value epoch 8/,
    ],
    [
      'metadata that is not JSON',
      groupKey('g'),
      Buffer.concat([Buffer.from('0000' + '0000000000000001' + '00000002', 'hex'), Buffer.from('{x')]),
      /not JSON/,
    ],
  ])('%s: CORRUPT_MESSAGE naming the field', (_case, key, value, message) => {
    let caught: unknown;
    try {
      decodeOffsetsRecord(key as Buffer | null, value as Buffer | null);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(TideError);
    expect((caught as TideError).code).toBe('CORRUPT_MESSAGE');
    expect((caught as TideError).message).toMatch(message);
  });
});
