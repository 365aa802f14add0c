/**
 * Replica placement: pure functions, Kafka's algorithm (AdminUtils.assignReplicasToBrokers), so a
 * Tide cluster spreads partitions the way operators expect from Kafka.
 *
 * Without racks: brokers sorted by id; partition p's first replica is broker (p + startIndex) % n,
 * the others follow at a distance that grows by one every n partitions (replicaShift), so leaders
 * and followers both spread evenly.
 * With racks (every broker has one): brokers are listed alternating racks (rack-a broker, rack-b
 * broker, ...), then assigned as above, skipping a candidate whose rack or broker already holds a
 * replica of the partition until every rack (or broker) has one. Each partition so lands on
 * min(replicationFactor, racks) racks.
 * If only some brokers have a rack, racks are ignored (Kafka's "safe" mode); the caller may warn.
 *
 * The preferred leader of a partition is its first replica.
 */
import { AssertionError } from '../common/assert';
import { TideError } from '../common/errors';

export interface PlacementBroker {
  id: number;
  /** Rack or zone; empty or absent = unknown. */
  rack?: string;
}

export interface AssignReplicasOptions {
  partitions: number;
  replicationFactor: number;
  /** Live brokers, in any order. */
  brokers: readonly PlacementBroker[];
  /** Index of the first partition to place (when adding partitions to a topic); default 0. */
  startPartition?: number;
  /** Position of partition 0's first replica in the broker list; default random. */
  startIndex?: number;
  /** Initial follower distance; default = startIndex when that is given, else random. */
  replicaShift?: number;
  /** Randomness in [0, 1) for the defaults above; default Math.random. */
  random?: () => number;
}

/** True when placement will use racks: every broker has one. */
export function isRackAware(brokers: readonly PlacementBroker[]): boolean {
  return brokers.length > 0 && brokers.every((b) => !!b.rack);
}

/** True when some but not all brokers have a rack (placement then ignores racks). */
export function hasPartialRacks(brokers: readonly PlacementBroker[]): boolean {
  return brokers.some((b) => !!b.rack) && !isRackAware(brokers);
}

/** Replica lists for partitions startPartition.., preferred leader first. */
export function assignReplicas(options: AssignReplicasOptions): number[][] {
  const { partitions, replicationFactor: rf, brokers } = options;
  if (!Number.isInteger(partitions) || partitions < 1) {
    throw new TideError('INVALID_PARTITIONS', `partition count must be an integer >= 1 (got ${partitions})`);
  }
  if (!Number.isInteger(rf) || rf < 1) {
    throw new TideError(
      'INVALID_REPLICATION_FACTOR',
      `replication factor must be an integer >= 1 (got ${rf})`,
    );
  }
  if (rf > brokers.length) {
    const ids = brokers.map((b) => b.id).sort((a, b) => a - b);
    throw new TideError(
      'INVALID_REPLICATION_FACTOR',
      `replication factor ${rf} is larger than the number of live brokers (${brokers.length}${ids.length ? `: ${ids.join(', ')}` : ''})`,
    );
  }
  if (new Set(brokers.map((b) => b.id)).size !== brokers.length)
    throw new AssertionError('placement given duplicate broker ids');
  const random = options.random ?? Math.random;
  const randomIndex = (): number => Math.floor(random() * brokers.length);
  const startIndex = options.startIndex ?? randomIndex();
  const replicaShift =
    options.replicaShift ?? (options.startIndex !== undefined ? options.startIndex : randomIndex());
  const plan = {
    partitions,
    rf,
    startIndex,
    replicaShift,
    startPartition: Math.max(0, options.startPartition ?? 0),
  };
  return isRackAware(brokers) ? assignWithRacks(brokers, plan) : assignWithoutRacks(brokers, plan);
}

/** The broker that should lead a partition when it can: its first replica. */
export function preferredLeader(replicas: readonly number[]): number {
  if (replicas.length === 0) throw new AssertionError('a partition has no replicas');
  return replicas[0];
}

interface Plan {
  partitions: number;
  rf: number;
  startIndex: number;
  replicaShift: number;
  startPartition: number;
}

/** Kafka's replicaIndex: followers sit 1..n-1 places after the first replica. */
function replicaIndex(
  firstReplicaIndex: number,
  secondReplicaShift: number,
  replica: number,
  n: number,
): number {
  const shift = 1 + ((secondReplicaShift + replica) % (n - 1));
  return (firstReplicaIndex + shift) % n;
}

function assignWithoutRacks(brokers: readonly PlacementBroker[], plan: Plan): number[][] {
  const ids = brokers.map((b) => b.id).sort((a, b) => a - b);
  const n = ids.length;
  let shift = plan.replicaShift;
  const result: number[][] = [];
  for (let i = 0, p = plan.startPartition; i < plan.partitions; i++, p++) {
    if (p > 0 && p % n === 0) shift += 1;
    const first = (p + plan.startIndex) % n;
    const replicas = [ids[first]];
    for (let j = 0; j < plan.rf - 1; j++) replicas.push(ids[replicaIndex(first, shift, j, n)]);
    result.push(replicas);
  }
  return result;
}

/** Brokers ordered rack by rack in turn (racks and the brokers of each sorted), as Kafka. */
export function rackAlternatedBrokers(brokers: readonly PlacementBroker[]): number[] {
  const byRack = new Map<string, number[]>();
  for (const b of brokers) byRack.set(b.rack!, [...(byRack.get(b.rack!) ?? []), b.id]);
  const racks = [...byRack.keys()].sort();
  const queues = racks.map((rack) => byRack.get(rack)!.sort((a, b) => a - b));
  const result: number[] = [];
  for (let i = 0; result.length < brokers.length; i = (i + 1) % racks.length) {
    const next = queues[i].shift();
    if (next !== undefined) result.push(next);
  }
  return result;
}

function assignWithRacks(brokers: readonly PlacementBroker[], plan: Plan): number[][] {
  const rackOf = new Map(brokers.map((b) => [b.id, b.rack!]));
  const arranged = rackAlternatedBrokers(brokers);
  const n = arranged.length;
  const numRacks = new Set(rackOf.values()).size;
  let shift = plan.replicaShift;
  const result: number[][] = [];
  for (let i = 0, p = plan.startPartition; i < plan.partitions; i++, p++) {
    if (p > 0 && p % n === 0) shift += 1;
    const first = (p + plan.startIndex) % n;
    const leader = arranged[first];
    const replicas = [leader];
    const racksUsed = new Set([rackOf.get(leader)!]);
    const brokersUsed = new Set([leader]);
    let k = 0;
    for (let j = 0; j < plan.rf - 1; j++) {
      for (;;) {
        const broker = arranged[replicaIndex(first, shift * numRacks, k, n)];
        const rack = rackOf.get(broker)!;
        k += 1;
        // Take a new rack while one is left, then any new broker (Kafka's rule).
        if (
          (!racksUsed.has(rack) || racksUsed.size === numRacks) &&
          (!brokersUsed.has(broker) || brokersUsed.size === n)
        ) {
          replicas.push(broker);
          racksUsed.add(rack);
          brokersUsed.add(broker);
          break;
        }
      }
    }
    result.push(replicas);
  }
  return result;
}
