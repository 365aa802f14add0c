/** `tide cluster describe`. */
import { Command } from 'commander';
import { action, addBootstrap, withClient } from '../common';
import { printTable } from '../format';

export function clusterCommand(): Command {
  const cluster = new Command('cluster').description('inspect the cluster');
  cluster.addCommand(
    addBootstrap(
      new Command('describe')
        .description('cluster id, controller and brokers')
        .option('--json', 'print JSON'),
    ).action(
      action(async (opts: { json?: boolean; bootstrap: string }) => {
        await withClient(opts.bootstrap, async (tide) => {
          const description = await tide.admin().describeCluster();
          if (opts.json) {
            process.stdout.write(JSON.stringify(description, null, 2) + '\n');
            return;
          }
          process.stdout.write(
            `Cluster: ${description.clusterId}  controller: ${description.controllerId}\n\n`,
          );
          printTable(
            ['BROKER', 'HOST', 'PORT', 'RACK'],
            description.brokers.map((b) => [b.id, b.host, b.port, b.rack || '-']),
          );
        });
      }),
    ),
  );
  return cluster;
}
