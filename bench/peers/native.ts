/**
 * The peers measured with their own native clients, to show where a Node client rather than the
 * server is the limit: redis-benchmark (C, from redis-tools) for XADD, and a Go program on
 * nats.go's PublishAsync (bench/peers/native/jsbench.go, built from Debian's
 * golang-github-nats-io-go-nats-dev; Debian packages neither the `nats` CLI nor `nats bench`).
 */
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { promisify } from 'util';
import { REPO_ROOT } from '../../test/harness/processes';
import { startRedisServer, type AppendFsync } from './targets/redis';
import { startNatsTarget } from './targets/nats';
import { serverPeakRss } from './workloads';
import { peakRssBytes } from './server-process';
import type { ResultRow, WorkloadId } from './types';

const run = promisify(execFile);
const REDIS_PIPELINE = 1000;
const GO_NATS_SRC = '/usr/share/gocode/src/github.com/nats-io/nats.go';

/** The rate redis-benchmark --csv reports for its one test ("test","rps",... then one row). */
export function parseRedisBenchmarkCsv(csv: string): number {
  const lines = csv
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('"'));
  const header = lines[0]?.split(',').map((c) => c.replace(/"/g, ''));
  const row = lines[lines.length - 1]?.split('","').map((c) => c.replace(/"/g, ''));
  const column = header?.indexOf('rps') ?? -1;
  const rate = column >= 0 && row && lines.length >= 2 ? Number(row[column]) : NaN;
  if (!Number.isFinite(rate)) throw new Error(`cannot read a rate from redis-benchmark's output:\n${csv}`);
  return rate;
}

/** redis-benchmark XADD with one connection and REDIS_PIPELINE commands in flight. */
export async function nativeRedisRow(fsync: AppendFsync, records: number, size: number): Promise<ResultRow> {
  const { server, port } = await startRedisServer(fsync);
  try {
    const payload = 'v'.repeat(size);
    const args = ['-h', '127.0.0.1', '-p', String(port), '-c', '1', '-P', String(REDIS_PIPELINE)];
    const { stdout } = await run(
      'redis-benchmark',
      [...args, '-n', String(records), '--csv', 'XADD', 'bench', '*', 'v', payload],
      {
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const rate = parseRedisBenchmarkCsv(stdout);
    return {
      workload: 1,
      system: 'Redis Streams',
      config: `appendonly yes, appendfsync ${fsync}`,
      durability: fsync === 'always' ? 'fsync-per-ack' : 'fsync-periodic',
      replicas: 1,
      client: `redis-benchmark -c 1 -P ${REDIS_PIPELINE}`,
      native: true,
      records,
      recordBytes: size,
      partitions: 1,
      produceRecordsPerSec: rate,
      produceMBPerSec: (rate * size) / 1e6,
      serverPeakRssBytes: peakRssBytes(server.pid),
      note: 'produce only: redis-benchmark has no XREAD loop',
    };
  } finally {
    await server.stop();
  }
}

/** Builds jsbench into a temp dir; undefined (with the reason) when Go or nats.go is missing. */
export async function buildJsBench(): Promise<{ binary?: string; reason?: string }> {
  if (!fs.existsSync(GO_NATS_SRC)) {
    return {
      reason:
        'golang-github-nats-io-go-nats-dev is not installed (scripts/install-bench-peers.sh installs it)',
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jsbench-'));
  // The binary and Go's build cache (~15 MB) go when the benchmark exits, however it exits.
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const binary = path.join(dir, 'jsbench');
  try {
    await run('go', ['build', '-o', binary, path.join(REPO_ROOT, 'bench', 'peers', 'native', 'jsbench.go')], {
      // GOPATH mode against Debian's Go sources: nothing is downloaded.
      env: {
        ...process.env,
        GO111MODULE: 'off',
        GOPATH: '/usr/share/gocode',
        GOCACHE: path.join(dir, 'cache'),
        GOFLAGS: '',
      },
    });
    return { binary };
  } catch (err) {
    return { reason: `could not build the Go JetStream benchmark: ${(err as Error).message.split('\n')[0]}` };
  }
}

/** jsbench against fresh nats-servers (R1 or R3): produce then consume `records` of `size`. */
export async function nativeNatsRow(
  binary: string,
  nodes: 1 | 3,
  records: number,
  size: number,
  inflight: number,
): Promise<ResultRow> {
  const target = await startNatsTarget(nodes);
  try {
    const name = `native-${size}b`;
    await target.createStream(name, 1);
    const { stdout } = await run(
      binary,
      [
        '-servers',
        target.endpoints.map((e) => `nats://${e}`).join(','),
        '-subject',
        `${name}.p0`,
        '-n',
        String(records),
        '-size',
        String(size),
        '-inflight',
        String(inflight),
      ],
      { timeout: 15 * 60_000 },
    );
    const result = JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as {
      produceRecordsPerSec: number;
      consumeRecordsPerSec: number;
    };
    const workload: WorkloadId = nodes === 1 ? 1 : 2;
    return {
      workload,
      system: target.system,
      config: target.config,
      durability: target.durability,
      replicas: nodes,
      client: 'nats.go 1.22 PublishAsync',
      native: true,
      records,
      recordBytes: size,
      partitions: 1,
      produceRecordsPerSec: result.produceRecordsPerSec,
      produceMBPerSec: (result.produceRecordsPerSec * size) / 1e6,
      consumeRecordsPerSec: result.consumeRecordsPerSec,
      serverPeakRssBytes: serverPeakRss(target),
    };
  } finally {
    await target.close();
  }
}
