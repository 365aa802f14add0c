/**
 * The Admin quota calls against a metadata store: validation with typed errors, the entity's
 * quotas after a change, filtered listing, and an audit entry naming the caller for every change.
 */
import * as grpc from '@grpc/grpc-js';
import { systemClock } from '../../../services/common/clock';
import { createLogger, silentLogger } from '../../../services/common/logger';
import { EmbeddedMetadataStore } from '../../../services/common/metadata/embedded';
import { quotaAdminHandlers } from '../../../services/common/security/quota/quota-admin-service';

type Any = Record<string, unknown>;

let store: EmbeddedMetadataStore;
const audit: Any[] = [];
let handlers: ReturnType<typeof quotaAdminHandlers>;

beforeEach(() => {
  store = new EmbeddedMetadataStore({ clock: systemClock, logger: silentLogger() });
  audit.length = 0;
  const auditLogger = createLogger({
    level: 'info',
    destination: { write: (line: string) => audit.push(JSON.parse(line) as Any) },
  });
  handlers = quotaAdminHandlers({ store, clusterName: 'c', edge: silentLogger(), audit: auditLogger });
});
afterEach(async () => store.close());

function call<T>(handler: grpc.handleUnaryCall<Any, Any>, request: Any, principal = 'admin'): Promise<T> {
  const metadata = new grpc.Metadata();
  metadata.set('tide-principal', principal);
  return new Promise((resolve, reject) =>
    handler({ request, metadata } as unknown as grpc.ServerUnaryCall<Any, Any>, (err, res) =>
      err ? reject(err) : resolve(res as T),
    ),
  );
}

const alter = (request: Any, principal?: string) =>
  call<{ quotas: Any[] }>(
    handlers.AlterClientQuotas as unknown as grpc.handleUnaryCall<Any, Any>,
    request,
    principal,
  );
const describe_ = (filter: Any) =>
  call<{ quotas: Any[] }>(handlers.DescribeClientQuotas as unknown as grpc.handleUnaryCall<Any, Any>, {
    filter,
  });

it('sets and removes values, lists by entity, and audits each change with the caller', async () => {
  const after = await alter(
    {
      alterations: [
        {
          entity: { user: 'alice', client_id: '' },
          set: [{ key: 'producer_byte_rate', value: 1024 }],
          remove: [],
        },
      ],
    },
    'ops',
  );
  expect(after.quotas).toEqual([
    { entity: { user: 'alice', client_id: '' }, values: [{ key: 'producer_byte_rate', value: 1024 }] },
  ]);
  await alter({
    alterations: [
      { entity: { user: '', client_id: '<default>' }, set: [{ key: 'request_rate', value: 10 }], remove: [] },
    ],
  });
  expect((await describe_({ user: 'alice', client_id: '' })).quotas).toHaveLength(1);
  expect((await describe_({ user: '', client_id: '' })).quotas).toHaveLength(2);
  const removed = await alter({
    alterations: [{ entity: { user: 'alice', client_id: '' }, set: [], remove: ['producer_byte_rate'] }],
  });
  expect(removed.quotas).toEqual([]);
  await new Promise((r) => setTimeout(r, 50));
  const changes = audit.filter((e) => e['msg'] === 'client quotas altered');
  expect(changes).toHaveLength(3);
  expect(changes[0]).toMatchObject({
    principal: 'ops',
    alterations: [{ entity: { user: 'alice' }, set: { producer_byte_rate: 1024 }, remove: [] }],
  });
});

it('refuses unknown keys, empty alterations and entities, and non-positive values', async () => {
  const refused = (request: Any) => alter(request).catch((e: grpc.ServiceError) => e);
  const codeOf = (e: unknown) => (e as grpc.ServiceError).metadata?.get('tide-error-code')[0];
  expect(codeOf(await refused({ alterations: [] }))).toBe('INVALID_REQUEST');
  expect(
    codeOf(
      await refused({
        alterations: [
          { entity: { user: 'a', client_id: '' }, set: [{ key: 'bytes', value: 1 }], remove: [] },
        ],
      }),
    ),
  ).toBe('INVALID_REQUEST');
  expect(
    codeOf(
      await refused({
        alterations: [
          { entity: { user: '', client_id: '' }, set: [{ key: 'request_rate', value: 1 }], remove: [] },
        ],
      }),
    ),
  ).toBe('INVALID_REQUEST');
  expect(
    codeOf(
      await refused({
        alterations: [
          { entity: { user: 'a', client_id: '' }, set: [{ key: 'request_rate', value: 0 }], remove: [] },
        ],
      }),
    ),
  ).toBe('INVALID_REQUEST');
  expect(audit.filter((e) => e['msg'] === 'client quotas altered')).toEqual([]);
});
