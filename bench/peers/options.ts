/** The command line of `npm run bench:peers` (pure: parsed and checked, nothing started). */
import type { WorkloadId } from './types';

export type SystemId = 'tide' | 'nats' | 'redis';

export interface PeerBenchOptions {
  /** Records per run of workloads 1, 2 and 4. */
  records: number;
  /** Record sizes of workloads 1 and 2 (workloads 3 and 4 use the first). */
  sizes: number[];
  workloads: WorkloadId[];
  systems: SystemId[];
  /** Workload 3: records per second, and for how long. */
  rate: number;
  latencySeconds: number;
  /** Workload 4: partitions of the one topic. */
  partitions: number;
  /** Peers' producers: records sent but not acknowledged at most. */
  inflight: number;
  /** Also run the peers' native benchmark tools (redis-benchmark, the Go JetStream client). */
  native: boolean;
  resultsDir: string;
  chartPath: string;
  /** One produce or consume step that takes longer fails the run. */
  stepTimeoutSec: number;
}

export const DEFAULT_OPTIONS: PeerBenchOptions = {
  records: 1_000_000,
  sizes: [100, 1024],
  workloads: [1, 2, 3, 4],
  systems: ['tide', 'nats', 'redis'],
  rate: 10_000,
  latencySeconds: 10,
  partitions: 1000,
  inflight: 10_000,
  native: true,
  resultsDir: 'bench/results',
  chartPath: 'docs/bench/peers.svg',
  stepTimeoutSec: 600,
};

export const USAGE = `npm run bench:peers -- [flags]
  --records N          records per run of workloads 1, 2, 4 (default 1000000)
  --sizes B,B          record sizes of workloads 1 and 2 (default 100,1024)
  --workloads 1,2,3,4  which workloads (default all)
  --systems tide,nats,redis   which systems (default all)
  --rate N             workload 3 records/s (default 10000)
  --latency-seconds S  workload 3 duration (default 10)
  --partitions N       workload 4 partitions (default 1000)
  --inflight N         peers' unacknowledged records at most (default 10000)
  --no-native          skip redis-benchmark and the Go JetStream client
  --results-dir DIR    where results JSON goes (default bench/results)
  --chart FILE         the SVG chart (default docs/bench/peers.svg)
  --step-timeout-s S   fail a produce/consume step that takes longer (default 600)`;

function positiveInt(flag: string, value: string | undefined): number {
  const n = Number(value);
  if (value === undefined || !Number.isInteger(n) || n <= 0) {
    throw new Error(`${flag} needs a positive integer, got ${value ?? 'nothing'}\n${USAGE}`);
  }
  return n;
}

function list<T extends string | number>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
): T[] {
  const items = (value ?? '').split(',').filter((s) => s !== '');
  const parsed = items.map((s) => allowed.find((a) => String(a) === s));
  if (items.length === 0 || parsed.some((p) => p === undefined)) {
    throw new Error(
      `${flag} takes a comma-separated list of ${allowed.join(', ')}; got ${value ?? 'nothing'}`,
    );
  }
  return [...new Set(parsed as T[])];
}

/** Parses `argv` (without node and the script); throws with the usage on anything unknown. */
export function parsePeerArgs(argv: string[]): PeerBenchOptions {
  const o: PeerBenchOptions = { ...DEFAULT_OPTIONS };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = (): string | undefined => argv[++i];
    switch (flag) {
      case '--records':
        o.records = positiveInt(flag, value());
        break;
      case '--sizes':
        o.sizes = (value() ?? '').split(',').map((s) => positiveInt(flag, s));
        break;
      case '--workloads':
        o.workloads = list<WorkloadId>(flag, value(), [1, 2, 3, 4]).sort();
        break;
      case '--systems':
        o.systems = list<SystemId>(flag, value(), ['tide', 'nats', 'redis']);
        break;
      case '--rate':
        o.rate = positiveInt(flag, value());
        break;
      case '--latency-seconds':
        o.latencySeconds = positiveInt(flag, value());
        break;
      case '--partitions':
        o.partitions = positiveInt(flag, value());
        break;
      case '--inflight':
        o.inflight = positiveInt(flag, value());
        break;
      case '--no-native':
        o.native = false;
        break;
      case '--results-dir':
        o.resultsDir = value() ?? '';
        break;
      case '--chart':
        o.chartPath = value() ?? '';
        break;
      case '--step-timeout-s':
        o.stepTimeoutSec = positiveInt(flag, value());
        break;
      default:
        throw new Error(`unknown flag ${flag}\n${USAGE}`);
    }
  }
  if (!o.resultsDir || !o.chartPath) throw new Error(`--results-dir and --chart need a path\n${USAGE}`);
  if (o.sizes.some((s) => s < 8))
    throw new Error('--sizes: records carry an 8-byte sequence and time; use 8 bytes or more');
  return o;
}
