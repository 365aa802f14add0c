/**
 * The log's replication additions on real files: leader epochs recorded by appends and kept
 * across reopen (checkpoint, rebuild from batch headers, replay past a stale checkpoint),
 * truncation keeping the epochs consistent, and the follower append path (byte-identical copies,
 * contiguity and CRC checks, idempotent-producer state that survives a leader change).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { TideError } from '../../../services/common/errors';
import { LEADER_EPOCH_CHECKPOINT_FILE } from '../../../services/broker/log/leader-epoch-cache';
import type { SegmentedLog } from '../../../services/broker/log/partition-log';
import { OFFSET_RECORDS } from '../../../services/common/records/layout';
import { batchHeaders, buildBatch, withHeader } from '../log/batches';
import { TempDirs, openLog, partitionDir, readAll, testConfig } from '../log/helpers';

const dirs = new TempDirs();
const open: SegmentedLog[] = [];

async function track(log: Promise<SegmentedLog>): Promise<SegmentedLog> {
  const opened = await log;
  open.push(opened);
  return opened;
}

async function reopen(log: SegmentedLog, dataDir: string, config = testConfig()): Promise<SegmentedLog> {
  await log.close();
  return track(openLog(dataDir, config));
}

async function checkpointText(dataDir: string): Promise<string | undefined> {
  try {
    return await fs.readFile(path.join(partitionDir(dataDir), LEADER_EPOCH_CHECKPOINT_FILE), 'ascii');
  } catch {
    return undefined;
  }
}

async function rejection(promise: Promise<unknown>): Promise<TideError> {
  try {
    await promise;
  } catch (err) {
    return err as TideError;
  }
  throw new Error('expected a rejection');
}

/** Appends single-record batches with the given leader epochs. */
async function appendEpochs(log: SegmentedLog, epochs: number[]): Promise<void> {
  for (const leaderEpoch of epochs) await log.append(buildBatch(), { leaderEpoch });
}

afterEach(async () => {
  await Promise.allSettled(open.splice(0).map((l) => l.close()));
  await dirs.cleanup();
});

