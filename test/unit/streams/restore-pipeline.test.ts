/**
 * restoreStore with an applier whose writes finish in the background (an LMDB store's queued
 * restore): the next chunk is applied while the previous one's writes run, never more than two
 * chunks are outstanding, restore returns only once the last chunk's writes are done, and a failed
 * write fails the restore. The consumer is a fake that hands out fixed chunks.
 */
import type { Tide } from '../../../client/index';
import { restoreStore, type ChangelogChunk } from '../../../streams/runtime/restore';

const TP = { topic: 'app-c-changelog', partition: 0 };
const PER_CHUNK = 10;

/** A Tide whose consumer reads `chunks` chunks of PER_CHUNK keyed records. */
function fakeTide(chunks: number): Tide {
  const end = chunks * PER_CHUNK;
  let position = 0;
  const consumer = {
    listOffset: () => Promise.resolve({ offset: end, logStartOffset: 0 }),
    assign: () => undefined,
    position: () => position,
    close: () => Promise.resolve(),
    async *batches() {
      for (let from = 0; from < end; from += PER_CHUNK) {
        await Promise.resolve();
        position = from + PER_CHUNK;
        yield {
          ...TP,
          nextOffset: from + PER_CHUNK,
          forEachRecord(
            visit: (offset: number, ts: number, key: Buffer | null, value: Buffer | null) => void,
          ) {
            for (let o = from; o < from + PER_CHUNK; o++) visit(o, o, Buffer.from(`k${o}`), Buffer.from('v'));
          },
        };
      }
    },
  };
  return { consumer: () => consumer } as unknown as Tide;
}

/** An applier whose writes settle only when the test says so. */
function backgroundApplier() {
  const writes: { records: number; settle: (err?: Error) => void; done: boolean }[] = [];
  const apply = (chunk: ChangelogChunk): Promise<void> => {
    let records = 0;
    chunk.visit(() => records++);
    return new Promise<void>((resolve, reject) => {
      const w = {
        records,
        done: false,
        settle: (err?: Error) => {
          w.done = true;
          if (err) reject(err);
          else resolve();
        },
      };
      writes.push(w);
    });
  };
  const outstanding = () => writes.filter((w) => !w.done).length;
  return { apply, writes, outstanding };
}

const turns = async (n = 20) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('a restore whose writes finish in the background', () => {
  it('applies the next chunk meanwhile, keeps at most two outstanding, and ends after the last', async () => {
    const a = backgroundApplier();
    let finished = false;
    const result = restoreStore({ tide: fakeTide(4), tp: TP, from: 0, apply: a.apply }).then((r) => {
      finished = true;
      return r;
    });
    await turns();
    expect(a.writes.map((w) => w.records)).toEqual([PER_CHUNK, PER_CHUNK]);
    expect(a.outstanding()).toBe(2); // the second chunk applied while the first's writes run
    for (let i = 0; i < 4; i++) {
      a.writes[i]!.settle();
      await turns();
      expect(a.outstanding()).toBeLessThanOrEqual(2);
    }
    expect(a.writes).toHaveLength(4);
    expect(finished).toBe(true);
    expect(await result).toMatchObject({ restored: 4 * PER_CHUNK, total: 4 * PER_CHUNK, end: 4 * PER_CHUNK });
  });

  it('does not end before the last chunk is written', async () => {
    const a = backgroundApplier();
    let finished = false;
    void restoreStore({ tide: fakeTide(2), tp: TP, from: 0, apply: a.apply }).then(() => (finished = true));
    await turns();
    a.writes[0]!.settle();
    await turns();
    expect(a.writes).toHaveLength(2);
    expect(finished).toBe(false);
    a.writes[1]!.settle();
    await turns();
    expect(finished).toBe(true);
  });

  it("fails with a chunk's failed write, also one that failed while the next chunk was fetched", async () => {
    const a = backgroundApplier();
    const failed = restoreStore({ tide: fakeTide(3), tp: TP, from: 0, apply: a.apply });
    const seen = failed.catch((err: unknown) => err);
    await turns();
    a.writes[1]!.settle(new Error('disk full')); // the second fails before the first is done
    await turns();
    a.writes[0]!.settle();
    expect(await seen).toEqual(new Error('disk full'));
  });
});
