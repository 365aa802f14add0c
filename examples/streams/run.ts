/**
 * Runs an example on a cluster: `node dist/... run.js <bootstrap> <example> [stateDir]` after
 * `npm run build`, or import `runExample`. Every instance started with the same example joins the
 * same application and shares its tasks; SIGINT/SIGTERM closes it cleanly (commit, checkpoint).
 */
import { Tide } from '../../client';
import type { StreamsBuilder } from '../../streams';
import { StreamsApp } from '../../streams';
import { exactlyOnceCopy } from './exactly-once-copy';
import { ordersCustomersGlobal } from './orders-customers-global';
import { wordCount } from './word-count';

const EXAMPLES: Record<string, { add: (b: StreamsBuilder) => void; exactlyOnce: boolean }> = {
  'word-count': { add: wordCount, exactlyOnce: false },
  'exactly-once-copy': { add: exactlyOnceCopy, exactlyOnce: true },
  'orders-customers-global': { add: ordersCustomersGlobal, exactlyOnce: false },
};

export async function runExample(bootstrap: string[], name: string, stateDir?: string): Promise<StreamsApp> {
  const example = EXAMPLES[name];
  if (!example) throw new Error(`unknown example ${name}; one of ${Object.keys(EXAMPLES).join(', ')}`);
  const tide = new Tide({ bootstrap });
  const b = tide.streams({
    applicationId: `example-${name}`,
    processingGuarantee: example.exactlyOnce ? 'exactlyOnce' : 'atLeastOnce',
  });
  example.add(b);
  const app = b.app(b.build(), { stateDir, commitIntervalMs: example.exactlyOnce ? 1_000 : 30_000 });
  await app.start();
  const stop = (): void => {
    void app.close().then(() => tide.close());
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return app;
}

if (require.main === module) {
  const [bootstrap, name, stateDir] = process.argv.slice(2);
  runExample((bootstrap ?? '127.0.0.1:9092').split(','), name ?? 'word-count', stateDir).catch(
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
