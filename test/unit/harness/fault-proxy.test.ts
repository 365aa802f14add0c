/** The fault proxy on a loopback echo server: pass, blackhole (held, then delivered), delay, reset. */
import * as net from 'net';
import { FaultProxy } from '../../harness/fault-proxy';

let echo: net.Server;
let proxy: FaultProxy;

jest.setTimeout(10_000);

beforeEach(async () => {
  echo = net.createServer((s) => s.pipe(s));
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', r));
  proxy = await FaultProxy.start((echo.address() as net.AddressInfo).port);
});

afterEach(async () => {
  await proxy.close();
  await new Promise((r) => echo.close(r));
});

function connect(): Promise<{ socket: net.Socket; received: () => string; closed: Promise<void> }> {
  return new Promise((resolve) => {
    const socket = net.connect(proxy.port, '127.0.0.1');
    let data = '';
    socket.on('data', (c: Buffer) => (data += c.toString()));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    // A refused connection may close before (or instead of) 'connect'.
    const done = () => resolve({ socket, received: () => data, closed });
    socket.on('connect', done);
    socket.on('close', done);
  });
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 10));
}

test('passes bytes both ways', async () => {
  const c = await connect();
  c.socket.write('hello');
  await until(() => c.received() === 'hello');
  c.socket.destroy();
});

test('a blackhole holds bytes until heal, then delivers them in order', async () => {
  const c = await connect();
  c.socket.write('a');
  await until(() => c.received() === 'a');
  proxy.blackhole('in');
  c.socket.write('b');
  c.socket.write('c');
  await new Promise((r) => setTimeout(r, 200));
  expect(c.received()).toBe('a');
  expect(proxy.describe()).toBe('blackhole in');
  proxy.heal();
  await until(() => c.received() === 'abc');
  c.socket.destroy();
});

test('a blackhole of the answers only: requests arrive, answers are held', async () => {
  const c = await connect();
  proxy.blackhole('out');
  c.socket.write('x');
  await new Promise((r) => setTimeout(r, 200));
  expect(c.received()).toBe('');
  proxy.heal();
  await until(() => c.received() === 'x');
  c.socket.destroy();
});

test('delay keeps order', async () => {
  const c = await connect();
  proxy.delay(50, 'out');
  for (const ch of '12345') c.socket.write(ch);
  await until(() => c.received().length === 5);
  expect(c.received()).toBe('12345');
  c.socket.destroy();
});

test('reset closes open connections; refuse closes new ones', async () => {
  const c = await connect();
  proxy.reset();
  await c.closed;
  proxy.refuse(true);
  const d = await connect();
  await d.closed;
  proxy.heal();
  const e = await connect();
  e.socket.write('ok');
  await until(() => e.received() === 'ok');
  e.socket.destroy();
});
