import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ManualClock } from '../../../services/common/clock';
import { silentLogger } from '../../../services/common/logger';
import { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
import { MetadataKeys } from '../../../services/common/metadata/keys';
import { ProducerIdAllocator } from '../../../services/common/cluster/producer-ids';
import { CLUSTER, rejection, setup } from './helpers';

const keys = new MetadataKeys(CLUSTER);
const logger = silentLogger();

describe('ProducerIdAllocator', () => {
  it('hands out 0, 1, 2... claiming one block per blockSize ids', async () => {
    const { store } = setup();
    const allocator = new ProducerIdAllocator({ store, clusterName: CLUSTER, logger, blockSize: 3 });
    const got: number[] = [];
    for (let i = 0; i < 7; i++) got.push(await allocator.next());
    expect(got).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect((await store.get(keys.producerIds))?.value.toString()).toBe('{"nextProducerId":9}');
    await store.close();
  });

  it('gives unique ids to concurrent callers of one allocator', async () => {
    const { store } = setup();
    const allocator = new ProducerIdAllocator({ store, clusterName: CLUSTER, logger, blockSize: 10 });
    const got = await Promise.all(Array.from({ length: 95 }, () => allocator.next()));
    expect(new Set(got).size).toBe(95);
    expect(Math.max(...got)).toBe(94);
    await store.close();
  });

  it('gives disjoint ids to racing allocators', async () => {
    const { store } = setup();
    const allocators = Array.from(
      { length: 4 },
      () => new ProducerIdAllocator({ store, clusterName: CLUSTER, logger, blockSize: 5 }),
    );
    const got = await Promise.all(allocators.flatMap((a) => Array.from({ length: 12 }, () => a.next())));
    expect(new Set(got).size).toBe(got.length);
    await store.close();
  });

  it('never reuses an id across allocator and store restarts', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tide-pid-'));
    const file = path.join(dir, 'metadata.json');
    const seen = new Set<number>();
    try {
      for (let restart = 0; restart < 3; restart++) {
        const store = new EmbeddedMetadataStore({ clock: new ManualClock(), persistPath: file });
        const allocator = new ProducerIdAllocator({ store, clusterName: CLUSTER, logger });
        for (let i = 0; i < 5; i++) {
          const id = await allocator.next();
          expect(seen.has(id)).toBe(false);
          seen.add(id);
        }
        await store.close();
      }
      expect([...seen].sort((a, b) => a - b)).toEqual([
        0, 1, 2, 3, 4, 1000, 1001, 1002, 1003, 1004, 2000, 2001, 2002, 2003, 2004,
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fails with NOT_CONTROLLER when its fencing compare fails', async () => {
    const { store } = setup();
    await store.put(keys.controller, 'other');
    const allocator = new ProducerIdAllocator({
      store,
      clusterName: CLUSTER,
      logger,
      fencing: () => [{ key: keys.controller, target: 'value', op: '=', value: 'me' }],
    });
    expect((await rejection(allocator.next())).code).toBe('NOT_CONTROLLER');
    expect(await store.get(keys.producerIds)).toBeUndefined();
    await store.close();
  });

  it('reports a malformed producer-ids value clearly', async () => {
    const { store } = setup();
    await store.put(keys.producerIds, '{"next": 5}');
    const allocator = new ProducerIdAllocator({ store, clusterName: CLUSTER, logger });
    expect((await rejection(allocator.next())).message).toMatch(
      /malformed metadata at \/tide\/test\/producer-ids: field nextProducerId/,
    );
    await store.close();
  });

  it('rejects a block size below 1', () => {
    const { store } = setup();
    expect(() => new ProducerIdAllocator({ store, clusterName: CLUSTER, logger, blockSize: 0 })).toThrow(
      /block size/,
    );
  });
});
