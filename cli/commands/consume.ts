/**
 * `tide consume TOPIC`: print records from a start position, as text or JSON lines; with `--group G`,
 * as a member of consumer group G (the group assigns partitions and remembers where it left off).
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import type { ConsumerRecord, TopicPartition } from '../../client';
import { action, addBootstrap, parseInteger, withClient } from '../common';

interface ConsumeOptions {
  group?: string;
  fromBeginning?: boolean;
  offset?: number;
  fromTime?: number;
  partition?: number;
  maxMessages?: number;
  timeoutMs?: number;
  format: 'text' | 'json';
  printKey?: boolean;
  keySeparator: string;
  bootstrap: string;
}

/** Accepts milliseconds since the epoch or an ISO-8601 date. */
export function parseTime(value: string): number {
  if (/^\d+$/.test(value)) return Number(value);
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw new InvalidArgumentError(
      'give milliseconds since the epoch or an ISO-8601 date like 2026-11-29T18:00:00Z.',
    );
  return ms;
}

function formatRecord(record: ConsumerRecord, opts: ConsumeOptions): string {
  if (opts.format === 'json') {
    return JSON.stringify({
      topic: record.topic,
      partition: record.partition,
      offset: record.offset,
      timestamp: record.timestampMs,
      key: record.key?.toString('utf8') ?? null,
      value: record.value?.toString('utf8') ?? null,
      headers: Object.fromEntries(record.headers.map((h) => [h.key, h.value?.toString('utf8') ?? null])),
    });
  }
  const value = record.value?.toString('utf8') ?? 'null';
  return opts.printKey ? `${record.key?.toString('utf8') ?? 'null'}${opts.keySeparator}${value}` : value;
}

/** Prints records until --max-messages, --timeout-ms idle, or Ctrl-C; then closes the consumer. */
async function printRecords(
  consumer: AsyncIterable<ConsumerRecord> & { close(): Promise<void> },
  opts: ConsumeOptions,
): Promise<void> {
  let printed = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  const stop = () => void consumer.close();
  const armIdle = () => {
    if (opts.timeoutMs === undefined) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(stop, opts.timeoutMs);
  };
  process.once('SIGINT', stop);
  armIdle();
  try {
    for await (const record of consumer) {
      process.stdout.write(formatRecord(record, opts) + '\n');
      printed++;
      armIdle();
      if (opts.maxMessages !== undefined && printed >= opts.maxMessages) break;
    }
  } finally {
    clearTimeout(idleTimer);
    process.off('SIGINT', stop);
    await consumer.close();
  }
  process.stderr.write(`consumed ${printed} record(s)\n`);
}

export function consumeCommand(): Command {
  return addBootstrap(
    new Command('consume')
      .description('print records of a topic, one per line (latest only, unless a start is given)')
      .argument('<topic>')
      .option(
        '-g, --group <group>',
        'consume as a member of this consumer group (offsets committed as you go)',
      )
      .option(
        '--from-beginning',
        'start at the earliest offset still kept (with --group: where the group has no offset)',
      )
      .option('--offset <n>', 'start at this offset (needs --partition)', parseInteger('--offset', 0))
      .option('--from-time <ms|iso>', 'start at the first record with timestamp >= this time', parseTime)
      .option('-p, --partition <n>', 'read only this partition', parseInteger('--partition', 0))
      .option('-n, --max-messages <n>', 'exit after this many records', parseInteger('--max-messages', 1))
      .option(
        '--timeout-ms <ms>',
        'exit when no record arrives for this long',
        parseInteger('--timeout-ms', 1),
      )
      .addOption(new Option('--format <format>', 'output format').choices(['text', 'json']).default('text'))
      .option('--print-key', 'text format: print key<SEP>value')
      .option('--key-separator <sep>', 'separator for --print-key', '\t'),
  ).action(
    action(async (topic: string, opts: ConsumeOptions) => {
      const starts = [opts.fromBeginning, opts.offset !== undefined, opts.fromTime !== undefined].filter(
        Boolean,
      ).length;
      if (starts > 1)
        throw new InvalidArgumentError('give at most one of --from-beginning, --offset, --from-time.');
      if (opts.offset !== undefined && opts.partition === undefined)
        throw new InvalidArgumentError('--offset needs --partition.');
      if (opts.group !== undefined && (opts.partition !== undefined || opts.offset !== undefined))
        throw new InvalidArgumentError('--group assigns partitions itself: drop --partition and --offset.');
      if (opts.group !== undefined && opts.fromTime !== undefined)
        throw new InvalidArgumentError(
          '--from-time with --group: move the group first with `tide groups reset-offsets GROUP --topic TOPIC --to-time T`.',
        );
      if (opts.group !== undefined) {
        await withClient(opts.bootstrap, async (tide) => {
          await tide.cluster.partitionCount(topic); // UNKNOWN_TOPIC before joining
          const member = tide.consumer({
            groupId: opts.group!,
            clientId: 'tide-cli',
            autoOffsetReset: opts.fromBeginning ? 'earliest' : 'latest',
          });
          member.subscribe([topic]);
          await printRecords(member, opts);
        });
        return;
      }
      await withClient(opts.bootstrap, async (tide) => {
        const count = await tide.cluster.partitionCount(topic);
        if (opts.partition !== undefined && opts.partition >= count) {
          throw new InvalidArgumentError(
            `topic ${topic} has ${count} partition(s); --partition ${opts.partition} does not exist.`,
          );
        }
        const partitions: TopicPartition[] =
          opts.partition !== undefined
            ? [{ topic, partition: opts.partition }]
            : Array.from({ length: count }, (_, partition) => ({ topic, partition }));
        const consumer = tide.consumer({ autoOffsetReset: opts.fromBeginning ? 'earliest' : 'latest' });
        consumer.assign(
          partitions.map((tp) => (opts.offset !== undefined ? { ...tp, offset: opts.offset } : tp)),
        );
        if (opts.fromBeginning) await consumer.seekToBeginning(partitions);
        else if (opts.fromTime !== undefined) await consumer.seekToTimestamp(opts.fromTime, partitions);
        else if (opts.offset === undefined) await consumer.seekToEnd(partitions);

        await printRecords(consumer, opts);
      });
    }),
  );
}
