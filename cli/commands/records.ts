/**
 * `tide records delete --topic T [--partition P] --before OFFSET|hw`: Kafka's kafka-delete-records
 * as one command. Moves the log start offset of the partitions (all of the topic's without
 * --partition) so the records below OFFSET are gone; `hw` (or -1) deletes everything written so
 * far. Prints each partition's low watermark (its smallest log start over the in-sync replicas).
 */
import { Command, InvalidArgumentError } from 'commander';
import { action, addBootstrap, collectList, parseInteger, withClient } from '../common';
import { printTable } from '../format';

/** `hw` or -1: the high watermark; else an offset >= 0. */
function parseBefore(value: string): number {
  if (value.trim().toLowerCase() === 'hw') return -1;
  const offset = parseInteger('--before', -1)(value);
  if (offset < -1) throw new InvalidArgumentError('--before must be an offset >= 0, -1 or hw.');
  return offset;
}

function parsePartitions(values: string[]): number[] | undefined {
  if (values.length === 0) return undefined;
  const parse = parseInteger('--partition', 0);
  return [
    ...new Set(
      values
        .flatMap((v) => v.split(','))
        .filter(Boolean)
        .map(parse),
    ),
  ];
}

export function recordsCommand(): Command {
  const records = new Command('records').description('delete the records of partitions below an offset');
  records.addCommand(
    addBootstrap(
      new Command('delete')
        .description(
          "move partitions' log start offset (Kafka's DeleteRecords): records below --before are gone on every replica",
        )
        .requiredOption('--topic <name>', 'the topic')
        .option(
          '--partition <p>',
          'a partition (repeatable or comma-separated; default: all)',
          collectList,
          [],
        )
        .requiredOption(
          '--before <offset>',
          'delete the records below this offset; hw or -1: all written so far',
          parseBefore,
        )
        .option(
          '--timeout-ms <ms>',
          'how long each leader waits for its in-sync followers (default 30000)',
          parseInteger('--timeout-ms', 1),
        )
        .option('--json', 'print JSON'),
    ).action(
      action(
        async (opts: {
          topic: string;
          partition: string[];
          before: number;
          timeoutMs?: number;
          json?: boolean;
          bootstrap: string;
        }) => {
          await withClient(opts.bootstrap, async (tide) => {
            const admin = tide.admin();
            const partitions =
              parsePartitions(opts.partition) ??
              (await admin.describeTopic(opts.topic)).topic.partitions.map((p) => p.partition);
            const deleted = await admin.deleteRecords(
              partitions.map((partition) => ({ topic: opts.topic, partition, offset: opts.before })),
              { timeoutMs: opts.timeoutMs },
            );
            if (opts.json) {
              process.stdout.write(JSON.stringify(deleted, null, 2) + '\n');
              return;
            }
            printTable(
              ['TOPIC', 'PARTITION', 'LOW WATERMARK'],
              deleted.map((d) => [d.topic, d.partition, d.lowWatermark]),
            );
          });
        },
      ),
    ),
  );
  return records;
}
