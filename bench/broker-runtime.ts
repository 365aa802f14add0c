/**
 * What a broker's Node.js runtime did over a window of a benchmark, from its Prometheus endpoint
 * (prom-client's default metrics): full (mark-compact) garbage collections, time in all GC pauses,
 * and the longest event-loop delay. These are what a latency tail is made of when the work itself
 * is short; bench/reassign.ts prints them for the leader, the in-sync follower and the new replica.
 *
 *   const before = await scrapeRuntime(port);   // also starts a new event-loop window
 *   ...
 *   const during = runtimeDelta(before, await scrapeRuntime(port));
 */
import * as http from 'http';

export interface RuntimeSample {
  /** Full (mark-compact) collections since the process started. */
  fullGcs: number;
  /** Seconds in GC pauses of every kind since the process started. */
  gcSeconds: number;
  /** Longest event-loop delay since the previous scrape (prom-client resets it on each). */
  eventLoopDelayMaxMs: number;
}

export interface RuntimeWindow {
  fullGcs: number;
  gcMs: number;
  eventLoopDelayMaxMs: number;
}

/** Reads and parses http://127.0.0.1:port/metrics. */
export async function scrapeRuntime(port: number): Promise<RuntimeSample> {
  return parseRuntime(await get(`http://127.0.0.1:${port}/metrics`));
}

/** The runtime metrics of a Prometheus text exposition (0 for any that is missing). */
export function parseRuntime(text: string): RuntimeSample {
  let fullGcs = 0;
  let gcSeconds = 0;
  let eventLoopDelayMaxMs = 0;
  for (const line of text.split('\n')) {
    const match = /^(\w+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const [, name, labels = '', raw] = match;
    const value = Number(raw);
    if (!Number.isFinite(value)) continue;
    if (name === 'nodejs_gc_duration_seconds_count' && /\bkind="major"/.test(labels)) fullGcs += value;
    else if (name === 'nodejs_gc_duration_seconds_sum') gcSeconds += value;
    else if (name === 'nodejs_eventloop_lag_max_seconds') eventLoopDelayMaxMs = value * 1000;
  }
  return { fullGcs, gcSeconds, eventLoopDelayMaxMs };
}

/** What happened between two scrapes of one process. */
export function runtimeDelta(before: RuntimeSample, after: RuntimeSample): RuntimeWindow {
  return {
    fullGcs: after.fullGcs - before.fullGcs,
    gcMs: (after.gcSeconds - before.gcSeconds) * 1000,
    eventLoopDelayMaxMs: after.eventLoopDelayMaxMs,
  };
}

function get(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        response.statusCode === 200
          ? resolve(body)
          : reject(new Error(`${url} answered ${response.statusCode}`)),
      );
    });
    request.on('error', reject);
    request.setTimeout(5_000, () => request.destroy(new Error(`${url} did not answer within 5 s`)));
  });
}
