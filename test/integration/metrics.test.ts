/** Prometheus metrics of a real `tide dev` process: RPC latency, traffic per topic, process metrics. */
import * as fs from 'fs';
import * as http from 'http';
import * as net from 'net';
import { Tide } from '../../client';
import { makeTempDir, startTide, waitFor, type TideProcess } from '../harness/processes';
import { startEtcd } from '../harness/etcd';

jest.setTimeout(60_000);

let dataDir: string;
let node: TideProcess;
let metricsPort: number;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function scrape(port = metricsPort): Promise<string> {
  return new Promise((resolve, reject) =>
    http
      .get({ host: '127.0.0.1', port, path: '/metrics' }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve(body));
      })
      .on('error', reject),
  );
}

const FETCH_OK = ['tide_rpc_duration_seconds_count', 'method="Fetch"', 'code="OK"'];

/** The first sample line of metric `name` (the first element) carrying every label given after it. */
function lineOf(text: string, [name, ...labels]: string[]): string {
  return (
    text.split('\n').find((l) => l.startsWith(name + '{') && labels.every((label) => l.includes(label))) ?? ''
  );
}

beforeAll(async () => {
  dataDir = makeTempDir();
  metricsPort = await freePort();
  node = await startTide(['dev', '--data', dataDir, '--port', '0'], {
    env: { TIDE_METRICS_PORT: String(metricsPort) },
  });
});

afterAll(async () => {
  await node?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

test('GET /metrics shows RPC latency, records and bytes per topic, partitions and process metrics', async () => {
  const tide = new Tide({ bootstrap: [node.address] });
  await tide.admin().createTopic('metered', { partitions: 1 });
  const producer = tide.producer();
  await producer.send(
    'metered',
    Array.from({ length: 50 }, (_, i) => ({ value: `v${i}` })),
  );
  await producer.close();
  // tide dev's own coordinators also Fetch (replaying their internal topics' partitions as they
  // load them at start): count the consumer's call as the difference once they are done.
  const fetches = async () => Number(/ (\d+)$/.exec(lineOf(await scrape(), FETCH_OK))?.[1] ?? 0);
  let settled = -1;
  await waitFor(
    async () => {
      const [before, now] = [settled, await fetches()];
      settled = now;
      return before === now;
    },
    { what: 'the coordinators to finish loading', intervalMs: 500 },
  );
  const consumer = tide.consumer();
  await consumer.fetch({ topic: 'metered', partition: 0 }, 0);
  await consumer.close();
  await tide.close();
  expect((await fetches()) - settled).toBe(1);

  const text = await scrape();
  const line = (name: string, ...labels: string[]) => lineOf(text, [name, ...labels]);
  expect(line('tide_records_in_total', 'topic="metered"')).toMatch(/ 50$/);
  expect(line('tide_bytes_out_total', 'topic="metered"')).toMatch(/ [1-9]\d*$/);
  expect(line('tide_rpc_duration_seconds_count', 'method="CreateTopic"', 'code="OK"')).toMatch(/ 1$/);
  expect(line('tide_partitions_led')).toMatch(/ [1-9]\d*$/);
  expect(line('tide_under_replicated_partitions')).toMatch(/ 0$/);
  expect(text).toMatch(/process_cpu_seconds_total/);
  expect(text).toMatch(/nodejs_eventloop_lag_seconds/);
});

test('log writes of a flush.policy=os topic are made on the event loop, and counted', async () => {
  const tide = new Tide({ bootstrap: [node.address] });
  await tide.admin().createTopic('cached', { partitions: 1, configs: { 'flush.policy': 'os' } });
  const producer = tide.producer();
  for (let i = 0; i < 5; i++) await producer.send('cached', [{ value: `v${i}` }]);
  await producer.close();
  await tide.close();
  const text = await scrape();
  const inline = Number(/^tide_log_inline_writes_total\{[^}]*\} (\d+)$/m.exec(text)?.[1]);
  expect(inline).toBeGreaterThanOrEqual(5);
  expect(text).toMatch(/^tide_log_inline_write_backoffs_total\{[^}]*\} 0$/m);
  expect(text).toMatch(/^tide_log_slow_inline_writes_total\{[^}]*\} \d+$/m);
});

test('the active controller reports its election state', async () => {
  const etcd = await startEtcd();
  const port = await freePort();
  const controller = await startTide(['controller', '--id', '0', '--port', '0', '--etcd', etcd.endpoint], {
    env: { TIDE_METRICS_PORT: String(port) },
  });
  try {
    const text = await scrape(port);
    expect(text).toMatch(/^tide_controller_active\{[^}]*\} 1$/m);
    expect(text).toMatch(/^tide_controller_epoch\{[^}]*\} [1-9]\d*$/m);
  } finally {
    await controller.stop();
    await etcd.close();
  }
});
