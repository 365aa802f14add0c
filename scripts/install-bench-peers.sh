#!/usr/bin/env bash
# Installs the peer servers and tools `npm run bench:peers` starts (bench/peers/):
#   nats-server                          NATS with JetStream
#   redis-server, redis-benchmark        Redis Streams, and Redis's own C benchmark (redis-tools)
#   go + golang-github-nats-io-go-nats-dev   optional: the native Go JetStream client figure
#
# - Does nothing when they are all on PATH already.
# - On Debian/Ubuntu as root: apt-get installs what is missing, without letting the packages'
#   maintainer scripts start system daemons (a policy-rc.d that denies service starts), and stops
#   any redis/nats daemon the install started anyway. The benchmark runs its own servers on free
#   loopback ports; a system redis on 6379 would only use memory and CPU during the measurements.
# - Anywhere else: prints the exact command and exits 1.
set -euo pipefail

required_packages=()
command -v nats-server >/dev/null 2>&1 || required_packages+=(nats-server)
command -v redis-server >/dev/null 2>&1 || required_packages+=(redis-server)
command -v redis-benchmark >/dev/null 2>&1 || required_packages+=(redis-tools)
optional_packages=()
command -v go >/dev/null 2>&1 || optional_packages+=(golang-go)
[[ -d /usr/share/gocode/src/github.com/nats-io/nats.go ]] || optional_packages+=(golang-github-nats-io-go-nats-dev)

if [[ ${#required_packages[@]} -eq 0 && ${#optional_packages[@]} -eq 0 ]]; then
  echo "bench peers: using $(nats-server --version), $(redis-server --version | cut -d' ' -f1-3), $(go version | cut -d' ' -f3)"
  exit 0
fi

packages=("${required_packages[@]}" "${optional_packages[@]}")
manual_instructions() {
  cat >&2 <<EOF
The peer benchmark needs: ${packages[*]}
Install them with:
  sudo apt-get install -y --no-install-recommends ${packages[*]}
(then \`sudo systemctl disable --now redis-server nats-server\` if that started daemons).
The Go packages are optional (the native JetStream figure); nats-server, redis-server and
redis-tools are not. Elsewhere: install nats-server 2.9+ and Redis 7 and put them on PATH.
EOF
}

if [[ "$(id -u)" != "0" ]]; then
  echo "install-bench-peers.sh: not running as root." >&2
  manual_instructions
  exit 1
fi
if [[ ! -r /etc/debian_version ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-bench-peers.sh: not a Debian/Ubuntu system." >&2
  manual_instructions
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
before_pids=" $( (pgrep -x 'redis-server|nats-server' || true) | tr '\n' ' ') "

policy=/usr/sbin/policy-rc.d
added_policy=0
remove_policy() {
  if [[ "$added_policy" == 1 ]]; then
    rm -f "$policy"
    added_policy=0
  fi
}
trap remove_policy EXIT
if [[ ! -e "$policy" ]]; then
  # Exit status 101 = "action forbidden": invoke-rc.d / deb-systemd-invoke will not start services.
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 755 "$policy"
  added_policy=1
fi

if ! apt-cache policy "${packages[0]}" 2>/dev/null | grep -q 'Candidate: [0-9]'; then
  apt-get update
fi
apt-get install -y --no-install-recommends "${required_packages[@]}" "${optional_packages[@]}" || {
  # The Go packages are optional: never fail the benchmark over them.
  if [[ ${#required_packages[@]} -gt 0 ]]; then
    apt-get install -y --no-install-recommends "${required_packages[@]}"
  fi
  echo "install-bench-peers.sh: could not install ${optional_packages[*]}; the native JetStream figure will be skipped" >&2
}
remove_policy

# The packages should not have started daemons; if they did, stop them and what is left of them.
if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
  systemctl disable --now redis-server nats-server >/dev/null 2>&1 || true
fi
for pid in $(pgrep -x 'redis-server|nats-server' || true); do
  if [[ "$before_pids" != *" $pid "* ]]; then
    echo "install-bench-peers.sh: stopping the system daemon (pid $pid) a package started" >&2
    kill -TERM "$pid" 2>/dev/null || true
    sleep 1
    kill -KILL "$pid" 2>/dev/null || true
  fi
done

echo "bench peers: installed $(nats-server --version), $(redis-server --version | cut -d' ' -f1-3)"
