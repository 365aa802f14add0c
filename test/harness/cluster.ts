/**
 * A real Tide cluster for fault tests: a real etcd, controller and broker processes (the built
 * CLI) on free loopback ports, each broker with its own data dir so it can be restarted, and
 * group coordinators on demand.
 */
import * as fs from 'fs';
import * as path from 'path';
import { startEtcd, type EtcdProcess } from './etcd';
import { FaultProxy } from './fault-proxy';
import { freePort } from './pod-network';
import { makeTempDir, startTide, type TideProcess } from './processes';

export interface ClusterOptions {
  brokers?: number;
  controllers?: number;
  /** Registration lease TTL of brokers and controllers (failure detection time). */
  leaseTtlMs?: number;
  replicaLagTimeMaxMs?: number;
  /** Extra environment of every controller and broker process. */
  env?: NodeJS.ProcessEnv;
  /** Per broker: its gRPC port (default 0 = any free one) and extra environment. */
  brokerSetup?: (id: number) => { port?: number; env?: NodeJS.ProcessEnv };
  /**
   * Puts a FaultProxy in front of every broker (proxy(id)); the broker advertises the proxy's
   * address, so clients and the other brokers reach it only through the proxy. Etcd and the
   * controllers are reached directly.
   */
  proxied?: boolean;
  /** Extra environment of controller processes only (controller config keys). */
  controllerEnv?: NodeJS.ProcessEnv;
  /** Extra environment of broker processes only (broker config keys). */
  brokerEnv?: NodeJS.ProcessEnv;
  /** Gives every broker a disk-fault file (injectDiskFaults) it polls (config diskFaultsFile). */
  diskFaults?: boolean;
}

export interface CoordinatorOptions {
  /** gRPC port (default 0 = any free one). */
  port?: number;
  /** Extra flags, e.g. ['--shards', '8', '--offsets-partitions', '4']. */
  args?: string[];
  env?: NodeJS.ProcessEnv;
}

export class TestCluster {
  readonly brokers = new Map<number, TideProcess>();
  readonly controllers = new Map<number, TideProcess>();
  readonly coordinators = new Map<string, TideProcess>();
  /** With `proxied`: the proxy in front of each broker, kept across restarts. */
  readonly proxies = new Map<number, FaultProxy>();

  private constructor(
    readonly etcd: EtcdProcess,
    readonly dir: string,
    private readonly options: Required<ClusterOptions>,
  ) {}

