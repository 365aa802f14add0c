/**
 * A group member's session with its coordinator: one bidi Membership stream that sends Join, then
 * heartbeats and revocation acks, and receives Joined, Assignment, Revoke and heartbeat acks.
 *
 * Client-side states, as a transition table (first matching row wins; anything else is a bug):
 *
 *   idle ──start──▶ connecting ──joined──▶ joined
 *   connecting | joined ──stream failed──▶ backoff ──retry──▶ connecting
 *   connecting | joined | backoff ──leave──▶ leaving ──left──▶ idle
 *   any ──close──▶ closed
 *
 * Failures: NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE / an unreachable coordinator → find the
 * coordinator again and rejoin with the same member id, epoch and owned partitions (no
 * rebalance when the group still knows the member). UNKNOWN_MEMBER_ID / FENCED_MEMBER_EPOCH → the
 * member is out: every partition is lost (dropped without a commit) and it joins as a new member.
 * Any other error (a malformed join) is fatal and surfaced to the application.
 *
 * Safety nets: no answer from the coordinator for half the session timeout (at least two heartbeat
 * intervals) → reconnect, keeping the partitions; none for the whole session timeout → the member
 * drops its partitions itself (they may already be someone else's) and keeps trying to rejoin.
 */
import type * as grpc from '@grpc/grpc-js';
import type { Clock, Timer } from '../../services/common/clock';
import { AssertionError } from '../../services/common/assert';
import { TideError } from '../../services/common/errors';
import { toTideError } from '../net/broker-calls';
import type { Logger } from '../../services/common/logger';
import type { MemberRequest__Input } from '../../services/common/grpc/generated/tide/v1/MemberRequest';
import type { MemberResponse } from '../../services/common/grpc/generated/tide/v1/MemberResponse';
import type { ComputeAssignment } from '../../services/common/grpc/generated/tide/v1/ComputeAssignment';
import { backoffMs } from '../retry';
import type { TopicPartition } from '../types';
import { COORDINATOR_ERRORS, type CoordinatorClient } from './coordinator-client';
import { flatten, grouped } from './group-admin';
import { within } from './within';

export type SessionState = 'idle' | 'connecting' | 'joined' | 'backoff' | 'leaving' | 'closed';
export type SessionEvent = 'start' | 'joined' | 'failed' | 'retry' | 'leave' | 'left' | 'close';

export const SESSION_TRANSITIONS: readonly {
  from: readonly SessionState[];
  event: SessionEvent;
  to: SessionState;
}[] = [
  { from: ['idle'], event: 'start', to: 'connecting' },
  { from: ['connecting'], event: 'joined', to: 'joined' },
  { from: ['connecting', 'joined'], event: 'failed', to: 'backoff' },
  { from: ['backoff'], event: 'retry', to: 'connecting' },
  { from: ['connecting', 'joined', 'backoff'], event: 'leave', to: 'leaving' },
  { from: ['leaving'], event: 'left', to: 'idle' },
  { from: ['idle', 'connecting', 'joined', 'backoff', 'leaving', 'closed'], event: 'close', to: 'closed' },
];

export function nextSessionState(state: SessionState, event: SessionEvent): SessionState {
  const row = SESSION_TRANSITIONS.find((r) => r.event === event && r.from.includes(state));
  if (!row) throw new AssertionError(`member session: no transition from ${state} on ${event}`);
  return row.to;
}

export interface MemberAssignment {
  generation: number;
  memberEpoch: number;
  partitions: TopicPartition[];
  refetchOffsets: boolean;
  /** The client-side assignor's data for this member (empty under server-side assignors). */
  userData: Buffer;
}

/** What the group's leader is asked to assign under the `client` assignor. */
export interface ClientAssignorInput {
  generation: number;
  members: {
    memberId: string;
    instanceId: string;
    topics: string[];
    userData: Buffer;
    /** What it owns now (revoking included), and its target before this generation. */
    owned: TopicPartition[];
    previousTarget: TopicPartition[];
  }[];
  partitionCounts: Map<string, number>;
}

