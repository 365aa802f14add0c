#!/usr/bin/env bash
# The README's test command: installs dependencies, builds, checks lint, runs every test.
# Works on a fresh Debian/Ubuntu machine with Node.js 20+ and npm.
set -euo pipefail
cd "$(dirname "$0")/.."
npm ci --no-audit --no-fund
npm run build
# The build compiles services/client/cli; this also type-checks tests, benchmarks and examples.
npm run typecheck
npm run lint
# Integration tests spawn a real etcd (test/harness/etcd.ts): install it if it is missing.
bash scripts/install-etcd.sh
# The chart tests build a Go renderer; the interop tests call Tide from Python and Ruby.
bash scripts/install-test-deps.sh
# --forceExit: a stray handle in one test file must not hang CI after every result is in.
npx jest --ci --forceExit
