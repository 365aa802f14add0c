#!/usr/bin/env node
'use strict';
// Regenerates the TypeScript types of protos/ into services/common/grpc/generated/.
// The options here must match PROTO_LOADER_OPTIONS in services/common/grpc/proto.ts.
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.join(__dirname, '..');
const outDir = path.join(root, 'services', 'common', 'grpc', 'generated');
const protoRoot = path.join(root, 'protos');
const files = fs
  .readdirSync(path.join(protoRoot, 'tide', 'v1'), { recursive: true })
  .filter((f) => f.endsWith('.proto'))
  .map((f) => path.join('tide', 'v1', f));

fs.rmSync(outDir, { recursive: true, force: true });
execFileSync(
  path.join(root, 'node_modules', '.bin', 'proto-loader-gen-types'),
  [
    '--longs=Number',
    '--enums=String',
    '--defaults',
    '--oneofs',
    '--keepCase',
    '--grpcLib=@grpc/grpc-js',
    '--inputTemplate=%s__Input',
    '--outputTemplate=%s',
    '-I',
    protoRoot,
    '-O',
    outDir,
    ...files,
  ],
  { stdio: 'inherit' },
);

// Keep the output independent of where the checkout lives.
for (const file of fs.readdirSync(outDir, { recursive: true })) {
  const full = path.join(outDir, String(file));
  if (!full.endsWith('.ts')) continue;
  const text = fs
    .readFileSync(full, 'utf8')
    .split(protoRoot + path.sep)
    .join('protos/');
  fs.writeFileSync(full, text);
}