/** Per member: its target partitions and the data delivered with its assignment. */
export type ClientAssignment = Map<string, { partitions: TopicPartition[]; userData?: Buffer }>;

export interface MemberHandler {
  /** Partitions the member holds now (reported on every (re)join). */
  owned(): TopicPartition[];
  onAssignment(assignment: MemberAssignment): void;
  /** Stop these, commit, then call `ackRevoked`. */
  onRevoke(partitions: TopicPartition[]): void;
  /** Membership lost: drop every partition now, without committing. */
  onLost(error: TideError): void;
  /** A non-retriable failure of the session (e.g. a malformed join): the application should see it. */
  onFatal(error: TideError): void;
  /** This member leads a `client` assignor group: compute the target (undefined: cannot). */
  computeAssignment?(input: ClientAssignorInput): Promise<ClientAssignment | undefined>;
}

export interface MemberSessionOptions {
  coordinators: CoordinatorClient;
  groupId: string;
  topics: string[];
  clientId: string;
  instanceId: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  assignor: string;
  /** Sent with every join; updateUserData() changes it. */
  userData?: Buffer;
  clock: Clock;
  logger: Logger;
  handler: MemberHandler;
}

const LOST_CODES = new Set(['UNKNOWN_MEMBER_ID', 'FENCED_MEMBER_EPOCH']);
const RECONNECT_BACKOFF = { initialBackoffMs: 50, maxBackoffMs: 2_000, jitter: 0.2 };

export class MemberSession {
  private current: SessionState = 'idle';
  private id = '';
  private epoch = 0;
  private call?: grpc.ClientDuplexStream<MemberRequest__Input, MemberResponse>;
  private heartbeatIntervalMs: number;
  private lastContactMs = 0;
  private lastHeartbeatMs = 0;
  private failures = 0;
  private timer?: Timer;
  private retryTimer?: Timer;
  private leftWaiters: (() => void)[] = [];
  private holdsPartitions = false;
  private userData: Buffer;
  private readonly logger: Logger;

  constructor(private readonly options: MemberSessionOptions) {
    this.heartbeatIntervalMs = Math.max(50, Math.min(5_000, Math.floor(options.sessionTimeoutMs / 3)));
    this.userData = options.userData ?? Buffer.alloc(0);
    this.logger = options.logger.child({ component: 'group-member', group: options.groupId });
  }

  get state(): SessionState {
    return this.current;
  }

  get memberId(): string {
    return this.id;
  }

  get memberEpoch(): number {
    return this.epoch;
  }

  /** Joins (or rejoins after a leave). */
  start(): void {
    this.transition('start');
    this.timer ??= this.options.clock.setInterval(() => this.tick(), Math.min(250, this.heartbeatIntervalMs));
    this.lastContactMs = this.options.clock.nowMs();
    void this.connect();
  }

  /** Confirms a revocation (after the member stopped the partitions and committed). */
  ackRevoked(partitions: TopicPartition[]): void {
    if (this.current === 'joined') this.send({ revoked: { partitions: grouped(partitions) } });
  }

  /** New user data: sent now when joined, and with every later join. */
  updateUserData(userData: Buffer): void {
    if (this.userData.equals(userData)) return;
    this.userData = Buffer.from(userData);
    if (this.current === 'joined') this.send({ user_data: { user_data: this.userData } });
  }

  /** The member now holds partitions (or none): enables the session-timeout safety net. */
  setHoldsPartitions(holds: boolean): void {
    this.holdsPartitions = holds;
  }

  /**
   * Leaves the group: `temporary` (a static member restarting) keeps its partitions on the
   * coordinator for the session timeout. Resolves when the coordinator closed the stream (or after
   * `waitMs`).
   */
  async leave(temporary: boolean, waitMs = 3_000): Promise<void> {
    if (this.current !== 'connecting' && this.current !== 'joined' && this.current !== 'backoff') return;
    const call = this.current === 'joined' ? this.call : undefined;
    this.transition('leave');
    this.retryTimer?.cancel();
    if (!call) {
      this.cancelCall();
      this.finishLeave();
      return;
    }
    const left = new Promise<void>((resolve) => this.leftWaiters.push(resolve));
    call.write({ leave: { temporary } });
    call.end();
    await within(left, waitMs, this.options.clock);
    this.cancelCall();
    this.finishLeave();
  }

