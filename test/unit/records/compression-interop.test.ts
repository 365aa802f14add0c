/**
 * lz4 and zstd output read by the reference command-line tools (the LZ4 frame format that Kafka's
 * and kafkajs-compatible lz4 codecs read, and Zstandard frames), and their output read by Tide.
 * Runs where the `lz4` and `zstd` tools are installed (Debian packages lz4, zstd).
 */
import { spawnSync } from 'child_process';
import { compress, decompress } from '../../../services/common/records/compression';
import { CompressionCodec } from '../../../services/common/records/layout';

const has = (tool: string) => spawnSync(tool, ['--version']).status === 0;

const data = Buffer.concat(
  Array.from({ length: 200 }, (_, i) => Buffer.from(`record ${i} ${'abc'.repeat(i % 17)} \u00ff\n`)),
);

describe.each([
  ['lz4', CompressionCodec.Lz4],
  ['zstd', CompressionCodec.Zstd],
])('%s', (tool, codec) => {
  const run = has(tool) ? test : test.skip;

  run(`the ${tool} tool decompresses what Tide compresses`, () => {
    const out = spawnSync(tool, ['-dc'], { input: compress(codec, data) });
    expect(out.status).toBe(0);
    expect(out.stdout.equals(data)).toBe(true);
  });

  run(`Tide decompresses what the ${tool} tool compresses`, () => {
    const out = spawnSync(tool, ['-c'], { input: data });
    expect(out.status).toBe(0);
    expect(decompress(codec, out.stdout).equals(data)).toBe(true);
  });
});
