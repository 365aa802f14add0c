/**
 * A mock Tide cluster for client unit tests: real grpc-js servers on 127.0.0.1 (port 0), serving
 * the Broker and Admin services from in-memory logs. Enough of the broker's contract to exercise
 * the client: leaders (NOT_LEADER from non-leaders), idempotent dedup by producer id + sequence,
 * long-lived FetchStreams, ListOffsets, and injectable faults (errors, held responses, cut batches).
 */
import * as grpc from '@grpc/grpc-js';
import { TideError, type ErrorCode } from '../../../services/common/errors';
import { toGrpcStatus, toWireError } from '../../../services/common/grpc/status';
import { tideProto } from '../../../services/common/grpc/proto';
import type { ProduceRequest } from '../../../services/common/grpc/generated/tide/v1/ProduceRequest';
import type { ProduceResponse__Input } from '../../../services/common/grpc/generated/tide/v1/ProduceResponse';
import type { FetchResponse__Input } from '../../../services/common/grpc/generated/tide/v1/FetchResponse';
import type { FetchStreamRequest } from '../../../services/common/grpc/generated/tide/v1/FetchStreamRequest';
import type { BrokerHandlers } from '../../../services/common/grpc/generated/tide/v1/Broker';
import type { AdminHandlersWithoutAcls } from '../../../services/common/security/auth/acl-admin-service';
import {
  decodeRecords,
  lastOffsetOf,
  patchBaseOffset,
  readBatchHeader,
  splitBatches,
} from '../../../services/common/records';

export interface StoredBatch {
  baseOffset: number;
  lastOffset: number;
  bytes: Buffer;
  producerId: number;
  baseSequence: number;
}

export class FakePartition {
  batches: StoredBatch[] = [];
  nextOffset = 0;
  logStartOffset = 0;
  private waiters: (() => void)[] = [];
  /** Per producer id: next expected sequence and recent batches (for dedup). */
  producers = new Map<number, { nextSequence: number; recent: StoredBatch[] }>();

  constructor(
    readonly topic: string,
    readonly partition: number,
    public leader: number,
  ) {}

  /** Appends a batch (sequence-checked when it carries a producer id). */
  append(bytes: Buffer): StoredBatch {
    const header = readBatchHeader(bytes, 0);
    if (header.producerId >= 0) {
      const state = this.producers.get(header.producerId) ?? { nextSequence: 0, recent: [] };
      const dup = state.recent.find((b) => b.baseSequence === header.baseSequence);
      if (dup) return dup;
      if (header.baseSequence !== state.nextSequence) {
        throw new TideError(
          'OUT_OF_ORDER_SEQUENCE',
          `expected sequence ${state.nextSequence}, got ${header.baseSequence}`,
        );
      }
      state.nextSequence = header.baseSequence + header.recordCount;
      this.producers.set(header.producerId, state);
    }
    const copy = Buffer.from(bytes);
    patchBaseOffset(copy, 0, this.nextOffset);
    const stored = {
      baseOffset: this.nextOffset,
      lastOffset: this.nextOffset + header.lastOffsetDelta,
      bytes: copy,
      producerId: header.producerId,
      baseSequence: header.baseSequence,
    };
    this.batches.push(stored);
    if (header.producerId >= 0) {
      const state = this.producers.get(header.producerId)!;
      state.recent.push(stored);
      if (state.recent.length > 5) state.recent.shift();
    }
    this.nextOffset = stored.lastOffset + 1;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
    return stored;
  }

  /** Whole stored batches containing offsets >= `offset`, up to ~maxBytes (at least one). */
  read(offset: number, maxBytes: number): Buffer {
    const out: Buffer[] = [];
    let size = 0;
    for (const b of this.batches) {
      if (b.lastOffset < offset) continue;
      if (out.length > 0 && size + b.bytes.length > maxBytes) break;
      out.push(b.bytes);
      size += b.bytes.length;
    }
    return Buffer.concat(out);
  }

