/** Every transaction key of the coordinator's config is documented where users look for it. */
import * as fs from 'fs';
import * as path from 'path';
import { COORDINATOR_CONFIG_SCHEMA } from '../../../services/group-coordinator/config';

const docs = (name: string) => fs.readFileSync(path.join(__dirname, '..', '..', '..', 'docs', name), 'utf8');

it('documents the transaction keys of tide coordinator', () => {
  const keys = Object.keys(COORDINATOR_CONFIG_SCHEMA).filter((k) => k.startsWith('transaction'));
  expect(keys.sort()).toEqual([
    'transactionMaxTimeoutMs',
    'transactionStatePartitions',
    'transactionStateReplicationFactor',
    'transactionalIdExpirationMs',
  ]);
  for (const file of ['consumer-groups.md', 'configuration.md', 'transactions.md'])
    for (const key of keys)
      expect({ file, documented: docs(file).includes(`\`${key}\``) }).toEqual({ file, documented: true });
});
