import { cleanupPolicyOf, parseCleanupPolicy } from '../../../services/broker/log/cleanup-policy';

describe('cleanup.policy, parsed once', () => {
  test.each([
    ['delete', { delete: true, compact: false }],
    ['compact', { delete: false, compact: true }],
    ['compact,delete', { delete: true, compact: true }],
    ['delete,compact', { delete: true, compact: true }],
  ])('%s', (value, flags) => {
    expect(parseCleanupPolicy(value)).toEqual(flags);
    expect(cleanupPolicyOf({ cleanupPolicy: value })).toBe(parseCleanupPolicy(value));
  });

  test.each(['', 'compacted', 'delete,delete', 'compact,delete,compact', ' delete', 7, undefined])(
    '%p names no policy',
    (value) => {
      expect(parseCleanupPolicy(value)).toBeUndefined();
      expect(() => cleanupPolicyOf({ cleanupPolicy: value })).toThrow(/cleanupPolicy must be/);
    },
  );
});
