/**
 * What streams instances tell each other through the consumer group (JSON, versioned):
 *
 * - member user data (each instance → the leader, and DescribeGroup):
 *   `{ "v": 1, "endpoint": "host:port" | "", "lags": { "<task>": <records behind> } }` — its query
 *   endpoint, and how far each local copy (standby or warm-up) is behind its changelogs. An
 *   instance reports again only when the set of copies within acceptableRecoveryLag changes, as
 *   each report makes the leader assign again.
 * - assignment data (the leader → each instance, with its Assignment):
 *   `{ "v": 1, "active": [...], "standby": [...], "warmup": [...], "owners": { "<task>": "<endpoint>" } }`
 *   — the tasks this instance is to run, the copies it keeps, and the active instance of every
 *   task (for query routing).
 *
 * Unknown versions and malformed data read as empty, so a newer instance never breaks an older one.
 */

export interface MemberInfo {
  endpoint: string;
  lags: Map<string, number>;
}

export interface AssignmentInfo {
  /** Tasks this instance is to run (some may still be moving to it). */
  active: string[];
  standby: string[];
  warmup: string[];
  /** Active task → the query endpoint of its instance ('' when it has none). */
  owners: Map<string, string>;
}

const VERSION = 1;

export function encodeMemberInfo(info: MemberInfo): Buffer {
  return Buffer.from(
    JSON.stringify({ v: VERSION, endpoint: info.endpoint, lags: Object.fromEntries(info.lags) }),
  );
}

export function decodeMemberInfo(data: Buffer): MemberInfo {
  const o = parse(data);
  const lags = new Map<string, number>();
  if (o && typeof o.lags === 'object' && o.lags !== null) {
    for (const [task, lag] of Object.entries(o.lags as Record<string, unknown>)) {
      if (typeof lag === 'number' && lag >= 0) lags.set(task, lag);
    }
  }
  return { endpoint: typeof o?.endpoint === 'string' ? o.endpoint : '', lags };
}

export function encodeAssignmentInfo(info: AssignmentInfo): Buffer {
  return Buffer.from(
    JSON.stringify({
      v: VERSION,
      active: info.active,
      standby: info.standby,
      warmup: info.warmup,
      owners: Object.fromEntries(info.owners),
    }),
  );
}

export function decodeAssignmentInfo(data: Buffer): AssignmentInfo {
  const o = parse(data);
  const strings = (v: unknown): string[] =>
    Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
  const owners = new Map<string, string>();
  if (o && typeof o.owners === 'object' && o.owners !== null) {
    for (const [task, endpoint] of Object.entries(o.owners as Record<string, unknown>)) {
      if (typeof endpoint === 'string') owners.set(task, endpoint);
    }
  }
  return { active: strings(o?.active), standby: strings(o?.standby), warmup: strings(o?.warmup), owners };
}

function parse(data: Buffer): Record<string, unknown> | undefined {
  if (data.length === 0) return undefined;
  try {
    const o = JSON.parse(data.toString('utf8')) as unknown;
    if (typeof o !== 'object' || o === null) return undefined;
    const r = o as Record<string, unknown>;
    return r.v === VERSION ? r : undefined;
  } catch {
    return undefined;
  }
}
