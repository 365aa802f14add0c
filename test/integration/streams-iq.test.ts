/**
 * Interactive queries and standby replicas against real processes: real etcd, a controller, a
 * broker and a group coordinator (test/harness), and the word count (store `counts`) running in
 * child processes with `numStandbys: 1` and a query server each (streams-harness.ts).
 *
 * 1. Two instances, a 6-partition input: every word is queried through each instance's
 *    StreamsQuery Get (the instance routes it to the owner) and equals the model; `All` through
 *    either instance returns the whole model; each stateful task has a standby copy on the other.
 * 2. SIGKILL of one instance: until the group moves its tasks, a query of its keys gets the
 *    retriable STORE_NOT_AVAILABLE, never a wrong answer (one that allows stale answers is
 *    answered from the survivor's standby copies); then the survivor takes its tasks over
 *    from its standby copies, reading far fewer changelog records than the changelog holds
 *    (counted from the restore events), and answers every key with the model's count.
 * 3. A third instance joins: its stateful tasks come to it only once its copies are warm (their
 *    restores read next to nothing), and queries through either instance meanwhile are the model's
 *    answer or retriable, never wrong.
 */
import * as grpc from '@grpc/grpc-js';
import { Serdes } from '../../streams';
import { streamsProto } from '../../services/common/grpc/streams-proto';
import { fromGrpcError } from '../../services/common/grpc/status';
import type { StreamsQueryClient } from '../../services/common/grpc/generated/tide/v1/StreamsQuery';
import type { StoreGetResponse } from '../../services/common/grpc/generated/tide/v1/StoreGetResponse';
import type { StoreAllResponse } from '../../services/common/grpc/generated/tide/v1/StoreAllResponse';
import { TideError } from '../../services/common/errors';
import { waitFor } from '../harness/processes';
import type { AppProcess } from './streams-harness';
import { WordCountFixture } from './streams-word-count';

jest.setTimeout(180_000);

const APP = 'iq';
const PARTITIONS = 6;
const WORDS = Array.from({ length: 60 }, (_, i) => `w${i}`);
const STATEFUL = Array.from({ length: PARTITIONS }, (_, p) => `1_${p}`);

const fixture = new WordCountFixture({
  appId: APP,
  stateDirPrefix: 'tide-streams-iq-',
  wordsOfLine: (line) => Array.from({ length: 5 }, (_, j) => WORDS[(line * 7 + j * 3) % WORDS.length]),
  sessionTimeoutMs: 6_000,
  partitions: PARTITIONS,
});
const { expected } = fixture;
const apps: Record<string, AppProcess> = {};
const clients = new Map<string, StreamsQueryClient>();

beforeAll(() => fixture.start());

afterAll(async () => {
  for (const c of clients.values()) c.close();
  await fixture.stop();
});

const produce = (n: number) => fixture.produce(n);
const start = (tag: string) => fixture.startApp(tag, { numStandbys: 1, query: true });

function client(endpoint: string): StreamsQueryClient {
  let c = clients.get(endpoint);
  if (!c) {
    c = new (streamsProto().StreamsQuery)(endpoint, grpc.credentials.createInsecure());
    clients.set(endpoint, c);
  }
  return c;
}

/** Get of `word` through the instance at `endpoint` (which routes it): the count, or the TideError. */
function get(
  endpoint: string,
  word: string,
  allowStale = false,
): Promise<{ count: number | null; servedBy: string } | TideError> {
  return new Promise((resolve) => {
    client(endpoint).Get(
      { application_id: APP, store: 'counts', key: Serdes.string.serialize(word), allow_stale: allowStale },
      { deadline: Date.now() + 10_000 },
      (err: grpc.ServiceError | null, res?: StoreGetResponse) => {
        if (err) return resolve(fromGrpcError(err));
        resolve({
          count: res!.found ? Serdes.number.deserialize(Buffer.from(res!.value)) : null,
          servedBy: res!.served_by,
        });
      },
    );
  });
}

function all(endpoint: string): Promise<Map<string, number>> {
  return new Promise((resolve, reject) => {
    client(endpoint).All(
      { application_id: APP, store: 'counts' },
      { deadline: Date.now() + 10_000 },
      (err: grpc.ServiceError | null, res?: StoreAllResponse) => {
        if (err) return reject(fromGrpcError(err));
        resolve(
          new Map(
            res!.entries.map((e) => [
              Serdes.string.deserialize(Buffer.from(e.key)),
              Serdes.number.deserialize(Buffer.from(e.value)),
            ]),
          ),
        );
      },
    );
  });
}

