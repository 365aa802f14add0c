/**
 * The architecture's boundaries, checked by `npm run lint` (docs/architecture.md draws them).
 * Type-only imports count: a type from another service's folder couples the two just the same.
 */
const SERVICES = '(broker|controller|group-coordinator)';
const STORAGE_ENGINE_MAY_USE =
  '^services/common/(records/|errors\\.ts$|clock\\.ts$|logger\\.ts$|assert\\.ts$)';
const CLIENT_MAY_USE =
  '^services/common/(records/|grpc/|errors\\.ts$|clock\\.ts$|logger\\.ts$|assert\\.ts$|assignor-names\\.ts$|reset-target\\.ts$|security/(transport|cert-files|bearer-token)\\.ts$|security/auth/(authenticator|jwt|principal-mapping)\\.ts$)';

module.exports = {
  forbidden: [
    {
      name: 'storage-engine-is-standalone',
      comment:
        'The storage engine (services/broker/log) knows nothing of the network, the cluster or the metadata ' +
        'store: it may use only services/common records, errors, clock, logger and assert.',
      severity: 'error',
      from: { path: '^services/broker/log/' },
      to: {
        path: '^(services|client|cli)/',
        pathNot: ['^services/broker/log/', STORAGE_ENGINE_MAY_USE],
      },
    },
    {
      name: 'storage-engine-has-no-network',
      comment: 'The storage engine must not load gRPC or etcd, not even through a shared module.',
      severity: 'error',
      from: { path: '^services/broker/log/' },
      to: { path: 'node_modules/(@grpc/|etcd3/)', reachable: true },
    },
    {
      name: 'storage-engine-through-its-index',
      comment:
        'The rest of the broker reaches the storage engine only through its public API, services/broker/log/index.ts; ' +
        'everything else in log/ is internal to it.',
      severity: 'error',
      from: { path: '^services/broker/', pathNot: '^services/broker/log/' },
      to: { path: '^services/broker/log/', pathNot: '^services/broker/log/index\\.ts$' },
    },
    {
      name: 'common-imports-no-service',
      comment: 'services/common is what every service shares; it must not depend on any one service.',
      severity: 'error',
      from: { path: '^services/common/' },
      to: { path: [`^services/${SERVICES}/`, '^(client|cli|bench|test)/'] },
    },
    {
      name: 'no-service-imports-another',
      comment:
        'Services meet only over gRPC and the metadata store. Code two services need belongs in ' +
        'services/common (see docs/architecture.md, "Where new code goes").',
      severity: 'error',
      from: { path: `^services/${SERVICES}/` },
      to: { path: `^services/${SERVICES}/`, pathNot: '^services/$1/' },
    },
    {
      name: 'services-import-no-tools',
      comment:
        'Services are built by the composition roots in cli/; they never import cli, bench or test code.',
      severity: 'error',
      from: { path: '^(services|client)/' },
      to: { path: '^(cli|bench|test)/' },
    },
    {
      name: 'client-imports-no-service',
      comment:
        'The client is a package of its own: the protos and the wire helpers of services/common ' +
        '(records, grpc, errors, clock, logger, assert, assignor names, reset target, TLS credentials and bearer tokens), nothing of any service.',
      severity: 'error',
      from: { path: '^client/' },
      to: { path: '^services/', pathNot: CLIENT_MAY_USE },
    },
    {
      name: 'streams-imports-no-service',
      comment:
        'The streams library uses only the public client and the wire helpers the client may use, nothing of any service.',
      severity: 'error',
      from: { path: '^streams/' },
      to: { path: '^(services|cli|bench|test)/', pathNot: CLIENT_MAY_USE },
    },
    {
      name: 'composition-roots-use-service-index',
      comment: "cli/ builds services through each service's index.ts, the API it declares for that.",
      severity: 'error',
      from: { path: '^cli/' },
      to: { path: `^services/${SERVICES}/`, pathNot: `^services/${SERVICES}/index\\.ts$` },
    },
    {
      name: 'no-folder-cycles',
      comment: 'Folders depend on each other in one direction only.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^(services|client|cli)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^services/common/grpc/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
