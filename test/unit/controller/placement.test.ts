import {
  assignReplicas,
  hasPartialRacks,
  isRackAware,
  preferredLeader,
  rackAlternatedBrokers,
  type PlacementBroker,
} from '../../../services/controller/placement';
import { seededRandom } from '../../harness/random';

const plain = (...ids: number[]): PlacementBroker[] => ids.map((id) => ({ id }));
const racked = (racks: Record<number, string>): PlacementBroker[] =>
  Object.entries(racks).map(([id, rack]) => ({ id: Number(id), rack }));

describe('assignReplicas', () => {
  // Golden tables from Kafka's AdminUtils tests (ReplicaAssignmentTest, AdminRackAwareTest).
  it.each([
    {
      name: 'Kafka testReplicaAssignment: 5 brokers, 10 partitions, RF 3, start 0',
      brokers: plain(0, 1, 2, 3, 4),
      partitions: 10,
      rf: 3,
      startIndex: 0,
      expected: [
        [0, 1, 2],
        [1, 2, 3],
        [2, 3, 4],
        [3, 4, 0],
        [4, 0, 1],
        [0, 2, 3],
        [1, 3, 4],
        [2, 4, 0],
        [3, 0, 1],
        [4, 1, 2],
      ],
    },
    {
      name: 'Kafka rack-alternated assignment: 6 brokers on 3 racks, 7 partitions, RF 3, start 0',
      brokers: racked({ 0: 'rack1', 1: 'rack3', 2: 'rack3', 3: 'rack2', 4: 'rack2', 5: 'rack1' }),
      partitions: 7,
      rf: 3,
      startIndex: 0,
      expected: [
        [0, 3, 1],
        [3, 1, 5],
        [1, 5, 4],
        [5, 4, 2],
        [4, 2, 0],
        [2, 0, 3],
        [0, 4, 2],
      ],
    },
    {
      name: 'broker ids are sorted whatever the input order',
      brokers: plain(30, 10, 20),
      partitions: 3,
      rf: 2,
      startIndex: 0,
      expected: [
        [10, 20],
        [20, 30],
        [30, 10],
      ],
    },
    {
      name: 'a single broker takes everything',
      brokers: plain(7),
      partitions: 3,
      rf: 1,
      startIndex: 0,
      expected: [[7], [7], [7]],
    },
    {
      name: 'startIndex rotates the first replicas',
      brokers: plain(0, 1, 2),
      partitions: 3,
      rf: 1,
      startIndex: 2,
      expected: [[2], [0], [1]],
    },
    {
      name: 'partial racks are ignored (same as no racks)',
      brokers: [{ id: 0, rack: 'a' }, { id: 1 }, { id: 2, rack: '' }],
      partitions: 3,
      rf: 2,
      startIndex: 0,
      expected: [
        [0, 1],
        [1, 2],
        [2, 0],
      ],
    },
  ])('$name', ({ brokers, partitions, rf, startIndex, expected }) => {
    expect(assignReplicas({ brokers, partitions, replicationFactor: rf, startIndex })).toEqual(expected);
  });

  it('continues the leader rotation from startPartition (as Kafka when adding partitions)', () => {
    const brokers = plain(0, 1, 2, 3, 4);
    const whole = assignReplicas({ brokers, partitions: 10, replicationFactor: 3, startIndex: 0 });
    const tail = assignReplicas({
      brokers,
      partitions: 4,
      replicationFactor: 3,
      startIndex: 0,
      startPartition: 6,
    });
    expect(tail.map(preferredLeader)).toEqual(whole.slice(6).map(preferredLeader));
    // Kafka's follower shift only grows while crossing multiples of n inside one call.
    expect(tail).toEqual([
      [1, 2, 3],
      [2, 3, 4],
      [3, 4, 0],
      [4, 0, 1],
    ]);
  });

  it.each([
    { name: 'RF 0', rf: 0, brokers: plain(1, 2), code: 'INVALID_REPLICATION_FACTOR', message: />= 1/ },
    {
      name: 'RF above live brokers',
      rf: 3,
      brokers: plain(2, 1),
      code: 'INVALID_REPLICATION_FACTOR',
      message: /live brokers \(2: 1, 2\)/,
    },
    {
      name: 'no live brokers',
      rf: 1,
      brokers: [],
      code: 'INVALID_REPLICATION_FACTOR',
      message: /live brokers \(0\)/,
    },
    {
      name: 'fractional RF',
      rf: 1.5,
      brokers: plain(1, 2),
      code: 'INVALID_REPLICATION_FACTOR',
      message: /integer/,
    },
  ])('rejects $name', ({ rf, brokers, code, message }) => {
    expect(() => assignReplicas({ brokers, partitions: 1, replicationFactor: rf })).toThrow(message);
    expect(() => assignReplicas({ brokers, partitions: 1, replicationFactor: rf })).toThrow(
      expect.objectContaining({ code }) as Error,
    );
  });

  it.each([0, -1, 2.5])('rejects %p partitions with INVALID_PARTITIONS', (partitions) => {
    expect(() => assignReplicas({ brokers: plain(1), partitions, replicationFactor: 1 })).toThrow(
      expect.objectContaining({ code: 'INVALID_PARTITIONS' }) as Error,
    );
  });

  it('is deterministic for a given random source', () => {
    const brokers = plain(0, 1, 2, 3, 4, 5);
    const a = assignReplicas({ brokers, partitions: 12, replicationFactor: 3, random: seededRandom(42) });
    const b = assignReplicas({ brokers, partitions: 12, replicationFactor: 3, random: seededRandom(42) });
    expect(a).toEqual(b);
  });

  describe('properties over seeded random inputs', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const random = seededRandom(seed);
      const brokerCount = 1 + Math.floor(random() * 9);
      const rackCount = 1 + Math.floor(random() * 4);
      const useRacks = random() < 0.5;
      const brokers = Array.from({ length: brokerCount }, (_, i) => ({
        id: 100 + i * 3,
        rack: useRacks ? `r${i % rackCount}` : undefined,
      }));
      const rf = 1 + Math.floor(random() * brokerCount);
      const partitions = 1 + Math.floor(random() * 3) * brokerCount + Math.floor(random() * 5);

      it(`seed ${seed}: ${brokerCount} brokers, ${useRacks ? rackCount : 0} racks, RF ${rf}, ${partitions} partitions`, () => {
        const assignment = assignReplicas({ brokers, partitions, replicationFactor: rf, random });
        expect(assignment).toHaveLength(partitions);
        const racks = new Set(brokers.map((b) => b.rack));
        for (const replicas of assignment) {
          expect(replicas).toHaveLength(rf);
          expect(new Set(replicas).size).toBe(rf);
          for (const id of replicas) expect(brokers.some((b) => b.id === id)).toBe(true);
          if (useRacks) {
            const used = new Set(replicas.map((id) => brokers.find((b) => b.id === id)!.rack));
            expect(used.size).toBe(Math.min(rf, racks.size));
          }
        }
        if (!useRacks) {
          // Preferred leaders spread evenly: counts differ by at most one.
          const leaders = new Map<number, number>();
          for (const replicas of assignment) leaders.set(replicas[0], (leaders.get(replicas[0]) ?? 0) + 1);
          const counts = brokers.map((b) => leaders.get(b.id) ?? 0);
          expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
        }
      });
    }
  });
});

