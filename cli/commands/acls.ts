/**
 * `tide acls add|list|remove`: Kafka-style ACL bindings (docs/security.md). One resource flag
 * (--topic, --group, --transactional-id or --cluster) and, for add, a principal and operations.
 */
import { Command, Option } from 'commander';
import type { AclBinding, AclFilter } from '../../client/admin';
import { UsageError, action, addBootstrap, collectList, withClient } from '../common';
import { printTable } from '../format';

const OPERATIONS: AclBinding['operation'][] = [
  'read',
  'write',
  'create',
  'delete',
  'alter',
  'describe',
  'describe_configs',
  'alter_configs',
  'cluster_action',
  'idempotent_write',
  'all',
];

interface AclFlags {
  principal?: string;
  operation?: string[];
  topic?: string;
  group?: string;
  transactionalId?: string;
  cluster?: boolean;
  prefixed?: boolean;
  deny?: boolean;
  allow?: boolean;
  json?: boolean;
  bootstrap: string;
}

function withAclOptions(command: Command, what: string): Command {
  return addBootstrap(
    command
      .option(
        '--principal <principal>',
        `principal ${what} (e.g. alice, system:serviceaccount:ns:app, * = everyone)`,
      )
      .option('--operation <op>', `operation, repeatable: ${OPERATIONS.join(', ')}`, collectList)
      .option('--topic <name>', 'topic name (or prefix with --prefixed; * = every topic)')
      .option('--group <name>', 'consumer group id (or prefix with --prefixed; * = every group)')
      .option('--transactional-id <id>', 'transactional id (or prefix with --prefixed)')
      .option('--cluster', 'the cluster itself (create topics, alter/describe the cluster, manage ACLs)')
      .option('--prefixed', 'the name is a prefix: matches every resource whose name starts with it')
      .addOption(new Option('--deny', 'a deny binding (deny wins over allow)').conflicts('allow')),
  );
}

function resourceOf(flags: AclFlags): Pick<AclBinding, 'resourceType' | 'name'> | undefined {
  const given = [
    flags.topic !== undefined && { resourceType: 'topic' as const, name: flags.topic },
    flags.group !== undefined && { resourceType: 'group' as const, name: flags.group },
    flags.transactionalId !== undefined && {
      resourceType: 'transactional_id' as const,
      name: flags.transactionalId,
    },
    flags.cluster && { resourceType: 'cluster' as const, name: '' },
  ].filter((r): r is Pick<AclBinding, 'resourceType' | 'name'> => !!r);
  if (given.length > 1) throw new UsageError('give one of --topic, --group, --transactional-id, --cluster');
  return given[0];
}

function operationsOf(flags: AclFlags): AclBinding['operation'][] {
  const ops = (flags.operation ?? [])
    .flatMap((o) => o.split(','))
    .map((o) => o.trim().toLowerCase().replace(/-/g, '_'));
  for (const op of ops) {
    if (!(OPERATIONS as string[]).includes(op)) {
      throw new UsageError(`unknown operation ${op}; use one of ${OPERATIONS.join(', ')}`);
    }
  }
  return ops as AclBinding['operation'][];
}

function filtersOf(flags: AclFlags): AclFilter[] {
  const resource = resourceOf(flags);
  const base: AclFilter = {
    ...(flags.principal ? { principal: flags.principal } : {}),
    ...(resource ? { resourceType: resource.resourceType } : {}),
    ...(resource && resource.name !== '' ? { name: resource.name } : {}),
    ...(flags.prefixed ? { patternType: 'prefixed' as const } : {}),
    ...(flags.deny ? { permission: 'deny' as const } : flags.allow ? { permission: 'allow' as const } : {}),
  };
  const ops = operationsOf(flags);
  return ops.length === 0 ? [base] : ops.map((operation) => ({ ...base, operation }));
}

function print(acls: Required<AclBinding>[], json: boolean | undefined): void {
  if (json) {
    process.stdout.write(JSON.stringify(acls, null, 2) + '\n');
    return;
  }
  if (acls.length === 0) {
    process.stdout.write('no ACLs\n');
    return;
  }
  printTable(
    ['PRINCIPAL', 'PERMISSION', 'OPERATION', 'RESOURCE', 'PATTERN', 'NAME'],
    acls.map((a) => [a.principal, a.permission, a.operation, a.resourceType, a.patternType, a.name]),
  );
}

export function aclsCommand(): Command {
  const acls = new Command('acls').description('grant, list and revoke access (ACLs; docs/security.md)');
  acls.addCommand(
    withAclOptions(new Command('add').description('add allow (or --deny) bindings'), 'granted').action(
      action(async (flags: AclFlags) => {
        const resource = resourceOf(flags);
        if (!resource)
          throw new UsageError('give the resource: --topic, --group, --transactional-id or --cluster');
        if (!flags.principal) throw new UsageError('give --principal');
        const ops = operationsOf(flags);
        if (ops.length === 0) throw new UsageError('give at least one --operation');
        const bindings: AclBinding[] = ops.map((operation) => ({
          principal: flags.principal!,
          ...resource,
          operation,
          patternType: flags.prefixed ? 'prefixed' : 'literal',
          permission: flags.deny ? 'deny' : 'allow',
        }));
        await withClient(flags.bootstrap, async (tide) => {
          const created = await tide.admin().createAcls(bindings);
          process.stdout.write(
            `added ${created} ACL(s)${created < bindings.length ? ` (${bindings.length - created} existed)` : ''}\n`,
          );
        });
      }),
    ),
  );
  acls.addCommand(
    withAclOptions(
      new Command('list').description('list bindings (all, or those matching the flags)'),
      'to match',
    )
      .option('--allow', 'only allow bindings')
      .option('--json', 'print JSON')
      .action(
        action(async (flags: AclFlags) => {
          const filters = filtersOf(flags);
          await withClient(flags.bootstrap, async (tide) => {
            const seen = new Map<string, Required<AclBinding>>();
            for (const filter of filters) {
              for (const acl of await tide.admin().describeAcls(filter)) seen.set(JSON.stringify(acl), acl);
            }
            print([...seen.values()], flags.json);
          });
        }),
      ),
  );
  acls.addCommand(
    withAclOptions(new Command('remove').description('remove the bindings matching the flags'), 'to match')
      .option('--allow', 'only allow bindings')
      .option('--json', 'print the removed bindings as JSON')
      .action(
        action(async (flags: AclFlags) => {
          const filters = filtersOf(flags);
          if (filters.every((f) => Object.keys(f).length === 0)) {
            throw new UsageError(
              'give at least one of --principal, a resource flag or --operation (refusing to remove every ACL)',
            );
          }
          await withClient(flags.bootstrap, async (tide) => {
            const removed = await tide.admin().deleteAcls(filters);
            if (flags.json) print(removed, true);
            else process.stdout.write(`removed ${removed.length} ACL(s)\n`);
          });
        }),
      ),
  );
  return acls;
}
