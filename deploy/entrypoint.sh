#!/bin/sh
# The Tide image's entry point: `tide <service> [flags...]` (bin/tide.js), plus the settings a pod
# spec cannot express. The chart (helm/tide) runs `broker`, `controller` and `coordinator` through
# it; test/helm/entrypoint.test.ts runs it outside a container with the chart's env and args.
#
#   broker      TIDE_BROKER_ID = the StatefulSet ordinal: the digits after the last "-" of
#               POD_NAME (or HOSTNAME), e.g. tide-broker-2 -> 2; unless TIDE_BROKER_ID or --id is
#               given. Refuses to start when the name has no ordinal.
#   controller  TIDE_CONTROLLER_ID = a checksum of POD_NAME (Deployment pods have no ordinal; the
#               id only names the instance), unless TIDE_CONTROLLER_ID or --id is given.
#   dev         --host 0.0.0.0 and --data /data unless given: reachable through a published port,
#               data on the volume.
#
# It then execs node (through tuned-node.sh: glibc malloc settings), so the service is PID 1 and
# gets SIGTERM itself (controlled shutdown).
set -eu

here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
tide_js="$here/../bin/tide.js"
service="${1:-}"
pod="${POD_NAME:-${HOSTNAME:-}}"

has_flag() {
  flag="$1"
  shift
  for arg in "$@"; do
    case "$arg" in
      "$flag" | "$flag"=*) return 0 ;;
    esac
  done
  return 1
}

case "$service" in
  broker)
    if [ -z "${TIDE_BROKER_ID:-}" ] && ! has_flag --id "$@"; then
      ordinal="${pod##*-}"
      case "$ordinal" in
        '' | *[!0-9]*)
          echo "tide entrypoint: cannot derive the broker id from the pod name '$pod' (expected <name>-<ordinal>); set TIDE_BROKER_ID or pass --id" >&2
          exit 2
          ;;
      esac
      # Strip leading zeros so "007" is 7, not an octal or invalid number.
      TIDE_BROKER_ID=$(printf '%s' "$ordinal" | sed 's/^0*//')
      export TIDE_BROKER_ID="${TIDE_BROKER_ID:-0}"
    fi
    ;;
  controller)
    if [ -z "${TIDE_CONTROLLER_ID:-}" ] && ! has_flag --id "$@" && [ -n "$pod" ]; then
      sum=$(printf '%s' "$pod" | cksum | cut -d ' ' -f 1)
      export TIDE_CONTROLLER_ID=$((sum % 2147483647))
    fi
    ;;
  dev)
    shift
    has_flag --host "$@" || set -- --host 0.0.0.0 "$@"
    has_flag --data "$@" || set -- --data /data "$@"
    set -- dev "$@"
    ;;
esac

exec sh "$here/tuned-node.sh" "$tide_js" "$@"
