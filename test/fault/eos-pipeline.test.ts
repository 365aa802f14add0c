/**
 * Exactly-once consume → transform → produce under crashes: an input topic of 2,000 records over
 * 3 partitions; a pipeline child process (test/harness/eos-pipeline-child.ts) consumes it in a
 * group with read_committed and writes each transformed record to the output topic in a
 * transaction that also commits the consumed offsets (sendOffsets). It is SIGKILLed several
 * times mid-stream and restarted with the same transactional id. At the end a read_committed
 * read of the output holds exactly one output record per input record.
 */
import { ChildProcess, spawn } from 'child_process';
import * as path from 'path';
import { Tide } from '../../client';
import { TestCluster } from '../harness/cluster';
import { REPO_ROOT, waitFor } from '../harness/processes';
import { readToEnd } from '../harness/txn-workload';

jest.setTimeout(180_000);

const INPUT = 'eos-in';
const OUTPUT = 'eos-out';
const PARTITIONS = 3;
const N = 2_000;
const KILLS = 4;

let cluster: TestCluster;
let tide: Tide;
let pipeline: ChildProcess | undefined;
let committed = 0;
let stderr = '';

beforeAll(async () => {
  cluster = await TestCluster.start({ brokers: 3, controllers: 1, leaseTtlMs: 2_000 });
  await Promise.all(
    ['c1', 'c2'].map((id) =>
      cluster.startCoordinator(id, {
        args: ['--shards', '4', '--offsets-partitions', '2'],
        env: { TIDE_TRANSACTION_STATE_PARTITIONS: '2' },
      }),
    ),
  );
  tide = new Tide({ bootstrap: [0, 1, 2].map((id) => cluster.broker(id).address) });
  await tide.admin().createTopic(INPUT, { partitions: PARTITIONS, replicationFactor: 3 });
  await tide.admin().createTopic(OUTPUT, { partitions: PARTITIONS, replicationFactor: 3 });
});

afterAll(async () => {
  pipeline?.kill('SIGKILL');
  await tide?.close();
  await cluster?.stop();
});

function startPipeline(): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      path.join(REPO_ROOT, 'dist', 'test', 'harness', 'eos-pipeline-child.js'),
      [0, 1, 2].map((id) => cluster.broker(id).address).join(','),
      INPUT,
      OUTPUT,
      'eos-group',
      'eos-pipeline',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout!.on('data', (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n'))
      if (line.includes('"committed"')) committed += (JSON.parse(line) as { records: number }).records;
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-10_000)));
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

async function endOffsets(topic: string): Promise<number[]> {
  const c = tide.consumer();
  try {
    return await Promise.all(
      [...Array(PARTITIONS).keys()].map(
        async (partition) => (await c.listOffset({ topic, partition }, 'latest')).offset,
      ),
    );
  } finally {
    await c.close();
  }
}

it('each input record is in the output exactly once across pipeline SIGKILLs and restarts', async () => {
  const producer = tide.producer({ lingerMs: 5 });
  await Promise.all(
    [...Array(N).keys()].map((i) =>
      producer.send(INPUT, { key: `k${i}`, value: `in-${i}` }, { partition: i % PARTITIONS }),
    ),
  );
  await producer.close();

  // Kill it after every ~N/(KILLS+1) committed records (commits counted, killed mid-stream).
  const kills: number[] = [];
  for (let k = 1; k <= KILLS; k++) {
    pipeline = startPipeline();
    const target = Math.min(N - 1, Math.floor((k * N) / (KILLS + 1)));
    await waitFor(async () => committed >= target, {
      timeoutMs: 60_000,
      what: `${target} records through the pipeline (run ${k}): ${stderr}`,
    });
    kills.push(committed);
    await kill(pipeline);
  }
  pipeline = startPipeline();
  // Done when the group's committed offsets reach the input's end.
  const ends = await endOffsets(INPUT);
  await waitFor(
    async () => {
      const offsets = await tide.groups().fetchOffsets('eos-group');
      return ends.every(
        (end, partition) =>
          offsets.find((o) => o.topic === INPUT && o.partition === partition)?.offset === end,
      );
    },
    { timeoutMs: 90_000, what: `the group's offsets to reach the input's end: ${stderr}` },
  );
  await kill(pipeline);

  const output = await readToEnd(tide, OUTPUT, await endOffsets(OUTPUT), 'read_committed', 'output-rc');
  const counts = new Map<string, number>();
  for (const r of output.reads) counts.set(r.value, (counts.get(r.value) ?? 0) + 1);
  const missing = [...Array(N).keys()].map((i) => `out:in-${i}`).filter((v) => !counts.has(v));
  const duplicated = [...counts].filter(([, n]) => n > 1).map(([v]) => v);
  const raw = await readToEnd(tide, OUTPUT, await endOffsets(OUTPUT), 'read_uncommitted', 'output-ru');
  process.stdout.write(
    `eos pipeline: ${N} inputs, killed after ${kills.join(', ')} committed records; output read_committed ` +
      `${output.reads.length} (missing ${missing.length}, duplicated ${duplicated.length}), ` +
      `read_uncommitted ${raw.reads.length} (aborted or zombie records ${raw.reads.length - output.reads.length})\n`,
  );
  expect({ missing: missing.slice(0, 5), duplicated: duplicated.slice(0, 5) }).toEqual({
    missing: [],
    duplicated: [],
  });
  expect(output.reads).toHaveLength(N);
});
