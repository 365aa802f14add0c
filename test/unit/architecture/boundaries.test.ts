/**
 * The dependency rules of .dependency-cruiser.cjs (run by `npm run lint`): each rule fires on a
 * small tree that breaks it, stays quiet on imports the architecture allows, and the real tree
 * passes. See docs/architecture.md.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '../../..');
const DEPCRUISE = path.join(ROOT, 'node_modules', '.bin', 'depcruise');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');

interface Cruise {
  status: number | null;
  output: string;
}

function cruise(cwd: string, dirs: string[]): Cruise {
  const result = spawnSync(DEPCRUISE, [...dirs, '--config', CONFIG, '--output-type', 'err'], {
    cwd,
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** A throwaway tree: path -> source. Returns what depcruise says of it. */
function cruiseTree(files: Record<string, string>): Cruise {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-boundaries-'));
  try {
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      '{"compilerOptions":{"module":"commonjs","strict":true}}',
    );
    for (const [file, source] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), source);
    }
    const present = ['services', 'client', 'cli'].filter((d) => fs.existsSync(path.join(dir, d)));
    return cruise(dir, present);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const EXPORTS = 'export const value = 1;\n';
const importing = (from: string): string => `import { value } from '${from}';\nexport const used = value;\n`;

describe('architecture boundaries (.dependency-cruiser.cjs)', () => {
  it.each([
    [
      'no-service-imports-another',
      {
        'services/controller/placement.ts': EXPORTS,
        'services/broker/node.ts': importing('../controller/placement'),
      },
    ],
    [
      'common-imports-no-service',
      { 'services/broker/node.ts': EXPORTS, 'services/common/cluster/x.ts': importing('../../broker/node') },
    ],
    [
      'client-imports-no-service',
      {
        'services/group-coordinator/assignors.ts': EXPORTS,
        'client/group.ts': importing('../services/group-coordinator/assignors'),
      },
    ],
    [
      'client-imports-no-service',
      {
        'services/common/metadata/store.ts': EXPORTS,
        'client/x.ts': importing('../services/common/metadata/store'),
      },
    ],
    [
      'storage-engine-is-standalone',
      {
        'services/common/metadata/keys.ts': EXPORTS,
        'services/broker/log/segment.ts': importing('../../common/metadata/keys'),
      },
    ],
    [
      'storage-engine-is-standalone',
      {
        'services/broker/partition/isr.ts': EXPORTS,
        'services/broker/log/segment.ts': importing('../partition/isr'),
      },
    ],
    [
      'storage-engine-through-its-index',
      {
        'services/broker/log/segment.ts': EXPORTS,
        'services/broker/log/index.ts': `export { value } from './segment';\n`,
        'services/broker/partition/partition.ts': importing('../log/segment'),
      },
    ],
    [
      'composition-roots-use-service-index',
      {
        'services/broker/config.ts': EXPORTS,
        'cli/commands/broker.ts': importing('../../services/broker/config'),
      },
    ],
    [
      'services-import-no-tools',
      { 'cli/common.ts': EXPORTS, 'services/broker/node.ts': importing('../../cli/common') },
    ],
    [
      'no-folder-cycles',
      {
        'services/broker/api/a.ts': importing('../partition/b'),
        'services/broker/partition/b.ts': `import { used } from '../api/a';\nexport const value = used;\n`,
      },
    ],
  ])('%s fires on a tree that breaks it', (rule, files) => {
    const result = cruiseTree(files);
    expect(result.status).not.toBe(0);
    expect(result.output).toContain(`error ${rule}:`);
  });

  it('allows what the architecture allows', () => {
    const result = cruiseTree({
      'services/common/errors.ts': EXPORTS,
      'services/common/records/codec.ts': importing('../errors'),
      'services/common/cluster/topic-registry.ts': importing('../records/codec'),
      'services/broker/log/segment.ts': importing('../../common/records/codec'),
      'services/broker/log/index.ts': `export { value } from './segment';\n`,
      'services/broker/partition/partition.ts': importing('../log'),
      'services/broker/index.ts': importing('./partition/partition'),
      'services/group-coordinator/node.ts': importing('../common/cluster/topic-registry'),
      'client/producer.ts': importing('../services/common/records/codec'),
      'services/group-coordinator/offsets-log.ts': importing('../../client/producer'),
      'cli/commands/broker.ts': importing('../../services/broker'),
    });
    expect(result.output).not.toContain('error ');
    expect(result.status).toBe(0);
  });

  it('the real tree keeps every boundary', () => {
    const result = cruise(ROOT, ['services', 'client', 'cli']);
    expect(result.output).not.toContain('error ');
    expect(result.status).toBe(0);
  }, 60_000);
});
