import { parseRedisBenchmarkCsv } from '../../bench/peers/native';
import { InflightWindow } from '../../bench/peers/inflight-window';
import { natsConfig } from '../../bench/peers/targets/nats';
import { redisArgs } from '../../bench/peers/targets/redis';
import { isClientBound, makeValues } from '../../bench/peers/workloads';

describe('parseRedisBenchmarkCsv', () => {
  it('reads the rps column of redis-benchmark --csv (redis-tools 7.0)', () => {
    const csv =
      '"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"\n' +
      '"XADD bench * v abc","285714.28","0.328","0.120","0.199","0.279","2.975","2.975"\n';
    expect(parseRedisBenchmarkCsv(csv)).toBeCloseTo(285714.28);
  });

  it('fails loudly on output without a rate', () => {
    expect(() => parseRedisBenchmarkCsv('Could not connect to Redis at 127.0.0.1:1')).toThrow(
      /cannot read a rate/,
    );
  });
});

describe('InflightWindow', () => {
  it('admits without waiting below the limit, then waits until a quarter is freed', async () => {
    const window = new InflightWindow();
    for (let i = 0; i < 8; i++) expect(window.acquire(1, 8)).toBeUndefined();
    let admitted = false;
    void (window.acquire(1, 8) as Promise<void>).then(() => (admitted = true));
    window.release(1);
    await Promise.resolve();
    expect(admitted).toBe(false);
    window.release(1);
    await Promise.resolve();
    expect(admitted).toBe(true);
    expect(window.size).toBe(7);
  });

  it('drained() resolves once everything is acknowledged', async () => {
    const window = new InflightWindow();
    window.acquire(3, 10);
    let drained = false;
    void window.drained().then(() => (drained = true));
    window.release(2);
    await Promise.resolve();
    expect(drained).toBe(false);
    window.release(1);
    await Promise.resolve();
    expect(drained).toBe(true);
  });
});

describe('server configurations', () => {
  it('clusters three nats-servers on loopback with file storage', () => {
    const config = natsConfig(1, [4001, 4002, 4003], [5001, 5002, 5003], '/tmp/s');
    expect(config).toContain('listen: 127.0.0.1:4002');
    expect(config).toContain('store_dir: "/tmp/s"');
    expect(config).toContain('routes: [nats-route://127.0.0.1:5001, nats-route://127.0.0.1:5003]');
    expect(natsConfig(0, [4001], [5001], '/tmp/s')).not.toContain('cluster');
  });

  it('runs redis with the AOF on and RDB snapshots off, on loopback', () => {
    const args = redisArgs(7000, '/tmp/r', 'always').join(' ');
    expect(args).toContain('--bind 127.0.0.1');
    expect(args).toContain('--appendonly yes --appendfsync always');
    expect(args).toContain('--save ');
  });
});

describe('makeValues', () => {
  it('makes distinct values of the size, each starting with its index', () => {
    const values = makeValues(100, 3);
    expect(values.map((v) => v.length)).toEqual([100, 100, 100]);
    expect(values.map((v) => v.readUInt32BE(0))).toEqual([0, 1, 2]);
  });
});

describe('isClientBound', () => {
  it.each([
    ['a whole core on an idle machine', 9.5, 9, 10, true],
    ['twice the servers on a loaded machine', 18, 4, 37, true],
    ['less than a core and less than twice the servers', 1.1, 1.8, 2.5, false],
  ])('%s', (_, client, server, wall, expected) => {
    expect(isClientBound(client, server, wall)).toBe(expected);
  });
});
