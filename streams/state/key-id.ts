/**
 * In-memory stores index typed keys by a string identity, so object keys (a customer id record,
 * a Windowed<K>) find the same entry as an equal key built elsewhere.
 */
export function keyId(key: unknown): string {
  if (typeof key === 'string') return 's' + key;
  if (typeof key === 'number') return 'n' + key;
  if (Buffer.isBuffer(key)) return 'b' + key.toString('hex');
  if (key === null || key === undefined) return 'z';
  if (typeof key === 'bigint') return 'i' + key.toString();
  return 'j' + stableJson(key);
}

function stableJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'undefined';
  if (Array.isArray(v)) return '[' + v.map(stableJson).join(',') + ']';
  if (Buffer.isBuffer(v)) return JSON.stringify('b:' + v.toString('hex'));
  const o = v as Record<string, unknown>;
  return (
    '{' +
    Object.keys(o)
      .sort()
      .map((k) => JSON.stringify(k) + ':' + stableJson(o[k]))
      .join(',') +
    '}'
  );
}
