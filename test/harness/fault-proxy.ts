/**
 * A TCP proxy in front of one service, for network-fault tests (etcd3's test/util.ts has the same
 * idea). The service advertises the proxy's address, so every peer and client reaches it through
 * here; the test then breaks the link the way networks break:
 *
 *   proxy.blackhole('both')   bytes are held, never delivered, until heal() (a partition: TCP
 *                             connections stay open, nothing answers; new connections open but
 *                             nothing passes)
 *   proxy.blackhole('in')     one direction only: requests reach nobody, answers still flow
 *   proxy.delay(200, 'out')   every chunk in that direction arrives 200 ms late (order kept)
 *   proxy.reset()             every open connection is reset (RST); proxy.refuse(true) also
 *                             refuses new ones, as a dead host's closed port does
 *   proxy.heal()              back to a clean link; held bytes are delivered, in order
 *
 * 'in' is towards the service (client → service), 'out' from it. Only loopback is proxied.
 */
import * as net from 'net';

export type Direction = 'in' | 'out' | 'both';

interface DirectionState {
  blackholed: boolean;
  delayMs: number;
}

/** One proxied connection: the client side, the service side, and what each direction holds. */
class Link {
  private readonly held: Record<'in' | 'out', Buffer[]> = { in: [], out: [] };
  /** When the last delayed chunk of each direction is due, so delayed chunks stay in order. */
  private readonly dueMs: Record<'in' | 'out', number> = { in: 0, out: 0 };
  private upstreamReady = false;
  private readonly pendingUpstream: Buffer[] = [];

  constructor(
    readonly client: net.Socket,
    readonly upstream: net.Socket,
    private readonly state: (d: 'in' | 'out') => DirectionState,
  ) {
    client.on('data', (chunk: Buffer) => this.forward('in', chunk));
    upstream.on('data', (chunk: Buffer) => this.forward('out', chunk));
    upstream.once('connect', () => {
      this.upstreamReady = true;
      for (const chunk of this.pendingUpstream.splice(0)) upstream.write(chunk);
    });
    const destroy = () => this.destroy();
    client.on('error', destroy);
    upstream.on('error', destroy);
    client.on('close', destroy);
    upstream.on('close', destroy);
  }

  /** Delivers what a blackhole held, in order (called on heal). */
  release(d: 'in' | 'out'): void {
    for (const chunk of this.held[d].splice(0)) this.forward(d, chunk);
  }

  destroy(reset = false): void {
    if (reset) {
      this.client.resetAndDestroy();
      this.upstream.resetAndDestroy();
    } else {
      this.client.destroy();
      this.upstream.destroy();
    }
  }

  private forward(d: 'in' | 'out', chunk: Buffer): void {
    const s = this.state(d);
    if (s.blackholed || this.held[d].length > 0) {
      this.held[d].push(chunk);
      return;
    }
    if (s.delayMs <= 0 && this.dueMs[d] <= Date.now()) {
      this.write(d, chunk);
      return;
    }
    const due = Math.max(Date.now() + s.delayMs, this.dueMs[d]);
    this.dueMs[d] = due;
    setTimeout(() => this.write(d, chunk), due - Date.now());
  }

  private write(d: 'in' | 'out', chunk: Buffer): void {
    if (d === 'out') {
      if (!this.client.destroyed) this.client.write(chunk);
    } else if (!this.upstreamReady) {
      this.pendingUpstream.push(chunk);
    } else if (!this.upstream.destroyed) {
      this.upstream.write(chunk);
    }
  }
}

export class FaultProxy {
  private readonly links = new Set<Link>();
  private readonly directions: Record<'in' | 'out', DirectionState> = {
    in: { blackholed: false, delayMs: 0 },
    out: { blackholed: false, delayMs: 0 },
  };
  private refusing = false;

  private constructor(
    private readonly server: net.Server,
    /** The port the proxy listens on (what the service advertises). */
    readonly port: number,
    /** The port the service really listens on. */
    readonly targetPort: number,
  ) {}

  /** Starts a proxy on 127.0.0.1:`port` (0 = any free one) forwarding to 127.0.0.1:`targetPort`. */
  static async start(targetPort: number, port = 0): Promise<FaultProxy> {
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    const proxy = new FaultProxy(server, (server.address() as net.AddressInfo).port, targetPort);
    server.on('connection', (client) => proxy.accept(client));
    return proxy;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Holds every byte in `direction` until heal(). */
  blackhole(direction: Direction = 'both'): void {
    for (const d of sides(direction)) this.directions[d].blackholed = true;
  }

  /** Delays every chunk in `direction` by `ms`. */
  delay(ms: number, direction: Direction = 'both'): void {
    for (const d of sides(direction)) this.directions[d].delayMs = ms;
  }

  /** Resets (RST) every open connection. */
  reset(): void {
    for (const link of [...this.links]) link.destroy(true);
    this.links.clear();
  }

  /** While on, new connections are reset at once (a closed port). */
  refuse(on: boolean): void {
    this.refusing = on;
  }

  /** A clean link again: no blackhole, no delay, no refusing; held bytes are delivered. */
  heal(): void {
    this.refusing = false;
    for (const d of ['in', 'out'] as const) {
      this.directions[d].blackholed = false;
      this.directions[d].delayMs = 0;
    }
    for (const link of this.links) {
      link.release('in');
      link.release('out');
    }
  }

  /** What is broken right now, for logs. */
  describe(): string {
    const parts: string[] = [];
    for (const d of ['in', 'out'] as const) {
      if (this.directions[d].blackholed) parts.push(`blackhole ${d}`);
      if (this.directions[d].delayMs > 0) parts.push(`delay ${d} ${this.directions[d].delayMs} ms`);
    }
    if (this.refusing) parts.push('refusing');
    return parts.length === 0 ? 'healthy' : parts.join(', ');
  }

  async close(): Promise<void> {
    for (const link of [...this.links]) link.destroy();
    this.links.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket): void {
    if (this.refusing) {
      client.on('error', () => undefined);
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(this.targetPort, '127.0.0.1');
    const link = new Link(client, upstream, (d) => this.directions[d]);
    this.links.add(link);
    client.on('close', () => this.links.delete(link));
  }
}

function sides(direction: Direction): ('in' | 'out')[] {
  return direction === 'both' ? ['in', 'out'] : [direction];
}
