/**
 * Shared gRPC server set-up for every Tide service: large flow-control windows and message sizes
 * (PERFORMANCE.md: the default 64 KiB window halves streaming throughput), the standard health
 * service, and server reflection so `grpcurl` works through `kubectl port-forward`.
 */
import { EventEmitter } from 'events';
import type * as http2 from 'http2';
import * as grpc from '@grpc/grpc-js';
import type * as protoLoader from '@grpc/proto-loader';
import { HealthImplementation } from 'grpc-health-check';
import { ReflectionService } from '@grpc/reflection';
import { publicPackageDefinition } from './proto';
import { tagOversizedRequests } from './oversized-requests';

/**
 * Largest request message, bytes (services pass their own limit, e.g. the broker's
 * maxRequestBytes). Responses have no gRPC size limit on either side: a fetch response holds
 * max_bytes plus at most one whole batch, and every stored batch came in a request no larger than
 * the receiving broker's limit, so a send limit could only make acknowledged records unreadable
 * (a 16 MiB batch accepted under a 16 MiB request limit is a 16 MiB + header response).
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
export const FLOW_CONTROL_WINDOW_BYTES = 16 * 1024 * 1024;
/** grpc-js's "no limit". */
const UNLIMITED = -1;

/** How a server treats connections; every service's config has these keys (service-config-keys.ts). */
export interface ConnectionLimits {
  /** A connection with no call for this long is closed (GOAWAY); 0 = never. */
  idleTimeoutMs: number;
  /** The server pings a connection after this long without traffic; 0 = never. */
  keepaliveTimeMs: number;
  /** ...and closes it when the ping is not answered within this long. */
  keepaliveTimeoutMs: number;
  /** Concurrent calls (HTTP/2 streams) per connection; 0 = no limit. */
  maxStreamsPerConnection: number;
  /** Open connections per client IP address; further ones are closed at once; 0 = no limit. */
  maxConnectionsPerPeer: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  idleTimeoutMs: 180_000,
  keepaliveTimeMs: 60_000,
  keepaliveTimeoutMs: 20_000,
  maxStreamsPerConnection: 1_000,
  maxConnectionsPerPeer: 256,
};

export function serverOptions(
  maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
  limits: ConnectionLimits = DEFAULT_CONNECTION_LIMITS,
): grpc.ServerOptions {
  return {
    'grpc.max_receive_message_length': maxMessageBytes,
    'grpc.max_send_message_length': UNLIMITED,
    'grpc-node.flow_control_window': FLOW_CONTROL_WINDOW_BYTES,
    'grpc.keepalive_permit_without_calls': 1,
    'grpc.http2.min_ping_interval_without_data_ms': 5_000,
    ...(limits.idleTimeoutMs > 0 ? { 'grpc.max_connection_idle_ms': limits.idleTimeoutMs } : {}),
    ...(limits.keepaliveTimeMs > 0
      ? {
          'grpc.keepalive_time_ms': limits.keepaliveTimeMs,
          'grpc.keepalive_timeout_ms': limits.keepaliveTimeoutMs,
        }
      : {}),
    ...(limits.maxStreamsPerConnection > 0
      ? { 'grpc.max_concurrent_streams': limits.maxStreamsPerConnection }
      : {}),
  } as grpc.ServerOptions;
}

/** Channel options every Tide client (and broker-to-broker caller) uses; responses are unlimited. */
export function channelOptions(maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES): grpc.ChannelOptions {
  return {
    'grpc.max_receive_message_length': UNLIMITED,
    'grpc.max_send_message_length': maxMessageBytes,
    'grpc-node.flow_control_window': FLOW_CONTROL_WINDOW_BYTES,
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
  } as grpc.ChannelOptions;
}

/**
 * channelOptions() on a connection of the channel's own. grpc-js otherwise shares one connection
 * among every channel of the process to the same address with the same options (its global
 * subchannel pool). Node's HTTP/2 stops reading a session's socket while one of its own writes is
 * in progress (nodejs/node#29399), so a connection that carries bulk data both ways can stall both
 * ends until keepalive drops it: calls whose data flows one way (fetch, replication) and calls
 * whose data flows the other (produce) go on channels of their own.
 */
export function ownConnectionChannelOptions(
  maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES,
): grpc.ChannelOptions {
  return { ...channelOptions(maxMessageBytes), 'grpc.use_local_subchannel_pool': 1 } as grpc.ChannelOptions;
}

export interface TideServer {
  server: grpc.Server;
  health: HealthImplementation;
  /** The port actually bound (useful with port 0). */
  port: number;
  /** The plain-text health-only listener's port, when healthPort asked for one. */
  healthPort?: number;
}

/**
 * Emits `closed` with a connection's peer (`address:port`, as a call's getPeer() names it) when a
 * client connection of any Tide server in this process ends: per-connection bookkeeping done by
 * interceptors (the max_connections quota) forgets it then.
 */
export const connectionEvents = new EventEmitter().setMaxListeners(0);

/** Health-only listeners, stopped with the server they report on. */
const healthListeners = new WeakMap<grpc.Server, grpc.Server>();

