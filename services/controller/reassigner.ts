/**
 * The reassigner: the effectful loop around reassignment-steps.ts, run by the active controller.
 *
 * Moves are asked for by the Admin API (alterReassignments), by decommissions and by the balancer;
 * each is a record in the metadata store (reassignment-store.ts) written in one fenced transaction
 * with the partition state it changes. Every `intervalMs` (and at once after a request) a tick
 * re-reads every move and its partition, and writes each move's next step (add the target
 * replicas, hand leadership to a caught-up target replica, drop the old replicas and the record),
 * with compares on both keys' modRevisions so a conflicting write (the reconciler, an ISR change)
 * just means "look again next tick". Nothing lives only in memory: a controller that takes over
 * reads the records and carries on from wherever the last one stopped.
 *
 * Decommissioned brokers (a record each) get their replicas moved off, at most
 * `maxConcurrentMoves` moves in flight cluster-wide at a time (the balancer shares the budget).
 */
import type { Clock, Timer } from '../common/clock';
import { TideError } from '../common/errors';
import type { Logger } from '../common/logger';
import type { MetadataKeys, PartitionState } from '../common/metadata/keys';
import { encodePartitionState } from '../common/metadata/keys';
import { compareHolds } from '../common/metadata/compare';
import type { Compare, MetadataStore, TxnOp } from '../common/metadata/store';
import type { BrokerInfo, BrokerRegistry } from '../common/cluster/broker-registry';
import type { ReassignmentEntry, ReassignmentOutcome } from '../common/cluster/elastic-operations';
import type { OngoingReassignment__Input } from '../common/grpc/generated/tide/v1/OngoingReassignment';
import type { DecommissionStatus__Input } from '../common/grpc/generated/tide/v1/DecommissionStatus';
import { readPartitions, readPartition, type StoredPartition } from './partition-store';
import type { BrokerLiveness } from './partition-leadership';
import { cancelMove, moveSets, nextMoveStep, startMove } from './reassignment-steps';
import {
  ElasticKeys,
  encodeReassignment,
  readDecommissions,
  readReassignments,
  type MoveOrigin,
  type ReassignmentRecord,
  type StoredReassignment,
} from './reassignment-store';
import { chooseReplacement, replicaCounts } from './replica-choice';
import type { TopicManager } from './topic-manager';

export const DEFAULT_REASSIGNMENT_INTERVAL_MS = 500;
export const DEFAULT_MAX_CONCURRENT_MOVES = 4;
const ATTEMPTS = 5;

/** Counters of what the reassigner did (cumulative over activations). */
export interface ReassignmentStats {
  movesStarted: number;
  movesCompleted: number;
  movesCancelled: number;
  leadershipHandovers: number;
  /** Partitions with a move in flight at the last tick. */
  partitionsMoving: number;
}

export function emptyReassignmentStats(): ReassignmentStats {
  return {
    movesStarted: 0,
    movesCompleted: 0,
    movesCancelled: 0,
    leadershipHandovers: 0,
    partitionsMoving: 0,
  };
}

/** A move planner consulted at the end of each tick with the budget left (the balancer). */
export type MovePlanner = (
  view: ClusterView,
  budget: number,
) => { partition: StoredPartition; target: number[] }[];

/** What a tick saw: for planners. */
export interface ClusterView {
  brokers: BrokerInfo[];
  partitions: StoredPartition[];
  moving: ReadonlySet<string>;
  decommissioned: ReadonlySet<number>;
  minIsr: (topic: string) => number;
}

export interface ReassignerOptions {
  store: MetadataStore;
  keys: MetadataKeys;
  clock: Clock;
  logger: Logger;
  registry: BrokerRegistry;
  topics: TopicManager;
  fencing: () => Compare[];
  onFenced: (err: TideError) => void;
  shuttingDown: () => ReadonlySet<number>;
  intervalMs?: number;
  maxConcurrentMoves?: number;
  stats: ReassignmentStats;
  /** The balancer, when enabled. */
  planner?: MovePlanner;
}

