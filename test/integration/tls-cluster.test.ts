/**
 * A real cluster over TLS: etcd, a controller and two brokers, every listener and every internal
 * call (replication, controller calls) on TLS with certificates from a temp CA. A producer and a
 * consumer work over TLS while the services' certificate files are rotated twice; no request
 * fails and every acknowledged record is read back. A plain-text client is refused.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Tide, TideError } from '../../client';
import { makeCa, makeLeaf } from '../harness/certs';
import { TestCluster } from '../harness/cluster';
import { runCli } from '../harness/cli';

jest.setTimeout(180_000);

/** Replaces the services' pair the way a Secret volume update does: each file by an atomic rename. */
function rotate(dir: string, round: number): void {
  makeLeaf(dir, 'ca', `next-${round}`, `next-${round}`);
  fs.copyFileSync(path.join(dir, `next-${round}.key`), path.join(dir, 'tmp.key'));
  fs.copyFileSync(path.join(dir, `next-${round}.crt`), path.join(dir, 'tmp.crt'));
  fs.renameSync(path.join(dir, 'tmp.key'), path.join(dir, 'service.key'));
  fs.renameSync(path.join(dir, 'tmp.crt'), path.join(dir, 'service.crt'));
}

let dir: string;
let cluster: TestCluster | undefined;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-tls-cluster-'));
  makeCa(dir, 'ca', 'tide-test-ca');
  makeLeaf(dir, 'ca', 'service', 'service');
  makeLeaf(dir, 'ca', 'client', 'client');
  cluster = await TestCluster.start({
    brokers: 2,
    env: {
      TIDE_TLS_CERT_FILE: path.join(dir, 'service.crt'),
      TIDE_TLS_KEY_FILE: path.join(dir, 'service.key'),
      TIDE_TLS_CA_FILE: path.join(dir, 'ca.crt'),
      TIDE_TLS_CLIENT_AUTH: 'request',
      TIDE_TLS_REFRESH_INTERVAL_MS: '300',
    },
  });
});

afterAll(async () => {
  await cluster?.stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('produces and consumes over TLS through two certificate rotations without a failed request', async () => {
  const tide = new Tide({
    bootstrap: cluster!.bootstrap(),
    security: {
      tls: {
        caFile: path.join(dir, 'ca.crt'),
        certFile: path.join(dir, 'client.crt'),
        keyFile: path.join(dir, 'client.key'),
        refreshIntervalMs: 300,
      },
    },
  });
  try {
    await tide.admin().createTopic('secure', { partitions: 1, replicationFactor: 2 });
    const producer = tide.producer();
    const consumer = tide.consumer();
    const sent: string[] = [];
    let offset = 0;
    const read: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 50; i++) {
        const value = `r${round}-${i}`;
        await producer.send('secure', { value, partition: 0 });
        sent.push(value);
      }
      for (;;) {
        const result = await consumer.fetch({ topic: 'secure', partition: 0 }, offset, { maxWaitMs: 0 });
        for (const r of result.records) read.push(r.value!.toString());
        if (result.nextOffset === offset) break;
        offset = result.nextOffset;
      }
      if (round < 2) {
        rotate(dir, round);
        // Let every service's poller see the new pair; new connections then get it.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
    await producer.close();
    await consumer.close();
    expect(read).toEqual(sent);
  } finally {
    await tide.close();
  }
});

it('a plain-text client is refused, and a client trusting another CA gets TLS_FAILED', async () => {
  const plain = new Tide({
    bootstrap: cluster!.bootstrap(),
    connectTimeoutMs: 3_000,
    requestTimeoutMs: 3_000,
  });
  await expect(plain.admin().metadata()).rejects.toBeInstanceOf(TideError);
  await plain.close();
  makeCa(dir, 'other');
  const wrong = new Tide({
    bootstrap: cluster!.bootstrap(),
    connectTimeoutMs: 3_000,
    requestTimeoutMs: 3_000,
    security: { tls: { caFile: path.join(dir, 'other.crt') } },
  });
  const err = (await wrong
    .admin()
    .metadata()
    .catch((e: unknown) => e)) as TideError;
  expect(err).toBeInstanceOf(TideError);
  expect(err.code).toBe('TLS_FAILED');
  await wrong.close();
});

it('the CLI lists topics over TLS with --tls-ca (or TIDE_TLS_CA), and says TLS_FAILED without it', async () => {
  const bootstrap = cluster!.bootstrap().join(',');
  const ok = await runCli(['--tls-ca', path.join(dir, 'ca.crt'), 'topics', 'list', '-b', bootstrap]);
  expect(ok.stderr).toBe('');
  expect(ok.out).toContain('secure');
  const byEnv = await runCli(['topics', 'list', '-b', bootstrap], {
    env: { TIDE_TLS_CA: path.join(dir, 'ca.crt') },
  });
  expect(byEnv.out).toContain('secure');
  const wrong = await runCli(['--tls-ca', path.join(dir, 'other.crt'), 'topics', 'list', '-b', bootstrap]);
  expect(wrong.code).toBe(1);
  expect(wrong.stderr).toContain('TLS_FAILED');
  expect(wrong.stderr).toContain('--tls-ca');
});
