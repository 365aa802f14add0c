/**
 * The pure rules of replication: a follower's caught-up time (Kafka's Replica.updateFetchState),
 * HW over the maximal ISR, who is out of sync, who may join, and where a follower truncates on a
 * diverging epoch (Kafka's getOffsetTruncationState). Tables, no I/O.
 */
import {
  FollowerState,
  UNKNOWN_LEO,
  highWatermarkFor,
  mayJoinIsr,
  maximalIsr,
  outOfSyncReplicas,
} from '../../../services/broker/partition/isr';
import { divergenceTruncationOffset } from '../../../services/broker/partition/truncation';
import type { EpochEndOffset } from '../../../services/broker/log/interface';

const LAG = 10_000;
const T0 = 1_000_000;

describe('FollowerState.onFetch: lastCaughtUpTimeMs', () => {
  it('an ISR member starts caught up now, an outsider never', () => {
    expect(new FollowerState(2, T0, true).lastCaughtUpTimeMs).toBe(T0);
    expect(new FollowerState(2, T0, false).lastCaughtUpTimeMs).toBe(0);
  });

  it.each<{
    name: string;
    fetches: [fetchOffset: number, atMs: number, leaderLeo: number][];
    caughtUp: number;
  }>([
    {
      name: 'a fetch at the leader LEO is caught up at its time',
      fetches: [[10, T0 + 5, 10]],
      caughtUp: T0 + 5,
    },
    { name: 'a first fetch behind the end is not', fetches: [[4, T0 + 5, 10]], caughtUp: 0 },
    {
      name: 'a fetch reaching the LEO of the previous fetch counts at the previous fetch time',
      fetches: [
        [4, T0 + 5, 10],
        [10, T0 + 9, 15],
      ],
      caughtUp: T0 + 5,
    },
    {
      name: 'under constant load it keeps moving forward',
      fetches: [
        [0, T0, 10],
        [10, T0 + 100, 20],
        [20, T0 + 200, 30],
        [30, T0 + 300, 40],
      ],
      caughtUp: T0 + 200,
    },
    {
      name: 'a follower falling further behind stays at its last caught-up time',
      fetches: [
        [10, T0, 10],
        [11, T0 + 100, 30],
        [12, T0 + 200, 50],
      ],
      caughtUp: T0,
    },
  ])('$name', ({ fetches, caughtUp }) => {
    const f = new FollowerState(2, T0, false);
    for (const [offset, at, leo] of fetches) f.onFetch(offset, at, leo);
    expect(f.lastCaughtUpTimeMs).toBe(caughtUp);
    expect(f.leo).toBe(fetches[fetches.length - 1][0]);
  });

  it('isCaughtUp: within the lag time inclusive', () => {
    const f = new FollowerState(2, T0, true);
    expect(f.isCaughtUp(T0 + LAG, LAG)).toBe(true);
    expect(f.isCaughtUp(T0 + LAG + 1, LAG)).toBe(false);
  });
});

function followers(leos: Record<number, number>): Map<number, FollowerState> {
  const map = new Map<number, FollowerState>();
  for (const [id, leo] of Object.entries(leos)) {
    const f = new FollowerState(Number(id), T0, true);
    f.leo = leo;
    map.set(Number(id), f);
  }
  return map;
}

describe('highWatermarkFor', () => {
  it.each<[string, number[], Record<number, number>, number, number, number]>([
    ['min over the ISR', [1, 2, 3], { 2: 7, 3: 5 }, 9, 0, 5],
    ['the leader LEO bounds it', [1, 2], { 2: 12 }, 9, 0, 9],
    ['a member with unknown LEO holds it', [1, 2, 3], { 2: 7, 3: UNKNOWN_LEO }, 9, 4, 4],
    ['a member without state holds it', [1, 2, 4], { 2: 7 }, 9, 4, 4],
    ['never backwards', [1, 2], { 2: 3 }, 9, 6, 6],
    ['outsiders do not count', [1, 2], { 2: 8, 3: 1 }, 9, 0, 8],
    ['a single-replica ISR is the leader LEO', [1], {}, 9, 0, 9],
  ])('%s', (_name, isr, leos, leaderLeo, currentHw, expected) => {
    expect(highWatermarkFor({ leaderId: 1, leaderLeo, isr, followers: followers(leos), currentHw })).toBe(
      expected,
    );
  });

  it('maximal ISR: a pending expansion counts, a pending shrink does not remove yet', () => {
    expect(maximalIsr([1, 2], [1, 2, 3]).sort()).toEqual([1, 2, 3]);
    expect(maximalIsr([1, 2, 3], [1, 2]).sort()).toEqual([1, 2, 3]);
    expect(maximalIsr([1, 2], undefined)).toEqual([1, 2]);
  });
});

