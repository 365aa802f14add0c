/**
 * TLS credentials end to end on one in-process server: a client trusting the CA connects, one
 * trusting another CA gets TLS_FAILED, mTLS refuses a client without a certificate, and a rotated
 * certificate is served to new connections without a restart. Certificates come from openssl in a
 * temp dir.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as tls from 'tls';
import * as grpc from '@grpc/grpc-js';
import { startServer, stopServer, type TideServer } from '../../../services/common/grpc/server';
import { channelCredentialsOf, serverCredentialsOf } from '../../../services/common/security/transport';
import { ReloadingCertProvider } from '../../../services/common/security/cert-files';
import { fromGrpcError } from '../../../services/common/grpc/status';
import { silentLogger } from '../../../services/common/logger';
import { TideError } from '../../../services/common/errors';
import { makeCa, makeLeaf } from '../../harness/certs';
import { waitFor } from '../../harness/processes';

jest.setTimeout(60_000);

function check(address: string, credentials: grpc.ChannelCredentials): Promise<void> {
  const Health = grpc.makeGenericClientConstructor({}, 'Health');
  const client = new Health(address, credentials);
  return new Promise<void>((resolve, reject) => {
    client.makeUnaryRequest(
      '/grpc.health.v1.Health/Check',
      () => Buffer.alloc(0),
      (b: Buffer) => b,
      {},
      { deadline: Date.now() + 10_000 },
      (err) => (err ? reject(fromGrpcError(err)) : resolve()),
    );
  }).finally(() => client.close());
}

describe('TLS transport', () => {
  let dir: string;
  let server: TideServer | undefined;
  const closers: (() => void)[] = [];

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-tls-'));
    makeCa(dir, 'ca');
    makeCa(dir, 'other-ca');
    makeLeaf(dir, 'ca', 'server', 'broker-0');
    makeLeaf(dir, 'ca', 'client', 'alice');
  });

  afterEach(async () => {
    if (server) await stopServer(server.server, 0);
    server = undefined;
    for (const close of closers.splice(0)) close();
  });

  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const file = (name: string) => path.join(dir, name);

  async function serve(clientAuth: 'none' | 'require', refreshIntervalMs = 0): Promise<string> {
    const creds = serverCredentialsOf(
      {
        certFile: file('server.crt'),
        keyFile: file('server.key'),
        caFile: file('ca.crt'),
        clientAuth,
        refreshIntervalMs,
      },
      silentLogger(),
    );
    closers.push(creds.close);
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      register: () => undefined,
      credentials: creds.credentials,
    });
    return `127.0.0.1:${server.port}`;
  }

  function client(caFile: string, withCert = false) {
    const creds = channelCredentialsOf(
      {
        enabled: true,
        caFile,
        ...(withCert ? { certFile: file('client.crt'), keyFile: file('client.key') } : {}),
      },
      silentLogger(),
    );
    closers.push(creds.close);
    return creds.credentials;
  }

  it('connects a client that trusts the CA, and refuses one that does not with TLS_FAILED', async () => {
    const address = await serve('none');
    await check(address, client(file('ca.crt')));
    const err = await check(address, client(file('other-ca.crt'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TideError);
    expect((err as TideError).code).toBe('TLS_FAILED');
  });

  it('with client auth required, accepts a client certificate and refuses a client without one', async () => {
    const address = await serve('require');
    await check(address, client(file('ca.crt'), true));
    const err = (await check(address, client(file('ca.crt'))).catch((e: unknown) => e)) as TideError;
    expect(['TLS_FAILED', 'BROKER_NOT_AVAILABLE']).toContain(err.code);
  });

  it('a plain-text client cannot talk to a TLS listener', async () => {
    const address = await serve('none');
    await expect(check(address, grpc.credentials.createInsecure())).rejects.toBeInstanceOf(TideError);
  });

  it('reloads a rotated certificate without a restart', async () => {
    const provider = new ReloadingCertProvider(
      { certFile: file('server.crt'), keyFile: file('server.key') },
      { refreshIntervalMs: 0, logger: silentLogger() },
    );
    closers.push(() => provider.close());
    const before = provider.certSet.cert!;
    const seen: Buffer[] = [];
    provider.addIdentityCertificateListener((u) => u && seen.push(u.certificate));
    // A half-written rotation (new certificate, old key) is skipped, the old pair stays.
    makeLeaf(dir, 'ca', 'rotated', 'broker-0');
    fs.copyFileSync(file('rotated.crt'), file('server.crt'));
    expect(provider.poll()).toBe(false);
    expect(provider.certSet.cert!.equals(before)).toBe(true);
    fs.copyFileSync(file('rotated.key'), file('server.key'));
    expect(provider.poll()).toBe(true);
    expect(provider.certSet.cert!.equals(before)).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen.length).toBe(2);
    // A server on the rotated files still serves clients that trust the CA.
    const address = await serve('none');
    await check(address, client(file('ca.crt')));
  });

  it('prefers AES-128-GCM, also after a certificate reload, and still serves AES-256 and TLS 1.2 clients', async () => {
    makeLeaf(dir, 'ca', 'cipher', 'broker-0');
    const creds = serverCredentialsOf(
      {
        certFile: file('cipher.crt'),
        keyFile: file('cipher.key'),
        clientAuth: 'none',
        refreshIntervalMs: 20,
      },
      silentLogger(),
    );
    closers.push(creds.close);
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      register: () => undefined,
      credentials: creds.credentials,
    });
    const port = server.port;
    await check(`127.0.0.1:${port}`, client(file('ca.crt'))); // the listener has its certificate
    const first = await handshake(port);
    expect(first).toMatchObject({ protocol: 'TLSv1.3', cipher: 'TLS_AES_128_GCM_SHA256' });
    // A reload builds a new secure context: the order must survive it.
    makeLeaf(dir, 'ca', 'cipher-rotated', 'broker-0');
    fs.copyFileSync(file('cipher-rotated.key'), file('cipher.key'));
    fs.copyFileSync(file('cipher-rotated.crt'), file('cipher.crt'));
    const rotated = await waitFor(
      async () => {
        const now = await handshake(port);
        return now.fingerprint !== first.fingerprint ? now : undefined;
      },
      { what: 'the rotated certificate to be served' },
    );
    expect(rotated).toMatchObject({ protocol: 'TLSv1.3', cipher: 'TLS_AES_128_GCM_SHA256' });
    // The order changed, not the set: other suites and TLS 1.2 still connect, TLS 1.1 does not.
    expect(await handshake(port, { ciphers: 'TLS_AES_256_GCM_SHA384' })).toMatchObject({
      cipher: 'TLS_AES_256_GCM_SHA384',
    });
    expect(await handshake(port, { maxVersion: 'TLSv1.2' })).toMatchObject({
      protocol: 'TLSv1.2',
      cipher: 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
    });
    await expect(handshake(port, { minVersion: 'TLSv1.1', maxVersion: 'TLSv1.1' })).rejects.toBeDefined();
  });

  /** A raw TLS handshake (certificate checked against the CA) with what the server agreed to. */
  function handshake(
    port: number,
    options: tls.ConnectionOptions = {},
  ): Promise<{ protocol: string | null; cipher: string; fingerprint: string }> {
    return new Promise((resolve, reject) => {
      const socket = tls.connect(
        { host: '127.0.0.1', port, ca: fs.readFileSync(file('ca.crt')), ALPNProtocols: ['h2'], ...options },
        () => {
          resolve({
            protocol: socket.getProtocol(),
            cipher: socket.getCipher().standardName,
            fingerprint: socket.getPeerCertificate().fingerprint256,
          });
          socket.destroy();
        },
      );
      socket.on('error', reject);
    });
  }

  it('without settings stays plain text', async () => {
    const creds = serverCredentialsOf(undefined, silentLogger());
    expect(creds.secure).toBe(false);
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      register: () => undefined,
      credentials: creds.credentials,
    });
    await check(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  });

  it("serves health probes on a plain-text health port, sharing the TLS listener's status", async () => {
    const creds = serverCredentialsOf(
      { certFile: file('server.crt'), keyFile: file('server.key'), clientAuth: 'none', refreshIntervalMs: 0 },
      silentLogger(),
    );
    closers.push(creds.close);
    server = await startServer({
      host: '127.0.0.1',
      port: 0,
      register: () => undefined,
      credentials: creds.credentials,
      healthServices: ['tide.v1.Broker'],
      healthPort: 0,
    });
    const probe = `127.0.0.1:${server.healthPort}`;
    expect(await healthStatus(probe, 'tide.v1.Broker')).toBe('NOT_SERVING');
    server.health.setStatus('tide.v1.Broker', 'SERVING');
    expect(await healthStatus(probe, 'tide.v1.Broker')).toBe('SERVING');
    // The data port still refuses plain text: the health port is the only way around TLS.
    await expect(check(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure())).rejects.toBeInstanceOf(
      TideError,
    );
    await stopServer(server.server, 0);
    server = undefined;
    await expect(healthStatus(probe, 'tide.v1.Broker')).rejects.toBeDefined();
  });
});

/** grpc.health.v1 Check over plain text, with the two messages encoded by hand (field 1 each). */
function healthStatus(address: string, service: string): Promise<'SERVING' | 'NOT_SERVING' | number> {
  const Health = grpc.makeGenericClientConstructor({}, 'Health');
  const client = new Health(address, grpc.credentials.createInsecure());
  const name = Buffer.from(service);
  return new Promise<'SERVING' | 'NOT_SERVING' | number>((resolve, reject) => {
    client.makeUnaryRequest(
      '/grpc.health.v1.Health/Check',
      () => Buffer.concat([Buffer.from([0x0a, name.length]), name]),
      (b: Buffer) => b,
      {},
      { deadline: Date.now() + 5_000 },
      (err, reply?: Buffer) => {
        if (err) return reject(err);
        const status = reply && reply.length >= 2 ? reply[1] : 0;
        resolve(status === 1 ? 'SERVING' : status === 2 ? 'NOT_SERVING' : status);
      },
    );
  }).finally(() => client.close());
}
