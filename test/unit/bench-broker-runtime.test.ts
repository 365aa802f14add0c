/** bench/broker-runtime.ts: the runtime figures read from a broker's Prometheus text. */
import { parseRuntime, runtimeDelta } from '../../bench/broker-runtime';

const exposition = (majors: number, majorSum: number, maxLag: number) =>
  [
    '# HELP nodejs_gc_duration_seconds Garbage collection duration by kind.',
    '# TYPE nodejs_gc_duration_seconds histogram',
    'nodejs_gc_duration_seconds_bucket{le="0.001",kind="minor"} 40',
    'nodejs_gc_duration_seconds_sum{kind="minor"} 0.05',
    'nodejs_gc_duration_seconds_count{kind="minor"} 50',
    `nodejs_gc_duration_seconds_sum{kind="major"} ${majorSum}`,
    `nodejs_gc_duration_seconds_count{kind="major"} ${majors}`,
    'nodejs_gc_duration_seconds_sum{kind="incremental"} 0.01',
    'nodejs_gc_duration_seconds_count{kind="incremental"} 3',
    `nodejs_eventloop_lag_max_seconds ${maxLag}`,
    'tide_reassignment_bytes_total 1048576',
  ].join('\n');

test('full GCs count major collections; GC time adds every kind; the delay is in ms', () => {
  expect(parseRuntime(exposition(4, 0.02, 0.0125))).toEqual({
    fullGcs: 4,
    gcSeconds: 0.08,
    eventLoopDelayMaxMs: 12.5,
  });
});

test('a window is the difference of two scrapes, with the delay of the second', () => {
  const window = runtimeDelta(
    parseRuntime(exposition(4, 0.02, 0.5)),
    parseRuntime(exposition(10, 0.1, 0.03)),
  );
  expect(window.fullGcs).toBe(6);
  expect(window.gcMs).toBeCloseTo(80);
  expect(window.eventLoopDelayMaxMs).toBeCloseTo(30);
});

test('missing metrics read as zero', () => {
  expect(parseRuntime('')).toEqual({ fullGcs: 0, gcSeconds: 0, eventLoopDelayMaxMs: 0 });
});