describe('outOfSyncReplicas and mayJoinIsr', () => {
  it('members not caught up for more than the lag time are out; the leader never', () => {
    const map = followers({ 2: 5, 3: 5 });
    map.get(2)!.lastCaughtUpTimeMs = T0 - LAG; // exactly at the limit: still in
    map.get(3)!.lastCaughtUpTimeMs = T0 - LAG - 1;
    expect(
      outOfSyncReplicas({ leaderId: 1, isr: [1, 2, 3], followers: map, nowMs: T0, lagTimeMaxMs: LAG }),
    ).toEqual([3]);
    expect(
      outOfSyncReplicas({ leaderId: 1, isr: [1, 4], followers: map, nowMs: T0, lagTimeMaxMs: LAG }),
    ).toEqual([4]);
  });

  it.each<[string, number, number, number, boolean]>([
    ['caught up, at the HW and past the epoch start', 10, 10, 8, true],
    ['below the HW', 9, 10, 8, false],
    ['below the start of the leader epoch', 10, 5, 12, false],
    ['unknown LEO', UNKNOWN_LEO, 0, 0, false],
  ])('%s', (_name, leo, hw, epochStart, expected) => {
    const f = new FollowerState(3, T0, false);
    f.onFetch(leo, T0, leo);
    f.leo = leo;
    expect(
      mayJoinIsr({
        follower: f,
        highWatermark: hw,
        leaderEpochStartOffset: epochStart,
        nowMs: T0,
        lagTimeMaxMs: LAG,
      }),
    ).toBe(expected);
  });

  it('a follower not caught up within the lag time may not join even at the HW', () => {
    const f = new FollowerState(3, T0, false);
    f.onFetch(10, T0, 20);
    expect(
      mayJoinIsr({ follower: f, highWatermark: 10, leaderEpochStartOffset: 0, nowMs: T0, lagTimeMaxMs: LAG }),
    ).toBe(false);
  });
});

describe('divergenceTruncationOffset', () => {
  // The follower's epochs: 1 wrote [0, 10), 3 wrote [10, 20), 4 wrote [20, LEO 26).
  const follower: Record<number, EpochEndOffset | undefined> = {
    1: { epoch: 1, endOffset: 10 },
    2: { epoch: 1, endOffset: 10 },
    3: { epoch: 3, endOffset: 20 },
    4: { epoch: 4, endOffset: 26 },
    0: { epoch: 0, endOffset: 0 },
  };
  const endOffsetForEpoch = (e: number) => follower[e];
  it.each<[string, EpochEndOffset, number]>([
    ['same epoch known on both: the smaller end', { epoch: 3, endOffset: 15 }, 15],
    ['same epoch, the follower ends earlier', { epoch: 3, endOffset: 24 }, 20],
    ['the latest epoch: bounded by the LEO', { epoch: 4, endOffset: 40 }, 26],
    [
      'an epoch unknown here (2): to the end of the largest older one (1), then ask again',
      { epoch: 2, endOffset: 14 },
      10,
    ],
    ['the leader could not name an epoch: min(end, LEO)', { epoch: -1, endOffset: 12 }, 12],
  ])('%s', (_name, diverging, expected) => {
    expect(divergenceTruncationOffset({ diverging, logEndOffset: 26, endOffsetForEpoch })).toBe(expected);
  });

  it('a follower that knows no epoch that old truncates to the leader end offset', () => {
    expect(
      divergenceTruncationOffset({
        diverging: { epoch: 0, endOffset: 3 },
        logEndOffset: 26,
        endOffsetForEpoch: () => undefined,
      }),
    ).toBe(3);
  });
});
