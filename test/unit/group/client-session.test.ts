/**
 * Client side of groups, pure parts: the member session's transition table, the default static
 * instance id on Kubernetes, and a self-check of the single-owner checker the integration tests use.
 */
import { AssertionError } from '../../../services/common/assert';
import { defaultInstanceId } from '../../../client';
import { nextSessionState, SESSION_TRANSITIONS } from '../../../client/group/membership';
import { ownershipViolations, skipped, type MemberProcess } from '../../integration/group-harness';

describe('member session transition table', () => {
  it.each([
    ['idle', 'start', 'connecting'],
    ['connecting', 'joined', 'joined'],
    ['joined', 'failed', 'backoff'],
    ['backoff', 'retry', 'connecting'],
    ['joined', 'leave', 'leaving'],
    ['leaving', 'left', 'idle'],
    ['backoff', 'close', 'closed'],
  ] as const)('%s --%s--> %s', (from, event, to) => {
    expect(nextSessionState(from, event)).toBe(to);
  });

  it.each([
    ['idle', 'joined'],
    ['closed', 'start'],
    ['leaving', 'retry'],
    ['joined', 'start'],
  ] as const)('rejects %s on %s', (from, event) => {
    expect(() => nextSessionState(from, event)).toThrow(AssertionError);
  });

  it('every state can be closed', () => {
    const close = SESSION_TRANSITIONS.find((r) => r.event === 'close')!;
    expect([...close.from].sort()).toEqual(['backoff', 'closed', 'connecting', 'idle', 'joined', 'leaving']);
  });
});

it('defaults the static instance id to the pod name only on Kubernetes', () => {
  expect(defaultInstanceId({ HOSTNAME: 'web-7d9f-abcde', KUBERNETES_SERVICE_HOST: '10.0.0.1' })).toBe(
    'web-7d9f-abcde',
  );
  expect(defaultInstanceId({ HOSTNAME: 'laptop' })).toBeUndefined();
});

describe('the single-owner checker catches what it must', () => {
  const member = (tag: string, events: object[], exitedAt?: number): MemberProcess => {
    const all = events.map((e) => ({ m: tag, ...e })) as MemberProcess['events'];
    return {
      tag,
      events: all,
      exitedAt,
      records: () => all.filter((e) => e.ev === 'record'),
    } as unknown as MemberProcess;
  };

  it('a clean handover passes', () => {
    const a = member('a', [
      { t: 1, ev: 'assigned', ps: [0] },
      { t: 2, ev: 'record', p: 0, o: 0 },
      { t: 3, ev: 'revoked', ps: [0] },
    ]);
    const b = member('b', [
      { t: 4, ev: 'assigned', ps: [0] },
      { t: 5, ev: 'record', p: 0, o: 1 },
    ]);
    expect(ownershipViolations([a, b])).toEqual([]);
    expect(skipped([a, b], 0, 2)).toEqual([]);
  });

  it('overlapping owners, a record outside ownership, and a gap are reported', () => {
    const a = member(
      'a',
      [
        { t: 1, ev: 'assigned', ps: [0] },
        { t: 9, ev: 'record', p: 0, o: 0 },
      ],
      10,
    );
    const b = member('b', [
      { t: 5, ev: 'assigned', ps: [0] },
      { t: 6, ev: 'record', p: 1, o: 0 },
    ]);
    const violations = ownershipViolations([a, b]);
    expect(violations.some((v) => /partition 0: b owned it from 5 while a owned it until 10/.test(v))).toBe(
      true,
    );
    expect(violations.some((v) => /b consumed 1@0/.test(v))).toBe(true);
    expect(skipped([a, b], 0, 3)).toEqual([1, 2]);
  });
});
