/**
 * Invariant checks. A failed assertion is a bug in Tide, never a retriable condition: it throws an
 * AssertionError that the services let crash the process rather than serve wrong data.
 */
export class AssertionError extends Error {
  constructor(message: string) {
    super(`assertion failed: ${message}`);
    this.name = 'AssertionError';
  }
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionError(message);
}