describe('leader epochs in the log', () => {
  it('assignEpoch records a new leader at the log end and the checkpoint keeps it across reopen', async () => {
    const dataDir = await dirs.make();
    let log = await track(openLog(dataDir));
    await log.assignEpoch(0);
    await appendEpochs(log, [0, 0]);
    await log.assignEpoch(3);
    await appendEpochs(log, [3]);
    await log.flush(); // the checkpoint write is queued ahead of it
    expect(log.epochEntries()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 3, startOffset: 2 },
    ]);
    expect(await checkpointText(dataDir)).toMatch(/^v1 2 [0-9a-f]{8}\n0 0\n3 2\n$/);
    expect(log.endOffsetForEpoch(0)).toEqual({ epoch: 0, endOffset: 2 });
    expect(log.endOffsetForEpoch(3)).toEqual({ epoch: 3, endOffset: 3 });
    log = await reopen(log, dataDir);
    expect(log.epochEntries()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 3, startOffset: 2 },
    ]);
    expect(log.latestEpoch).toBe(3);
  });

  it('appends change the epochs in memory only (no fs call); reopen replays them from batch headers', async () => {
    const dataDir = await dirs.make();
    const config = testConfig({ segmentBytes: 1024 });
    let log = await track(openLog(dataDir, config));
    await log.assignEpoch(0);
    await log.flush();
    // Many segments: some hold one epoch only (skipped by the first/last shortcut), some several.
    const epochs = [...Array(30).fill(0), 1, 1, ...Array(25).fill(2), 5, ...Array(30).fill(7)];
    await appendEpochs(log, epochs);
    expect(log.segmentBaseOffsets().length).toBeGreaterThan(3);
    const expected = [
      { epoch: 0, startOffset: 0 },
      { epoch: 1, startOffset: 30 },
      { epoch: 2, startOffset: 32 },
      { epoch: 5, startOffset: 57 },
      { epoch: 7, startOffset: 58 },
    ];
    expect(log.epochEntries()).toEqual(expected);
    expect(await checkpointText(dataDir)).toMatch(/^v1 1 [0-9a-f]{8}\n0 0\n$/); // stale on purpose
    log = await reopen(log, dataDir, config);
    expect(log.epochEntries()).toEqual(expected);

    // And with no checkpoint at all (a log written before epochs were tracked).
    await log.close();
    await fs.rm(path.join(partitionDir(dataDir), LEADER_EPOCH_CHECKPOINT_FILE));
    log = await track(openLog(dataDir, config));
    expect(log.epochEntries()).toEqual(expected);
  });

  it('a damaged checkpoint is ignored and the epochs are rebuilt', async () => {
    const dataDir = await dirs.make();
    let log = await track(openLog(dataDir));
    await log.assignEpoch(4);
    await appendEpochs(log, [4, 4, 6]);
    await log.assignEpoch(6);
    await log.flush();
    await log.close();
    await fs.writeFile(
      path.join(partitionDir(dataDir), LEADER_EPOCH_CHECKPOINT_FILE),
      'v1 2 00000000\n4 0\n6 2\n',
    );
    log = await track(openLog(dataDir));
    expect(log.epochEntries()).toEqual([
      { epoch: 4, startOffset: 0 },
      { epoch: 6, startOffset: 2 },
    ]);
  });

  it('an epoch assigned at the log end with no batch yet is gone after a reopen (as in Kafka)', async () => {
    const dataDir = await dirs.make();
    let log = await track(openLog(dataDir));
    await appendEpochs(log, [1, 1]);
    await log.assignEpoch(2);
    await log.flush();
    expect(log.latestEpoch).toBe(2);
    log = await reopen(log, dataDir);
    expect(log.epochEntries()).toEqual([{ epoch: 1, startOffset: 0 }]);
  });

  it('leading again after a reopen in the epoch the file names rewrites nothing; another epoch is written', async () => {
    const dataDir = await dirs.make();
    const file = path.join(partitionDir(dataDir), LEADER_EPOCH_CHECKPOINT_FILE);
    let log = await track(openLog(dataDir));
    await log.assignEpoch(3); // an empty partition's first leader
    await log.flush();
    const written = await fs.stat(file);
    log = await reopen(log, dataDir);
    expect(log.epochEntries()).toEqual([]); // no batch of epoch 3: dropped at load, as in Kafka
    await log.assignEpoch(3);
    await log.flush();
    expect(log.epochEntries()).toEqual([{ epoch: 3, startOffset: 0 }]);
    expect((await fs.stat(file)).ino).toBe(written.ino); // the same file: not replaced
    expect(await checkpointText(dataDir)).toMatch(/\n3 0\n$/);
    await log.assignEpoch(4);
    await log.flush();
    expect((await fs.stat(file)).ino).not.toBe(written.ino);
    log = await reopen(log, dataDir);
    await appendEpochs(log, [4]);
    await log.assignEpoch(5);
    await log.flush();
    expect(await checkpointText(dataDir)).toMatch(/\n4 0\n5 1\n$/);
    log = await reopen(log, dataDir);
    expect(log.epochEntries()).toEqual([{ epoch: 4, startOffset: 0 }]);
  });

  it('truncation drops the epochs that start at or after the new end, also when no batch goes', async () => {
    const dataDir = await dirs.make();
    let log = await track(openLog(dataDir));
    await appendEpochs(log, [0, 0, 0, 2, 2, 2, 5, 5]);
    await log.truncateTo(4);
    expect(log.logEndOffset).toBe(4);
    expect(log.epochEntries()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 2, startOffset: 3 },
    ]);
    // A leader epoch assigned at the end, then a truncation to that very end: the empty epoch goes.
    await log.assignEpoch(6);
    await log.truncateTo(4);
    expect(log.logEndOffset).toBe(4);
    expect(log.latestEpoch).toBe(2);
    expect(await checkpointText(dataDir)).toMatch(/\n0 0\n2 3\n$/);
    log = await reopen(log, dataDir);
    expect(log.epochEntries()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 2, startOffset: 3 },
    ]);
  });

  it('truncateFully empties the log, its epochs, and restarts it at the given offset', async () => {
    const dataDir = await dirs.make();
    let log = await track(openLog(dataDir));
    await appendEpochs(log, [0, 1]);
    await log.truncateFully(500);
    expect([log.logStartOffset, log.logEndOffset, log.latestEpoch]).toEqual([500, 500, -1]);
    await log.appendAsFollower(buildBatch({ baseOffset: 500, partitionLeaderEpoch: 3 }));
    log = await reopen(log, dataDir);
    expect([log.logStartOffset, log.logEndOffset]).toEqual([500, 501]);
    expect(log.epochEntries()).toEqual([{ epoch: 3, startOffset: 500 }]);
  });

  it('retention moves the first epoch to the new log start', async () => {
    const dataDir = await dirs.make();
    const config = testConfig({ segmentBytes: 1024, retentionBytes: 1024 });
    const log = await track(openLog(dataDir, config));
    await appendEpochs(log, [...Array(40).fill(1), ...Array(40).fill(2)]);
    await log.applyRetention(Date.now());
    expect(log.logStartOffset).toBeGreaterThan(0);
    const first = log.epochEntries()[0];
    expect(first.startOffset).toBe(log.logStartOffset);
    expect(first.epoch).toBe(log.logStartOffset < 40 ? 1 : 2);
  });
});