/**
 * Creates a server, lets `register` add the service implementations, adds health and reflection,
 * and binds host:port (port 0 picks a free one).
 */
export async function startServer(options: {
  host: string;
  port: number;
  maxMessageBytes?: number;
  /** Idle timeout, keepalive and per-peer caps; DEFAULT_CONNECTION_LIMITS when absent. */
  connections?: ConnectionLimits;
  register: (server: grpc.Server) => void;
  /** Health service names to report, besides the overall "" status. */
  healthServices?: string[];
  /** TLS or plain text (the default); see services/common/security/. */
  credentials?: grpc.ServerCredentials;
  /** Run on every call before its handler (authentication, authorization, quotas). */
  interceptors?: grpc.ServerInterceptor[];
  /**
   * A second, plain-text listener serving only grpc.health.v1.Health, for probes that cannot
   * speak TLS (the kubelet's gRPC probe). It reveals nothing but serving status. Absent or -1 =
   * none; 0 = any free port.
   */
  healthPort?: number;
  /** The protos server reflection describes (default: the public protos). */
  reflection?: protoLoader.PackageDefinition;
}): Promise<TideServer> {
  tagOversizedRequests();
  const limits = options.connections ?? DEFAULT_CONNECTION_LIMITS;
  const server = new grpc.Server({
    ...serverOptions(options.maxMessageBytes, limits),
    ...(options.interceptors?.length ? { interceptors: options.interceptors } : {}),
  });
  options.register(server);
  const statusMap: Record<string, 'SERVING' | 'NOT_SERVING'> = { '': 'NOT_SERVING' };
  for (const name of options.healthServices ?? []) statusMap[name] = 'NOT_SERVING';
  const health = new HealthImplementation(statusMap);
  health.addToServer(server);
  new ReflectionService(options.reflection ?? publicPackageDefinition()).addToServer(server);
  const port = await bind(server, options.host, options.port, options.credentials);
  widenServerWindows(server);
  capConnectionsPerPeer(server, limits.maxConnectionsPerPeer);
  announceClosedConnections(server);
  if (options.healthPort === undefined || options.healthPort < 0) return { server, health, port };
  const healthServer = new grpc.Server(serverOptions(undefined, limits));
  health.addToServer(healthServer);
  try {
    const healthPort = await bind(healthServer, options.host, options.healthPort);
    healthListeners.set(server, healthServer);
    return { server, health, port, healthPort };
  } catch (err) {
    server.forceShutdown();
    throw err;
  }
}

function bind(
  server: grpc.Server,
  host: string,
  port: number,
  credentials = grpc.ServerCredentials.createInsecure(),
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host}:${port}`, credentials, (err, bound) => (err ? reject(err) : resolve(bound)));
  });
}

/**
 * grpc-js applies `grpc-node.flow_control_window` to client channels only; its server keeps
 * HTTP/2's 64 KiB windows, which stalls every large produce request on WINDOW_UPDATE round trips.
 * This widens the stream and connection windows of each new server session. It reaches into
 * grpc-js's `http2Servers` field; if a grpc-js upgrade removes it, the server still works with
 * default windows (slower), which the benchmark shows.
 */
function widenServerWindows(server: grpc.Server): void {
  onSession(server, (session) => {
    session.settings({ initialWindowSize: FLOW_CONTROL_WINDOW_BYTES });
    session.setLocalWindowSize(FLOW_CONTROL_WINDOW_BYTES);
  });
}

/**
 * Closes a new connection at once when its client IP address already has `max` open. Like
 * widenServerWindows it reaches into grpc-js's `http2Servers`; grpc-js has no such option.
 */
function capConnectionsPerPeer(server: grpc.Server, max: number): void {
  if (max <= 0) return;
  const open = new Map<string, number>();
  onSession(server, (session) => {
    const peer = session.socket?.remoteAddress ?? '';
    const count = (open.get(peer) ?? 0) + 1;
    if (count > max) {
      session.destroy();
      return;
    }
    open.set(peer, count);
    session.once('close', () => {
      const left = (open.get(peer) ?? 1) - 1;
      if (left === 0) open.delete(peer);
      else open.set(peer, left);
    });
  });
}

function announceClosedConnections(server: grpc.Server): void {
  onSession(server, (session) => {
    const socket = session.socket;
    if (!socket?.remoteAddress) return;
    const peer = socket.remotePort ? `${socket.remoteAddress}:${socket.remotePort}` : socket.remoteAddress;
    session.once('close', () => connectionEvents.emit('closed', peer));
  });
}

function onSession(server: grpc.Server, listener: (session: http2.ServerHttp2Session) => void): void {
  const http2Servers = (server as unknown as { http2Servers?: Map<http2.Http2Server, unknown> }).http2Servers;
  if (!(http2Servers instanceof Map)) return;
  for (const http2Server of http2Servers.keys()) http2Server.on('session', listener);
}

/** Stops accepting calls, waits up to graceMs for running ones, then cancels the rest. */
export async function stopServer(server: grpc.Server, graceMs = 5_000): Promise<void> {
  const healthServer = healthListeners.get(server);
  if (healthServer) {
    healthListeners.delete(server);
    healthServer.forceShutdown();
  }
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, graceMs);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}
