/**
 * The error edge: request values echoed into messages are bounded (a 64 KiB topic name used to
 * overflow grpc-js's 8 KiB metadata limit and hide the error), and a RESOURCE_EXHAUSTED that grpc-js
 * raises itself (an oversized request) gets the REQUEST_TOO_LARGE trailers.
 */
import * as grpc from '@grpc/grpc-js';
import { ECHO_MAX_CHARS, boundMessage, echo } from '../../../services/common/echo';
import { TideError } from '../../../services/common/errors';
import { toGrpcStatus, toWireError } from '../../../services/common/grpc/status';
import { withTideCode } from '../../../services/common/grpc/oversized-requests';
import { validateTopicName } from '../../../services/common/cluster/topic-name';
import { validateTopicConfigs } from '../../../services/common/cluster/topic-config';

test('echo quotes short values whole and long ones cut, with their length', () => {
  expect(echo('abc')).toBe('"abc"');
  expect(echo(-5)).toBe('"-5"');
  const long = echo('x'.repeat(65_536));
  expect(long).toBe(`"${'x'.repeat(ECHO_MAX_CHARS)}…" (65536 characters)`);
});

test('topic name and config errors stay short', () => {
  const name = 'n'.repeat(65_536);
  expect(() => validateTopicName(name)).toThrow(/\(65536 characters\)/);
  try {
    validateTopicName(name);
  } catch (err) {
    expect((err as Error).message.length).toBeLessThan(600);
  }
  try {
    validateTopicConfigs({ 'retention.ms': '9'.repeat(1 << 20), ['k'.repeat(1 << 16)]: 'v' });
    throw new Error('accepted');
  } catch (err) {
    expect((err as TideError).code).toBe('INVALID_CONFIG');
    expect((err as Error).message.length).toBeLessThan(2_000);
  }
});

test('the API edge bounds any message as a backstop', () => {
  const err = new TideError('INVALID_REQUEST', 'y'.repeat(100_000));
  expect(toGrpcStatus(err).details!.length).toBeLessThan(2_100);
  expect(String(toWireError(err).message).length).toBeLessThan(2_100);
  expect(boundMessage('short')).toBe('short');
});

test('grpc-js RESOURCE_EXHAUSTED gets REQUEST_TOO_LARGE trailers; other statuses are untouched', () => {
  const tagged = withTideCode({
    code: grpc.status.RESOURCE_EXHAUSTED,
    details: 'Received message larger than max (17000000 vs. 16777216)',
  });
  expect(tagged.metadata?.get('tide-error-code')).toEqual(['REQUEST_TOO_LARGE']);
  expect(tagged.metadata?.get('tide-retriable')).toEqual(['false']);
  expect(tagged.details).toMatch(/^REQUEST_TOO_LARGE: Received message larger/);
  const ok = { code: grpc.status.OK, details: 'OK' };
  expect(withTideCode(ok)).toBe(ok);
  const own = toGrpcStatus(new TideError('REQUEST_TOO_LARGE', 'x'));
  expect(withTideCode(own)).toBe(own);
});
