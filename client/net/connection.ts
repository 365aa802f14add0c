/**
 * The network layer: grpc-js channels to brokers, one set per broker address ('host:port').
 *
 * Channels are tuned for bulk data (docs/performance.md): a 16 MiB HTTP/2 flow-control window
 * (the 64 KiB default halves stream throughput), large message limits (a fetch returns at least
 * one whole batch, however big), and keepalive pings so a dead broker is noticed on idle streams.
 * Each pool member is its own TCP connection (a local subchannel pool), so `channelsPerBroker > 1`
 * really spreads load; the Broker and Admin clients of one member share its channel.
 *
 * Fetch streams always get connections of their own (fetchBroker), apart from the produce stream
 * and control calls. Node's HTTP/2 stops reading a connection's socket while one of its own writes
 * is in progress (nodejs/node#29399), so a connection carrying bulk data both ways — produce
 * requests out, fetch responses in — between two Node processes can end with both sides writing
 * and neither reading: every call on it stalls until keepalive drops it (40 s with the defaults).
 * Kept apart, each connection carries bulk data one way and its small messages the other.
 */
import * as grpc from '@grpc/grpc-js';
import { tideProto } from '../../services/common/grpc/proto';
import { ROUTING_HEADER } from '../../services/common/grpc/routing-headers';
import { TideError } from '../../services/common/errors';
import type { BrokerClient } from '../../services/common/grpc/generated/tide/v1/Broker';
import type { AdminClient } from '../../services/common/grpc/generated/tide/v1/Admin';

export interface ConnectionOptions {
  /** HTTP/2 flow-control window per stream and connection. Default 16 MiB. */
  flowControlWindowBytes?: number;
  /**
   * Largest message sent. Default 64 MiB. Received messages have no limit: a fetch response is
   * bounded by the request's max bytes plus one whole batch, which the broker accepted, so a
   * receive limit could only make acknowledged records unreadable.
   */
  maxMessageBytes?: number;
  /** Ping interval on connections with active calls. Default 30 s. */
  keepaliveMs?: number;
  /** How long a ping may go unanswered before the connection is dropped. Default 10 s. */
  keepaliveTimeoutMs?: number;
  /** Channels (TCP connections) per broker address. Default 1. */
  channelsPerBroker?: number;
  /** Default: insecure (plain-text HTTP/2). */
  credentials?: grpc.ChannelCredentials;
  /** Sent as the secondary user agent, so broker logs can name the client. */
  clientId?: string;
  /**
   * When it returns true, calls carry `tide-routing: proxy`, asking the broker to forward requests
   * for partitions it does not lead (the Cluster sets this for bootstrap routing).
   */
  proxyRouting?: () => boolean;
  /** Metadata sent on every call (Tide's own services use it for the internal token). */
  callMetadata?: Readonly<Record<string, string>>;
  /** Extra grpc-js channel options; they win over the ones above. */
  channelOptions?: grpc.ChannelOptions;
}

export const DEFAULT_FLOW_CONTROL_WINDOW_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
export const DEFAULT_KEEPALIVE_MS = 30_000;
export const DEFAULT_KEEPALIVE_TIMEOUT_MS = 10_000;

/** The channel options a pool applies, exposed for tests and for tools that build their own clients. */
export function channelOptionsFor(options: ConnectionOptions = {}): grpc.ChannelOptions {
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  return {
    'grpc-node.flow_control_window': options.flowControlWindowBytes ?? DEFAULT_FLOW_CONTROL_WINDOW_BYTES,
    'grpc.max_send_message_length': maxMessageBytes,
    'grpc.max_receive_message_length': -1,
    'grpc.keepalive_time_ms': options.keepaliveMs ?? DEFAULT_KEEPALIVE_MS,
    'grpc.keepalive_timeout_ms': options.keepaliveTimeoutMs ?? DEFAULT_KEEPALIVE_TIMEOUT_MS,
    'grpc.use_local_subchannel_pool': 1,
    // Reconnect quickly after a broker restart; the client's own retry adds jittered backoff.
    'grpc.initial_reconnect_backoff_ms': 100,
    'grpc.max_reconnect_backoff_ms': 2_000,
    ...(options.clientId ? { 'grpc.secondary_user_agent': `tide-client/${options.clientId}` } : {}),
    ...options.channelOptions,
  };
}

