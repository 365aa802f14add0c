/**
 * Python and Ruby stubs generated from protos/ at test time (Debian's protoc and gRPC plugins), and
 * a runner for the interop scripts. Packages: scripts/install-test-deps.sh.
 */
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { REPO_ROOT } from '../harness/processes';

export const PYTHON = '/usr/bin/python3';
export const RUBY = '/usr/bin/ruby';
const PROTOS = [
  'tide/v1/common.proto',
  'tide/v1/broker.proto',
  'tide/v1/admin.proto',
  // Transactions (tide_txn_interop.py): the service and the coordinator messages it uses.
  'tide/v1/coordinator.proto',
  'tide/v1/transactions.proto',
];
const PROTO_ROOT = path.join(REPO_ROOT, 'protos');

function need(command: string, args: string[], what: string): void {
  const r = spawnSync(command, args, { encoding: 'utf8' });
  if (r.status !== 0) {
    throw new Error(`${what} is missing (${command} ${args.join(' ')} failed: ${r.stderr || r.error}).
Run \`bash scripts/install-test-deps.sh\`.`);
  }
}

function protoc(out: string, args: string[]): void {
  fs.mkdirSync(out, { recursive: true });
  execFileSync('protoc', ['-I', PROTO_ROOT, ...args, ...PROTOS], { stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Generates the stubs under root/python and root/ruby; throws saying what to install when a tool is missing. */
export function generateStubs(root: string): { python: string; ruby: string } {
  need('protoc', ['--version'], 'protoc (protobuf-compiler)');
  need(PYTHON, ['-c', 'import grpc, google.protobuf'], "Python's grpcio and protobuf (python3-grpcio)");
  need(RUBY, ['-e', 'require "grpc"'], "Ruby's grpc (ruby-grpc)");
  for (const plugin of ['grpc_python_plugin', 'grpc_ruby_plugin'])
    need('sh', ['-c', `command -v ${plugin}`], `${plugin} (protobuf-compiler-grpc)`);
  const stubs = { python: path.join(root, 'python'), ruby: path.join(root, 'ruby') };
  const plugin = (name: string) =>
    execFileSync('sh', ['-c', `command -v ${name}`])
      .toString()
      .trim();
  protoc(stubs.python, [
    `--python_out=${stubs.python}`,
    `--grpc_python_out=${stubs.python}`,
    `--plugin=protoc-gen-grpc_python=${plugin('grpc_python_plugin')}`,
  ]);
  protoc(stubs.ruby, [
    `--ruby_out=${stubs.ruby}`,
    `--grpc_out=${stubs.ruby}`,
    `--plugin=protoc-gen-grpc=${plugin('grpc_ruby_plugin')}`,
  ]);
  return stubs;
}

/** Runs a script; its stdout, or an error with both outputs. */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 30_000, env: { ...process.env, ...env } });
  if (r.status !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}
