/**
 * `npm run bench:disk`: what a durable append costs on this disk, the way Node makes it. Each
 * variant appends `--size` bytes `--writes` times, one at a time, and prints the time per durable
 * write as seen by the event loop (thread-pool trips and wake-ups included):
 *
 * - writev + fdatasync:       two trips through the libuv thread pool (Tide's 'sync' before #17);
 * - O_DSYNC writev:           one trip; the kernel syncs before the write returns (Tide's 'sync');
 * - ... into a preallocated file: the same over zeros written (and fdatasynced) beforehand, so a
 *   write does not grow the file and the sync needs no metadata (file size) commit;
 * - writev only:              the page-cache write alone, for scale.
 *
 * Then throughput: `--inflight` appenders each keep one `--batch-bytes` append waiting, for
 * `--seconds`, through two minimal group-commit writers: the pipelined one (a writev per round,
 * one fdatasync at a time covering every round written before it began: Tide's 'sync' before #17)
 * and the O_DSYNC one (a durable writev per round; rounds queue while one is on its way).
 *
 * Variants alternate over `--rounds` rounds so that a busy moment hits all of them alike.
 *
 *   npm run bench:disk -- [--writes 2000] [--size 1024] [--rounds 3] [--dir /path/on/the/disk]
 *                         [--batch-bytes 1048576] [--inflight 5] [--seconds 3]
 */