describe('appendAsFollower', () => {
  async function leaderAndFollower(
    config = testConfig(),
  ): Promise<{ leader: SegmentedLog; follower: SegmentedLog }> {
    const leader = await track(openLog(await dirs.make(), config));
    const follower = await track(openLog(await dirs.make(), config));
    return { leader, follower };
  }

  it('stores the leader batches byte for byte: offsets, epochs, producer fields', async () => {
    const { leader, follower } = await leaderAndFollower();
    await leader.assignEpoch(0);
    await leader.append(buildBatch({ records: 3 }), { leaderEpoch: 0 });
    await leader.append(buildBatch({ records: 2, producerId: 9, baseSequence: 0 }), { leaderEpoch: 0 });
    await leader.assignEpoch(2);
    await leader.append(buildBatch({ records: 4, producerId: 9, baseSequence: 2 }), { leaderEpoch: 2 });
    const copy = await readAll(leader);
    const result = await follower.appendAsFollower(Buffer.from(copy));
    expect(result).toMatchObject({ baseOffset: 0, lastOffset: 8, duplicate: false });
    expect((await readAll(follower)).equals(copy)).toBe(true);
    expect(follower.logEndOffset).toBe(9);
    expect(follower.epochEntries()).toEqual(leader.epochEntries());
  });

  it('refuses batches that do not start at the log end, a bad CRC, or missing/decreasing epochs, and writes nothing', async () => {
    const { follower } = await leaderAndFollower();
    await follower.appendAsFollower(buildBatch({ baseOffset: 0, records: 2, partitionLeaderEpoch: 1 }));
    const cases: [string, Buffer, string][] = [
      ['a gap', buildBatch({ baseOffset: 5, partitionLeaderEpoch: 1 }), 'INVALID_RECORD'],
      ['an overlap', buildBatch({ baseOffset: 1, partitionLeaderEpoch: 1 }), 'INVALID_RECORD'],
      [
        'a flipped record byte',
        withHeader(
          buildBatch({ baseOffset: 2, partitionLeaderEpoch: 1 }),
          (b) => (b[OFFSET_RECORDS + 2] ^= 0xff),
          true,
        ),
        'CORRUPT_MESSAGE',
      ],
      ['no leader epoch', buildBatch({ baseOffset: 2, partitionLeaderEpoch: -1 }), 'INVALID_RECORD'],
      [
        'epochs going down inside one request',
        Buffer.concat([
          buildBatch({ baseOffset: 2, partitionLeaderEpoch: 3 }),
          buildBatch({ baseOffset: 3, partitionLeaderEpoch: 2 }),
        ]),
        'INVALID_RECORD',
      ],
      [
        'a second batch that does not follow the first',
        Buffer.concat([
          buildBatch({ baseOffset: 2, partitionLeaderEpoch: 1 }),
          buildBatch({ baseOffset: 4, partitionLeaderEpoch: 1 }),
        ]),
        'INVALID_RECORD',
      ],
    ];
    for (const [name, bytes, code] of cases) {
      const err = await rejection(follower.appendAsFollower(bytes));
      expect([name, err.code]).toEqual([name, code]);
    }
    expect(follower.logEndOffset).toBe(2);
    expect(follower.epochEntries()).toEqual([{ epoch: 1, startOffset: 0 }]);
  });

  it('takes batches above max.message.bytes (the leader accepted them under its config)', async () => {
    const follower = await track(openLog(await dirs.make(), testConfig({ maxMessageBytes: 200 })));
    const big = buildBatch({ records: 4, valueBytes: 300, partitionLeaderEpoch: 0 });
    await expect(follower.append(Buffer.from(big), { leaderEpoch: 0 })).rejects.toMatchObject({
      code: 'MESSAGE_TOO_LARGE',
    });
    await follower.appendAsFollower(big);
    expect(follower.logEndOffset).toBe(4);
  });

  it('a compacted log takes a batch that starts after the log end (compaction removed batches on the leader)', async () => {
    const follower = await track(openLog(await dirs.make(), testConfig({ cleanupPolicy: 'compact' })));
    await follower.appendAsFollower(
      buildBatch({ baseOffset: 0, partitionLeaderEpoch: 0, records: [{ key: 'a', value: '1' }] }),
    );
    await follower.appendAsFollower(
      buildBatch({ baseOffset: 7, partitionLeaderEpoch: 0, records: [{ key: 'b', value: '2' }] }),
    );
    expect(follower.logEndOffset).toBe(8);
    expect(batchHeaders(await readAll(follower)).map((h) => h.baseOffset)).toEqual([0, 7]);
    await expect(
      follower.appendAsFollower(
        buildBatch({ baseOffset: 5, partitionLeaderEpoch: 0, records: [{ key: 'c', value: '3' }] }),
      ),
    ).rejects.toMatchObject({ code: 'INVALID_RECORD' });
  });

  it('keeps the idempotent-producer state, so a retry on the new leader is a duplicate and sequences go on', async () => {
    const { leader, follower } = await leaderAndFollower();
    for (let seq = 0; seq < 3; seq++) {
      await leader.append(
        buildBatch({ producerId: 42, producerEpoch: 1, baseSequence: seq * 2, records: 2 }),
        { leaderEpoch: 0 },
      );
    }
    await follower.appendAsFollower(Buffer.from(await readAll(leader)));
    // The follower becomes leader (epoch 1): the producer retries its last batch, then goes on.
    await follower.assignEpoch(1);
    const retry = await follower.append(
      buildBatch({ producerId: 42, producerEpoch: 1, baseSequence: 4, records: 2 }),
      {
        leaderEpoch: 1,
      },
    );
    expect(retry).toMatchObject({ duplicate: true, baseOffset: 4, lastOffset: 5 });
    const next = await follower.append(buildBatch({ producerId: 42, producerEpoch: 1, baseSequence: 6 }), {
      leaderEpoch: 1,
    });
    expect(next).toMatchObject({ duplicate: false, baseOffset: 6 });
    const gap = await rejection(
      follower.append(buildBatch({ producerId: 42, producerEpoch: 1, baseSequence: 9 }), { leaderEpoch: 1 }),
    );
    expect(gap.code).toBe('OUT_OF_ORDER_SEQUENCE');
    // And after a restart (state rebuilt from snapshot + replay of the follower-written batches).
    const dataDir = path.dirname(follower.dir);
    const reopened = await reopen(follower, dataDir);
    const again = await reopened.append(buildBatch({ producerId: 42, producerEpoch: 1, baseSequence: 6 }), {
      leaderEpoch: 1,
    });
    expect(again).toMatchObject({ duplicate: true, baseOffset: 6 });
  });

  it('waits for a truncation in progress and then appends at the new end', async () => {
    const { follower } = await leaderAndFollower();
    await follower.appendAsFollower(
      Buffer.concat([0, 1, 2, 3].map((o) => buildBatch({ baseOffset: o, partitionLeaderEpoch: 0 }))),
    );
    const truncating = follower.truncateTo(2);
    const appended = follower.appendAsFollower(buildBatch({ baseOffset: 2, partitionLeaderEpoch: 1 }));
    await truncating;
    await expect(appended).resolves.toMatchObject({ baseOffset: 2 });
    expect(follower.epochEntries()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 1, startOffset: 2 },
    ]);
  });
});