export class Reassigner {
  readonly elasticKeys: ElasticKeys;
  private readonly logger: Logger;
  private active = false;
  private generation = 0;
  private timer?: Timer;
  private ticking?: Promise<void>;
  private again = false;
  /** Moves we already logged as stuck without a candidate broker (logged once each). */
  private readonly warned = new Set<string>();

  constructor(private readonly options: ReassignerOptions) {
    this.logger = options.logger.child({ component: 'reassigner' });
    this.elasticKeys = new ElasticKeys(options.keys);
  }

  activate(): void {
    if (this.active) return;
    this.active = true;
    this.generation++;
    this.timer = this.options.clock.setInterval(
      () => this.kick(),
      this.options.intervalMs ?? DEFAULT_REASSIGNMENT_INTERVAL_MS,
    );
    this.kick();
  }

  async deactivate(): Promise<void> {
    this.active = false;
    this.generation++;
    this.timer?.cancel();
    this.timer = undefined;
    await this.ticking?.catch(() => undefined);
  }

  /** Runs a tick now (or right after the running one). */
  kick(): void {
    if (!this.active) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    const generation = this.generation;
    this.ticking = (async () => {
      do {
        this.again = false;
        try {
          await this.tick(generation);
        } catch (err) {
          if (generation !== this.generation) return;
          if (err instanceof TideError && err.code === 'NOT_CONTROLLER') {
            this.logger.warn({ err }, 'a reassignment write was fenced: stepping down');
            this.options.onFenced(err);
            return;
          }
          this.logger.warn({ err }, 'reassignment tick failed; retrying');
        }
      } while (this.again && this.active && generation === this.generation);
    })().finally(() => {
      this.ticking = undefined;
    });
  }

  /** Resolves when no tick is running (tests). */
  async settled(): Promise<void> {
    while (this.ticking) await this.ticking;
  }

  // ---- the Admin operations ----

  /**
   * Starts, replaces or (empty replicas) cancels moves. The whole request is validated before
   * anything is written: unknown topics or partitions, duplicate entries, replica lists with
   * duplicates, brokers that are not registered or are decommissioned, and targets smaller than
   * the topic's min.insync.replicas are rejected with INVALID_REQUEST / UNKNOWN_TOPIC /
   * UNKNOWN_PARTITION / INVALID_REPLICATION_FACTOR.
   */
  async alterReassignments(
    entries: ReassignmentEntry[],
    validateOnly: boolean,
  ): Promise<ReassignmentOutcome> {
    if (entries.length === 0) throw new TideError('INVALID_REQUEST', 'the plan lists no partitions');
    const brokers = await this.options.registry.listBrokers();
    const live = new Set(brokers.map((b) => b.id));
    const decommissioned = await readDecommissions(this.options.store, this.elasticKeys);
    const seen = new Set<string>();
    const minIsr = new Map<string, number>();
    const counts = new Map<string, number>();
    for (const entry of entries) {
      const context = { topic: entry.topic, partition: entry.partition };
      const id = `${entry.topic}-${entry.partition}`;
      if (seen.has(id)) throw new TideError('INVALID_REQUEST', `the plan lists ${id} twice`, { context });
      seen.add(id);
      if (!counts.has(entry.topic)) {
        const described = await this.options.topics.describeTopic(entry.topic);
        counts.set(entry.topic, described.partitionCount);
        const entryMin = described.configs.find((c) => c.name === 'min.insync.replicas');
        minIsr.set(entry.topic, Number(entryMin?.value ?? 1));
      }
      if (
        !Number.isInteger(entry.partition) ||
        entry.partition < 0 ||
        entry.partition >= counts.get(entry.topic)!
      )
        throw new TideError(
          'UNKNOWN_PARTITION',
          `topic ${entry.topic} has ${counts.get(entry.topic)} partitions; ${entry.partition} does not exist`,
          { context },
        );
      if (entry.replicas.length === 0) continue; // a cancel
      if (new Set(entry.replicas).size !== entry.replicas.length)
        throw new TideError(
          'INVALID_REQUEST',
          `replicas ${JSON.stringify(entry.replicas)} of ${id} list a broker twice`,
          {
            context,
          },
        );
      const unknown = entry.replicas.filter((b) => !live.has(b));
      if (unknown.length > 0)
        throw new TideError(
          'INVALID_REQUEST',
          `replicas of ${id} name brokers ${unknown.join(', ')}, which are not registered (live: ${[...live].sort((a, b) => a - b).join(', ')})`,
          { context },
        );
      const leaving = entry.replicas.filter((b) => decommissioned.has(b));
      if (leaving.length > 0)
        throw new TideError(
          'INVALID_REQUEST',
          `replicas of ${id} name brokers ${leaving.join(', ')}, which are being decommissioned (recommission them first)`,
          { context },
        );
      const min = minIsr.get(entry.topic)!;
      if (entry.replicas.length < min)
        throw new TideError(
          'INVALID_REPLICATION_FACTOR',
          `${id} would have ${entry.replicas.length} replicas, fewer than its min.insync.replicas=${min}: every acks=all produce would fail`,
          { context },
        );
    }
    const outcome: ReassignmentOutcome = { accepted: 0, unchanged: 0 };
    if (validateOnly) {
      outcome.accepted = entries.length;
      return outcome;
    }
    for (const entry of entries) {
      const changed =
        entry.replicas.length === 0
          ? await this.cancel(entry.topic, entry.partition)
          : await this.submit(entry.topic, entry.partition, entry.replicas, 'admin');
      if (changed) outcome.accepted++;
      else outcome.unchanged++;
    }
    this.kick();
    return outcome;
  }

