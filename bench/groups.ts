/**
 * `npm run bench:groups`: how long consumer group rebalances take. A `tide dev` runs as its own
 * process (with its coordinator); group members are separate processes reading a topic while this
 * process produces to every partition. Each round measures:
 *
 * - join:  a new member sends its Join (process start-up excluded) → its first assignment arrives,
 *          and → the group is balanced again (every partition owned once, the new member holding
 *          its share: the revocations done);
 * - leave: a member closes gracefully (SIGTERM: commit, leave) → its partitions are owned again;
 * - death: a member is SIGKILLed → its partitions are owned again (bounded below by the session
 *          timeout: the coordinator cannot tell a dead member from a slow one sooner).
 *
 *   npm run bench:groups -- [--members 3] [--partitions 12] [--session-ms 3000] [--rounds 5]
 */
import { ChildProcess, spawn } from 'child_process';
import * as path from 'path';
import { Tide } from '../client';
import { REPO_ROOT, makeTempDir, startTide } from '../test/harness/processes';
import { percentile } from './stats';

interface Options {
  members: number;
  partitions: number;
  sessionMs: number;
  rounds: number;
}

function parseArgs(argv: string[]): Options {
  const options: Options = { members: 3, partitions: 12, sessionMs: 3_000, rounds: 5 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], Number(argv[i + 1])];
    if (flag === '--members') options.members = value;
    else if (flag === '--partitions') options.partitions = value;
    else if (flag === '--session-ms') options.sessionMs = value;
    else if (flag === '--rounds') options.rounds = value;
    else throw new Error(`unknown flag ${flag}; see the header of bench/groups.ts`);
  }
  return options;
}

const MEMBER = `
const [dist, bootstrap, group, topic, sessionTimeoutMs] = process.argv.slice(1);
const { Tide } = require(dist + '/client');
const out = (o) => process.stdout.write(JSON.stringify({ t: Date.now(), ...o }) + '\\n');
const tide = new Tide({ bootstrap: [bootstrap] });
const ids = (ps) => ps.map((p) => p.partition);
const member = tide.consumer({
  groupId: group, autoOffsetReset: 'latest', sessionTimeoutMs: Number(sessionTimeoutMs),
  onAssigned: (ps) => out({ ev: 'assigned', ps: ids(ps) }),
  onRevoked: (ps) => out({ ev: 'revoked', ps: ids(ps) }),
  onLost: (ps) => out({ ev: 'lost', ps: ids(ps) }),
});
member.subscribe([topic]);
out({ ev: 'started', ps: [] });
process.on('SIGTERM', () => member.close().then(() => tide.close()).then(() => process.exit(0)));
(async () => { for await (const _ of member) {} })();
`;

class Member {
  readonly owned = new Set<number>();
  firstAssignedAt?: number;
  /** When the process had started and sent its Join (node start-up excluded from the timings). */
  startedAt?: number;
  private exited: Promise<void>;

  constructor(readonly child: ChildProcess) {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        const e = JSON.parse(buffer.slice(0, nl)) as { t: number; ev: string; ps: number[] };
        buffer = buffer.slice(nl + 1);
        if (e.ev === 'started') {
          this.startedAt = e.t;
        } else if (e.ev === 'assigned') {
          this.firstAssignedAt ??= e.t;
          for (const p of e.ps) this.owned.add(p);
        } else {
          for (const p of e.ps) this.owned.delete(p);
        }
      }
    });
    this.exited = new Promise((resolve) => child.on('exit', () => resolve()));
  }

  async stop(signal: NodeJS.Signals): Promise<void> {
    this.child.kill(signal);
    await this.exited;
  }
}

async function until(check: () => boolean, what: string, timeoutMs = 60_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  return Date.now();
}

function balanced(members: Member[], partitions: number): boolean {
  const held = members.flatMap((m) => [...m.owned]);
  const share = Math.floor(partitions / members.length);
  return (
    held.length === partitions &&
    new Set(held).size === partitions &&
    members.every((m) => m.owned.size >= share)
  );
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const node = await startTide(['dev', '--data', makeTempDir('tide-bench-groups-'), '--port', '0']);
  const tide = new Tide({ bootstrap: [node.address] });
  const spawnMember = () =>
    new Member(
      spawn(
        process.execPath,
        [
          '-e',
          MEMBER,
          path.join(REPO_ROOT, 'dist'),
          node.address,
          'bench',
          'bench',
          String(options.sessionMs),
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      ),
    );
  const members: Member[] = [];
  const results = {
    joinFirst: [] as number[],
    joinBalanced: [] as number[],
    leave: [] as number[],
    death: [] as number[],
  };
  let producing = true;
  try {
    await tide.admin().createTopic('bench', { partitions: options.partitions });
    const producer = tide.producer({ lingerMs: 0 });
    const load = (async () => {
      for (let i = 0; producing; i++) {
        await Promise.all(
          Array.from({ length: options.partitions }, (_, partition) =>
            producer.send('bench', { value: String(i), partition }).catch(() => undefined),
          ),
        );
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    for (let i = 0; i < options.members; i++) {
      members.push(spawnMember());
      await until(() => balanced(members, options.partitions), 'the group to form');
    }
    for (let round = 1; round <= options.rounds; round++) {
      // join
      const newcomer = spawnMember();
      members.push(newcomer);
      await until(() => newcomer.firstAssignedAt !== undefined, 'the newcomer to get partitions');
      const joinedAt = newcomer.startedAt!;
      results.joinFirst.push(newcomer.firstAssignedAt! - joinedAt);
      results.joinBalanced.push(
        (await until(() => balanced(members, options.partitions), 'balance')) - joinedAt,
      );
      // graceful leave
      const leaving = members.splice(0, 1)[0];
      const leftAt = Date.now();
      await leaving.stop('SIGTERM');
      results.leave.push((await until(() => balanced(members, options.partitions), 'balance')) - leftAt);
      // death
      members.push(spawnMember());
      await until(() => balanced(members, options.partitions), 'balance');
      const victim = members.splice(0, 1)[0];
      const killedAt = Date.now();
      await victim.stop('SIGKILL');
      results.death.push((await until(() => balanced(members, options.partitions), 'balance')) - killedAt);
      process.stderr.write(`round ${round}/${options.rounds} done\n`);
    }
    producing = false;
    await load;
  } finally {
    producing = false;
    for (const m of members) await m.stop('SIGKILL');
    await tide.close();
    await node.stop();
  }
  const row = (name: string, samples: number[]) =>
    `| ${name.padEnd(52)} | ${String(percentile(samples, 50)).padStart(6)} | ${String(Math.max(...samples)).padStart(6)} |`;
  process.stdout.write(
    [
      `Consumer group rebalances: tide dev, ${options.members} members, ${options.partitions} partitions, ` +
        `session timeout ${options.sessionMs} ms, ${options.rounds} rounds, records flowing (ms)`,
      '',
      `| ${'event'.padEnd(52)} | median |    max |`,
      `| ${'-'.repeat(52)} | -----: | -----: |`,
      row('member joins: its first partitions arrive', results.joinFirst),
      row('member joins: group balanced (revocations done)', results.joinBalanced),
      row('member leaves (SIGTERM): its partitions owned again', results.leave),
      row(`member dies (SIGKILL): partitions owned again`, results.death),
      '',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
