#!/usr/bin/env bash
# Installs the etcd server binary the integration tests spawn (test/harness/etcd.ts).
#
# - Does nothing when `etcd` is on PATH or $ETCD_BIN names an executable.
# - On Debian/Ubuntu as root: installs the distribution's etcd-server package (3.4.x on Debian 12)
#   without letting its maintainer scripts start a system etcd daemon (a policy-rc.d that denies
#   service starts while the package installs), and stops one if it got started anyway. Tests run
#   their own etcd on free loopback ports; a system daemon on 2379 would only get in the way.
# - Anywhere else: prints how to install etcd and exits 1.
set -euo pipefail

if [[ -n "${ETCD_BIN:-}" && -x "${ETCD_BIN}" ]]; then
  echo "etcd: using ETCD_BIN=${ETCD_BIN}"
  exit 0
fi
if command -v etcd >/dev/null 2>&1; then
  echo "etcd: using $(command -v etcd) ($(etcd --version 2>/dev/null | head -n 1))"
  exit 0
fi

manual_instructions() {
  cat >&2 <<'EOF'
etcd is not installed, and this script can only install it on Debian/Ubuntu as root.
Install etcd 3.4 or newer yourself, then either put `etcd` on PATH or set ETCD_BIN:
  - Debian/Ubuntu:  sudo apt-get install -y --no-install-recommends etcd-server
                    (then `sudo systemctl disable --now etcd` if it started a daemon)
  - macOS:          brew install etcd
  - any Linux:      download etcd-v3.5.x-linux-amd64.tar.gz from
                    https://github.com/etcd-io/etcd/releases, unpack it, and
                    export ETCD_BIN=/path/to/etcd-v3.5.x-linux-amd64/etcd
EOF
}

if [[ "$(id -u)" != "0" ]]; then
  echo "install-etcd.sh: not running as root." >&2
  manual_instructions
  exit 1
fi
if [[ ! -r /etc/debian_version ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "install-etcd.sh: not a Debian/Ubuntu system." >&2
  manual_instructions
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive

# etcd processes running before the install: never touched (they may be other test runs' servers).
before_pids=" $( (pgrep -x etcd || true) | tr '\n' ' ') "

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

if ! apt-cache policy etcd-server 2>/dev/null | grep -q 'Candidate: [0-9]'; then
  apt-get update
fi
apt-get install -y --no-install-recommends etcd-server
remove_policy

# The package should not have started a daemon; if it did, stop it and kill what is left of it.
if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
  systemctl disable --now etcd >/dev/null 2>&1 || true
elif [[ -x /etc/init.d/etcd ]]; then
  /etc/init.d/etcd stop >/dev/null 2>&1 || true
fi
for pid in $(pgrep -x etcd || true); do
  if [[ "$before_pids" != *" $pid "* ]]; then
    echo "install-etcd.sh: stopping the system etcd (pid $pid) the package started" >&2
    kill -TERM "$pid" 2>/dev/null || true
    sleep 1
    kill -KILL "$pid" 2>/dev/null || true
  fi
done

echo "etcd: installed $(command -v etcd) ($(etcd --version | head -n 1))"
