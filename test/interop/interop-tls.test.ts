/**
 * Tide from Python and Ruby over TLS, against a real cluster (etcd, a controller, two brokers)
 * whose every listener requires client certificates (mTLS): the same scripts as interop.test.ts,
 * given the CA and a client certificate, create a topic, produce to each partition's leader, read
 * back through FetchStream, list offsets and read an error's trailers. The TypeScript client reads
 * what they wrote; a script without a client certificate is refused.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Tide } from '../../client';
import { makeCa, makeLeaf } from '../harness/certs';
import { TestCluster } from '../harness/cluster';
import { makeTempDir } from '../harness/processes';
import { PYTHON, RUBY, generateStubs, run } from './stubs';

jest.setTimeout(120_000);

let root: string;
let cluster: TestCluster | undefined;
let tide: Tide | undefined;
let stubs: { python: string; ruby: string };
const file = (name: string) => path.join(root, name);

beforeAll(async () => {
  root = makeTempDir('tide-interop-tls-');
  stubs = generateStubs(root);
  makeCa(root, 'ca');
  makeLeaf(root, 'ca', 'service', 'tide-service');
  makeLeaf(root, 'ca', 'client', 'interop-client');
  cluster = await TestCluster.start({
    brokers: 2,
    env: {
      TIDE_TLS_CERT_FILE: file('service.crt'),
      TIDE_TLS_KEY_FILE: file('service.key'),
      TIDE_TLS_CA_FILE: file('ca.crt'),
      TIDE_TLS_CLIENT_AUTH: 'require',
    },
  });
  tide = new Tide({
    bootstrap: cluster.bootstrap(),
    security: { tls: { caFile: file('ca.crt'), certFile: file('client.crt'), keyFile: file('client.key') } },
  });
});

afterAll(async () => {
  await tide?.close().catch(() => undefined);
  await cluster?.stop();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

interface Seen {
  created: { name: string; partitions: number };
  produced: { partition: number; base_offset: number; last_offset: number }[];
  consumed: { partition: number; offset: number; value: string | null }[];
  latest: Record<string, number>;
  error: { tide_error_code: string };
}

async function expectRoundTrip(seen: Seen, topic: string, lang: string): Promise<void> {
  expect(seen.created).toEqual({ name: topic, partitions: 2 });
  expect(seen.produced).toEqual([
    { partition: 0, base_offset: 0, last_offset: 4 },
    { partition: 1, base_offset: 0, last_offset: 4 },
  ]);
  expect(seen.latest).toEqual({ '0': 5, '1': 5 });
  expect(seen.consumed.length).toBe(10);
  expect(seen.error.tide_error_code).toBe('UNKNOWN_TOPIC');
  const consumer = tide!.consumer({ autoOffsetReset: 'earliest' });
  const values: (string | null)[] = [];
  for (const p of [0, 1]) {
    const result = await consumer.fetch({ topic, partition: p }, 0, { maxWaitMs: 0 });
    values.push(...result.records.map((r) => (r.value === null ? null : r.value.toString())));
  }
  await consumer.close();
  expect(values.filter((v) => v?.startsWith(`${lang} says`)).length).toBe(6);
}

const tlsArgs = () => [file('ca.crt'), file('client.crt'), file('client.key')];

test('Python over mTLS: admin, produce, FetchStream, offsets and error trailers', async () => {
  const script = path.join(__dirname, 'tide_interop.py');
  const seen = JSON.parse(
    run(PYTHON, [script, stubs.python, cluster!.bootstrap()[0], 'py-tls', ...tlsArgs()]),
  ) as Seen;
  await expectRoundTrip(seen, 'py-tls', 'python');
  // Without a client certificate the TLS handshake is refused.
  expect(() =>
    run(PYTHON, [script, stubs.python, cluster!.bootstrap()[0], 'py-anon', file('ca.crt')], {
      TIDE_INTEROP_TIMEOUT_S: '3',
    }),
  ).toThrow(/FutureTimeoutError|UNAVAILABLE|handshake/i);
});

test('Ruby over mTLS: admin, produce, FetchStream, offsets and error trailers', async () => {
  const script = path.join(__dirname, 'tide_interop.rb');
  const seen = JSON.parse(
    run(RUBY, [script, stubs.ruby, cluster!.bootstrap()[0], 'rb-tls', ...tlsArgs()]),
  ) as Seen;
  await expectRoundTrip(seen, 'rb-tls', 'ruby');
  expect(() => run(RUBY, [script, stubs.ruby, cluster!.bootstrap()[0], 'rb-anon', file('ca.crt')])).toThrow();
});
