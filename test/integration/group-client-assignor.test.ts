/**
 * The `client` assignor end to end against a real `tide dev` (its in-process coordinator): the
 * leader member's function decides from every member's user data; assignment data reaches each
 * member; DescribeGroup shows user data; a user-data change makes the leader assign again; and no
 * partition is ever held by two members (a revoked partition is not brought back by an Assignment
 * sent before the coordinator saw the revocation, which data-only assignments make common).
 */
import { Tide, type ClientAssignment, type ClientAssignorInput, type GroupConsumer } from '../../client';
import { makeTempDir, startTide, waitFor, type TideProcess } from '../harness/processes';

jest.setTimeout(60_000);

let node: TideProcess;
let tide: Tide;
const members: GroupConsumer[] = [];

beforeAll(async () => {
  node = await startTide(['dev', '--data', makeTempDir(), '--port', '0']);
  tide = new Tide({ bootstrap: [node.address] });
  await tide.admin().createTopic('ca', { partitions: 4 });
});

afterAll(async () => {
  for (const m of members) await m.close().catch(() => undefined);
  await tide?.close();
  await node?.stop();
});

/**
 * Warm members share the partitions (by member id order); cold ones get none, as a warm-up would.
 * The data names the generation, so every member hears from every new one.
 */
function assign(input: ClientAssignorInput): ClientAssignment {
  const warm = input.members.filter((m) => m.userData.toString() !== 'cold').map((m) => m.memberId);
  warm.sort();
  const out: ClientAssignment = new Map(
    input.members.map((m) => [
      m.memberId,
      { partitions: [], userData: Buffer.from(`for ${m.memberId} in ${input.generation}`) },
    ]),
  );
  const count = input.partitionCounts.get('ca') ?? 0;
  for (let p = 0; p < count && warm.length > 0; p++)
    out.get(warm[p % warm.length])!.partitions.push({ topic: 'ca', partition: p });
  return out;
}

const holders = new Map<number, Set<string>>();
const violations: string[] = [];
const data = new Map<string, string>();

function join(tag: string, userData: string): GroupConsumer {
  const m: GroupConsumer = tide.consumer({
    groupId: 'client-assigned',
    clientId: tag,
    sessionTimeoutMs: 3_000,
    assignor: 'client',
    clientAssignor: assign,
    userData: Buffer.from(userData),
    onAssigned: (tps) => {
      for (const tp of tps) {
        const set = holders.get(tp.partition) ?? new Set<string>();
        if (set.size > 0) violations.push(`${tag} got ${tp.partition} held by ${[...set]}`);
        set.add(tag);
        holders.set(tp.partition, set);
      }
    },
    onRevoked: (tps) => {
      for (const tp of tps) holders.get(tp.partition)?.delete(tag);
    },
    onLost: (tps) => {
      for (const tp of tps) holders.get(tp.partition)?.delete(tag);
    },
    onAssignmentData: (d) => {
      data.set(tag, d.toString());
    },
  });
  m.subscribe(['ca']);
  void (async () => {
    for await (const _ of m) void _;
  })().catch(() => undefined);
  members.push(m);
  return m;
}

const held = (tag: string) =>
  [...holders]
    .filter(([, s]) => s.has(tag))
    .map(([p]) => p)
    .sort();

it('the leader assigns from user data; a user-data change moves partitions; never two holders', async () => {
  const a = join('a', 'warm');
  await waitFor(() => held('a').length === 4, { what: `a holds every partition (${held('a')})` });
  await waitFor(() => data.get('a')?.startsWith(`for ${a.memberId} in `), {
    what: 'assignment data reaches a',
  });

  const b = join('b', 'cold');
  await waitFor(() => data.get('b')?.startsWith(`for ${b.memberId} in `), {
    what: 'assignment data reaches b',
  });
  const described = await tide.groups().describeGroup('client-assigned');
  expect(described.assignor).toBe('client');
  expect(described.members.map((m) => m.userData.toString()).sort()).toEqual(['cold', 'warm']);
  expect(held('b')).toEqual([]);
  expect(held('a')).toHaveLength(4);

  b.setUserData(Buffer.from('warm'));
  await waitFor(() => held('a').length === 2 && held('b').length === 2, {
    what: `a and b share (a: ${held('a')}, b: ${held('b')})`,
  });

  await a.close();
  await waitFor(() => held('b').length === 4, {
    what: `b holds every partition after a left (${held('b')})`,
  });
  expect(violations).toEqual([]);
});
