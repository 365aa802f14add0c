/**
 * `npm run bench:cluster`: 3 brokers (plus etcd and a controller) as separate processes on this
 * machine, a topic with replication factor 3, acks=all: produce throughput for 100-byte records,
 * and failover time from SIGKILL of the leader to the first acknowledged write on the new one.
 *
 *   npm run bench:cluster -- [--records 1000000] [--size 100] [--lease-ttl-ms 2000] [--flush os|sync]
 *                            [--latency-rates 1000,10000,50000] [--latency-seconds 5]
 *                            [--only throughput,latency,failover]
 *   npm run bench:cluster -- --reassign [...]   moving a big partition's replica (bench/reassign.ts)
 *
 * Latency rows: send-to-ack of single 100-byte records (`lingerMs: 0`, acks=all) at fixed rates,
 * see bench/latency.ts.
 */
import { Tide, type Producer } from '../client';
import { TestCluster } from '../test/harness/cluster';
import { DEFAULT_LATENCY_RATES, formatLatencyRows, latencyRows, type LatencyRow } from './latency';
import { parseReassignArgs, reassignBench } from './reassign';
import { cpuSecondsOf, formatRate } from './stats';

interface Options {
  records: number;
  size: number;
  leaseTtlMs: number;
  flush: string;
  latencyRates: number[];
  latencySeconds: number;
  only: string[];
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    records: 1_000_000,
    size: 100,
    leaseTtlMs: 2_000,
    flush: 'sync',
    latencyRates: DEFAULT_LATENCY_RATES,
    latencySeconds: 5,
    only: ['throughput', 'latency', 'failover'],
  };
  for (let i = 0; i < argv.length; i += 2) {
    const value = argv[i + 1];
    if (argv[i] === '--records') options.records = Number(value);
    else if (argv[i] === '--size') options.size = Number(value);
    else if (argv[i] === '--lease-ttl-ms') options.leaseTtlMs = Number(value);
    else if (argv[i] === '--flush') options.flush = value;
    else if (argv[i] === '--latency-rates') options.latencyRates = value.split(',').map(Number);
    else if (argv[i] === '--latency-seconds') options.latencySeconds = Number(value);
    else if (argv[i] === '--only') options.only = value.split(',');
    else throw new Error(`unknown flag ${argv[i]}; see the header of bench/cluster.ts`);
  }
  return options;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--reassign')) return reassignBench(parseReassignArgs(argv));
  const options = parseArgs(argv);
  const cluster = await TestCluster.start({
    brokers: 3,
    controllers: 1,
    leaseTtlMs: options.leaseTtlMs,
    replicaLagTimeMaxMs: 10_000,
  });
  const tide = new Tide({ bootstrap: cluster.bootstrap(), metadataMaxAgeMs: 500 });
  try {
    await tide.admin().createTopic('bench', {
      partitions: 1,
      replicationFactor: 3,
      configs: { 'min.insync.replicas': '2', 'flush.policy': options.flush },
    });
    const producer = tide.producer({ acks: 'all' });
    await producer.connect();
    process.stdout.write(
      `\nTide cluster: 3 brokers + etcd + 1 controller as processes on this machine; 1 partition, RF=3, min.insync.replicas=2, acks=all, flush.policy=${options.flush}\n\n`,
    );
    if (options.only.includes('throughput')) await throughput(cluster, producer, options);
    if (options.only.includes('latency')) {
      const fast = tide.producer({ acks: 'all', lingerMs: 0 });
      await fast.connect();
      const rows: LatencyRow[] = await latencyRows(
        fast,
        'bench',
        0,
        Buffer.alloc(options.size, 97),
        options.latencyRates,
        options.latencySeconds,
        () => [...cluster.brokers.values()].map((b) => cpuSecondsOf(b.child.pid!)),
      );
      await fast.close();
      process.stdout.write(
        formatLatencyRows(
          `latency, send to ack of one ${options.size} B record, lingerMs 0, acks=all, RF=3, flush.policy=${options.flush}:`,
          rows,
        ),
      );
    }
    if (options.only.includes('failover')) {
      // Keep writing one record at a time; SIGKILL the leader; time to the first ack after.
      const meta = await tide.admin().metadata(['bench']);
      const leader = meta.topics[0].partitions[0].leader;
      const killedAt = performance.now();
      await cluster.broker(leader).stop('SIGKILL');
      await producer.send('bench', { value: 'after-failover', partition: 0 });
      const failoverMs = performance.now() - killedAt;
      process.stdout.write(
        `\nfailover: SIGKILL of the leader to the first acknowledged write on the new leader: ${Math.round(failoverMs)} ms (broker lease TTL ${options.leaseTtlMs} ms)\n`,
      );
    }
    await producer.close();
  } finally {
    await tide.close().catch(() => undefined);
    // A clean stop first, so that brokers run with CHILD_NODE_ARGS=--cpu-prof write their profiles.
    await Promise.all([...cluster.brokers.values()].map((b) => b.stop('SIGTERM').catch(() => undefined)));
    await cluster.stop();
  }
}

async function throughput(cluster: TestCluster, producer: Producer, options: Options): Promise<void> {
  const chunk = 1000;
  const values = Array.from({ length: chunk }, (_, i) => {
    const v = Buffer.alloc(options.size, 97 + (i % 26));
    v.writeUInt32BE(i, 0);
    return v;
  });
  const cpuBefore = [...cluster.brokers.values()].map((b) => cpuSecondsOf(b.child.pid!));
  const clientCpuBefore = process.cpuUsage();
  const started = performance.now();
  const pending: Promise<unknown>[] = [];
  for (let sent = 0; sent < options.records; sent += chunk) {
    pending.push(producer.sendBatch('bench', values, { partition: 0 }));
    if (pending.length % 64 === 0) await producer.ready();
  }
  await Promise.all(pending);
  const seconds = (performance.now() - started) / 1000;
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const brokerCpu = [...cluster.brokers.values()].map((b, i) => cpuSecondsOf(b.child.pid!) - cpuBefore[i]);
  process.stdout.write(
    `produce: ${formatRate(options.records / seconds)} records/s, ${((options.records * options.size) / seconds / 1e6).toFixed(1)} MB/s (${options.records.toLocaleString('en')} x ${options.size} B)\n`,
  );
  process.stdout.write(
    `CPU seconds: producer ${((clientCpu.user + clientCpu.system) / 1e6).toFixed(1)}, brokers ${brokerCpu.map((c) => c.toFixed(1)).join(' / ')}\n`,
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