  /** Stops at once (no leave): the coordinator notices when the stream ends or the session expires. */
  close(): void {
    if (this.current === 'closed') return;
    this.transition('close');
    this.timer?.cancel();
    this.retryTimer?.cancel();
    this.cancelCall();
    this.finishLeave();
  }

  // ---------------------------------------------------------------- internals

  private transition(event: SessionEvent): void {
    this.current = nextSessionState(this.current, event);
  }

  private async connect(): Promise<void> {
    if (this.current !== 'connecting') return;
    const { coordinators, groupId } = this.options;
    let call: grpc.ClientDuplexStream<MemberRequest__Input, MemberResponse>;
    try {
      // The coordinator itself, or the bootstrap broker relaying to it (coordinator-client.ts).
      const target = await coordinators.target(groupId);
      if (this.current !== 'connecting') return;
      call = target.client.Membership();
    } catch (err) {
      this.onFailure(undefined, toTideError(err));
      return;
    }
    this.call = call;
    call.on('data', (message: MemberResponse) => this.onMessage(call, message));
    call.on('error', (err: unknown) => this.onFailure(call, toTideError(err)));
    call.on('end', () => {
      if (this.call !== call) return;
      if (this.current === 'leaving') return this.resolveLeft();
      this.onFailure(call, new TideError('NOT_COORDINATOR', 'the coordinator ended the membership stream'));
    });
    const o = this.options;
    call.write({
      join: {
        group_id: o.groupId,
        topics: o.topics,
        client_id: o.clientId,
        instance_id: o.instanceId,
        session_timeout_ms: o.sessionTimeoutMs,
        rebalance_timeout_ms: o.rebalanceTimeoutMs,
        assignor: o.assignor,
        member_id: this.id,
        member_epoch: this.id ? this.epoch : 0,
        owned: grouped(o.handler.owned()),
        user_data: this.userData,
      },
    });
  }

  private onMessage(call: unknown, message: MemberResponse): void {
    if (call !== this.call) return;
    this.lastContactMs = this.options.clock.nowMs();
    switch (message.kind) {
      case 'joined': {
        const j = message.joined!;
        if (this.id !== j.member_id)
          this.logger.info({ memberId: j.member_id, epoch: j.member_epoch }, 'joined the group');
        this.id = j.member_id;
        this.epoch = j.member_epoch;
        this.heartbeatIntervalMs = j.heartbeat_interval_ms || this.heartbeatIntervalMs;
        this.failures = 0;
        if (this.current === 'connecting') this.transition('joined');
        break;
      }
      case 'assignment': {
        const a = message.assignment!;
        this.epoch = a.member_epoch;
        this.options.handler.onAssignment({
          generation: a.generation,
          memberEpoch: a.member_epoch,
          partitions: flatten(a.partitions),
          refetchOffsets: a.refetch_offsets,
          userData: Buffer.from(a.user_data ?? []),
        });
        break;
      }
      case 'compute_assignment':
        void this.compute(call, message.compute_assignment!);
        break;
      case 'revoke':
        this.options.handler.onRevoke(flatten(message.revoke!.partitions));
        break;
      case 'heartbeat':
        break;
      case 'error':
        this.logger.warn({ error: message.error }, 'the coordinator reported a problem');
        break;
    }
  }