  static async start(options: ClusterOptions = {}): Promise<TestCluster> {
    const full: Required<ClusterOptions> = {
      brokers: 3,
      controllers: 1,
      leaseTtlMs: 2_000,
      replicaLagTimeMaxMs: 3_000,
      env: {},
      brokerSetup: () => ({}),
      proxied: false,
      brokerEnv: {},
      controllerEnv: {},
      diskFaults: false,
      ...options,
    };
    const etcd = await startEtcd();
    const cluster = new TestCluster(etcd, makeTempDir('tide-cluster-'), full);
    try {
      await Promise.all(Array.from({ length: full.controllers }, (_, id) => cluster.startController(id)));
      await Promise.all(Array.from({ length: full.brokers }, (_, id) => cluster.startBroker(id)));
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    return cluster;
  }

  /** Every live broker's address, for bootstrapping clients. */
  bootstrap(): string[] {
    return [...this.brokers.values()]
      .filter((b) => b.child.exitCode === null && b.child.signalCode === null)
      .map((b) => b.address);
  }

  async startController(id: number): Promise<TideProcess> {
    const process = await startTide(
      ['controller', '--id', String(id), '--port', '0', '--etcd', this.etcd.endpoint],
      {
        env: {
          TIDE_LEASE_TTL_MS: String(this.options.leaseTtlMs),
          TIDE_LEADER_IMBALANCE_CHECK_INTERVAL_MS: '3600000',
          ...this.options.env,
          ...this.options.controllerEnv,
        },
      },
    );
    this.controllers.set(id, process);
    return process;
  }

  /** Starts (or restarts) `tide coordinator` `id` on this cluster's etcd, with the cluster's lease TTL. */
  async startCoordinator(id: string, options: CoordinatorOptions = {}): Promise<TideProcess> {
    const process = await startTide(
      [
        'coordinator',
        ...['--id', id, '--port', String(options.port ?? 0), '--etcd', this.etcd.endpoint],
        ...['--lease-ttl-ms', String(this.options.leaseTtlMs)],
        ...(options.args ?? []),
      ],
      // A first coordinator also waits for __consumer_offsets to be created and led, with as many
      // replicas as the cluster has brokers (up to Kafka's default of 3).
      {
        env: {
          TIDE_OFFSETS_TOPIC_REPLICATION_FACTOR: String(Math.min(3, this.options.brokers)),
          ...this.options.env,
          ...options.env,
        },
        readyTimeoutMs: 60_000,
      },
    );
    this.coordinators.set(id, process);
    return process;
  }

  /** Where broker `id` keeps its logs. */
  brokerDataDir(id: number): string {
    return path.join(this.dir, `broker-${id}`);
  }

  /** Starts (or restarts, on the same data dir) broker `id`. */
  async startBroker(id: number): Promise<TideProcess> {
    const dataDir = this.brokerDataDir(id);
    const setup = this.options.brokerSetup(id);
    let port = String(setup.port ?? 0);
    const proxyEnv: NodeJS.ProcessEnv = {};
    if (this.options.diskFaults) proxyEnv.TIDE_DISK_FAULTS_FILE = this.diskFaultsFile(id);
    if (this.options.proxied) {
      let proxy = this.proxies.get(id);
      if (!proxy) {
        proxy = await FaultProxy.start(setup.port ?? (await freePort()));
        this.proxies.set(id, proxy);
      }
      port = String(proxy.targetPort);
      proxyEnv.TIDE_ADVERTISED_PORT = String(proxy.port);
      proxyEnv.TIDE_ADVERTISED_HOST = '127.0.0.1';
    }
    const process = await startTide(
      ['broker', '--id', String(id), '--port', port, '--data', dataDir, '--etcd', this.etcd.endpoint],
      {
        env: {
          TIDE_LEASE_TTL_MS: String(this.options.leaseTtlMs),
          TIDE_REPLICA_LAG_TIME_MAX_MS: String(this.options.replicaLagTimeMaxMs),
          TIDE_REPLICA_FETCH_WAIT_MAX_MS: '200',
          ...this.options.env,
          ...this.options.brokerEnv,
          ...proxyEnv,
          ...setup.env,
        },
        readyTimeoutMs: 30_000,
      },
    );
    this.brokers.set(id, process);
    return process;
  }

  broker(id: number): TideProcess {
    const b = this.brokers.get(id);
    if (!b) throw new Error(`no broker ${id}`);
    return b;
  }

  /** Where broker `id` reads injected disk faults (clusters started with `diskFaults`). */
  diskFaultsFile(id: number): string {
    return path.join(this.dir, `disk-faults-${id}.json`);
  }

  /**
   * Makes broker `id`'s matching writes or fsyncs fail with `code` (ENOSPC, EIO) from its next
   * poll on (about 100 ms); an empty list clears them. See services/broker/disk-fault-file.ts.
   */
  injectDiskFaults(
    id: number,
    rules: { op: 'write' | 'fsync'; code: string; topic?: string; partition?: number }[],
  ): void {
    fs.writeFileSync(this.diskFaultsFile(id), JSON.stringify(rules));
  }

  /** The proxy in front of broker `id` (clusters started with `proxied`). */
  proxy(id: number): FaultProxy {
    const p = this.proxies.get(id);
    if (!p) throw new Error(`no proxy for broker ${id} (start the cluster with proxied: true)`);
    return p;
  }

  /** The broker id whose advertised address (the proxy's, when proxied) is `address`. */
  brokerAt(address: string): number | undefined {
    for (const [id, b] of this.brokers) if (b.address === address) return id;
    return undefined;
  }

  coordinator(id: string): TideProcess {
    const c = this.coordinators.get(id);
    if (!c) throw new Error(`no coordinator ${id}`);
    return c;
  }

  async stop(): Promise<void> {
    const all = [...this.coordinators.values(), ...this.brokers.values(), ...this.controllers.values()];
    for (const p of all) {
      // A SIGSTOPped process cannot die of SIGKILL until continued on some kernels' views; be sure.
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGCONT');
    }
    await Promise.all(all.map((p) => p.stop('SIGKILL')));
    await Promise.all([...this.proxies.values()].map((p) => p.close()));
    await this.etcd.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