  /** Moves in flight (of `topics`, or all). */
  async listReassignments(topics: string[]): Promise<OngoingReassignment__Input[]> {
    const moves = await readReassignments(
      this.options.store,
      this.elasticKeys,
      (key, err) => this.logger.error({ key, err }, 'reassignment record unreadable'),
      topics.length > 0 ? topics : undefined,
    );
    const out: OngoingReassignment__Input[] = [];
    for (const move of moves) {
      const stored = await readPartition(this.options.store, this.options.keys, move.topic, move.partition);
      const replicas = stored?.state.replicas ?? [];
      const { adding, removing } = moveSets(move.record.original, move.record.target, replicas);
      out.push({
        topic: move.topic,
        partition: move.partition,
        replicas,
        adding,
        removing,
        target: move.record.target,
        caught_up: adding.filter((id) => stored?.state.isr.includes(id)),
        started_at_ms: move.record.startedAtMs,
        origin: move.record.origin,
      });
    }
    return out;
  }

  async decommission(brokerId: number): Promise<DecommissionStatus__Input> {
    checkBrokerId(brokerId);
    const brokers = await this.options.registry.listBrokers();
    const partitions = await this.readAll();
    const hosts = partitions.some((p) => p.state.replicas.includes(brokerId));
    if (!brokers.some((b) => b.id === brokerId) && !hosts)
      throw new TideError('INVALID_REQUEST', `broker ${brokerId} is not registered and holds no replicas`);
    const key = this.elasticKeys.decommission(brokerId);
    if (!(await this.options.store.get(key))) {
      await this.write(
        [],
        [{ type: 'put', key, value: JSON.stringify({ startedAtMs: this.options.clock.nowMs() }) }],
      );
      this.logger.info(
        { broker: brokerId },
        'broker decommission started: its replicas move to other brokers',
      );
    }
    this.kick();
    return this.status(brokerId, true, partitions);
  }

  /** Stops a decommission and cancels its moves that have not finished (those that can be). */
  async recommission(brokerId: number): Promise<DecommissionStatus__Input> {
    checkBrokerId(brokerId);
    const key = this.elasticKeys.decommission(brokerId);
    if (await this.options.store.get(key)) {
      await this.write([], [{ type: 'delete', key }]);
      this.logger.info({ broker: brokerId }, 'broker recommissioned: its decommission moves are cancelled');
    }
    const moves = await readReassignments(this.options.store, this.elasticKeys, () => undefined);
    for (const move of moves) {
      if (move.record.origin !== 'decommission' || !move.record.original.includes(brokerId)) continue;
      try {
        await this.cancel(move.topic, move.partition);
      } catch (err) {
        this.logger.warn({ err, topic: move.topic, partition: move.partition }, 'move left to finish');
      }
    }
    return this.status(brokerId, false, await this.readAll());
  }

