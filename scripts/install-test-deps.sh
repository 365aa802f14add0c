#!/usr/bin/env bash
# Installs the Debian packages the chart, interop and TLS tests need (test/helm/, test/interop/):
#
# - Go and the Go libraries of the chart renderer (test/helm/renderer: text/template + sprig, as
#   Helm; sigs.k8s.io/yaml; gojsonschema for values.schema.json). Built offline in GOPATH mode.
# - protoc and the gRPC plugins, Python's grpcio/protobuf and Ruby's grpc, for the interop tests.
#   (python3-grpc-tools is not used: its bundled protoc predates proto3 `optional`.)
# - openssl, which makes the TLS tests' certificates (test/harness/certs.ts).
#
# Does nothing when every package is installed already; runs `apt-get update` only when needed.
set -euo pipefail

PACKAGES=(
  golang-go
  golang-github-masterminds-sprig-dev
  golang-k8s-sigs-yaml-dev
  golang-github-xeipuuv-gojsonschema-dev
  protobuf-compiler
  protobuf-compiler-grpc
  python3-grpcio
  python3-protobuf
  ruby-grpc
  openssl
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q '^install ok installed$'; then
    missing+=("$pkg")
  fi
done
if [[ ${#missing[@]} -eq 0 ]]; then
  echo "test deps: all installed"
  exit 0
fi

if [[ "$(id -u)" != "0" ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-test-deps.sh: missing ${missing[*]}; install them as root on Debian/Ubuntu:" >&2
  echo "  sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi

echo "test deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends "${missing[@]}" >/tmp/install-test-deps.log 2>&1; then
  apt-get update >>/tmp/install-test-deps.log 2>&1
  apt-get install -y --no-install-recommends "${missing[@]}" >>/tmp/install-test-deps.log 2>&1 || {
    cat /tmp/install-test-deps.log >&2
    exit 1
  }
fi
echo "test deps: installed"
