/**
 * Helpers of the consumer group integration tests: group members as real child processes (the
 * built client in dist/, so SIGKILL is a real crash), a steady producer, and the checkers.
 *
 * A member process prints one JSON line per event on stdout:
 *   {t, m, ev: 'started' | 'assigned' | 'revoked' | 'lost' | 'record' | 'closed' | 'error', ps?, p?, o?}
 * `assigned` is printed in onAssigned (before any record of those partitions is delivered),
 * `revoked`/`lost` in onRevoked/onLost (after the last record of them was handled), `record` after
 * each record is handed to the application. stdout to a pipe is synchronous on Linux, so a line
 * printed before a SIGKILL is never lost.
 */
import { ChildProcess, spawn } from 'child_process';
import * as path from 'path';
import type { Producer } from '../../client';
import { JsonLinesChild } from '../harness/json-lines-child';
import { REPO_ROOT, waitFor } from '../harness/processes';

export interface MemberEvent {
  t: number;
  m: string;
  ev: 'started' | 'assigned' | 'revoked' | 'lost' | 'record' | 'closed' | 'error';
  ps?: number[];
  p?: number;
  o?: number;
  code?: string;
  msg?: string;
}

const MEMBER_SCRIPT = `
const [dist, bootstrap, group, topic, tag, instanceId, sessionTimeoutMs] = process.argv.slice(1);
const { Tide } = require(dist + '/client');
const out = (o) => process.stdout.write(JSON.stringify({ t: Date.now(), m: tag, ...o }) + '\\n');
const tide = new Tide({ bootstrap: bootstrap.split(','), clientId: tag });
const ids = (ps) => ps.map((p) => p.partition).sort((a, b) => a - b);
const member = tide.consumer({
  groupId: group,
  autoOffsetReset: 'earliest',
  instanceId: instanceId || undefined,
  sessionTimeoutMs: Number(sessionTimeoutMs),
  autoCommitIntervalMs: 200,
  onAssigned: (ps) => out({ ev: 'assigned', ps: ids(ps) }),
  onRevoked: (ps) => out({ ev: 'revoked', ps: ids(ps) }),
  onLost: (ps) => out({ ev: 'lost', ps: ids(ps) }),
});
member.subscribe([topic]);
process.on('SIGTERM', () => {
  member.close().then(() => tide.close()).then(() => { out({ ev: 'closed' }); process.exit(0); });
});
out({ ev: 'started' });
(async () => {
  for await (const r of member) out({ ev: 'record', p: r.partition, o: r.offset });
})().catch((err) => { out({ ev: 'error', code: err.code, msg: err.message }); process.exit(1); });
`;

export class MemberProcess extends JsonLinesChild<MemberEvent> {
  constructor(tag: string, child: ChildProcess) {
    super(tag, child, 20_000);
  }

  /** Partitions it holds now, per its own events. */
  owned(): number[] {
    const held = new Set<number>();
    for (const e of this.events) {
      if (e.ev === 'assigned') for (const p of e.ps!) held.add(p);
      if (e.ev === 'revoked' || e.ev === 'lost') for (const p of e.ps!) held.delete(p);
    }
    return [...held].sort((a, b) => a - b);
  }

  records(): MemberEvent[] {
    return this.events.filter((e) => e.ev === 'record');
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<number> {
    return this.signal(signal);
  }
}

let live: MemberProcess[] = [];
process.on('exit', () => {
  for (const m of live) m.child.kill('SIGKILL');
});

export function startMember(options: {
  bootstrap: string;
  group: string;
  topic: string;
  tag: string;
  instanceId?: string;
  sessionTimeoutMs: number;
}): MemberProcess {
  const child = spawn(
    process.execPath,
    [
      '-e',
      MEMBER_SCRIPT,
      path.join(REPO_ROOT, 'dist'),
      options.bootstrap,
      options.group,
      options.topic,
      options.tag,
      options.instanceId ?? '',
      String(options.sessionTimeoutMs),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } },
  );
  const member = new MemberProcess(options.tag, child);
  live.push(member);
  return member;
}

export async function killAll(): Promise<void> {
  const members = live;
  live = [];
  await Promise.all(members.filter((m) => m.exitedAt === undefined).map((m) => m.kill('SIGKILL')));
}

