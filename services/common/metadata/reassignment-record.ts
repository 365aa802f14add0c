/**
 * The records of replica moves and decommissions in the metadata store, shared by the controller
 * (which writes them, services/controller/reassignment-store.ts) and the brokers (whose topic
 * watch reads the moves to know which replicas are being added, for the reassignment throttle):
 *
 *   /tide/<cluster>/reassignments/<topic>/<p>   ReassignmentRecord (JSON): the move's target
 *   /tide/<cluster>/decommissions/<brokerId>    DecommissionRecord (JSON): the broker is emptied
 */
import { TideError } from '../errors';
import type { MetadataKeys } from './keys';

/** Who started a move: an operator's plan, a decommission, or the balancer. */
export type MoveOrigin = 'admin' | 'decommission' | 'balancer';
const ORIGINS: readonly MoveOrigin[] = ['admin', 'decommission', 'balancer'];

export interface ReassignmentRecord {
  /** The replicas the partition ends with, preferred leader first. */
  target: number[];
  /** The replicas it had when the move started (a cancel returns to them). */
  original: number[];
  startedAtMs: number;
  origin: MoveOrigin;
}

export interface DecommissionRecord {
  startedAtMs: number;
}

/** The key names of reassignments and decommissions under a cluster's root. */
export class ElasticKeys {
  constructor(private readonly keys: MetadataKeys) {}

  get reassignmentsPrefix(): string {
    return `${this.keys.root}reassignments/`;
  }
  reassignmentsOf(topic: string): string {
    return `${this.reassignmentsPrefix}${topic}/`;
  }
  reassignment(topic: string, partition: number): string {
    // keys.partition validates the topic segment and the index.
    this.keys.partition(topic, partition);
    return `${this.reassignmentsOf(topic)}${partition}`;
  }
  get decommissionsPrefix(): string {
    return `${this.keys.root}decommissions/`;
  }
  decommission(brokerId: number): string {
    this.keys.broker(brokerId);
    return `${this.decommissionsPrefix}${brokerId}`;
  }
}

function malformed(key: string, why: string): TideError {
  return new TideError('UNKNOWN', `malformed metadata at ${key}: ${why}`, { retriable: false });
}

function brokerIds(key: string, field: string, value: unknown): number[] {
  const ok =
    Array.isArray(value) &&
    value.length > 0 &&
    value.every((id) => typeof id === 'number' && Number.isInteger(id) && id >= 0 && id <= 0x7fffffff) &&
    new Set(value).size === value.length;
  if (!ok) throw malformed(key, `${field} must be a non-empty list of distinct broker ids`);
  return [...(value as number[])];
}

export function decodeReassignment(value: Buffer | string, key: string): ReassignmentRecord {
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(typeof value === 'string' ? value : value.toString('utf8')) as Record<
      string,
      unknown
    >;
  } catch {
    throw malformed(key, 'not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null) throw malformed(key, 'not a JSON object');
  const startedAtMs = parsed.startedAtMs;
  if (typeof startedAtMs !== 'number' || !Number.isSafeInteger(startedAtMs) || startedAtMs < 0)
    throw malformed(key, 'startedAtMs must be an integer >= 0');
  const origin = parsed.origin;
  if (!ORIGINS.includes(origin as MoveOrigin))
    throw malformed(key, `origin must be one of ${ORIGINS.join(', ')}`);
  return {
    target: brokerIds(key, 'target', parsed.target),
    original: brokerIds(key, 'original', parsed.original),
    startedAtMs,
    origin: origin as MoveOrigin,
  };
}

export function encodeReassignment(record: ReassignmentRecord): string {
  const { target, original, startedAtMs, origin } = record;
  return JSON.stringify({ target, original, startedAtMs, origin });
}

/** The topic and partition a key under `keys.reassignmentsPrefix` names; undefined for others. */
export function parseReassignmentKey(
  keys: ElasticKeys,
  key: string,
): { topic: string; partition: number } | undefined {
  if (!key.startsWith(keys.reassignmentsPrefix)) return undefined;
  const rest = key.slice(keys.reassignmentsPrefix.length).split('/');
  if (rest.length !== 2 || !/^(0|[1-9]\d*)$/.test(rest[1])) return undefined;
  return { topic: rest[0], partition: Number(rest[1]) };
}
