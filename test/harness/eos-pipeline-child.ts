/**
 * An exactly-once consume → transform → produce pipeline in its own process (so a test can
 * SIGKILL it mid-stream): consumes `input` in group `group` with read_committed and no auto
 * commit, and for each batch sends the transformed records to `output` and the batch's next
 * offset (sendOffsets) in one transaction. Restarting it with the same transactional id fences
 * the killed instance and aborts its open transaction.
 * Run from dist/: `node dist/test/harness/eos-pipeline-child.js <bootstrap> <input> <output> <group> <transactionalId>`.
 * Prints one JSON line per committed transaction: {"ev":"committed","records":n}.
 */
import { Tide, type ConsumerRecord } from '../../client';

/** Records per transaction at most. */
const BATCH = 25;

async function main(): Promise<void> {
  const [bootstrap, input, output, group, transactionalId] = process.argv.slice(2);
  if (!transactionalId)
    throw new Error('usage: eos-pipeline-child <bootstrap> <input> <output> <group> <transactionalId>');
  const tide = new Tide({ bootstrap: bootstrap.split(','), clientId: transactionalId });
  const producer = tide.producer({ transactionalId, lingerMs: 0 });
  await producer.initTransactions();
  const consumer = tide.consumer({
    groupId: group,
    autoCommit: false,
    isolation: 'read_committed',
    autoOffsetReset: 'earliest',
    sessionTimeoutMs: 3_000,
  });
  // The input is complete before the pipeline starts: a partition's last record ends a batch.
  const reader = tide.consumer();
  const partitions = (await tide.cluster.topicMetadata(input, true)).partitions.map((p) => p.partition);
  const ends = new Map<number, number>();
  for (const partition of partitions)
    ends.set(partition, (await reader.listOffset({ topic: input, partition }, 'latest')).offset);
  await reader.close();
  consumer.subscribe([input]);
  process.stdout.write(JSON.stringify({ ev: 'started' }) + '\n');
  let batch: ConsumerRecord[] = [];
  for await (const r of consumer) {
    batch.push(r);
    if (batch.length < BATCH && r.offset + 1 < (ends.get(r.partition) ?? 0)) continue;
    const records = batch;
    batch = [];
    const next = new Map<number, number>();
    for (const x of records) next.set(x.partition, Math.max(next.get(x.partition) ?? 0, x.offset + 1));
    await producer.transaction(async (tx) => {
      await Promise.all(
        records.map((x) =>
          tx.send(output, { key: x.key, value: `out:${String(x.value)}` }, { partition: x.partition }),
        ),
      );
      await tx.sendOffsets(
        consumer.groupMetadata(),
        [...next].map(([partition, offset]) => ({ topic: input, partition, offset })),
      );
    });
    process.stdout.write(JSON.stringify({ ev: 'committed', records: records.length }) + '\n');
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${String((err as Error).stack ?? err)}\n`);
  process.exit(1);
});