async function changelogRecords(tasks: string[]): Promise<number> {
  const d = await fixture.tide.admin().describeTopic(`${APP}-counts-changelog`);
  return d.status.filter((s) => tasks.includes(`1_${s.partition}`)).reduce((n, s) => n + s.highWatermark, 0);
}

const exact = () => fixture.exact();

it('two instances: every key queried through either instance equals the model; standbys on the other', async () => {
  apps.a = start('a');
  apps.b = start('b');
  const layout = () => [...apps.a.tasks(), ...apps.b.tasks()].sort().join();
  const want = [...Array.from({ length: PARTITIONS }, (_, p) => `0_${p}`), ...STATEFUL].sort().join();
  // Stateful tasks move to the second instance once its warm-up copies caught up.
  await waitFor(
    () =>
      layout() === want &&
      apps.a.tasks().some((t) => t.startsWith('1_')) &&
      apps.b.tasks().some((t) => t.startsWith('1_')) &&
      apps.a.settled() &&
      apps.b.settled(),
    { timeoutMs: 60_000, what: `tasks spread over both instances (${layout()})` },
  );
  await produce(2_000);
  await waitFor(exact, { timeoutMs: 60_000, what: 'exact counts after 2000 lines' });
  const endpoints = [apps.a.endpoint(), apps.b.endpoint()];
  expect(endpoints.every((e) => /^127\.0\.0\.1:\d+$/.test(e))).toBe(true);
  const servers = new Set<string>();
  for (const endpoint of endpoints) {
    for (const [word, n] of expected) {
      const r = await get(endpoint, word);
      if (r instanceof TideError) throw r;
      if (r.count !== n) {
        // Diagnostics (STREAMS_TEST_APP_LOG=info adds the instances' logs).
        for (const app of [apps.a, apps.b]) {
          const events = app.events.filter((e) => e.ev !== 'metrics');
          console.log(
            app.tag,
            JSON.stringify(events),
            app.tasks(),
            app.standbys(),
            app.output().slice(-5_000),
          );
        }
      }
      expect({ word, count: r.count, by: r.servedBy }).toEqual({ word, count: n, by: r.servedBy });
      servers.add(r.servedBy);
    }
    expect(await all(endpoint)).toEqual(expected);
  }
  // Both instances own some keys, and each answered for the other's through routing.
  expect([...servers].sort()).toEqual([...endpoints].sort());
  // Every stateful task has one standby copy, on the instance that does not run it.
  await waitFor(
    () =>
      STATEFUL.every((t) =>
        apps.a.tasks().includes(t) ? apps.b.standbys().includes(t) : apps.a.standbys().includes(t),
      ),
    { timeoutMs: 20_000, what: `standbys (a: ${apps.a.standbys()}, b: ${apps.b.standbys()})` },
  );
  expect(apps.a.errors().concat(apps.b.errors())).toEqual([]);
});