  async describeDecommission(brokerId: number): Promise<DecommissionStatus__Input> {
    checkBrokerId(brokerId);
    const decommissioned = await readDecommissions(this.options.store, this.elasticKeys);
    return this.status(brokerId, decommissioned.has(brokerId), await this.readAll());
  }

  /** Brokers being decommissioned (new topics and partitions are not placed on them). */
  decommissioned(): Promise<Set<number>> {
    return readDecommissions(this.options.store, this.elasticKeys);
  }

  // ---- internals ----

  private status(
    brokerId: number,
    decommissioning: boolean,
    partitions: StoredPartition[],
  ): DecommissionStatus__Input {
    return {
      broker_id: brokerId,
      decommissioning,
      remaining_replicas: partitions.filter((p) => p.state.replicas.includes(brokerId)).length,
      remaining_leaders: partitions.filter((p) => p.state.leader === brokerId).length,
    };
  }

  private readAll(): Promise<StoredPartition[]> {
    return readPartitions(this.options.store, this.options.keys, undefined, (key, err) =>
      this.logger.error({ err, key }, 'partition state unreadable; left as it is'),
    );
  }

  private liveness(brokers: BrokerInfo[]): BrokerLiveness {
    return { live: new Set(brokers.map((b) => b.id)), shuttingDown: this.options.shuttingDown() };
  }

