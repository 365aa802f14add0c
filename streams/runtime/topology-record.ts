/**
 * The running topology, recorded in the cluster's metadata store as the application metadata
 * entry `streams.topology` of the application (Admin put/get with compare-and-swap; the entry
 * belongs to the application's consumer group, so its ACLs apply).
 *
 * On start the app reads the recorded topology and diffs it with its own (topology/diff.ts). A
 * change that would orphan state — a store or internal topic renamed or removed, a store whose
 * kind changed — is refused with a TopologyChangeError showing the diff, unless the app was given
 * `allowTopologyChange: true`. Any other change is recorded (compare-and-swap on the version read,
 * so of two instances starting different versions at once, the second re-reads and checks again).
 */
import type { Admin } from '../../client/index';
import type { Logger } from '../../services/common/logger';
import { StreamsError } from '../errors';
import type { TopologyDescription } from '../topology/describe';
import { diffTopologies, formatTopologyDiff, type TopologyDiff } from '../topology/diff';
import type { Topology } from '../topology/topology';

/** The application metadata key of the recorded topology. */
export const TOPOLOGY_METADATA_KEY = 'streams.topology';

const FORMAT = 1;
/** Compare-and-swap rounds before giving up (each lost round means another instance just wrote). */
const RECORD_ATTEMPTS_MAX = 10;

/** The recorded entry's value (JSON). */
export interface RecordedTopology {
  format: typeof FORMAT;
  /** describe() without the Mermaid text (made again from the rest). */
  description: Omit<TopologyDescription, 'mermaid'>;
  recordedAtMs: number;
  /** Who recorded it: the instance's client id and host. */
  recordedBy: string;
}

/** Starting would orphan state; `diff` says what, `recorded` what the application ran before. */
export class TopologyChangeError extends StreamsError {
  constructor(
    readonly applicationId: string,
    readonly diff: TopologyDiff,
    readonly recorded: RecordedTopology,
  ) {
    super(
      'TOPOLOGY_CHANGE',
      [
        `the topology of application "${applicationId}" differs from the one it last ran with ` +
          `(recorded ${new Date(recorded.recordedAtMs).toISOString()} by ${recorded.recordedBy}) ` +
          `in a way that would orphan state:`,
        ...formatTopologyDiff(diff).map((line) => `  ${line}`),
        `Keep the old names (name groupings too: groupByKey({ name }) keeps the repartition topic when ` +
          `the aggregation is renamed), or start with { allowTopologyChange: true } to accept the ` +
          `change: the new stores start empty and the old internal topics stay until you delete them.`,
      ].join('\n'),
    );
    this.name = 'TopologyChangeError';
  }
}

export type TopologyRecordOutcome =
  { outcome: 'first' } | { outcome: 'unchanged' } | { outcome: 'changed'; diff: TopologyDiff };

/** Undefined for a value this version cannot read (a newer format, or not JSON). */
export function parseRecordedTopology(value: Buffer): RecordedTopology | undefined {
  try {
    const parsed = JSON.parse(value.toString('utf8')) as Partial<RecordedTopology>;
    if (parsed.format !== FORMAT || typeof parsed.description !== 'object' || parsed.description === null)
      return undefined;
    const d = parsed.description;
    if (!Array.isArray(d.stores) || !Array.isArray(d.internalTopics) || !Array.isArray(d.subtopologies))
      return undefined;
    return parsed as RecordedTopology;
  } catch {
    return undefined;
  }
}

function withoutMermaid(d: TopologyDescription): Omit<TopologyDescription, 'mermaid'> {
  const { mermaid: _mermaid, ...rest } = d;
  return rest;
}

/** Checks the topology against the recorded one and records it (see the file comment). */
export async function checkAndRecordTopology(
  admin: Admin,
  topology: Topology,
  options: { allowTopologyChange: boolean; recordedBy: string; logger: Logger; nowMs?: () => number },
): Promise<TopologyRecordOutcome> {
  const app = topology.applicationId;
  const description = withoutMermaid(topology.describe());
  const mine = JSON.stringify(description);
  const value = (): string =>
    JSON.stringify({
      format: FORMAT,
      description,
      recordedAtMs: (options.nowMs ?? Date.now)(),
      recordedBy: options.recordedBy,
    } satisfies RecordedTopology);
  for (let attempt = 0; attempt < RECORD_ATTEMPTS_MAX; attempt++) {
    const entry = await admin.getApplicationMetadata(app, TOPOLOGY_METADATA_KEY);
    if (!entry) {
      const put = await admin.putApplicationMetadata(app, TOPOLOGY_METADATA_KEY, value(), {
        expectedVersion: 0,
      });
      if (put.applied) {
        options.logger.info({ version: put.version }, 'topology recorded (first start)');
        return { outcome: 'first' };
      }
      continue;
    }
    const recorded = parseRecordedTopology(entry.value);
    if (!recorded) {
      if (!options.allowTopologyChange) {
        throw new StreamsError(
          'TOPOLOGY_CHANGE',
          `application "${app}" has a recorded topology this version cannot read (written by a newer ` +
            `version?); start with { allowTopologyChange: true } to replace it`,
        );
      }
    } else if (JSON.stringify(recorded.description) === mine) {
      return { outcome: 'unchanged' };
    }
    const diff = recorded
      ? diffTopologies(recorded.description, description)
      : diffTopologies({ stores: [], internalTopics: [] }, description);
    if (recorded && diff.orphansState && !options.allowTopologyChange)
      throw new TopologyChangeError(app, diff, recorded);
    const put = await admin.putApplicationMetadata(app, TOPOLOGY_METADATA_KEY, value(), {
      expectedVersion: entry.version,
    });
    if (put.applied) {
      options.logger.info(
        { version: put.version, diff: formatTopologyDiff(diff), orphansState: diff.orphansState },
        'topology changed: recorded',
      );
      return { outcome: 'changed', diff };
    }
  }
  throw new StreamsError(
    'STATE',
    `could not record the topology of "${app}": it kept changing under this instance ` +
      `(${RECORD_ATTEMPTS_MAX} attempts); are instances of different versions starting at once?`,
  );
}