import { constants as fsConstants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { percentile } from './stats';

interface Options {
  writes: number;
  size: number;
  rounds: number;
  dir: string;
  batchBytes: number;
  inflight: number;
  seconds: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = {
    writes: 2000,
    size: 1024,
    rounds: 3,
    dir: os.tmpdir(),
    batchBytes: 1 << 20,
    inflight: 5,
    seconds: 3,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--writes') options.writes = Number(value);
    else if (flag === '--size') options.size = Number(value);
    else if (flag === '--rounds') options.rounds = Number(value);
    else if (flag === '--dir') options.dir = value;
    else if (flag === '--batch-bytes') options.batchBytes = Number(value);
    else if (flag === '--inflight') options.inflight = Number(value);
    else if (flag === '--seconds') options.seconds = Number(value);
    else
      throw new Error(
        `unknown option ${flag}: use --writes, --size, --rounds, --dir, --batch-bytes, --inflight or --seconds`,
      );
  }
  for (const key of ['writes', 'size', 'rounds', 'batchBytes', 'inflight', 'seconds'] as const) {
    if (!Number.isInteger(options[key]) || options[key] < 1)
      throw new Error(`--${key} must be a positive integer, got ${options[key]}`);
  }
  return options;
}

interface Variant {
  name: string;
  preallocate: boolean;
  flags: number;
  /** Appends `buffer` at `position`; resolves when it is as durable as the variant makes it. */
  write: (handle: FileHandle, buffer: Buffer, position: number) => Promise<void>;
}

const O_DSYNC: number | undefined = fsConstants.O_DSYNC;
const WRITE_FLAGS = fsConstants.O_WRONLY | fsConstants.O_CREAT;

const writeThenSync = async (handle: FileHandle, buffer: Buffer, position: number): Promise<void> => {
  await handle.writev([buffer], position);
  await handle.datasync();
};
const writeOnly = async (handle: FileHandle, buffer: Buffer, position: number): Promise<void> => {
  await handle.writev([buffer], position);
};

function variants(): Variant[] {
  const list: Variant[] = [
    { name: 'writev + fdatasync', preallocate: false, flags: WRITE_FLAGS, write: writeThenSync },
    { name: 'writev + fdatasync, preallocated', preallocate: true, flags: WRITE_FLAGS, write: writeThenSync },
  ];
  if (O_DSYNC !== undefined) {
    list.push(
      { name: 'O_DSYNC writev', preallocate: false, flags: WRITE_FLAGS | O_DSYNC, write: writeOnly },
      {
        name: 'O_DSYNC writev, preallocated',
        preallocate: true,
        flags: WRITE_FLAGS | O_DSYNC,
        write: writeOnly,
      },
    );
  }
  list.push({ name: 'writev only (page cache)', preallocate: false, flags: WRITE_FLAGS, write: writeOnly });
  return list;
}

async function measure(variant: Variant, file: string, options: Options): Promise<number[]> {
  if (variant.preallocate) {
    const zeros = await fs.open(file, 'w');
    await zeros.write(Buffer.alloc(options.writes * options.size));
    await zeros.datasync();
    await zeros.close();
  }
  const handle = await fs.open(file, variant.flags);
  const buffer = Buffer.alloc(options.size, 0x5a);
  const samples: number[] = [];
  try {
    for (let i = 0; i < options.writes; i++) {
      const start = process.hrtime.bigint();
      await variant.write(handle, buffer, i * options.size);
      samples.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  } finally {
    await handle.close();
    await fs.rm(file, { force: true });
  }
  return samples;
}

type Append = (buffer: Buffer) => Promise<void>;

interface Pending {
  buffer: Buffer;
  resolve: () => void;
}

/**
 * A minimal group-commit writer: rounds take everything queued; `writeRound` writes one round and
 * calls `written` for its appends once they may resolve (or be handed to a sync).
 */
function groupCommit(writeRound: (buffers: Buffer[], position: number) => Promise<void>): {
  append: Append;
  written: (ops: Pending[]) => void;
} {
  let queue: Pending[] = [];
  let running = false;
  let position = 0;
  const self = {
    written: (ops: Pending[]) => ops.forEach((op) => op.resolve()),
    append: (buffer: Buffer) =>
      new Promise<void>((resolve) => {
        queue.push({ buffer, resolve });
        if (running) return;
        running = true;
        queueMicrotask(() => void drain());
      }),
  };
  const drain = async (): Promise<void> => {
    while (queue.length > 0) {
      const ops = queue;
      queue = [];
      const buffers = ops.map((op) => op.buffer);
      const at = position;
      position += buffers.reduce((sum, b) => sum + b.length, 0);
      await writeRound(buffers, at);
      self.written(ops);
    }
    running = false;
  };
  return self;
}

function pipelinedWriter(handle: FileHandle): Append {
  const writer = groupCommit(async (buffers, position) => {
    await handle.writev(buffers, position);
  });
  let unsynced: Pending[] = [];
  let syncing = false;
  const startSync = (): void => {
    if (syncing || unsynced.length === 0) return;
    const covered = unsynced;
    unsynced = [];
    syncing = true;
    void handle.datasync().then(() => {
      syncing = false;
      covered.forEach((op) => op.resolve());
      startSync();
    });
  };
  writer.written = (ops) => {
    unsynced.push(...ops);
    startSync();
  };
  return writer.append;
}

function durableWriter(handle: FileHandle): Append {
  return groupCommit(async (buffers, position) => {
    await handle.writev(buffers, position);
  }).append;
}

/** MB/s appended (and durable) by `inflight` appenders over `seconds`. */
async function throughput(
  file: string,
  flags: number,
  makeWriter: (handle: FileHandle) => Append,
  options: Options,
): Promise<number> {
  const handle = await fs.open(file, flags);
  const append = makeWriter(handle);
  const buffer = Buffer.alloc(options.batchBytes, 0x5a);
  const end = Date.now() + options.seconds * 1000;
  let bytes = 0;
  const appender = async (): Promise<void> => {
    while (Date.now() < end) {
      await append(buffer);
      bytes += buffer.length;
    }
  };
  try {
    await Promise.all(Array.from({ length: options.inflight }, appender));
  } finally {
    await handle.close();
    await fs.rm(file, { force: true });
  }
  return bytes / options.seconds / 1e6;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const dir = await fs.mkdtemp(path.join(options.dir, 'tide-disk-bench-'));
  const list = variants();
  const samples = new Map<string, number[]>(list.map((v) => [v.name, []]));
  const rates = { pipelined: [] as number[], durable: [] as number[] };
  try {
    for (let round = 0; round < options.rounds; round++) {
      for (const variant of list) {
        samples.get(variant.name)!.push(...(await measure(variant, path.join(dir, 'segment.log'), options)));
      }
    }
    if (O_DSYNC !== undefined) {
      for (let round = 0; round < options.rounds; round++) {
        const file = path.join(dir, 'segment.log');
        rates.pipelined.push(await throughput(file, WRITE_FLAGS, pipelinedWriter, options));
        rates.durable.push(await throughput(file, WRITE_FLAGS | O_DSYNC, durableWriter, options));
      }
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
  console.log(
    `\ndurable appends of ${options.size} B, ${options.writes} x ${options.rounds} rounds per variant, in ${options.dir}` +
      ` (load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}):`,
  );
  console.log('variant                              p50 ms  p90 ms  p99 ms  p999 ms');
  for (const [name, values] of samples) {
    const cells = [50, 90, 99, 99.9].map((p) => percentile(values, p).toFixed(3).padStart(7));
    console.log(`${name.padEnd(35)}${cells.join(' ')}`);
  }
  if (rates.durable.length === 0) return;
  const mbs = (values: number[]): string => values.map((v) => v.toFixed(0)).join(' / ');
  console.log(
    `\ngroup commit, ${options.inflight} appends of ${options.batchBytes} B waiting, ${options.seconds} s per run, MB/s:`,
  );
  console.log(`pipelined writev + fdatasync  ${mbs(rates.pipelined)}`);
  console.log(`O_DSYNC writev                ${mbs(rates.durable)}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
