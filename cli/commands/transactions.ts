/** `tide transactions list | describe ID`: transactional ids, their state, producer and partitions. */
import { Command } from 'commander';
import { action, addBootstrap, collectList, withClient } from '../common';
import { printTable } from '../format';

export function transactionsCommand(): Command {
  const transactions = new Command('transactions').description(
    'transactions: list transactional ids, describe one (state, producer id and epoch, partitions, start time)',
  );

  transactions.addCommand(
    addBootstrap(
      new Command('list')
        .description('every transactional id the coordinators know, with its state and producer')
        .option(
          '--state <state>',
          'only this state (repeatable): Empty, Ongoing, PrepareCommit, ...',
          collectList,
          [],
        )
        .option('--json', 'print JSON'),
    ).action(
      action(async (opts: { state: string[]; json?: boolean; bootstrap: string }) => {
        await withClient(opts.bootstrap, async (tide) => {
          const list = await tide.transactions().listTransactions(opts.state);
          if (opts.json) {
            process.stdout.write(JSON.stringify(list, null, 2) + '\n');
            return;
          }
          if (list.length === 0) {
            process.stdout.write('no transactional ids\n');
            return;
          }
          printTable(
            ['TRANSACTIONAL ID', 'STATE', 'PRODUCER ID', 'EPOCH', 'COORDINATOR'],
            list.map((t) => [t.transactionalId, t.state, t.producerId, t.producerEpoch, t.coordinatorId]),
          );
        });
      }),
    ),
  );

  transactions.addCommand(
    addBootstrap(
      new Command('describe')
        .description('state, producer id and epoch, timeout, start time, partitions and groups of one id')
        .argument('<transactional-id>')
        .option('--json', 'print JSON'),
    ).action(
      action(async (transactionalId: string, opts: { json?: boolean; bootstrap: string }) => {
        await withClient(opts.bootstrap, async (tide) => {
          const d = await tide.transactions().describeTransaction(transactionalId);
          if (opts.json) {
            process.stdout.write(JSON.stringify(d, null, 2) + '\n');
            return;
          }
          const started = d.startTimeMs > 0 ? new Date(d.startTimeMs).toISOString() : '-';
          process.stdout.write(
            `Transactional id ${d.transactionalId}  state ${d.state}  producer ${d.producerId} epoch ${d.producerEpoch}  timeout ${d.timeoutMs} ms  started ${started}  coordinator ${d.coordinatorId}\n`,
          );
          const partitions = d.partitions.map((p) => `${p.topic}/${p.partition}`).join(' ') || '-';
          process.stdout.write(`Partitions ${partitions}\nGroups ${d.groups.join(' ') || '-'}\n`);
        });
      }),
    ),
  );
  return transactions;
}