describe('rack helpers', () => {
  it('alternates racks as Kafka does', () => {
    const rackMap = { 0: 'rack1', 1: 'rack3', 2: 'rack3', 3: 'rack2', 4: 'rack2', 5: 'rack1' };
    expect(rackAlternatedBrokers(racked(rackMap))).toEqual([0, 3, 1, 5, 4, 2]);
    const { 5: _dropped, ...without5 } = rackMap;
    expect(rackAlternatedBrokers(racked(without5))).toEqual([0, 3, 1, 4, 2]);
  });

  it.each([
    { brokers: racked({ 1: 'a', 2: 'b' }), aware: true, partial: false },
    { brokers: plain(1, 2), aware: false, partial: false },
    { brokers: [{ id: 1, rack: 'a' }, { id: 2 }], aware: false, partial: true },
    { brokers: [], aware: false, partial: false },
  ])('isRackAware / hasPartialRacks %#', ({ brokers, aware, partial }) => {
    expect(isRackAware(brokers)).toBe(aware);
    expect(hasPartialRacks(brokers)).toBe(partial);
  });

  it('prefers the first replica as leader', () => {
    expect(preferredLeader([3, 1, 2])).toBe(3);
    expect(() => preferredLeader([])).toThrow(/no replicas/);
  });
});
