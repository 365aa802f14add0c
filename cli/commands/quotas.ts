/**
 * `tide quotas set|list|remove`: client quotas per user (principal) and client id, Kafka's
 * (user, client-id) entities with `<default>` (docs/security.md#quotas).
 */
import { Command } from 'commander';
import type { ClientQuota, QuotaEntity, QuotaKey } from '../../client/admin';
import { UsageError, action, addBootstrap, withClient } from '../common';
import { printTable } from '../format';

const KEYS: QuotaKey[] = [
  'producer_byte_rate',
  'consumer_byte_rate',
  'request_rate',
  'controller_mutation_rate',
  'max_streams',
];
const DEFAULT = '<default>';
const SIZE_SUFFIX: Record<string, number> = {
  '': 1,
  k: 1e3,
  ki: 1024,
  m: 1e6,
  mi: 1024 ** 2,
  g: 1e9,
  gi: 1024 ** 3,
};

interface QuotaFlags {
  user?: string;
  clientId?: string;
  defaultUser?: boolean;
  defaultClientId?: boolean;
  json?: boolean;
  bootstrap: string;
}

function withEntityOptions(command: Command): Command {
  return addBootstrap(
    command
      .option('--user <principal>', 'the user (principal) part of the entity')
      .option('--default-user', `the default user (${DEFAULT}): every user without a quota of its own`)
      .option('--client-id <id>', 'the client id part of the entity (a client announces it as clientId)')
      .option('--default-client-id', `the default client id (${DEFAULT})`),
  );
}

function entityOf(flags: QuotaFlags, required: boolean): QuotaEntity {
  if (flags.user !== undefined && flags.defaultUser)
    throw new UsageError('give --user or --default-user, not both');
  if (flags.clientId !== undefined && flags.defaultClientId)
    throw new UsageError('give --client-id or --default-client-id, not both');
  const entity: QuotaEntity = {};
  const user = flags.defaultUser ? DEFAULT : flags.user;
  const clientId = flags.defaultClientId ? DEFAULT : flags.clientId;
  if (user) entity.user = user;
  if (clientId) entity.clientId = clientId;
  if (required && !entity.user && !entity.clientId) {
    throw new UsageError('give the entity: --user, --default-user, --client-id and/or --default-client-id');
  }
  return entity;
}

function keyOf(text: string): QuotaKey {
  const key = text.trim().toLowerCase().replace(/-/g, '_');
  if (!(KEYS as string[]).includes(key))
    throw new UsageError(`unknown quota ${text}; use one of ${KEYS.join(', ')}`);
  return key as QuotaKey;
}

/** `key=value`; byte rates may carry k, Ki, M, Mi, G, Gi (e.g. producer_byte_rate=512Ki). */
export function parseQuotaAssignment(text: string): [QuotaKey, number] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new UsageError(`expected key=value, got ${text}`);
  const key = keyOf(text.slice(0, eq));
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kKmMgG][iI]?)?\s*$/.exec(text.slice(eq + 1));
  if (!match) throw new UsageError(`quota ${key} needs a positive number, got ${text.slice(eq + 1)}`);
  const value = Number(match[1]) * SIZE_SUFFIX[(match[2] ?? '').toLowerCase()]!;
  if (!(value > 0)) throw new UsageError(`quota ${key} needs a positive number, got ${text.slice(eq + 1)}`);
  if (key === 'max_streams' && !Number.isInteger(value))
    throw new UsageError('max_streams needs a whole number');
  return [key, value];
}

function print(quotas: ClientQuota[], json: boolean | undefined): void {
  if (json) {
    process.stdout.write(JSON.stringify(quotas, null, 2) + '\n');
    return;
  }
  if (quotas.length === 0) {
    process.stdout.write('no quotas\n');
    return;
  }
  const rows: string[][] = [];
  for (const q of quotas) {
    for (const [key, value] of Object.entries(q.values)) {
      rows.push([q.entity.user ?? '', q.entity.clientId ?? '', key, String(value)]);
    }
  }
  printTable(['USER', 'CLIENT-ID', 'QUOTA', 'VALUE'], rows);
}

export function quotasCommand(): Command {
  const quotas = new Command('quotas').description(
    'set, list and remove client quotas per user and client id (docs/security.md#quotas)',
  );
  quotas.addCommand(
    withEntityOptions(
      new Command('set')
        .description(`set quota values of an entity, e.g. producer_byte_rate=512Ki; keys: ${KEYS.join(', ')}`)
        .argument('<key=value...>', 'quota values (byte rates in bytes/s, request_rate in requests/s, ...)'),
    ).action(
      action(async (assignments: string[], flags: QuotaFlags) => {
        const entity = entityOf(flags, true);
        const set: Partial<Record<QuotaKey, number>> = {};
        for (const text of assignments) {
          const [key, value] = parseQuotaAssignment(text);
          set[key] = value;
        }
        await withClient(flags.bootstrap, async (tide) => {
          const after = await tide.admin().alterClientQuotas(entity, set);
          print(after ? [after] : [], false);
        });
      }),
    ),
  );
  quotas.addCommand(
    withEntityOptions(
      new Command('list').description('list quotas (all, or those of the given user/client id)'),
    )
      .option('--json', 'print JSON')
      .action(
        action(async (flags: QuotaFlags) => {
          const filter = entityOf(flags, false);
          await withClient(flags.bootstrap, async (tide) => {
            print(await tide.admin().describeClientQuotas(filter), flags.json);
          });
        }),
      ),
  );
  quotas.addCommand(
    withEntityOptions(
      new Command('remove')
        .description('remove quota keys of an entity (every key when none is given)')
        .argument('[keys...]', `keys to remove: ${KEYS.join(', ')}`),
    ).action(
      action(async (keys: string[], flags: QuotaFlags) => {
        const entity = entityOf(flags, true);
        const remove = keys.length > 0 ? keys.map(keyOf) : KEYS;
        await withClient(flags.bootstrap, async (tide) => {
          const after = await tide.admin().alterClientQuotas(entity, {}, remove);
          if (after) print([after], false);
          else process.stdout.write('removed; the entity has no quota left\n');
        });
      }),
    ),
  );
  return quotas;
}
