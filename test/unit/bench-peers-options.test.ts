import { DEFAULT_OPTIONS, parsePeerArgs } from '../../bench/peers/options';

describe('parsePeerArgs', () => {
  it('defaults to the issue workloads: 1 M records of 100 B and 1 KiB, all workloads and systems', () => {
    expect(parsePeerArgs([])).toEqual(DEFAULT_OPTIONS);
    expect(DEFAULT_OPTIONS).toMatchObject({
      records: 1_000_000,
      sizes: [100, 1024],
      workloads: [1, 2, 3, 4],
      rate: 10_000,
      partitions: 1000,
    });
  });

  it('takes a quick run', () => {
    const o = parsePeerArgs([
      '--records',
      '100000',
      '--workloads',
      '3,1',
      '--systems',
      'tide,redis',
      '--no-native',
      '--sizes',
      '100',
    ]);
    expect(o).toMatchObject({
      records: 100_000,
      workloads: [1, 3],
      systems: ['tide', 'redis'],
      native: false,
      sizes: [100],
    });
  });

  it.each([
    [['--records', '0']],
    [['--records']],
    [['--records', '1.5']],
    [['--workloads', '5']],
    [['--systems', 'kafka']],
    [['--sizes', '4']],
    [['--bogus']],
  ])('rejects %p with a message', (argv) => {
    expect(() => parsePeerArgs(argv)).toThrow(/--|flag/);
  });
});
