/**
 * A standby copy whose checkpoint is past its changelog's end (the changelog was deleted and
 * recreated, shorter): the copy is emptied and reads the new changelog from its start. Before, the
 * consumer's reset to the earliest offset handed it records below the old position, which it
 * skipped, and the old files' keys stayed. A real LMDB store; the consumer is a fake that resets an
 * out-of-range position to the start, as the client does with `autoOffsetReset: 'earliest'`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tide } from '../../../client/index';
import { silentLogger } from '../../../services/common/logger';
import { Serdes } from '../../../streams';
import { writeCheckpoint } from '../../../streams/runtime/checkpoint';
import { StandbyTasks } from '../../../streams/runtime/standby';
import { createStateStore } from '../../../streams/state/factory';
import type { KeyValueStore } from '../../../streams/state/stores';
import type { StoreDef } from '../../../streams/topology/nodes';

const TOPIC = 'app-s-changelog';
const def: StoreDef = {
  name: 's',
  kind: 'keyValue',
  key: Serdes.string as never,
  value: Serdes.string as never,
  persistent: true,
  logged: true,
  global: false,
};
/** The recreated changelog: two records, so its end (2) is below the old checkpoint (5). */
const RECORDS: [string, string][] = [
  ['a', 'A'],
  ['b', 'B'],
];

/** A consumer over RECORDS that starts an out-of-range position over from offset 0. */
function fakeTide(): { tide: Tide; assigned: number[] } {
  const assigned: number[] = [];
  let wake: (() => void) | undefined;
  let pending: number | undefined;
  let closed = false;
  const consumer = {
    listOffset: () =>
      new Promise((resolve) => setTimeout(() => resolve({ offset: RECORDS.length, logStartOffset: 0 }), 20)),
    assign(tps: { offset?: number }[]) {
      const offset = tps[0]?.offset;
      if (offset === undefined) return;
      assigned.push(offset);
      pending = offset;
      wake?.();
    },
    position: () => undefined,
    close: () => {
      closed = true;
      wake?.();
      return Promise.resolve();
    },
    async *batches() {
      for (;;) {
        if (pending === undefined) await new Promise<void>((resolve) => (wake = resolve));
        if (closed) return;
        const offset = pending!;
        pending = undefined;
        const from = offset > RECORDS.length ? 0 : offset;
        yield {
          topic: TOPIC,
          partition: 0,
          nextOffset: RECORDS.length,
          highWatermark: RECORDS.length,
          forEachRecord(visit: (o: number, ts: number, k: Buffer | null, v: Buffer | null) => void) {
            for (let o = from; o < RECORDS.length; o++)
              visit(o, o, Buffer.from(RECORDS[o][0]), Buffer.from(RECORDS[o][1]));
          },
        };
      }
    },
  };
  return { tide: { consumer: () => consumer } as unknown as Tide, assigned };
}

it('empties the copy and reads the recreated changelog from its start', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'tide-standby-'));
  try {
    // The copy's files from before: a key the new changelog lacks, and a checkpoint at offset 5.
    const old = createStateStore(def, join(stateDir, '0_0', 's')) as KeyValueStore<string, string>;
    old.put('stale', 'x');
    old.close();
    writeCheckpoint(stateDir, '0_0', { [TOPIC]: 5 });

    const { tide, assigned } = fakeTide();
    const standbys = new StandbyTasks({
      tide,
      applicationId: 'app',
      readCommitted: false,
      stateDir,
      logger: silentLogger(),
      storesOf: () => [def],
      createStore: (d, taskId, onChange) => createStateStore(d, join(stateDir, taskId, d.name), onChange),
      isActive: () => false,
      onCaughtUpChanged: () => undefined,
      acceptableRecoveryLag: 0,
    });
    standbys.set(['0_0'], new Set());
    const deadline = Date.now() + 5_000;
    while (standbys.recordsApplied < RECORDS.length && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(assigned).toEqual([5, 0]);
    const slots = standbys.release('0_0')!;
    const slot = slots.get('s')!;
    const store = slot.store as KeyValueStore<string, string>;
    expect(slot.position).toBe(RECORDS.length);
    expect([store.get('a'), store.get('b'), store.get('stale')]).toEqual(['A', 'B', null]);
    store.close();
    await standbys.close();
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});