/** Waits until the members together hold exactly `partitions` partitions, each once. */
export async function waitForBalanced(
  members: MemberProcess[],
  partitions: number,
  options: { timeoutMs?: number; minEach?: number } = {},
): Promise<void> {
  await waitFor(
    () => {
      const held = members.flatMap((m) => m.owned());
      return (
        held.length === partitions &&
        new Set(held).size === partitions &&
        members.every((m) => m.owned().length >= (options.minEach ?? 1))
      );
    },
    {
      timeoutMs: options.timeoutMs ?? 20_000,
      intervalMs: 50,
      what: `${partitions} partitions spread over ${members.map((m) => `${m.tag}=${m.owned().join(',')}`).join(' ')}`,
    },
  );
}

/**
 * The single-owner checker: from every member's assigned/revoked/lost events (an ownership interval
 * ends at the member's revoke/lost event, or at its death), no partition has two owners at any
 * instant, and every record was consumed inside its consumer's ownership interval.
 */
export function ownershipViolations(members: MemberProcess[]): string[] {
  const intervals = new Map<number, { m: string; from: number; to: number }[]>();
  const add = (p: number, m: string, from: number, to: number) => {
    let list = intervals.get(p);
    if (!list) intervals.set(p, (list = []));
    list.push({ m, from, to });
  };
  const violations: string[] = [];
  for (const member of members) {
    const open = new Map<number, number>();
    for (const e of member.events) {
      if (e.ev === 'assigned') for (const p of e.ps!) open.set(p, e.t);
      if (e.ev === 'revoked' || e.ev === 'lost') {
        for (const p of e.ps!) {
          if (open.has(p)) add(p, member.tag, open.get(p)!, e.t);
          open.delete(p);
        }
      }
      if (e.ev === 'record' && !open.has(e.p!))
        violations.push(`${member.tag} consumed ${e.p}@${e.o} at ${e.t} without owning partition ${e.p}`);
    }
    const end = member.exitedAt ?? Number.MAX_SAFE_INTEGER;
    for (const [p, from] of open) add(p, member.tag, from, end);
  }
  for (const [p, list] of intervals) {
    list.sort((a, b) => a.from - b.from);
    for (let i = 1; i < list.length; i++) {
      const prev = list.slice(0, i).find((x) => x.m !== list[i].m && x.to > list[i].from);
      if (prev)
        violations.push(
          `partition ${p}: ${list[i].m} owned it from ${list[i].from} while ${prev.m} owned it until ${prev.to}`,
        );
    }
  }
  return violations;
}

/** Offsets of `partition` that no member consumed, below `end` (at-least-once: must be empty). */
export function skipped(members: MemberProcess[], partition: number, end: number): number[] {
  const seen = new Set<number>();
  for (const m of members) for (const e of m.records()) if (e.p === partition) seen.add(e.o!);
  const missing: number[] = [];
  for (let o = 0; o < end; o++) if (!seen.has(o)) missing.push(o);
  return missing;
}

/** Produces one record to every partition each `intervalMs` until stopped; resolves the end offsets. */
export function produceSteadily(
  producer: Producer,
  topic: string,
  partitions: number,
  intervalMs: number,
): { stop(): Promise<number[]> } {
  const ends = new Array<number>(partitions).fill(0);
  let running = true;
  let failures = 0;
  const loop = (async () => {
    for (let seq = 0; running; seq++) {
      await Promise.all(
        Array.from({ length: partitions }, (_, partition) =>
          producer.send(topic, { value: `v${seq}`, partition }).then(
            (r) => (ends[partition] = Math.max(ends[partition], r.offset + 1)),
            () => failures++,
          ),
        ),
      );
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      if (failures > 0) throw new Error(`${failures} produce call(s) failed`);
      return ends;
    },
  };
}

/** Longest gap between consecutive records of `partition` that `member` consumed within [from, to]. */
export function longestGapMs(member: MemberProcess, partition: number, from: number, to: number): number {
  const times = member
    .records()
    .filter((e) => e.p === partition && e.t >= from && e.t <= to)
    .map((e) => e.t);
  let gap = times.length === 0 ? to - from : Math.max(times[0] - from, to - times[times.length - 1]);
  for (let i = 1; i < times.length; i++) gap = Math.max(gap, times[i] - times[i - 1]);
  return gap;
}
