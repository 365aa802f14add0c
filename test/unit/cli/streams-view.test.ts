/**
 * `tide streams` views from what the cluster holds: applications listed from recorded topologies,
 * tasks from the instances' published status, and — for members that publish none — tasks derived
 * from their partitions and the recorded topology, as the runtime forms them.
 */
import type { ApplicationMetadataEntry, GroupDescription } from '../../../client';
import { Serdes, StreamsBuilder } from '../../../streams';
import {
  streamsDescription,
  streamsListing,
  tasksOfPartitions,
  topologyText,
} from '../../../cli/streams-view';
import type { InstanceStatus, RecordedTopology } from '../../../streams';

const b = new StreamsBuilder({ applicationId: 'wc' });
b.stream('text', { key: Serdes.string, value: Serdes.string })
  .selectKey((_k, w) => w)
  .groupByKey({ key: Serdes.string, value: Serdes.string, name: 'by-word' })
  .count({ name: 'counts' })
  .toStream()
  .to('word-counts', { value: Serdes.number });
const { mermaid: _m, ...description } = b.build().describe();
const recorded: RecordedTopology = { format: 1, description, recordedAtMs: 1_000, recordedBy: 'wc@h' };

function entry(application: string, key: string, value: unknown): ApplicationMetadataEntry {
  const buf = Buffer.from(JSON.stringify(value));
  return { application, key, value: buf, valueBytes: buf.length, version: 1, expiresAtMs: 0 };
}

const status: InstanceStatus = {
  format: 1,
  instance: 'i-0',
  memberId: 'm0',
  clientId: 'wc',
  host: 'h',
  pid: 1,
  state: 'running',
  startedAtMs: 0,
  updatedAtMs: 5,
  commits: 2,
  tasks: [
    {
      id: '1_0',
      inputs: [{ topic: 'wc-by-word-repartition', partition: 0 }],
      recordsIn: 5,
      recordsOut: 5,
      droppedLateRecords: 0,
      streamTimeMs: 99,
      lag: 0,
      restoring: false,
      restoredRecords: 0,
      restoreTotal: 0,
    },
  ],
  windows: [],
  globalTables: [{ store: 'users', topic: 'users', loaded: true, recordsIn: 40, lag: 2 }],
};

const member = (memberId: string, owned: { topic: string; partition: number }[]) => ({
  memberId,
  instanceId: '',
  clientId: 'wc',
  clientHost: 'h',
  memberEpoch: 1,
  topics: [],
  owned,
  revoking: [],
  target: owned,
  connected: true,
  userData: Buffer.alloc(0),
});

it('lists applications that recorded a topology, with their group and instance counts', () => {
  const list = streamsListing(
    [
      entry('wc', 'streams.topology', recorded),
      entry('wc', 'streams.instance.i-0', status),
      entry('other', 'something.else', {}),
    ],
    [{ groupId: 'wc', state: 'STABLE', members: 2, protocol: 'consumer', coordinatorId: 'c1' }],
  );
  expect(list).toEqual([
    {
      application: 'wc',
      state: 'STABLE',
      members: 2,
      instances: 1,
      subtopologies: 2,
      stores: 1,
      recordedAtMs: 1_000,
    },
  ]);
});

it('takes tasks from published status, and derives the tasks of silent members from their partitions', () => {
  const group: GroupDescription = {
    groupId: 'wc',
    state: 'STABLE',
    generation: 3,
    assignor: 'range',
    protocol: 'consumer',
    coordinatorId: 'c1',
    members: [
      member('m0', [
        { topic: 'text', partition: 0 },
        { topic: 'wc-by-word-repartition', partition: 0 },
      ]),
      member('m1', [
        { topic: 'text', partition: 1 },
        { topic: 'wc-by-word-repartition', partition: 1 },
      ]),
    ],
    partitions: [],
  };
  const d = streamsDescription(
    'wc',
    [entry('wc', 'streams.topology', recorded), entry('wc', 'streams.instance.i-0', status)],
    group,
  );
  expect(d.tasks.map((t) => [t.id, t.instance || t.memberId, t.streamTimeMs])).toEqual([
    ['0_1', 'm1', undefined],
    ['1_0', 'i-0', 99],
    ['1_1', 'm1', undefined],
  ]);
  expect(tasksOfPartitions(recorded, [{ topic: 'text', partition: 2 }])).toEqual([
    { id: '0_2', inputs: [{ topic: 'text', partition: 2 }] },
  ]);
  expect(topologyText(recorded).join('\n')).toMatch(/counts \(keyValue, changelog wc-counts-changelog\)/);
  expect(d.globalTables).toEqual([
    { store: 'users', topic: 'users', loaded: true, recordsIn: 40, lag: 2, instance: 'i-0' },
  ]);
  // An entry of a version without global tables on the cluster still reads.
  const { globalTables: _g, ...older } = status;
  const old = streamsDescription(
    'wc',
    [entry('wc', 'streams.instance.i-0', { ...older, instance: 'i-1' })],
    group,
  );
  expect(old.globalTables).toEqual([]);
});