it('SIGKILL: queries of the dead instance keys are retriable, then the survivor takes over from its standbys', async () => {
  const bStateful = apps.b.tasks().filter((t) => t.startsWith('1_'));
  expect(bStateful.length).toBeGreaterThan(0);
  await produce(1_000);
  await waitFor(exact, { timeoutMs: 60_000, what: 'exact counts after 3000 lines' });
  // Every input offset committed (at-least-once would otherwise count b's last records twice).
  await waitFor(
    async () => {
      const d = await fixture.tide.groups().describeGroup(APP);
      return d.partitions.length > 0 && d.partitions.every((p) => p.lag === 0);
    },
    { timeoutMs: 30_000, what: 'the group committed all its input' },
  );
  const bEndpoint = apps.b.endpoint();
  const restoresBefore = apps.a.restores().length;
  await apps.b.stop('SIGKILL');

  // Until the group moves b's tasks, a still routes b's keys to b: retriable errors, no wrong answers.
  let retriable = 0;
  const unavailable = new Set<string>();
  for (const [word, n] of expected) {
    const r = await get(apps.a.endpoint(), word);
    if (r instanceof TideError) {
      expect(r.code).toBe('STORE_NOT_AVAILABLE');
      expect(r.retriable).toBe(true);
      retriable++;
      unavailable.add(word);
    } else {
      expect(r.count).toBe(n);
      expect(r.servedBy).not.toBe(bEndpoint);
    }
  }
  expect(retriable).toBeGreaterThan(0);
  // Allowing stale answers, a answers b's keys from its standby copies meanwhile: never more than
  // the model's count (a copy may lag), never from b.
  let fromCopies = 0;
  for (const [word, n] of expected) {
    const r = await get(apps.a.endpoint(), word, true);
    if (r instanceof TideError) {
      expect(r.retriable).toBe(true); // the copy just became the active task and restores
      continue;
    }
    expect(r.count).not.toBeNull();
    expect(r.count!).toBeLessThanOrEqual(n);
    expect(r.servedBy).toBe(apps.a.endpoint());
    if (unavailable.has(word)) fromCopies++;
  }
  expect(fromCopies).toBeGreaterThan(0);

  await waitFor(() => apps.a.tasks().length === 2 * PARTITIONS && apps.a.settled(), {
    timeoutMs: 60_000,
    what: `a takes over every task (has ${apps.a.tasks()})`,
  });
  // The takeover restored only what the standby copies had not applied yet.
  const takeover = apps.a
    .restores()
    .slice(restoresBefore)
    .filter((e) => e.store === 'counts' && bStateful.includes(e.task!));
  expect(takeover.map((e) => e.task).sort()).toEqual([...bStateful].sort());
  const read = takeover.reduce((n, e) => n + (e.restored ?? 0), 0);
  const inChangelog = await changelogRecords(bStateful);
  console.log(`takeover read ${read} changelog records; the moved tasks' changelogs hold ${inChangelog}`);
  expect(inChangelog).toBeGreaterThan(2_000);
  expect(read * 20).toBeLessThan(inChangelog);

  // Every key now answers from a, with the model's count (all input was committed at the kill).
  for (const [word, n] of expected) {
    let r = await get(apps.a.endpoint(), word);
    for (let i = 0; r instanceof TideError && r.retriable && i < 50; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      r = await get(apps.a.endpoint(), word);
    }
    if (r instanceof TideError) throw r;
    expect({ word, count: r.count }).toEqual({ word, count: n });
  }
  expect(apps.a.errors()).toEqual([]);
});

it('a new instance warms up before it takes stateful tasks; queries meanwhile are right or retriable', async () => {
  apps.c = start('c');
  await waitFor(() => apps.c.endpoint() !== '', { timeoutMs: 30_000, what: 'c started' });
  const restoresBefore = apps.c.restores().length;
  const wrong: string[] = [];
  let right = 0;
  let retriable = 0;
  const moved = () =>
    apps.c.tasks().filter((t) => t.startsWith('1_')).length === PARTITIONS / 2 &&
    apps.a.tasks().length + apps.c.tasks().length === 2 * PARTITIONS &&
    apps.a.settled() &&
    apps.c.settled();
  // Query every key through both instances while the tasks move (bounded by the waitFor below).
  const querying = (async () => {
    while (!moved()) {
      for (const [word, n] of expected) {
        for (const endpoint of [apps.a.endpoint(), apps.c.endpoint()]) {
          const r = await get(endpoint, word);
          if (r instanceof TideError) {
            if (r.retriable && r.code === 'STORE_NOT_AVAILABLE') retriable++;
            else wrong.push(`${word} via ${endpoint}: ${r.code} ${r.message}`);
          } else if (r.count !== n) wrong.push(`${word} via ${endpoint}: ${r.count}, model ${n}`);
          else right++;
        }
        if (moved()) break;
      }
    }
  })();
  await waitFor(moved, {
    timeoutMs: 90_000,
    what: `c takes its share of stateful tasks (a: ${apps.a.tasks()}, c: ${apps.c.tasks()})`,
  });
  await querying;
  console.log(
    `during the move: ${right} right answers, ${retriable} retriable refusals, ${wrong.length} wrong`,
  );
  expect(wrong).toEqual([]);
  // Its stateful tasks came to c once warm: their restores read only the copies' remainder.
  const cStateful = apps.c.tasks().filter((t) => t.startsWith('1_'));
  const restores = apps.c
    .restores()
    .slice(restoresBefore)
    .filter((e) => e.store === 'counts' && cStateful.includes(e.task!));
  const read = restores.reduce((n, e) => n + (e.restored ?? 0), 0);
  const inChangelog = await changelogRecords(cStateful);
  console.log(`c's tasks restored ${read} changelog records; their changelogs hold ${inChangelog}`);
  expect(read * 20).toBeLessThan(inChangelog);
  for (const [word, n] of expected) {
    const r = await get(apps.c.endpoint(), word);
    if (r instanceof TideError) throw r;
    expect({ word, count: r.count }).toEqual({ word, count: n });
  }
  expect(apps.a.errors().concat(apps.c.errors())).toEqual([]);
});