  waitForData(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** All records as stored. */
  records(): ReturnType<typeof decodeRecords> {
    return decodeRecords(Buffer.concat(this.batches.map((b) => b.bytes)));
  }
}

/** A fault applied to the next produce request it matches (then removed, unless `times` says more). */
export interface ProduceFault {
  match?: (req: ProduceRequest, broker: FakeBroker) => boolean;
  /** Answer with this error instead of appending... */
  error?: { code: ErrorCode; retriable?: boolean; message?: string };
  /** ...or append, then answer with this error (a lost acknowledgement). */
  errorAfterAppend?: { code: ErrorCode; retriable?: boolean };
  /** Append, then never answer (a hung broker). */
  blackhole?: boolean;
  /** Kill the stream the request came on (after appending when `append` is true). */
  breakStream?: { append: boolean };
  times?: number;
}

export interface ProduceLogEntry {
  broker: number;
  topic: string;
  partition: number;
  acks: string;
  producerId: number;
  baseSequence: number;
  recordCount: number;
  bytes: number;
  via: 'stream' | 'unary';
}

export class FakeCluster {
  readonly brokers: FakeBroker[] = [];
  readonly topics = new Map<string, FakePartition[]>();
  readonly produceLog: ProduceLogEntry[] = [];
  faults: ProduceFault[] = [];
  metadataRequests = 0;
  nextProducerId = 1000;
  /** When set, every produce response waits for this promise (tests release it). */
  holdProduce: Promise<void> | undefined;
  /** When set, InitProducerId answers once this promise resolves (tests release it). */
  holdInitProducerId: Promise<void> | undefined;
  readonly heldBrokers = new Map<number, Promise<void>>();
  private releaseHold: (() => void) | undefined;
  /** FetchStream: cut the response after this many bytes of the next batch (a partial trailing batch). */
  cutFetchAfterBytes: number | undefined;
  /** FetchStream: next_offset reported past a cut batch (a broker that skips it). */
  skipCutBatch = false;
  fetchStreamsOpened = 0;
  fetchStreamRequests: FetchStreamRequest[] = [];
  /** false: FetchStreamMulti answers UNIMPLEMENTED, like a broker of an older version. */
  fetchStreamMulti = true;
  /** FetchStreamMulti calls that came in (answered or refused). */
  fetchStreamMultiCalls = 0;

  static async start(brokerCount = 1): Promise<FakeCluster> {
    const cluster = new FakeCluster();
    for (let id = 0; id < brokerCount; id++) {
      const broker = new FakeBroker(id, cluster);
      await broker.start();
      cluster.brokers.push(broker);
    }
    return cluster;
  }

  get bootstrap(): string[] {
    return this.brokers.map((b) => b.address);
  }

  createTopic(name: string, partitions: number, leader = 0): FakePartition[] {
    const list = Array.from({ length: partitions }, (_, p) => new FakePartition(name, p, leader));
    this.topics.set(name, list);
    return list;
  }

  /** Adds partitions to a topic (as CreatePartitions does); clients hear of them on their next refresh. */
  growTopic(name: string, partitions: number, leader = 0): FakePartition[] {
    const list = this.topics.get(name)!;
    while (list.length < partitions) list.push(new FakePartition(name, list.length, leader));
    return list;
  }

  partition(topic: string, partition: number): FakePartition {
    const p = this.topics.get(topic)?.[partition];
    if (!p) throw new TideError('UNKNOWN_PARTITION', `no ${topic}/${partition}`);
    return p;
  }

  /** Produce requests that reached a broker for (topic, partition). */
  produced(topic: string, partition?: number): ProduceLogEntry[] {
    return this.produceLog.filter(
      (e) => e.topic === topic && (partition === undefined || e.partition === partition),
    );
  }

  takeFault(req: ProduceRequest, broker: FakeBroker): ProduceFault | undefined {
    const index = this.faults.findIndex((f) => !f.match || f.match(req, broker));
    if (index < 0) return undefined;
    const fault = this.faults[index];
    fault.times = (fault.times ?? 1) - 1;
    if (fault.times <= 0) this.faults.splice(index, 1);
    return fault;
  }

