/** `tide produce TOPIC`: one record per stdin line. */
import * as readline from 'readline';
import { Command, Option } from 'commander';
import type { ProducerRecord } from '../../client';
import { action, addBootstrap, collectKeyValue, parseInteger, withClient } from '../common';

/** Records sent before the CLI waits for their acknowledgements (bounds memory on huge inputs). */
const PENDING_SENDS_MAX = 10_000;

interface ProduceOptions {
  keySeparator?: string;
  header: Record<string, string>;
  partition?: number;
  acks: 'none' | 'leader' | 'all';
  compression: 'none' | 'gzip' | 'snappy';
  lingerMs: number;
  bootstrap: string;
}

export function produceCommand(): Command {
  return addBootstrap(
    new Command('produce')
      .description('produce one record per line of stdin (value, or key<SEP>value with --key-separator)')
      .argument('<topic>')
      .option('-k, --key-separator <sep>', 'split each line at the first SEP into key and value')
      .option('-H, --header <key=value>', 'header added to every record, repeatable', collectKeyValue, {})
      .option('-p, --partition <n>', 'send every record to this partition', parseInteger('--partition', 0))
      .addOption(
        new Option('--acks <acks>', 'acknowledgement level')
          .choices(['none', 'leader', 'all'])
          .default('all'),
      )
      .addOption(
        new Option('--compression <codec>', 'batch compression')
          .choices(['none', 'gzip', 'snappy'])
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
      await withClient(opts.bootstrap, async (tide) => {
        const producer = tide.producer({
          acks: opts.acks,
          compression: opts.compression,
          lingerMs: opts.lingerMs,
          idempotence: opts.acks === 'all',
        });
        const headers = Object.keys(opts.header).length > 0 ? opts.header : undefined;
        let pending: Promise<unknown>[] = [];
        let count = 0;
        let firstError: unknown;
        const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
        for await (const line of lines) {
          const record: ProducerRecord = { value: line, headers, partition: opts.partition };
          if (opts.keySeparator !== undefined) {
            const at = line.indexOf(opts.keySeparator);
            if (at >= 0) {
              record.key = line.slice(0, at);
              record.value = line.slice(at + opts.keySeparator.length);
            }
          }
          pending.push(producer.send(topic, record).catch((err: unknown) => (firstError ??= err)));
          count++;
          if (pending.length >= PENDING_SENDS_MAX) {
            await Promise.all(pending);
            pending = [];
          }
          if (firstError) break;
        }
        await Promise.all(pending);
        await producer.close();
        if (firstError) throw firstError;
        process.stderr.write(`produced ${count} record(s) to ${topic}\n`);
      });
    }),
  );
}
