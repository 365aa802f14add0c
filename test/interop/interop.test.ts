/**
 * Tide from other languages, against a real `tide dev`: Python (Debian's python3-grpcio, run with
 * /usr/bin/python3) and Ruby (ruby-grpc) use stubs generated from protos/ at test time (Debian's
 * protoc and gRPC plugins) to create a topic, produce plain protobuf records, consume them back
 * through FetchStream, read metadata and offsets, and read an error's Tide trailers. The
 * TypeScript client reads what they wrote (keys, values, nulls, headers), the examples/ scripts
 * run too, and server reflection answers what grpcurl asks. Packages: scripts/install-test-deps.sh.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { Tide } from '../../client';
import { REPO_ROOT, makeTempDir, startTide, type TideProcess } from '../harness/processes';
import { PYTHON, RUBY, generateStubs, run } from './stubs';

jest.setTimeout(60_000);

interface Seen {
  created: { name: string; partitions: number };
  produced: { partition: number; base_offset: number; last_offset: number }[];
  consumed: {
    partition: number;
    offset: number;
    key: string | null;
    value: string | null;
    headers: Record<string, string>;
    timestamp_ms: number;
  }[];
  latest: Record<string, number>;
  error: { status: string; tide_error_code: string; tide_retriable: string };
  metadata: {
    cluster_id: string;
    brokers: { id: number; address: string }[];
    partitions: { partition: number; leader: number; replicas: number[] }[];
  };
}

let root: string;
let node: TideProcess;
let tide: Tide;
const stubs = { python: '', ruby: '' };

beforeAll(async () => {
  root = makeTempDir('tide-interop-');
  Object.assign(stubs, generateStubs(root));
  node = await startTide(['dev', '--data', path.join(root, 'data'), '--port', '0']);
  tide = new Tide({ bootstrap: [node.address] });
});

afterAll(async () => {
  await tide?.close();
  await node?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

/** What a script in language `lang` must have seen, and what the TypeScript client reads back. */
async function expectRoundTrip(seen: Seen, topic: string, prefix: string, lang: string): Promise<void> {
  expect(seen.created).toEqual({ name: topic, partitions: 2 });
  expect(seen.produced).toEqual([
    { partition: 0, base_offset: 0, last_offset: 4 },
    { partition: 1, base_offset: 0, last_offset: 4 },
  ]);
  expect(seen.latest).toEqual({ '0': 5, '1': 5 });
  const expected = [0, 1].flatMap((p) => [
    ...[0, 1, 2].map((i) => ({
      partition: p,
      offset: i,
      key: `${prefix}-${p}-${i}`,
      value: `${lang} says ${i} to partition ${p}`,
      headers: { lang },
    })),
    { partition: p, offset: 3, key: null, value: '', headers: {} },
    { partition: p, offset: 4, key: `${prefix}-${p}-gone`, value: null, headers: {} },
  ]);
  const consumed = [...seen.consumed].sort((a, b) => a.partition - b.partition || a.offset - b.offset);
  expect(consumed.map(({ timestamp_ms: _t, ...r }) => r)).toEqual(expected);
  // Timestamp 0 on produce means "now", set by the broker.
  for (const r of seen.consumed) expect(Math.abs(r.timestamp_ms - Date.now())).toBeLessThan(60_000);
  expect(seen.error).toMatchObject({ tide_error_code: 'UNKNOWN_TOPIC', tide_retriable: 'false' });
  expect(seen.metadata.brokers).toEqual([{ id: 0, address: node.address }]);
  expect(seen.metadata.partitions).toEqual([
    { partition: 0, leader: 0, replicas: [0] },
    { partition: 1, leader: 0, replicas: [0] },
  ]);
  expect(seen.metadata.cluster_id).toBe((await tide.admin().describeCluster()).clusterId);

  // The TypeScript client reads the same records: nulls stay null, empty stays empty.
  const consumer = tide.consumer({ autoOffsetReset: 'earliest' });
  const read = [];
  for (const p of [0, 1]) {
    const result = await consumer.fetch({ topic, partition: p }, 0, { maxWaitMs: 0 });
    for (const r of result.records)
      read.push({
        partition: p,
        offset: r.offset,
        key: r.key === null ? null : r.key.toString(),
        value: r.value === null ? null : r.value.toString(),
        headers: Object.fromEntries(r.headers.map((h) => [h.key, h.value?.toString()])),
      });
  }
  await consumer.close();
  expect(read).toEqual(expected);
}

test('Python: admin, produce, FetchStream, offsets, metadata and error trailers', async () => {
  const out = run(PYTHON, [
    path.join(__dirname, 'tide_interop.py'),
    stubs.python,
    node.address,
    'from-python',
  ]);
  const seen = JSON.parse(out) as Seen;
  expect(seen.error.status).toBe('NOT_FOUND');
  await expectRoundTrip(seen, 'from-python', 'py', 'python');
});

interface TxnSeen {
  coordinator: string;
  producer_id: number;
  transactions: {
    commit: boolean;
    epoch: number;
    next_epoch: number;
    produced: { partition: number; base_offset: number; last_offset: number }[];
  }[];
  latest: Record<string, number>;
  committed: Record<string, { offset: number; value: string }[]>;
}

