/**
 * Shared gRPC server set-up for every Tide service: large flow-control windows and message sizes
 * (PERFORMANCE.md: the default 64 KiB window halves streaming throughput), the standard health
 * service, and server reflection so `grpcurl` works through `kubectl port-forward`.
 */
import type * as http2 from 'http2';
import * as grpc from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { ReflectionService } from '@grpc/reflection';
import { publicPackageDefinition } from './proto';

/** Largest request or response message, bytes. Batches are capped far lower by max.message.bytes. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
export const FLOW_CONTROL_WINDOW_BYTES = 16 * 1024 * 1024;

export function serverOptions(maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES): grpc.ServerOptions {
  return {
    'grpc.max_receive_message_length': maxMessageBytes,
    'grpc.max_send_message_length': maxMessageBytes,
    'grpc-node.flow_control_window': FLOW_CONTROL_WINDOW_BYTES,
    'grpc.keepalive_permit_without_calls': 1,
    'grpc.http2.min_ping_interval_without_data_ms': 5_000,
  } as grpc.ServerOptions;
}

/** Channel options every Tide client (and broker-to-broker caller) uses. */
export function channelOptions(maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES): grpc.ChannelOptions {
  return {
    'grpc.max_receive_message_length': maxMessageBytes,
    'grpc.max_send_message_length': maxMessageBytes,
    'grpc-node.flow_control_window': FLOW_CONTROL_WINDOW_BYTES,
    'grpc.keepalive_time_ms': 30_000,
    'grpc.keepalive_timeout_ms': 10_000,
  } as grpc.ChannelOptions;
}

export interface TideServer {
  server: grpc.Server;
  health: HealthImplementation;
  /** The port actually bound (useful with port 0). */
  port: number;
}

/**
 * Creates a server, lets `register` add the service implementations, adds health and reflection,
 * and binds host:port (port 0 picks a free one).
 */
export async function startServer(options: {
  host: string;
  port: number;
  maxMessageBytes?: number;
  register: (server: grpc.Server) => void;
  /** Health service names to report, besides the overall "" status. */
  healthServices?: string[];
}): Promise<TideServer> {
  const server = new grpc.Server(serverOptions(options.maxMessageBytes));
  options.register(server);
  const statusMap: Record<string, 'SERVING' | 'NOT_SERVING'> = { '': 'NOT_SERVING' };
  for (const name of options.healthServices ?? []) statusMap[name] = 'NOT_SERVING';
  const health = new HealthImplementation(statusMap);
  health.addToServer(server);
  new ReflectionService(publicPackageDefinition()).addToServer(server);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(
      `${options.host}:${options.port}`,
      grpc.ServerCredentials.createInsecure(),
      (err, bound) => (err ? reject(err) : resolve(bound)),
    );
  });
  widenServerWindows(server);
  return { server, health, port };
}

/**
 * grpc-js applies `grpc-node.flow_control_window` to client channels only; its server keeps
 * HTTP/2's 64 KiB windows, which stalls every large produce request on WINDOW_UPDATE round trips.
 * This widens the stream and connection windows of each new server session. It reaches into
 * grpc-js's `http2Servers` field; if a grpc-js upgrade removes it, the server still works with
 * default windows (slower), which the benchmark shows.
 */
function widenServerWindows(server: grpc.Server): void {
  const http2Servers = (server as unknown as { http2Servers?: Map<http2.Http2Server, unknown> }).http2Servers;
  if (!(http2Servers instanceof Map)) return;
  for (const http2Server of http2Servers.keys()) {
    http2Server.on('session', (session: http2.ServerHttp2Session) => {
      session.settings({ initialWindowSize: FLOW_CONTROL_WINDOW_BYTES });
      session.setLocalWindowSize(FLOW_CONTROL_WINDOW_BYTES);
    });
  }
}

/** Stops accepting calls, waits up to graceMs for running ones, then cancels the rest. */
export async function stopServer(server: grpc.Server, graceMs = 5_000): Promise<void> {
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
