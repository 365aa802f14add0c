/**
 * The one evaluator of a transaction compare (store.ts `Compare`) against a key, with etcd's rules:
 * an absent key has createRevision = modRevision = version = 0, and a value compare on an absent
 * key fails whatever its operator (there is no value to compare). The embedded store decides its
 * transactions with it; callers that read the keys back after a failed transaction (e.g. the
 * controller finding which fencing compare failed) use it to say which one.
 */
import type { Compare, KeyValue } from './store';

/** True when `compare` holds for `kv` (undefined = the key is absent). */
export function compareHolds(compare: Compare, kv: KeyValue | undefined): boolean {
  if (compare.target === 'value') {
    if (!kv) return false;
    const expected = typeof compare.value === 'string' ? Buffer.from(compare.value) : compare.value;
    const equal = kv.value.equals(expected);
    return compare.op === '=' ? equal : !equal;
  }
  const actual = kv ? kv[compare.target] : 0;
  switch (compare.op) {
    case '=':
      return actual === compare.value;
    case '!=':
      return actual !== compare.value;
    case '<':
      return actual < compare.value;
    case '>':
      return actual > compare.value;
  }
}