test('Python: a committed and an aborted transaction with the protos alone; read_committed sees the committed one', async () => {
  const out = run(PYTHON, [
    path.join(__dirname, 'tide_txn_interop.py'),
    stubs.python,
    node.address,
    'txn-from-python',
    'python-writer',
  ]);
  const seen = JSON.parse(out) as TxnSeen;
  const [committed, aborted] = seen.transactions;
  expect(committed.commit).toBe(true);
  expect(aborted.commit).toBe(false);
  // Every end bumps the epoch (KIP-890); the next transaction runs on the answered one.
  expect(committed.next_epoch).toBe(committed.epoch + 1);
  expect(aborted.epoch).toBe(committed.next_epoch);
  // Per partition: 3 committed records, their COMMIT marker, 3 aborted records, their ABORT marker.
  for (const p of [0, 1]) {
    expect(committed.produced[p]).toEqual({ partition: p, base_offset: 0, last_offset: 2 });
    expect(aborted.produced[p]).toEqual({ partition: p, base_offset: 4, last_offset: 6 });
    expect(seen.latest[String(p)]).toBe(8);
    expect(seen.committed[String(p)]).toEqual(
      [0, 1, 2].map((i) => ({ offset: i, value: `committed-${p}-${i}` })),
    );
  }

  // The TypeScript client agrees: read_committed sees the committed records only, read_uncommitted all six.
  for (const isolation of ['read_committed', 'read_uncommitted'] as const) {
    const consumer = tide.consumer({ isolation });
    const values: string[] = [];
    for (let offset = 0; offset < 8;) {
      const result = await consumer.fetch({ topic: 'txn-from-python', partition: 0 }, offset, {
        maxWaitMs: 0,
      });
      values.push(...result.records.map((r) => String(r.value)));
      if (result.nextOffset <= offset) break;
      offset = result.nextOffset;
    }
    await consumer.close();
    expect(values).toEqual(
      isolation === 'read_committed'
        ? ['committed-0-0', 'committed-0-1', 'committed-0-2']
        : ['committed-0-0', 'committed-0-1', 'committed-0-2', 'aborted-0-0', 'aborted-0-1', 'aborted-0-2'],
    );
  }
  // The coordinator's view: the same producer, on the epoch the last EndTxn answered, nothing open.
  const described = await tide.transactions().describeTransaction('python-writer');
  expect(described).toMatchObject({
    producerId: seen.producer_id,
    producerEpoch: aborted.next_epoch,
    partitions: [],
  });
});

test('Ruby: admin, produce, FetchStream, offsets, metadata and error trailers', async () => {
  const out = run(RUBY, [path.join(__dirname, 'tide_interop.rb'), stubs.ruby, node.address, 'from-ruby']);
  const seen = JSON.parse(out) as Seen;
  expect(seen.error.status).toBe('NotFound');
  await expectRoundTrip(seen, 'from-ruby', 'rb', 'ruby');
});

test('the examples run as their README says', () => {
  const example = (dir: string) => path.join(REPO_ROOT, 'examples', dir);
  const py = run(PYTHON, [
    path.join(example('python'), 'produce_consume.py'),
    '--bootstrap',
    node.address,
    '--topic',
    'greetings',
    '--stubs',
    stubs.python,
  ]);
  expect(py).toContain('produced offsets 0..2');
  expect(py).toContain('offset 2: user-2 = hello 2 from Python');
  const rb = run(RUBY, [
    path.join(example('ruby'), 'produce_consume.rb'),
    '--bootstrap',
    node.address,
    '--topic',
    'greetings',
    '--stubs',
    stubs.ruby,
  ]);
  // The topic exists already: the example carries on and appends after Python's records.
  expect(rb).toContain('produced offsets 3..5');
  expect(rb).toContain('offset 5: user-2 = hello 2 from Ruby');
  expect(spawnSync('sh', ['-n', path.join(REPO_ROOT, 'examples', 'grpcurl.sh')]).status).toBe(0);
});

test('server reflection answers what grpcurl asks (list, then the descriptors of a service)', async () => {
  const reflectionProto = path.join(
    path.dirname(require.resolve('@grpc/reflection/package.json')),
    'build',
    'proto',
    'grpc',
    'reflection',
  );
  for (const version of ['v1', 'v1alpha']) {
    const definition = protoLoader.loadSync(path.join(reflectionProto, version, 'reflection.proto'), {
      keepCase: true,
    });
    const pkg = grpc.loadPackageDefinition(definition) as unknown as {
      grpc: { reflection: Record<string, { ServerReflection: grpc.ServiceClientConstructor }> };
    };
    const client = new pkg.grpc.reflection[version].ServerReflection(
      node.address,
      grpc.credentials.createInsecure(),
    ) as unknown as grpc.Client & {
      ServerReflectionInfo(): grpc.ClientDuplexStream<object, Record<string, never>>;
    };
    const ask = (request: object) =>
      new Promise<Record<string, unknown>>((resolve, reject) => {
        const call = client.ServerReflectionInfo();
        call.on('data', (response: Record<string, unknown>) => {
          resolve(response);
          call.end();
        });
        call.on('error', reject);
        call.write(request);
      });
    const listed = (await ask({ list_services: '' })) as {
      list_services_response: { service: { name: string }[] };
    };
    const names = listed.list_services_response.service.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['tide.v1.Broker', 'tide.v1.Admin']));
    const files = (await ask({ file_containing_symbol: 'tide.v1.Broker' })) as {
      file_descriptor_response: { file_descriptor_proto: Buffer[] };
    };
    expect(files.file_descriptor_response.file_descriptor_proto.length).toBeGreaterThan(0);
    expect(Buffer.concat(files.file_descriptor_response.file_descriptor_proto).toString('latin1')).toContain(
      'FetchStream',
    );
    client.close();
  }
});