interface Member {
  broker: BrokerClient;
  admin?: AdminClient;
}

/** A pool of channels per broker address. Clients are created lazily and live until close(). */
export class ConnectionPool {
  private readonly members = new Map<string, Member[]>();
  /** The fetch streams' own connections, per broker address (see the header). */
  private readonly fetchMembers = new Map<string, Member[]>();
  private readonly channelOptions: grpc.ChannelOptions;
  private readonly credentials: grpc.ChannelCredentials;
  private readonly channelsPerBroker: number;
  private readonly interceptors: grpc.Interceptor[];
  private closed = false;

  constructor(options: ConnectionOptions = {}) {
    this.channelOptions = channelOptionsFor(options);
    this.credentials = options.credentials ?? grpc.credentials.createInsecure();
    this.channelsPerBroker = Math.max(1, options.channelsPerBroker ?? 1);
    const proxyRouting = options.proxyRouting;
    const extra = Object.entries(options.callMetadata ?? {});
    this.interceptors =
      proxyRouting || extra.length > 0
        ? [
            (callOptions, nextCall) =>
              new grpc.InterceptingCall(nextCall(callOptions), {
                start(metadata, listener, next) {
                  if (proxyRouting?.()) metadata.set(ROUTING_HEADER, 'proxy');
                  for (const [key, value] of extra) metadata.set(key, value);
                  next(metadata, listener);
                },
              }),
          ]
        : [];
  }

  /** The Broker client of `address`; `lane` picks a pool member (e.g. a partition number). */
  broker(address: string, lane = 0): BrokerClient {
    return this.member(this.members, address, lane).broker;
  }

  /** The Broker client for fetch streams to `address`: never a connection that produce uses. */
  fetchBroker(address: string, lane = 0): BrokerClient {
    return this.member(this.fetchMembers, address, lane).broker;
  }

  /**
   * The Admin client of `address`, sharing the channel of its first pool member and its headers
   * (DeleteRecords is served by a partition's leader, so it is proxy-routed like the data plane).
   */
  admin(address: string): AdminClient {
    const member = this.member(this.members, address, 0);
    if (!member.admin) {
      const Admin = tideProto().Admin;
      member.admin = new Admin(address, this.credentials, {
        ...this.channelOptions,
        channelOverride: member.broker.getChannel(),
        interceptors: this.interceptors,
      });
    }
    return member.admin;
  }

  /** Addresses with open channels. */
  addresses(): string[] {
    return [...new Set([...this.members.keys(), ...this.fetchMembers.keys()])];
  }

  /** Closes the channels of one address (e.g. a broker that left the cluster). */
  closeAddress(address: string): void {
    for (const pool of [this.members, this.fetchMembers]) {
      const members = pool.get(address);
      if (!members) continue;
      pool.delete(address);
      for (const m of members) m.broker.close();
    }
  }

  /** Closes every channel; in-flight calls fail with CANCELLED/UNAVAILABLE. */
  close(): void {
    this.closed = true;
    for (const address of this.addresses()) this.closeAddress(address);
  }

  private member(pool: Map<string, Member[]>, address: string, lane: number): Member {
    if (this.closed)
      throw new TideError('BROKER_NOT_AVAILABLE', 'the client is closed', { retriable: false });
    let members = pool.get(address);
    if (!members) {
      members = [];
      pool.set(address, members);
    }
    const index = Math.abs(lane | 0) % this.channelsPerBroker;
    let member = members[index];
    if (!member) {
      const Broker = tideProto().Broker;
      member = {
        broker: new Broker(address, this.credentials, {
          ...this.channelOptions,
          interceptors: this.interceptors,
        }),
      };
      members[index] = member;
    }
    return member;
  }
}
