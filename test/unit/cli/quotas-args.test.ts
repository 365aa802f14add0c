/** `tide quotas set` values: key=value with byte suffixes, refused with a usage error otherwise. */
import { UsageError } from '../../../cli/common';
import { parseQuotaAssignment } from '../../../cli/commands/quotas';

it('reads key=value with k, Ki, M, Mi, G, Gi suffixes and dashes for underscores', () => {
  expect(parseQuotaAssignment('producer_byte_rate=512Ki')).toEqual(['producer_byte_rate', 524288]);
  expect(parseQuotaAssignment('consumer-byte-rate=2M')).toEqual(['consumer_byte_rate', 2_000_000]);
  expect(parseQuotaAssignment('request_rate=12.5')).toEqual(['request_rate', 12.5]);
  expect(parseQuotaAssignment('max_streams=20')).toEqual(['max_streams', 20]);
  expect(parseQuotaAssignment('producer_byte_rate=1gi')).toEqual(['producer_byte_rate', 1024 ** 3]);
});

it('refuses unknown keys, missing or non-positive values and fractional stream caps', () => {
  for (const bad of [
    'bytes=1',
    'producer_byte_rate',
    'producer_byte_rate=',
    'request_rate=-1',
    'request_rate=0',
    'max_streams=1.5',
    'request_rate=fast',
  ]) {
    expect(() => parseQuotaAssignment(bad)).toThrow(UsageError);
  }
});
