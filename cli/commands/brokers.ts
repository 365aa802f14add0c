/** `tide brokers decommission|recommission|status ID`: empty a broker before removing it. */
import { Command } from 'commander';
import { action, addBootstrap, parseInteger, withClient } from '../common';
import type { DecommissionStatus } from '../../client/admin';

function report(s: DecommissionStatus): void {
  const state = s.decommissioning
    ? s.remainingReplicas === 0
      ? 'decommissioned: it holds no replicas and can be stopped and removed'
      : `decommissioning: ${s.remainingReplicas} replica(s) (${s.remainingLeaders} leader(s)) still to move`
    : `in service: ${s.remainingReplicas} replica(s), ${s.remainingLeaders} leader(s)`;
  process.stdout.write(`broker ${s.brokerId} ${state}\n`);
}

export function brokersCommand(): Command {
  const brokers = new Command('brokers').description('decommission and recommission brokers');
  const id = () => parseInteger('ID', 0);
  brokers.addCommand(
    addBootstrap(
      new Command('decommission')
        .description('move every replica off a broker (new replicas stop going there)')
        .argument('<id>', 'broker id', id())
        .option('--wait', 'wait until the broker holds no replicas'),
    ).action(
      action(async (brokerId: number, opts: { wait?: boolean; bootstrap: string }) => {
        await withClient(opts.bootstrap, async (tide) => {
          let status = await tide.admin().decommissionBroker(brokerId);
          while (opts.wait && status.remainingReplicas > 0) {
            await new Promise((r) => setTimeout(r, 1_000));
            status = await tide.admin().describeDecommission(brokerId);
          }
          report(status);
        });
      }),
    ),
  );
  brokers.addCommand(
    addBootstrap(
      new Command('recommission')
        .description('stop a decommission; its unfinished moves are cancelled')
        .argument('<id>', 'broker id', id()),
    ).action(
      action(async (brokerId: number, opts: { bootstrap: string }) => {
        await withClient(opts.bootstrap, async (tide) =>
          report(await tide.admin().recommissionBroker(brokerId)),
        );
      }),
    ),
  );
  brokers.addCommand(
    addBootstrap(
      new Command('status')
        .description('whether a broker is being decommissioned, and what it still holds')
        .argument('<id>', 'broker id', id()),
    ).action(
      action(async (brokerId: number, opts: { bootstrap: string }) => {
        await withClient(opts.bootstrap, async (tide) =>
          report(await tide.admin().describeDecommission(brokerId)),
        );
      }),
    ),
  );
  return brokers;
}
