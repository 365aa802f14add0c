import { RPC_RULES, ruleOf } from '../../../services/common/security/auth/rpc-access';
import { allProtoMethods } from '../../harness/proto-methods';

const methods = allProtoMethods();

it('finds the services of every proto file', () => {
  const services = new Set(methods.map((m) => m.service));
  for (const s of [
    'tide.v1.Broker',
    'tide.v1.Admin',
    'tide.v1.GroupCoordinator',
    'tide.v1.Controller',
    'tide.v1.internal.Replication',
  ]) {
    expect(services).toContain(s);
  }
});

// A new RPC fails here until its authorization is decided in rpc-access.ts.
test.each(methods.map((m) => [m.path, m]))('%s has an access rule', (_path, method) => {
  expect(ruleOf(method.path)).toBeDefined();
});

it('internal services are internal-only, and every client-facing rule names a real RPC', () => {
  for (const m of methods) {
    if (m.service.includes('.internal.') || m.service === 'tide.v1.Controller') {
      expect([m.path, ruleOf(m.path)?.kind]).toEqual([m.path, 'internal']);
    }
  }
  const known = new Set(methods.map((m) => m.path));
  for (const [path, rule] of Object.entries(RPC_RULES)) {
    if (rule.kind === 'public') continue;
    expect([path, known.has(path)]).toEqual([path, true]);
  }
});

it('refusal-relevant extractors read the request fields the protos define', () => {
  const produce = ruleOf('/tide.v1.Broker/Produce');
  expect(produce?.kind === 'client' && produce.needs?.({ topic: 'orders' })).toEqual([
    { resourceType: 'topic', name: 'orders', operation: 'write' },
  ]);
  // A transactional produce joins its partition to the named transaction: write on the id too.
  expect(
    produce?.kind === 'client' && produce.needs?.({ topic: 'orders', transactional_id: 'payments-writer' }),
  ).toEqual([
    { resourceType: 'topic', name: 'orders', operation: 'write' },
    { resourceType: 'transactional_id', name: 'payments-writer', operation: 'write' },
  ]);
  const fetch = ruleOf('/tide.v1.Broker/FetchStream');
  expect(
    fetch?.kind === 'client' &&
      fetch.needs?.({ positions: [{ topic: 'a' }, { topic: 'b' }, { topic: 'a' }] }),
  ).toEqual([
    { resourceType: 'topic', name: 'a', operation: 'read' },
    { resourceType: 'topic', name: 'b', operation: 'read' },
  ]);
  const membership = ruleOf('/tide.v1.GroupCoordinator/Membership');
  expect(
    membership?.kind === 'client' && membership.needs?.({ join: { group_id: 'g' }, kind: 'join' }),
  ).toEqual([{ resourceType: 'group', name: 'g', operation: 'read' }]);
  expect(membership?.kind === 'client' && membership.needs?.({ heartbeat: {}, kind: 'heartbeat' })).toEqual(
    [],
  );
});