  /** Starts (or replaces the target of) one partition's move. Returns false when already there. */
  private async submit(
    topic: string,
    partition: number,
    target: number[],
    origin: MoveOrigin,
  ): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const stored = await readPartition(this.options.store, this.options.keys, topic, partition);
      if (!stored) throw new TideError('UNKNOWN_PARTITION', `${topic}-${partition} does not exist`);
      const key = this.elasticKeys.reassignment(topic, partition);
      const kv = await this.options.store.get(key);
      const existing = kv
        ? (await readReassignments(this.options.store, this.elasticKeys, () => undefined, [topic])).find(
            (m) => m.partition === partition,
          )
        : undefined;
      const recordCompare: Compare = kv
        ? { key, target: 'modRevision', op: '=', value: kv.modRevision }
        : { key, target: 'createRevision', op: '=', value: 0 };
      const partitionCompare: Compare = {
        key: stored.key,
        target: 'modRevision',
        op: '=',
        value: stored.modRevision,
      };
      const { state } = stored;
      if (existing && sameSet(existing.record.original, target)) {
        // Back to where it started: that is a cancel.
        return this.cancel(topic, partition);
      }
      if (!existing && sameSet(state.replicas, target)) {
        if (sameList(state.replicas, target)) return false;
        // Same brokers, new order: only the preferred leader changes; no data moves.
        const next: PartitionState = {
          ...state,
          replicas: [...target],
          partitionEpoch: state.partitionEpoch + 1,
        };
        if (await this.write([partitionCompare, recordCompare], [putState(stored.key, next)])) return true;
      } else {
        const record: ReassignmentRecord = {
          target: [...target],
          original: existing?.record.original ?? [...state.replicas],
          startedAtMs: existing?.record.startedAtMs ?? this.options.clock.nowMs(),
          origin,
        };
        const next = startMove(state, target);
        const ops: TxnOp[] = [{ type: 'put', key, value: encodeReassignment(record) }];
        if (!sameList(next.replicas, state.replicas)) ops.push(putState(stored.key, next));
        if (await this.write([partitionCompare, recordCompare], ops)) {
          this.options.stats.movesStarted++;
          this.logger.info(
            { topic, partition, from: state.replicas, to: target, origin, replicas: next.replicas },
            existing ? 'replica move retargeted' : 'replica move started',
          );
          return true;
        }
      }
      if (attempt >= ATTEMPTS) throw busy(`${topic}-${partition}`);
    }
  }

  /** Cancels one partition's move. Returns false when it has none. */
  private async cancel(topic: string, partition: number): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      const move = (
        await readReassignments(this.options.store, this.elasticKeys, () => undefined, [topic])
      ).find((m) => m.partition === partition);
      if (!move) return false;
      const stored = await readPartition(this.options.store, this.options.keys, topic, partition);
      const ops: TxnOp[] = [{ type: 'delete', key: move.key }];
      const compares: Compare[] = [
        { key: move.key, target: 'modRevision', op: '=', value: move.modRevision },
      ];
      if (stored) {
        const brokers = await this.options.registry.listBrokers();
        const next = cancelMove(stored.state, move.record, this.liveness(brokers), { topic, partition });
        ops.push(putState(stored.key, next));
        compares.push({ key: stored.key, target: 'modRevision', op: '=', value: stored.modRevision });
      }
      if (await this.write(compares, ops)) {
        this.options.stats.movesCancelled++;
        this.logger.info(
          { topic, partition, back: move.record.original, target: move.record.target },
          'replica move cancelled',
        );
        return true;
      }
      if (attempt >= ATTEMPTS) throw busy(`${topic}-${partition}`);
    }
  }

  private async tick(generation: number): Promise<void> {
    const moves = await readReassignments(this.options.store, this.elasticKeys, (key, err) =>
      this.logger.error({ err, key }, 'reassignment record unreadable; left as it is'),
    );
    const decommissioned = await readDecommissions(this.options.store, this.elasticKeys);
    if (generation !== this.generation) return;
    if (moves.length === 0 && decommissioned.size === 0 && !this.options.planner) {
      this.options.stats.partitionsMoving = 0;
      return;
    }
    const brokers = await this.options.registry.listBrokers();
    const liveness = this.liveness(brokers);
    const needAll = decommissioned.size > 0 || this.options.planner !== undefined;
    const partitions = await readPartitions(
      this.options.store,
      this.options.keys,
      needAll ? undefined : new Set(moves.map((m) => m.topic)),
      (key, err) => this.logger.error({ err, key }, 'partition state unreadable; left as it is'),
    );
    const byId = new Map(partitions.map((p) => [`${p.topic}/${p.partition}`, p]));
    let inFlight = 0;
    for (const move of moves) {
      if (generation !== this.generation) return;
      const stored = byId.get(`${move.topic}/${move.partition}`);
      if (!(await this.advance(move, stored, liveness))) inFlight++;
    }
    this.options.stats.partitionsMoving = inFlight;
    const budget = (this.options.maxConcurrentMoves ?? DEFAULT_MAX_CONCURRENT_MOVES) - inFlight;
    if (budget <= 0 || generation !== this.generation) return;
    const moving = new Set(moves.map((m) => `${m.topic}/${m.partition}`));
    let started = 0;
    if (decommissioned.size > 0)
      started += await this.drain(partitions, brokers, decommissioned, moving, budget);
    const planner = this.options.planner;
    if (planner && started === 0 && inFlight === 0 && generation === this.generation) {
      const topicMinIsr = await this.minIsrByTopic(partitions);
      const planned = planner(
        { brokers, partitions, moving, decommissioned, minIsr: (t) => topicMinIsr.get(t) ?? 1 },
        budget,
      );
      for (const { partition, target } of planned) {
        await this.submit(partition.topic, partition.partition, target, 'balancer').catch((err: unknown) => {
          if (err instanceof TideError && err.code === 'NOT_CONTROLLER') throw err;
          this.logger.warn(
            { err, topic: partition.topic, partition: partition.partition },
            'balancer move not started',
          );
        });
      }
    }
  }

  private async minIsrByTopic(partitions: StoredPartition[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const topic of new Set(partitions.map((p) => p.topic))) {
      const configs = await this.options.topics.describeConfigs(topic).catch(() => []);
      out.set(topic, Number(configs.find((c) => c.name === 'min.insync.replicas')?.value ?? 1));
    }
    return out;
  }

  /** Writes one move's next step. Returns true when the move is over (finished or dropped). */
  private async advance(
    move: StoredReassignment,
    stored: StoredPartition | undefined,
    liveness: BrokerLiveness,
  ): Promise<boolean> {
    const recordCompare: Compare = { key: move.key, target: 'modRevision', op: '=', value: move.modRevision };
    if (!stored) {
      // The topic was deleted (or shrank, which cannot happen): the move has nothing left to do.
      await this.write([recordCompare], [{ type: 'delete', key: move.key }]);
      return true;
    }
    const step = nextMoveStep(stored.state, move.record, liveness);
    if (step.kind === 'wait') return false;
    const partitionCompare: Compare = {
      key: stored.key,
      target: 'modRevision',
      op: '=',
      value: stored.modRevision,
    };
    const ops: TxnOp[] = [putState(stored.key, step.state)];
    if (step.kind === 'finish') ops.push({ type: 'delete', key: move.key });
    if (!(await this.write([recordCompare, partitionCompare], ops))) return false;
    const fields = {
      topic: move.topic,
      partition: move.partition,
      leader: step.state.leader,
      leaderEpoch: step.state.leaderEpoch,
      replicas: step.state.replicas,
      isr: step.state.isr,
    };
    if (step.kind === 'lead') {
      this.options.stats.leadershipHandovers++;
      this.logger.info(fields, 'replica move: leadership handed to a target replica');
    } else if (step.kind === 'finish') {
      this.options.stats.movesCompleted++;
      this.logger.info(
        { ...fields, durationMs: this.options.clock.nowMs() - move.record.startedAtMs },
        'replica move completed',
      );
      return true;
    } else {
      this.logger.info(fields, 'replica move: target replicas added');
    }
    return false;
  }

  /** Starts moves off decommissioned brokers, up to `budget`. Returns how many started. */
  private async drain(
    partitions: StoredPartition[],
    brokers: BrokerInfo[],
    decommissioned: ReadonlySet<number>,
    moving: ReadonlySet<string>,
    budget: number,
  ): Promise<number> {
    const load = replicaCounts(partitions.map((p) => p.state.replicas));
    let started = 0;
    for (const p of partitions) {
      if (started >= budget) break;
      const id = `${p.topic}/${p.partition}`;
      if (moving.has(id) || !p.state.replicas.some((b) => decommissioned.has(b))) continue;
      const target = [...p.state.replicas];
      let stuck = false;
      for (let i = 0; i < target.length; i++) {
        if (!decommissioned.has(target[i])) continue;
        const replacement = chooseReplacement(target, target[i], brokers, load, decommissioned);
        if (replacement === undefined) {
          stuck = true;
          break;
        }
        load.set(replacement, (load.get(replacement) ?? 0) + 1);
        target[i] = replacement;
      }
      if (stuck) {
        if (!this.warned.has(id))
          this.logger.warn(
            { topic: p.topic, partition: p.partition, replicas: p.state.replicas },
            'decommission: no live broker can take this replica (add a broker or recommission)',
          );
        this.warned.add(id);
        continue;
      }
      this.warned.delete(id);
      if (await this.submit(p.topic, p.partition, target, 'decommission')) started++;
    }
    return started;
  }

  /**
   * One fenced transaction. Returns false when one of `compares` failed (someone else wrote
   * first: look again); throws NOT_CONTROLLER when a fencing compare failed.
   */
  private async write(compares: Compare[], ops: TxnOp[]): Promise<boolean> {
    const fence = this.options.fencing();
    const fenceKeys = [...new Set(fence.map((c) => c.key))];
    const result = await this.options.store.txn(
      [...fence, ...compares],
      ops,
      fenceKeys.map((key): TxnOp => ({ type: 'get', key })),
    );
    if (result.succeeded) return true;
    const byKey = new Map(fenceKeys.map((key, i) => [key, result.gets[i]]));
    const failed = fence.find((c) => !compareHolds(c, byKey.get(c.key)));
    if (failed)
      throw new TideError('NOT_CONTROLLER', `fenced: ${failed.key} changed (another controller was elected)`);
    return false;
  }
}

function putState(key: string, state: PartitionState): TxnOp {
  return { type: 'put', key, value: encodePartitionState(state) };
}

function sameSet(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((id) => b.includes(id));
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

function checkBrokerId(id: number): void {
  if (!Number.isInteger(id) || id < 0 || id > 0x7fffffff)
    throw new TideError('INVALID_REQUEST', `broker id must be an integer in 0..2^31-1 (got ${id})`);
}

function busy(what: string): TideError {
  return new TideError('METADATA_UNAVAILABLE', `${what} kept changing; retry`, { retriable: true });
}