  /** Produce requests reaching broker `id` wait (a paused leader) until the returned release. */
  holdBroker(id: number): () => void {
    let release!: () => void;
    this.heldBrokers.set(id, new Promise<void>((resolve) => (release = resolve)));
    return () => {
      this.heldBrokers.delete(id);
      release();
    };
  }

  /** Holds every produce request (logged, not yet handled) until the returned function is called. */
  hold(): () => void {
    this.holdProduce = new Promise((resolve) => (this.releaseHold = resolve));
    return () => this.release();
  }

  release(): void {
    this.holdProduce = undefined;
    this.releaseHold?.();
  }

  async stop(): Promise<void> {
    this.release();
    await Promise.all(this.brokers.map((b) => b.stop()));
  }
}

type FetchCall = grpc.ServerWritableStream<FetchStreamRequest, unknown>;

export class FakeBroker {
  readonly server = new grpc.Server();
  port = 0;
  readonly streams = new Set<grpc.ServerDuplexStream<ProduceRequest, ProduceResponse__Input>>();
  readonly fetchCalls = new Set<FetchCall>();

  constructor(
    readonly id: number,
    readonly cluster: FakeCluster,
  ) {}

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const proto = tideProto();
    this.server.addService(proto.Broker.service, this.brokerHandlers());
    this.server.addService(proto.Admin.service, this.adminHandlers());
    this.port = await new Promise<number>((resolve, reject) =>
      this.server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) =>
        err ? reject(err) : resolve(port),
      ),
    );
  }

  async stop(): Promise<void> {
    for (const call of this.fetchCalls) call.destroy();
    for (const call of this.streams) call.destroy();
    this.server.forceShutdown();
  }

  /** Ends every open produce stream with an error (a crashed connection). */
  breakProduceStreams(): void {
    for (const call of this.streams)
      call.emit('error', { code: grpc.status.UNAVAILABLE, details: 'connection reset' });
  }

  /** Ends every open fetch stream with an error. */
  breakFetchStreams(): void {
    for (const call of this.fetchCalls)
      call.emit('error', { code: grpc.status.UNAVAILABLE, details: 'connection reset' });
  }

  private leaderPartition(topic: string, partition: number): FakePartition {
    const list = this.cluster.topics.get(topic);
    if (!list) throw new TideError('UNKNOWN_TOPIC', `topic ${topic} does not exist`);
    const p = list[partition];
    if (!p) throw new TideError('UNKNOWN_PARTITION', `no partition ${partition}`);
    if (p.leader !== this.id)
      throw new TideError('NOT_LEADER', `broker ${this.id} is not the leader of ${topic}/${partition}`);
    return p;
  }

  /** Appends per the request and faults; resolves to the response or rejects with a TideError. */
  private async produce(
    req: ProduceRequest,
    via: 'stream' | 'unary',
    onBreak?: () => void,
  ): Promise<ProduceResponse__Input> {
    const header = req.record_batches.length >= 61 ? readBatchHeader(req.record_batches, 0) : undefined;
    this.cluster.produceLog.push({
      broker: this.id,
      topic: req.topic,
      partition: req.partition,
      acks: req.acks,
      producerId: header?.producerId ?? -1,
      baseSequence: header?.baseSequence ?? -1,
      recordCount: header?.recordCount ?? req.records.length,
      bytes: req.record_batches.length,
      via,
    });
    if (this.cluster.holdProduce) await this.cluster.holdProduce;
    const held = this.cluster.heldBrokers.get(this.id);
    if (held) await held;
    const fault = this.cluster.takeFault(req, this);
    if (fault?.error)
      throw new TideError(fault.error.code, fault.error.message ?? 'injected', {
        retriable: fault.error.retriable,
      });
    const p = this.leaderPartition(req.topic, req.partition);
    if (fault?.breakStream && !fault.breakStream.append) {
      onBreak?.();
      return new Promise(() => undefined);
    }
    let first: StoredBatch | undefined;
    let last: StoredBatch | undefined;
    for (const { at, sizeBytes } of splitBatches(req.record_batches).batches) {
      const stored = p.append(req.record_batches.subarray(at, at + sizeBytes));
      first ??= stored;
      last = stored;
    }
    if (fault?.breakStream) {
      onBreak?.();
      return new Promise(() => undefined);
    }
    if (fault?.blackhole) return new Promise(() => undefined);
    if (fault?.errorAfterAppend)
      throw new TideError(fault.errorAfterAppend.code, 'injected after append', {
        retriable: fault.errorAfterAppend.retriable,
      });
    return {
      correlation_id: req.correlation_id,
      topic: req.topic,
      partition: req.partition,
      base_offset: first?.baseOffset ?? -1,
      last_offset: last?.lastOffset ?? -1,
      log_append_time_ms: -1,
      log_start_offset: p.logStartOffset,
    };
  }

  /** A fetch stream's partition loops; `write` sends one partition's answer. */
  private serveFetchStream(call: FetchCall, write: (response: FetchResponse__Input) => void): void {
    const cluster = this.cluster;
    cluster.fetchStreamsOpened++;
    cluster.fetchStreamRequests.push(call.request);
    this.fetchCalls.add(call);
    let open = true;
    const done = () => {
      open = false;
      this.fetchCalls.delete(call);
    };
    call.on('cancelled', done);
    call.on('close', done);
    call.on('error', done);
    for (const pos of call.request.positions) {
      void (async () => {
        let offset = pos.offset;
        try {
          const p = this.leaderPartition(pos.topic, pos.partition);
          while (open) {
            if (offset < p.logStartOffset || offset > p.nextOffset)
              throw new TideError(
                'OFFSET_OUT_OF_RANGE',
                `offset ${offset} outside [${p.logStartOffset}, ${p.nextOffset}]`,
              );
            const bytes = p.read(offset, call.request.max_bytes || 1024 * 1024);
            if (bytes.length === 0) {
              await p.waitForData();
              continue;
            }
            const cut = this.cut(bytes);
            const next = cut.nextOffset ?? lastOffsetOf(lastHeader(bytes)) + 1;
            if (!open) return;
            write({
              topic: pos.topic,
              partition: pos.partition,
              high_watermark: p.nextOffset,
              log_start_offset: p.logStartOffset,
              record_batches: cut.bytes,
              next_offset: next,
            });
            offset = next;
            await new Promise((r) => setImmediate(r));
          }
        } catch (err) {
          if (open)
            write({
              topic: pos.topic,
              partition: pos.partition,
              next_offset: offset,
              error: toWireError(err),
            });
        }
      })();
    }
  }

  private brokerHandlers(): BrokerHandlers {
    const cluster = this.cluster;
    return {
      // Like a broker of an older version: clients must cope with metadata watches being absent.
      WatchMetadata: (call) =>
        call.destroy(Object.assign(new Error('not implemented by the fake broker'), { code: 12 })),
      Produce: (call, cb) => {
        this.produce(call.request, 'unary').then(
          (r) => cb(null, r),
          (err) => cb(toGrpcStatus(err)),
        );
      },
      ProduceStream: (call) => {
        this.streams.add(call);
        call.on('close', () => this.streams.delete(call));
        call.on('error', () => this.streams.delete(call));
        call.on('data', (req: ProduceRequest) => {
          const silent = req.acks === 'ACKS_NONE';
          this.produce(req, 'stream', () =>
            call.emit('error', { code: grpc.status.UNAVAILABLE, details: 'stream broken by fault' }),
          ).then(
            (r) => {
              if (!silent && !call.destroyed) call.write(r);
            },
            (err) => {
              if (!silent && !call.destroyed)
                call.write({
                  correlation_id: req.correlation_id,
                  topic: req.topic,
                  partition: req.partition,
                  error: toWireError(err),
                });
            },
          );
        });
        call.on('end', () => call.end());
      },
      Fetch: (call, cb) => {
        try {
          const req = call.request;
          const p = this.leaderPartition(req.topic, req.partition);
          if (req.offset < p.logStartOffset || req.offset > p.nextOffset)
            throw new TideError(
              'OFFSET_OUT_OF_RANGE',
              `offset ${req.offset} outside [${p.logStartOffset}, ${p.nextOffset}]`,
            );
          const bytes = p.read(req.offset, req.max_bytes || 1024 * 1024);
          const cut = this.cut(bytes);
          cb(null, {
            topic: req.topic,
            partition: req.partition,
            high_watermark: p.nextOffset,
            log_start_offset: p.logStartOffset,
            record_batches: cut.bytes,
            next_offset: cut.nextOffset ?? (bytes.length ? lastOffsetOf(lastHeader(bytes)) + 1 : req.offset),
          });
        } catch (err) {
          cb(toGrpcStatus(err));
        }
      },
      FetchStream: (call) => this.serveFetchStream(call, (response) => call.write(response)),
      FetchStreamMulti: (call) => {
        cluster.fetchStreamMultiCalls++;
        if (!cluster.fetchStreamMulti) {
          call.emit('error', {
            code: grpc.status.UNIMPLEMENTED,
            details: 'not implemented by the fake broker',
          });
          return;
        }
        // One partition per message: the client must take a message of one as of many.
        this.serveFetchStream(call, (response) => call.write({ partitions: [response] }));
      },
      ListOffsets: (call, cb) => {
        try {
          const req = call.request;
          const p = this.leaderPartition(req.topic, req.partition);
          let offset = p.nextOffset;
          if (req.spec === 'OFFSET_SPEC_EARLIEST') offset = p.logStartOffset;
          if (req.spec === 'OFFSET_SPEC_TIMESTAMP')
            offset = p.records().find((r) => r.timestampMs >= req.timestamp_ms)?.offset ?? -1;
          cb(null, {
            topic: req.topic,
            partition: req.partition,
            offset,
            timestamp_ms: req.timestamp_ms,
            log_start_offset: p.logStartOffset,
            high_watermark: p.nextOffset,
          });
        } catch (err) {
          cb(toGrpcStatus(err));
        }
      },
      Metadata: (call, cb) => {
        cluster.metadataRequests++;
        const names =
          call.request.topics.length > 0
            ? call.request.topics.filter((t) => cluster.topics.has(t))
            : [...cluster.topics.keys()];
        cb(null, {
          cluster_id: 'fake',
          controller_id: 0,
          brokers: cluster.brokers.map((b) => ({ id: b.id, host: '127.0.0.1', port: b.port })),
          topics: names.map((name) => ({
            name,
            topic_id: `id-${name}`,
            partitions: cluster.topics.get(name)!.map((p) => ({
              partition: p.partition,
              leader: p.leader,
              leader_epoch: 0,
              replicas: [p.leader],
              isr: [p.leader],
            })),
          })),
        });
      },
      InitProducerId: (_call, cb) => {
        void (cluster.holdInitProducerId ?? Promise.resolve()).then(() =>
          cb(null, { producer_id: cluster.nextProducerId++, producer_epoch: 0 }),
        );
      },
    };
  }

  /** Applies `cutFetchAfterBytes`: keep the first batch whole, then a cut piece of the second. */
  private cut(bytes: Buffer): { bytes: Buffer; nextOffset: number | undefined } {
    const cutAfter = this.cluster.cutFetchAfterBytes;
    if (cutAfter === undefined) return { bytes, nextOffset: undefined };
    const { batches } = splitBatches(bytes);
    if (batches.length < 2) return { bytes, nextOffset: undefined };
    const second = batches[1];
    const secondHeader = readBatchHeader(bytes, second.at);
    const nextOffset = this.cluster.skipCutBatch ? lastOffsetOf(secondHeader) + 1 : secondHeader.baseOffset;
    return { bytes: bytes.subarray(0, second.at + cutAfter), nextOffset };
  }

  private adminHandlers(): AdminHandlersWithoutAcls {
    const unsupported = (_call: unknown, cb: grpc.sendUnaryData<never>) =>
      cb(toGrpcStatus(new TideError('INVALID_REQUEST', 'the fake broker does not move replicas')));
    const cluster = this.cluster;
    const topicInfo = (name: string) => ({
      name,
      topic_id: `id-${name}`,
      partitions: cluster.topics
        .get(name)!
        .map((p) => ({ partition: p.partition, leader: p.leader, replicas: [p.leader], isr: [p.leader] })),
    });
    const fail = (cb: grpc.sendUnaryData<never>, err: unknown) => cb(toGrpcStatus(err));
    return {
      CreateTopic: (call, cb) => {
        const { name, partitions, validate_only } = call.request;
        if (cluster.topics.has(name))
          return fail(cb, new TideError('TOPIC_ALREADY_EXISTS', `topic ${name} already exists`));
        if (partitions < 1)
          return fail(cb, new TideError('INVALID_PARTITIONS', 'partitions must be at least 1'));
        if (validate_only) return cb(null, { topic: { name, partitions: [] } });
        cluster.createTopic(name, partitions);
        cb(null, { topic: topicInfo(name) });
      },
      DeleteTopic: (call, cb) => {
        if (!cluster.topics.delete(call.request.name))
          return fail(cb, new TideError('UNKNOWN_TOPIC', `topic ${call.request.name} does not exist`));
        cb(null, {});
      },
      ListTopics: (_call, cb) => cb(null, { names: [...cluster.topics.keys()] }),
      DescribeTopic: (call, cb) => {
        const name = call.request.name;
        if (!cluster.topics.has(name))
          return fail(cb, new TideError('UNKNOWN_TOPIC', `topic ${name} does not exist`));
        cb(null, {
          topic: topicInfo(name),
          configs: [{ name: 'retention.ms', value: '604800000', is_default: true }],
          status: cluster.topics.get(name)!.map((p) => ({
            partition: p.partition,
            log_start_offset: p.logStartOffset,
            high_watermark: p.nextOffset,
            log_end_offset: p.nextOffset,
            size_bytes: 0,
          })),
        });
      },
      DescribeConfigs: (call, cb) =>
        cb(null, { configs: [{ name: 'retention.ms', value: '604800000', is_default: true }] }),
      AlterConfigs: (call, cb) => {
        if (Object.keys(call.request.set).some((k) => !k.includes('.')))
          return fail(cb, new TideError('INVALID_CONFIG', 'unknown config key'));
        cb(null, {
          configs: Object.entries(call.request.set).map(([name, value]) => ({
            name,
            value,
            is_default: false,
          })),
        });
      },
      DescribeCluster: (_call, cb) =>
        cb(null, {
          cluster_id: 'fake',
          controller_id: 0,
          brokers: cluster.brokers.map((b) => ({ id: b.id, host: '127.0.0.1', port: b.port })),
        }),
      CreatePartitions: unsupported,
      AlterPartitionReassignments: unsupported,
      ListPartitionReassignments: unsupported,
      DecommissionBroker: unsupported,
      RecommissionBroker: unsupported,
      DescribeDecommission: unsupported,
      DeleteRecords: (call, cb) => {
        try {
          const { topic, partition, offset } = call.request;
          const p = this.leaderPartition(topic, partition);
          const target = offset === -1 ? p.nextOffset : offset;
          if (target < 0 || target > p.nextOffset)
            throw new TideError('OFFSET_OUT_OF_RANGE', `offset ${offset} above ${p.nextOffset}`);
          p.logStartOffset = Math.max(p.logStartOffset, target);
          cb(null, { topic, partition, low_watermark: p.logStartOffset });
        } catch (err) {
          fail(cb, err);
        }
      },
    };
  }
}

function lastHeader(bytes: Buffer) {
  const { batches } = splitBatches(bytes);
  return readBatchHeader(bytes, batches[batches.length - 1].at);
}

/** Polls `predicate` on the event loop until it holds (or fails after timeoutMs). */
export async function waitFor(
  predicate: () => boolean,
  timeoutMs = 5_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
