#!/usr/bin/env bash
# Stops or starts the throwaway cluster of scripts/with-postgres.sh, so tests can simulate
# a database outage:
#
#   "$CUSTOS_TEST_PG_CTL" stop     # fast shutdown; a no-op when already stopped
#   "$CUSTOS_TEST_PG_CTL" start    # waits until it accepts connections; a no-op when running
#   "$CUSTOS_TEST_PG_CTL" status   # exit 0 when running, 3 when stopped
#   "$CUSTOS_TEST_PG_CTL" freeze   # SIGSTOP to the postmaster and its children: a hung database
#   "$CUSTOS_TEST_PG_CTL" thaw     # SIGCONT to the same: it answers again
#
# Reads CUSTOS_TEST_PG_DATA (and CUSTOS_TEST_PG_BIN) exported by with-postgres.sh. The
# server runs as the owner of the data directory (through runuser when called as root).
set -euo pipefail

die() {
    printf 'pg-ctl: %s\n' "$*" >&2
    exit 2
}

[[ $# -eq 1 ]] || die "usage: ${0##*/} stop|start|status|freeze|thaw"
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

# The postmaster (first line of postmaster.pid) and its children.
cluster() {
    local postmaster
    postmaster=$(head -n 1 "$data_dir/postmaster.pid" 2>/dev/null) || die "no postmaster.pid: the cluster is not running"
    echo "$postmaster"
    local entry stat fields
    for entry in /proc/[0-9]*; do
        stat=$(cat "$entry/stat" 2>/dev/null) || continue
        read -r -a fields <<<"${stat##*) }" # state, parent, …
        [[ ${fields[1]} == "$postmaster" ]] && echo "${entry#/proc/}"
    done
    return 0
}

case "$1" in
freeze | thaw)
    signal=STOP
    [[ $1 == thaw ]] && signal=CONT
    pids=$(cluster) # its own die stops only the substitution: check here
    [[ -n "$pids" ]] || die "no postmaster.pid: the cluster is not running"
    # shellcheck disable=SC2086 # one process id a word
    kill -s "$signal" $pids
    ;;
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
    die "unknown action '$1' (stop|start|status|freeze|thaw)"
    ;;
esac
