#!/usr/bin/env bash
# Stops or starts the throwaway cluster of scripts/with-postgres.sh, so tests can simulate
# a database outage:
#
#   "$CUSTOS_TEST_PG_CTL" stop     # fast shutdown; a no-op when already stopped
#   "$CUSTOS_TEST_PG_CTL" start    # waits until it accepts connections; a no-op when running
#   "$CUSTOS_TEST_PG_CTL" status   # exit 0 when running, 3 when stopped
#
# Reads CUSTOS_TEST_PG_DATA (and CUSTOS_TEST_PG_BIN) exported by with-postgres.sh. The
# server runs as the owner of the data directory (through runuser when called as root).
set -euo pipefail

die() {
    printf 'pg-ctl: %s\n' "$*" >&2
    exit 2
}

[[ $# -eq 1 ]] || die "usage: ${0##*/} stop|start|status"
data_dir=${CUSTOS_TEST_PG_DATA:-}
[[ -n "$data_dir" && -d "$data_dir" ]] || die "CUSTOS_TEST_PG_DATA is not set or not a directory (run under scripts/with-postgres.sh)"
pg_bin=${CUSTOS_TEST_PG_BIN:-/usr/lib/postgresql/15/bin}
log_file="$(dirname -- "$data_dir")/server.log"

owner=$(stat -c %U -- "$data_dir")
as_server=()
if [[ $(id -un) != "$owner" ]]; then
    [[ $(id -u) -eq 0 ]] || die "the cluster belongs to '$owner'; run as '$owner' or root"
    as_server=(runuser -u "$owner" --)
fi

running() {
    "${as_server[@]}" "$pg_bin/pg_ctl" -D "$data_dir" status >/dev/null 2>&1
}

case "$1" in
stop)
    if running; then
        "${as_server[@]}" "$pg_bin/pg_ctl" -D "$data_dir" -m fast -w -t 60 stop >/dev/null
    fi
    ;;
start)
    if ! running; then
        "${as_server[@]}" "$pg_bin/pg_ctl" -D "$data_dir" -l "$log_file" -w -t 60 start >/dev/null
    fi
    ;;
status)
    if running; then
        echo running
    else
        echo stopped
        exit 3
    fi
    ;;
*)
    die "unknown action '$1' (stop|start|status)"
    ;;
esac
