/**
 * Prometheus metrics shared by every Tide service: a registry with Node's process metrics, a
 * histogram of RPC latency by method and result code, and the HTTP endpoint `GET /metrics`.
 * Each service adds its own metrics to the registry it gets here.
 */
import * as http from 'http';
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from './logger';

export interface ServiceMetrics {
  registry: Registry;
  /** Records one RPC: its method, its result code ('OK' or a Tide error code) and duration. */
  observeRpc(method: string, code: string, seconds: number): void;
}

export function createServiceMetrics(service: string): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  const rpc = new Histogram({
    name: 'tide_rpc_duration_seconds',
    help: 'Latency of unary RPCs, and of each call on a stream that carries calls (EndTxnStream, JoinStream, WriteTxnMarkersStream), by method and result code (request rate: the _count series)',
    labelNames: ['method', 'code'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  return {
    registry,
    observeRpc: (method, code, seconds) => rpc.observe({ method, code }, seconds),
  };
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/** Serves the registry on host:port (0 = any free port). */
export async function serveMetrics(
  registry: Registry,
  options: { host: string; port: number; logger: Logger },
): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404).end('see /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
      (err: unknown) => {
        options.logger.warn({ err }, 'metrics scrape failed');
        res.writeHead(500).end(String(err));
      },
    );
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve((server.address() as { port: number }).port));
  });
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
