/**
 * Redis Streams as a benchmark target: one redis-server on a free loopback port with a temp dir,
 * `appendonly yes` with `appendfsync everysec` or `always` (RDB snapshots off). One Tide partition
 * = one stream key `<name>:<i>`; records are XADD <key> * v <value>, read back with XREAD.
 *
 * The client is ioredis with explicit pipelines (PIPELINE_RECORDS commands each) and a bounded
 * number of records unacknowledged. Redis itself answers a pipeline in one event-loop turn, and
 * with appendfsync always fsyncs once per turn before replying, a group commit like Tide's.
 */
import Redis from 'ioredis';
import { freePorts } from '../../../test/harness/etcd';
import { makeTempDir } from '../../../test/harness/processes';
import { spawnServer, type ServerProcess } from '../server-process';
import { InflightWindow } from '../inflight-window';
import type { LatencyPath, Target } from '../types';

export type AppendFsync = 'everysec' | 'always';

const PIPELINE_RECORDS = 1000;
export const REDIS_CLIENT = `ioredis 5.11 pipeline x${PIPELINE_RECORDS}`;

/** redis-server arguments for a loopback server on `port` with its files in `dir`. */
export function redisArgs(port: number, dir: string, fsync: AppendFsync): string[] {
  return [
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--dir', dir,
    '--appendonly', 'yes',
    '--appendfsync', fsync,
    '--save', '',
    '--daemonize', 'no',
    '--protected-mode', 'yes',
    '--logfile', '',
  ]; // prettier-ignore
}

/** A started redis-server, for this target and for redis-benchmark (bench/peers/native.ts). */
export async function startRedisServer(fsync: AppendFsync): Promise<{ server: ServerProcess; port: number }> {
  const [port] = await freePorts(1);
  const dir = makeTempDir('redis-peers-');
  const server = await spawnServer({
    name: 'redis-server',
    command: 'redis-server',
    args: redisArgs(port, dir, fsync),
    readyPattern: /Ready to accept connections/,
    dataDir: dir,
  });
  return { server, port };
}

export async function startRedisTarget(fsync: AppendFsync): Promise<Target> {
  const { server, port } = await startRedisServer(fsync);
  const connections: Redis[] = [];
  const connection = () => {
    const c = new Redis({ host: '127.0.0.1', port, maxRetriesPerRequest: 1, lazyConnect: false });
    connections.push(c);
    return c;
  };
  const redis = connection();
  let closed = false;
  return {
    system: 'Redis Streams',
    config: `appendonly yes, appendfsync ${fsync}`,
    durability: fsync === 'always' ? 'fsync-per-ack' : 'fsync-periodic',
    replicas: 1,
    client: REDIS_CLIENT,
    endpoints: [`127.0.0.1:${port}`],
    serverPids: () => [server.pid],
    createStream: async () => {
      // Streams come into being with their first XADD.
    },
    produce: async (name, values, count, partitions, inflight) => {
      const window = new InflightWindow();
      const keys = Array.from({ length: partitions }, (_, p) => `${name}:${p}`);
      let failure: unknown;
      for (let sent = 0; sent < count && failure === undefined; sent += PIPELINE_RECORDS) {
        const n = Math.min(PIPELINE_RECORDS, count - sent);
        const wait = window.acquire(n, inflight);
        if (wait) await wait;
        const pipeline = redis.pipeline();
        for (let i = sent; i < sent + n; i++)
          pipeline.xadd(keys[i % partitions], '*', 'v', values[i % values.length]);
        pipeline.exec().then(
          (replies) => {
            const failed = replies?.find(([err]) => err);
            if (!replies) failure ??= new Error('a Redis pipeline returned no replies');
            else if (failed) failure ??= failed[0];
            window.release(n);
          },
          (err: unknown) => {
            failure ??= err;
            window.release(n);
          },
        );
      }
      await window.drained();
      if (failure !== undefined) throw failure;
    },
    consume: async (name, count, partitions) => {
      let consumed = 0;
      for (let p = 0; p < partitions && consumed < count; p++) {
        let lastId = '0-0';
        for (;;) {
          const reply = await redis.xreadBuffer('COUNT', 10_000, 'STREAMS', `${name}:${p}`, lastId);
          const entries = reply?.[0]?.[1];
          if (!entries || entries.length === 0) break;
          consumed += entries.length;
          lastId = entries[entries.length - 1][0].toString();
          if (consumed >= count) break;
        }
      }
      return consumed;
    },
    openLatencyPath: async (name, onValue): Promise<LatencyPath> => {
      const reader = connection();
      const key = `${name}:0`;
      let reading = true;
      const loop = (async () => {
        // The stream is new and empty, so reading from the start misses nothing.
        let lastId = '0-0';
        while (reading) {
          const reply = await reader.xreadBuffer('COUNT', 10_000, 'BLOCK', 200, 'STREAMS', key, lastId);
          const entries = reply?.[0]?.[1];
          if (!entries || entries.length === 0) continue;
          for (const [, fields] of entries) onValue(fields[1]);
          lastId = entries[entries.length - 1][0].toString();
        }
      })();
      return {
        send: async (value) => void (await redis.xadd(key, '*', 'v', value)),
        close: async () => {
          reading = false;
          await loop;
        },
      };
    },
    close: async () => {
      if (closed) return;
      closed = true;
      for (const c of connections) c.disconnect();
      await server.stop();
    },
  };
}
