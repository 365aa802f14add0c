/**
 * `tide produce TOPIC`: one record per stdin line (value, or key<SEP>value with --key-separator),
 * or one record per file with --value-file. Keys and values may be given as utf8, base64 or hex.
 */
import * as fs from 'fs';
import * as readline from 'readline';
import { Command, Option } from 'commander';
import type { ProducerRecord } from '../../client';
import {
  UsageError,
  action,
  addBootstrap,
  collectKeyValue,
  collectList,
  parseInteger,
  progressWanted,
  rateText,
  withClient,
} from '../common';
import { ENCODINGS, decodeInput, type Encoding } from '../record-format';

/** Records sent before the CLI waits for their acknowledgements (bounds memory on huge inputs). */
const PENDING_SENDS_MAX = 10_000;

export const CLI_COMPRESSION_CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;

interface ProduceOptions {
  keySeparator?: string;
  allowNullKey?: boolean;
  nullKey?: boolean;
  key?: string;
  valueFile: string[];
  header: Record<string, string>;
  partition?: number;
  acks: 'none' | 'leader' | 'all';
  compression: (typeof CLI_COMPRESSION_CODECS)[number];
  lingerMs: number;
  keyEncoding: Encoding;
  valueEncoding: Encoding;
  bootstrap: string;
}

/** Turns one input line into a record's key and value; UsageError naming the line when it cannot. */
export function parseLine(
  line: string,
  lineNumber: number,
  opts: Pick<
    ProduceOptions,
    'keySeparator' | 'allowNullKey' | 'nullKey' | 'keyEncoding' | 'valueEncoding' | 'key'
  >,
): { key: Buffer | null; value: Buffer } {
  const where = `line ${lineNumber}`;
  const fixedKey = opts.key === undefined ? null : decodeInput(opts.key, opts.keyEncoding, '--key');
  if (opts.keySeparator === undefined)
    return { key: fixedKey, value: decodeInput(line, opts.valueEncoding, `the value on ${where}`) };
  const at = line.indexOf(opts.keySeparator);
  if (at < 0) {
    if (!opts.allowNullKey && !opts.nullKey)
      throw new UsageError(
        `${where} has no key separator ${JSON.stringify(opts.keySeparator)}; give key${opts.keySeparator}value, or --allow-null-key to send such lines with a null key`,
      );
    return { key: null, value: decodeInput(line, opts.valueEncoding, `the value on ${where}`) };
  }
  return {
    key: decodeInput(line.slice(0, at), opts.keyEncoding, `the key on ${where}`),
    value: decodeInput(
      line.slice(at + opts.keySeparator.length),
      opts.valueEncoding,
      `the value on ${where}`,
    ),
  };
}

/** Every (key, value) to send: one per file with --value-file, else one per stdin line. */
async function* inputs(opts: ProduceOptions): AsyncGenerator<{ key: Buffer | null; value: Buffer }> {
  if (opts.valueFile.length > 0) {
    const key = opts.key === undefined ? null : decodeInput(opts.key, opts.keyEncoding, '--key');
    for (const file of opts.valueFile) {
      let value: Buffer;
      try {
        value = fs.readFileSync(file);
      } catch (err) {
        throw new UsageError(`--value-file ${file}: ${(err as Error).message}`);
      }
      yield {
        key,
        value:
          opts.valueEncoding === 'utf8'
            ? value
            : decodeInput(value.toString('latin1').trim(), opts.valueEncoding, file),
      };
    }
    return;
  }
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) yield parseLine(line, ++n, opts);
}

function checkOptions(opts: ProduceOptions): void {
  if (opts.valueFile.length > 0 && opts.keySeparator !== undefined)
    throw new UsageError('--value-file sends each file whole: drop --key-separator (use --key for a key).');
  if (opts.key !== undefined && opts.keySeparator !== undefined)
    throw new UsageError(
      'give --key (one key for every record) or --key-separator (a key per line), not both.',
    );
  if ((opts.allowNullKey || opts.nullKey) && opts.keySeparator === undefined)
    throw new UsageError('--allow-null-key only matters with --key-separator.');
}

const encodingOption = (flag: string, what: string) =>
  new Option(flag, `how ${what} are given`).choices(ENCODINGS).default('utf8');

export function produceCommand(): Command {
  return addBootstrap(
    new Command('produce')
      .description('produce one record per line of stdin (value, or key<SEP>value with --key-separator)')
      .argument('<topic>')
      .option('-k, --key-separator <sep>', 'split each line at the first SEP into key and value')
      .option('--allow-null-key', 'with --key-separator: a line without SEP is a value with a null key')
      .option('--null-key', 'the same as --allow-null-key')
      .option('--key <key>', 'one key for every record (in --key-encoding)')
      .option(
        '--value-file <path>',
        'send this file, whole and byte for byte, as one record (repeatable; stdin is not read)',
        collectList,
        [],
      )
      .addOption(encodingOption('--key-encoding <enc>', 'keys'))
      .addOption(encodingOption('--value-encoding <enc>', 'values'))
      .option('-H, --header <key=value>', 'header added to every record, repeatable', collectKeyValue, {})
      .option('-p, --partition <n>', 'send every record to this partition', parseInteger('--partition', 0))
      .addOption(
        new Option('--acks <acks>', 'acknowledgement level')
          .choices(['none', 'leader', 'all'])
          .default('all'),
      )
      .addOption(
        new Option('--compression <codec>', 'batch compression')
          .choices([...CLI_COMPRESSION_CODECS])
          .default('none'),
      )
      .option(
        '--linger-ms <ms>',
        'how long a batch waits for more records',
        parseInteger('--linger-ms', 0),
        5,
      ),
  ).action(
    action(async (topic: string, opts: ProduceOptions) => {
      checkOptions(opts);
      await withClient(opts.bootstrap, async (tide) => {
        if (opts.partition !== undefined) {
          const count = await tide.cluster.partitionCount(topic);
          if (opts.partition >= count)
            throw new UsageError(
              `topic ${topic} has ${count} partition(s); --partition ${opts.partition} does not exist.`,
            );
        }
        const producer = tide.producer({
          acks: opts.acks,
          compression: opts.compression,
          lingerMs: opts.lingerMs,
          idempotence: opts.acks === 'all',
        });
        const headers = Object.keys(opts.header).length > 0 ? opts.header : undefined;
        const startedMs = Date.now();
        let pending: Promise<unknown>[] = [];
        let count = 0;
        let firstError: unknown;
        const progress = progressWanted()
          ? setInterval(
              () => process.stderr.write(`\r\x1b[K${rateText(count, Date.now() - startedMs)}`),
              1000,
            )
          : undefined;
        try {
          for await (const { key, value } of inputs(opts)) {
            const record: ProducerRecord = { key, value, headers, partition: opts.partition };
            pending.push(producer.send(topic, record).catch((err: unknown) => (firstError ??= err)));
            count++;
            if (pending.length >= PENDING_SENDS_MAX) {
              await Promise.all(pending);
              pending = [];
            }
            if (firstError) break;
          }
          await Promise.all(pending);
        } finally {
          clearInterval(progress);
          await producer.close().catch(() => undefined);
        }
        if (firstError) throw firstError;
        process.stderr.write(
          `${progress ? '\r\x1b[K' : ''}produced ${rateText(count, Date.now() - startedMs)} to ${topic}\n`,
        );
      });
    }),
  );
}
