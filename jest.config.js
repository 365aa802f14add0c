/** Unit tests run from TypeScript sources; integration tests spawn the built CLI (dist/). */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  testTimeout: 60000,
  maxWorkers: 2,
  // With 175 test files a worker's heap kept growing until it crashed (out of memory) late in the
  // run; a worker above this after a test file is replaced by a fresh one.
  workerIdleMemoryLimit: '1GB',
};
