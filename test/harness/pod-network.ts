/**
 * The network inside a simulated Kubernetes cluster, on loopback: an HTTP CONNECT proxy that the
 * cluster's own processes use (grpc-js honours the `grpc_proxy` environment variable), where the
 * addresses the services advertise route to the ports they really listen on. A process outside
 * (the test's client) does not use it, so it sees what a laptop behind one `kubectl port-forward`
 * sees: the advertised addresses lead nowhere (nothing listens there), only the forwarded one works.
 *
 * Every other CONNECT target passes through unchanged (etcd, the real ports); only loopback
 * targets are allowed, so nothing leaves the machine.
 */
import * as http from 'http';
import * as net from 'net';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export class PodNetwork {
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: http.Server,
    private readonly routes: Map<string, string>,
    readonly port: number,
  ) {}

  /** Starts the proxy; `routes` maps an advertised 'host:port' to the real 'host:port'. */
  static async start(routes: Map<string, string> = new Map()): Promise<PodNetwork> {
    const server = http.createServer((_req, res) => res.writeHead(405).end('CONNECT only\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const network = new PodNetwork(server, routes, (server.address() as net.AddressInfo).port);
    server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) =>
      network.tunnel(req.url ?? '', client, head),
    );
    return network;
  }

  /** The environment that makes a process's gRPC channels use this network. */
  env(): NodeJS.ProcessEnv {
    return { grpc_proxy: `http://127.0.0.1:${this.port}`, no_grpc_proxy: '' };
  }

  /** Routes an advertised address to where the service really listens. */
  route(advertised: string, real: string): void {
    this.routes.set(advertised, real);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private tunnel(target: string, client: net.Socket, head: Buffer): void {
    this.track(client);
    const destination = this.routes.get(target) ?? target;
    const at = destination.lastIndexOf(':');
    const host = destination.slice(0, at);
    const port = Number(destination.slice(at + 1));
    if (!LOOPBACK.has(host) || !Number.isInteger(port) || port <= 0) {
      client.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = this.track(net.connect(port, host.replace(/^\[|\]$/g, '')));
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => {
      if (!connected) client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      else client.destroy();
    });
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  }

  private track(socket: net.Socket): net.Socket {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    return socket;
  }
}

/** A loopback port that was free a moment ago (nothing listens on it now). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
