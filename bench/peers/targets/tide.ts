/**
 * Tide as a benchmark target: `tide dev` in its own process (1 replica), or the 3-broker cluster
 * of test/harness (etcd + controller + 3 brokers, RF=3, min.insync.replicas=2, acks=all).
 */
import { Tide, type Producer } from '../../../client';
import { TestCluster } from '../../../test/harness/cluster';
import { makeTempDir, startTide, waitFor, type TideProcess } from '../../../test/harness/processes';
import * as fs from 'fs';
import type { Durability, LatencyPath, Target } from '../types';
import { readBack } from '../../read-back';

const DURABILITY: Record<string, Durability> = { sync: 'fsync-per-ack', interval: 'fsync-periodic' };

interface Deployment {
  bootstrap: string[];
  pids(): number[];
  stop(): Promise<void>;
}

async function startDev(): Promise<Deployment> {
  const dataDir = makeTempDir('tide-peers-');
  let broker: TideProcess;
  try {
    broker = await startTide(['dev', '--data', dataDir, '--port', '0'], { env: { TIDE_LOG_LEVEL: 'warn' } });
  } catch (err) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    bootstrap: [broker.address],
    pids: () => [broker.child.pid!],
    stop: async () => {
      await broker.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function startCluster(): Promise<Deployment> {
  const cluster = await TestCluster.start({ brokers: 3, controllers: 1, replicaLagTimeMaxMs: 10_000 });
  return {
    bootstrap: cluster.bootstrap(),
    pids: () => [
      ...[...cluster.brokers.values(), ...cluster.controllers.values()].map((p) => p.child.pid!),
      ...(cluster.etcd.pid === undefined ? [] : [cluster.etcd.pid]),
    ],
    stop: () => cluster.stop(),
  };
}

/**
 * createTopic returns once the controller has placed the partitions; a broker loads them a moment
 * later (a thousand take seconds on this machine, longer than the producer's retry budget). Wait,
 * outside the timed part, until every partition answers ListOffsets, as NATS's stream creation
 * and Redis's XADD are ready when they return.
 */
async function waitUntilServable(tide: Tide, topic: string, partitions: number): Promise<void> {
  const consumer = tide.consumer();
  try {
    const parallel = 50;
    for (let first = 0; first < partitions; first += parallel) {
      const batch = Array.from({ length: Math.min(parallel, partitions - first) }, (_, i) => first + i);
      await Promise.all(
        batch.map((partition) =>
          waitFor(() => consumer.listOffset({ topic, partition }, 'latest').then(() => true), {
            timeoutMs: 120_000,
            intervalMs: 200,
            what: `${topic}-${partition} to be served`,
          }),
        ),
      );
    }
  } finally {
    await consumer.close();
  }
}

/** Starts Tide with `replicas` 1 (tide dev) or 3 (cluster) and the given topic flush.policy. */
export async function startTideTarget(replicas: 1 | 3, flushPolicy: 'sync' | 'interval'): Promise<Target> {
  const deployment = replicas === 1 ? await startDev() : await startCluster();
  const tide = new Tide({ bootstrap: deployment.bootstrap, metadataMaxAgeMs: 500 });
  const acks = replicas === 1 ? 'leader' : 'all';
  const producers: Producer[] = [];
  let closed = false;
  return {
    system: 'Tide',
    config:
      replicas === 1
        ? `tide dev, flush.policy=${flushPolicy}, acks=leader`
        : `3 brokers, RF=3, min.insync=2, flush.policy=${flushPolicy}, acks=all`,
    durability: DURABILITY[flushPolicy],
    replicas,
    client: 'Tide client, sendBatch x1000',
    endpoints: deployment.bootstrap,
    serverPids: () => deployment.pids(),
    createStream: async (name, partitions) => {
      await tide.admin().createTopic(name, {
        partitions,
        replicationFactor: replicas,
        configs: { 'flush.policy': flushPolicy, ...(replicas === 3 ? { 'min.insync.replicas': '2' } : {}) },
      });
      await waitUntilServable(tide, name, partitions);
    },
    produce: async (name, values, count, partitions) => {
      // In flight is bounded by the producer itself: 32 MiB buffer, 5 batches of up to 1 MiB per partition.
      const producer = tide.producer({ acks, idempotence: acks === 'all', maxInFlight: 5 });
      await producer.connect();
      const chunk = 1000;
      const chunkValues = Array.from({ length: Math.min(chunk, count) }, (_, i) => values[i % values.length]);
      const pending: Promise<unknown>[] = [];
      try {
        for (let sent = 0; sent < count; sent += chunk) {
          const n = Math.min(chunk, count - sent);
          if (partitions === 1) {
            const slice = n === chunkValues.length ? chunkValues : chunkValues.slice(0, n);
            pending.push(producer.sendBatch(name, slice, { partition: 0 }));
          } else {
            const batch = Array.from({ length: n }, (_, i) => ({
              value: values[(sent + i) % values.length],
              partition: (sent + i) % partitions,
            }));
            pending.push(producer.sendBatch(name, batch));
          }
          // sendBatch waits for buffer space itself; yielding here lets acknowledgements run.
          if (pending.length % 64 === 0) await producer.ready();
        }
        await Promise.all(pending);
      } finally {
        await producer.close();
      }
    },
    consume: async (name, count, partitions) => {
      const consumer = tide.consumer({ autoOffsetReset: 'earliest' });
      consumer.assign(
        Array.from({ length: partitions }, (_, partition) => ({ topic: name, partition, offset: 0 })),
      );
      try {
        return await readBack(consumer, count);
      } finally {
        await consumer.close();
      }
    },
    openLatencyPath: async (name, onValue): Promise<LatencyPath> => {
      // lingerMs 0: a record leaves as soon as a request slot is free (records batch up only while
      // all 5 slots are busy), the setting a latency-sensitive user picks; the default is 5 ms.
      const producer = tide.producer({ acks, idempotence: acks === 'all', maxInFlight: 5, lingerMs: 0 });
      producers.push(producer);
      await producer.connect();
      const consumer = tide.consumer({ autoOffsetReset: 'earliest' });
      consumer.assign([{ topic: name, partition: 0, offset: 0 }]);
      let reading = true;
      const reader = (async () => {
        for await (const batch of consumer.batches()) {
          for (const record of batch.records) if (record.value) onValue(record.value);
          if (!reading) break;
        }
      })();
      return {
        send: async (value) => void (await producer.send(name, { value, partition: 0 })),
        close: async () => {
          reading = false;
          await producer.close();
          await consumer.close();
          await reader.catch(() => undefined);
        },
      };
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.all(producers.map((p) => p.close().catch(() => undefined)));
      await tide.close().catch(() => undefined);
      await deployment.stop();
    },
  };
}