  /** Leader of a `client` assignor group: computes the target and answers on the same stream. */
  private async compute(call: unknown, request: ComputeAssignment): Promise<void> {
    const compute = this.options.handler.computeAssignment;
    if (!compute) {
      this.logger.warn('asked to compute the assignment, but no client-side assignor is set; ignoring');
      return;
    }
    let result: ClientAssignment | undefined;
    try {
      result = await compute({
        generation: request.generation,
        members: request.members.map((m) => ({
          memberId: m.member_id,
          instanceId: m.instance_id,
          topics: m.topics,
          userData: Buffer.from(m.user_data ?? []),
          owned: flatten(m.owned),
          previousTarget: flatten(m.previous_target),
        })),
        partitionCounts: new Map(request.partition_counts.map((c) => [c.topic, c.partitions])),
      });
    } catch (err) {
      this.logger.error({ err }, 'the client-side assignor failed; the coordinator asks again later');
      return;
    }
    if (!result || call !== this.call) return;
    this.send({
      assignment_result: {
        generation: request.generation,
        targets: [...result].map(([memberId, t]) => ({
          member_id: memberId,
          partitions: grouped(t.partitions),
          user_data: t.userData ?? Buffer.alloc(0),
        })),
      },
    });
  }

  private onFailure(call: unknown, error: TideError): void {
    if (call !== undefined && call !== this.call) return;
    this.call = undefined;
    if (this.current === 'leaving') return this.resolveLeft();
    if (this.current !== 'connecting' && this.current !== 'joined') return;
    if (LOST_CODES.has(error.code)) {
      this.logger.warn(
        { code: error.code, msg: error.message },
        'no longer a member: partitions lost; joining again',
      );
      this.id = '';
      this.epoch = 0;
      this.options.handler.onLost(error);
    } else if (COORDINATOR_ERRORS.has(error.code) || error.retriable) {
      this.options.coordinators.forget(this.options.groupId);
      this.logger.debug({ code: error.code, msg: error.message }, 'membership stream failed; reconnecting');
    } else {
      this.logger.error({ code: error.code, msg: error.message }, 'membership failed');
      this.close();
      this.options.handler.onFatal(error);
      return;
    }
    this.transition('failed');
    this.failures++;
    const delayMs = LOST_CODES.has(error.code) ? 0 : backoffMs(this.failures, RECONNECT_BACKOFF);
    this.retryTimer = this.options.clock.setTimeout(() => {
      if (this.current !== 'backoff') return;
      this.transition('retry');
      void this.connect();
    }, delayMs);
  }

  private tick(): void {
    const nowMs = this.options.clock.nowMs();
    if (this.current === 'joined' && nowMs - this.lastHeartbeatMs >= this.heartbeatIntervalMs) {
      this.lastHeartbeatMs = nowMs;
      this.send({ heartbeat: { member_epoch: this.epoch } });
    }
    const silentMs = nowMs - this.lastContactMs;
    const call = this.call;
    if (
      this.current === 'joined' &&
      call &&
      silentMs > Math.max(2 * this.heartbeatIntervalMs, this.options.sessionTimeoutMs / 2)
    ) {
      // A hung coordinator (or a half-open connection): find the coordinator again, keep the partitions.
      this.onFailure(
        call,
        new TideError(
          'COORDINATOR_NOT_AVAILABLE',
          `no answer from the group coordinator for ${silentMs} ms; reconnecting`,
        ),
      );
      call.cancel();
    }
    if (this.holdsPartitions && silentMs > this.options.sessionTimeoutMs && this.current !== 'leaving') {
      this.holdsPartitions = false;
      this.options.handler.onLost(
        new TideError(
          'COORDINATOR_NOT_AVAILABLE',
          `no answer from the group coordinator for ${silentMs} ms (session timeout ${this.options.sessionTimeoutMs} ms); partitions dropped`,
        ),
      );
    }
  }

  private send(message: MemberRequest__Input): void {
    const call = this.call;
    if (!call) return;
    try {
      call.write(message);
    } catch (err) {
      this.logger.debug({ err }, 'membership stream write failed');
    }
  }

  private cancelCall(): void {
    const call = this.call;
    this.call = undefined;
    call?.cancel();
  }

  private resolveLeft(): void {
    const waiters = this.leftWaiters;
    this.leftWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private finishLeave(): void {
    this.resolveLeft();
    if (this.current === 'leaving') {
      this.transition('left');
      // A later start() joins as a new member (a static one takes its old place by instance id).
      this.id = '';
      this.epoch = 0;
    }
  }
}
