/**
 * `tide consume TOPIC`: print records from a start position, as text, JSON lines or a kcat-style
 * format string; with `--group G`, as a member of consumer group G (the group assigns partitions
 * and remembers where it left off).
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import type { Consumer, ConsumerRecord, IsolationLevel, TopicPartition } from '../../client';
import {
  CliFailure,
  UsageError,
  action,
  addBootstrap,
  parseInteger,
  progressWanted,
  rateText,
  withClient,
} from '../common';
import {
  ENCODINGS,
  compileFormat,
  recordToJson,
  type Encoding,
  type RecordFormatter,
} from '../record-format';

/** Where to start: an absolute offset, N before the end, the beginning or the end. */
export type StartOffset =
  | { kind: 'absolute'; offset: number }
  | { kind: 'fromEnd'; count: number }
  | { kind: 'beginning' }
  | { kind: 'end' };

interface ConsumeOptions {
  group?: string;
  fromBeginning?: boolean;
  offset?: StartOffset;
  fromTime?: number;
  partition?: number;
  maxMessages?: number;
  timeoutMs?: number;
  exit?: boolean;
  format: string;
  printKey?: boolean;
  printPartition?: boolean;
  printOffset?: boolean;
  printTimestamp?: boolean;
  printHeaders?: boolean;
  keySeparator: string;
  keyEncoding: Encoding;
  valueEncoding: Encoding;
  null: string;
  isolation: IsolationLevel;
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

/** `--offset`: N, -N (N before the end), beginning, end. */
export function parseStartOffset(value: string): StartOffset {
  const v = value.trim();
  if (v === 'beginning' || v === 'earliest' || v === 'start') return { kind: 'beginning' };
  if (v === 'end' || v === 'latest') return { kind: 'end' };
  if (/^\d+$/.test(v)) return { kind: 'absolute', offset: Number(v) };
  if (/^-\d+$/.test(v)) return { kind: 'fromEnd', count: -Number(v) };
  throw new InvalidArgumentError('give an offset N, -N (N records before the end), beginning or end.');
}

/** The text-mode format string that the --print-* flags ask for. */
export function textFormat(opts: ConsumeOptions): string {
  const sep = opts.keySeparator.replace(/\\/g, '\\\\').replace(/%/g, '%%');
  const fields = [
    opts.printPartition && '%p',
    opts.printOffset && '%o',
    opts.printTimestamp && '%T',
    opts.printHeaders && '%h',
    opts.printKey && '%k',
  ].filter(Boolean);
  return [...fields, '%s'].join(sep) + '\\n';
}

function formatterOf(opts: ConsumeOptions): RecordFormatter {
  const enc = { key: opts.keyEncoding, value: opts.valueEncoding, nullText: opts.null };
  if (opts.format === 'json') return (r) => Buffer.from(recordToJson(r, enc) + '\n');
  if (opts.format === 'text') return compileFormat(textFormat(opts), enc);
  if (!opts.format.includes('%'))
    throw new UsageError(
      `--format must be text, json or a format string with %-fields, got "${opts.format}"`,
    );
  return compileFormat(opts.format, enc);
}

/** Tracks, with --exit, which partitions have reached the end they had when reading began. */
class EndTracker {
  private readonly remaining = new Map<string, number>();

  constructor(ends: { tp: TopicPartition; start: number; end: number }[]) {
    for (const { tp, start, end } of ends) if (start < end) this.remaining.set(key(tp), end);
  }

  get done(): boolean {
    return this.remaining.size === 0;
  }

  /** Records that `record` was printed. */
  saw(record: ConsumerRecord): void {
    const k = key(record);
    const end = this.remaining.get(k);
    if (end !== undefined && record.offset + 1 >= end) this.remaining.delete(k);
  }
}

const key = (tp: TopicPartition) => `${tp.topic}/${tp.partition}`;

/** Prints records until --max-messages, --exit, --timeout-ms idle, or Ctrl-C; then closes the consumer. */
async function printRecords(
  consumer: AsyncIterable<ConsumerRecord> & { close(): Promise<void> },
  opts: ConsumeOptions,
  ends?: EndTracker,
): Promise<void> {
  const format = formatterOf(opts);
  const startedMs = Date.now();
  let printed = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  const stop = () => void consumer.close();
  const armIdle = () => {
    if (opts.timeoutMs === undefined) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(stop, opts.timeoutMs);
  };
  // On a terminal that also shows the records, the records are the progress.
  const progress =
    progressWanted() && !process.stdout.isTTY
      ? setInterval(() => process.stderr.write(`\r\x1b[K${rateText(printed, Date.now() - startedMs)}`), 1000)
      : undefined;
  process.once('SIGINT', stop);
  armIdle();
  try {
    if (!ends?.done) {
      for await (const record of consumer) {
        process.stdout.write(format(record));
        printed++;
        armIdle();
        ends?.saw(record);
        if (opts.maxMessages !== undefined && printed >= opts.maxMessages) break;
        if (ends?.done) break;
      }
    }
  } finally {
    clearTimeout(idleTimer);
    clearInterval(progress);
    process.off('SIGINT', stop);
    await consumer.close();
  }
  process.stderr.write(
    `${progress ? '\r\x1b[K' : ''}consumed ${rateText(printed, Date.now() - startedMs)}\n`,
  );
}

/** Positions `consumer` on `partitions` per the start options; returns, per partition, start and end. */
async function position(
  consumer: Consumer,
  topic: string,
  partitions: TopicPartition[],
  opts: ConsumeOptions,
): Promise<{ tp: TopicPartition; start: number; end: number }[]> {
  const out: { tp: TopicPartition; start: number; end: number }[] = [];
  for (const tp of partitions) {
    // The end is the high watermark, or the last stable offset for read_committed.
    const latest = await consumer.listOffset(tp, 'latest');
    const { logStartOffset, highWatermark } = latest;
    const end = latest.offset;
    let start: number;
    const offset = opts.offset;
    if (opts.fromBeginning || offset?.kind === 'beginning') start = logStartOffset;
    else if (offset?.kind === 'end') start = end;
    else if (offset?.kind === 'fromEnd') start = Math.max(logStartOffset, end - offset.count);
    else if (offset?.kind === 'absolute') {
      if (offset.offset > highWatermark || offset.offset < logStartOffset)
        throw new CliFailure(
          `offset ${offset.offset} is outside ${topic}/${tp.partition}, which holds offsets ${logStartOffset} to ${highWatermark - 1} (end ${highWatermark}); nothing to read there. Give --offset between ${logStartOffset} and ${highWatermark}, or -N, beginning, end`,
        );
      start = offset.offset;
    } else if (opts.fromTime !== undefined) {
      const found = await consumer.listOffset(tp, { timestampMs: opts.fromTime });
      start = found.offset < 0 ? end : found.offset;
    } else start = end;
    out.push({ tp, start, end });
  }
  consumer.assign(out.map(({ tp, start }) => ({ ...tp, offset: start })));
  return out;
}

function checkStarts(opts: ConsumeOptions): void {
  const starts = [opts.fromBeginning, opts.offset !== undefined, opts.fromTime !== undefined].filter(
    Boolean,
  ).length;
  if (starts > 1) throw new UsageError('give at most one of --from-beginning, --offset, --from-time.');
  if (opts.offset?.kind === 'absolute' && opts.partition === undefined)
    throw new UsageError('--offset N needs --partition (or use -N, beginning, end for every partition).');
  if (opts.group !== undefined && (opts.partition !== undefined || opts.offset !== undefined))
    throw new UsageError('--group assigns partitions itself: drop --partition and --offset.');
  if (opts.group !== undefined && opts.fromTime !== undefined)
    throw new UsageError(
      '--from-time with --group: move the group first with `tide groups reset-offsets GROUP --topic TOPIC --to-time T`.',
    );
  if (opts.group !== undefined && opts.exit)
    throw new UsageError('--exit reads a fixed range of partitions; it does not combine with --group.');
  if (opts.format !== 'text' && opts.format !== 'json' && !opts.format.includes('%'))
    throw new UsageError(
      `--format must be text, json or a format string with %-fields, got "${opts.format}".`,
    );
}

const encodingOption = (flag: string, what: string) =>
  new Option(flag, `how ${what} are printed`).choices(ENCODINGS).default('utf8');

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
      .option(
        '-o, --offset <n|-n|beginning|end>',
        'start at offset N (needs --partition), N records before the end, the beginning or the end',
        parseStartOffset,
      )
      .option('--from-time <ms|iso>', 'start at the first record with timestamp >= this time', parseTime)
      .option('-p, --partition <n>', 'read only this partition', parseInteger('--partition', 0))
      .option('-n, --max-messages <n>', 'exit after this many records', parseInteger('--max-messages', 1))
      .option('-e, --exit', 'exit when every partition is read up to the end it had at the start')
      .option(
        '--timeout-ms <ms>',
        'exit when no record arrives for this long',
        parseInteger('--timeout-ms', 1),
      )
      .option(
        '-f, --format <text|json|fmt>',
        "text, json, or a kcat format string like '%t %p %o %k %s\\n' (see docs/cli.md)",
        'text',
      )
      .option('--print-key', 'text format: print the key')
      .option('--print-partition', 'text format: print the partition')
      .option('--print-offset', 'text format: print the offset')
      .option('--print-timestamp', 'text format: print the timestamp (ms since the epoch)')
      .option('--print-headers', 'text format: print the headers as k=v,k=v')
      .option('--key-separator <sep>', 'text format: separator between printed fields', '\t')
      .addOption(encodingOption('--key-encoding <enc>', 'keys'))
      .addOption(encodingOption('--value-encoding <enc>', 'values and header values'))
      .option('--null <text>', 'text printed for a null key or value', 'null')
      .addOption(
        new Option(
          '--isolation <level>',
          'read_committed: only committed transactional records, up to the last stable offset (aborted ones are never printed); read_uncommitted: everything up to the high watermark',
        )
          .choices(['read_uncommitted', 'read_committed'])
          .default('read_uncommitted'),
      ),
  ).action(
    action(async (topic: string, opts: ConsumeOptions) => {
      checkStarts(opts);
      if (opts.group !== undefined) {
        await withClient(opts.bootstrap, async (tide) => {
          await tide.cluster.partitionCount(topic); // UNKNOWN_TOPIC before joining
          const member = tide.consumer({
            groupId: opts.group!,
            clientId: 'tide-cli',
            autoOffsetReset: opts.fromBeginning ? 'earliest' : 'latest',
            isolation: opts.isolation,
          });
          member.subscribe([topic]);
          await printRecords(member, opts);
        });
        return;
      }
      await withClient(opts.bootstrap, async (tide) => {
        const count = await tide.cluster.partitionCount(topic);
        if (opts.partition !== undefined && opts.partition >= count) {
          throw new UsageError(
            `topic ${topic} has ${count} partition(s); --partition ${opts.partition} does not exist.`,
          );
        }
        const partitions: TopicPartition[] =
          opts.partition !== undefined
            ? [{ topic, partition: opts.partition }]
            : Array.from({ length: count }, (_, partition) => ({ topic, partition }));
        const consumer = tide.consumer({
          autoOffsetReset: opts.fromBeginning ? 'earliest' : 'latest',
          isolation: opts.isolation,
        });
        const ranges = await position(consumer, topic, partitions, opts);
        await printRecords(consumer, opts, opts.exit ? new EndTracker(ranges) : undefined);
      });
    }),
  );
}
