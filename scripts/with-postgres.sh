#!/usr/bin/env bash
# Runs a command beside a throwaway PostgreSQL 15 cluster, then removes the cluster.
#
#   scripts/with-postgres.sh swift test
#
# The cluster lives in a fresh temporary directory, listens on a unix socket in that
# directory only (no TCP), runs with fsync off (test data only), and holds a database
# `custos_test`. The command runs as the calling user with these variables exported:
#
#   CUSTOS_TEST_DATABASE_URL  libpq URI of custos_test (postgresql://postgres@/custos_test?host=…&port=…)
#   CUSTOS_TEST_PG_CTL        absolute path of scripts/pg-ctl.sh (stop|start|status this cluster)
#   CUSTOS_TEST_PG_DATA       the data directory
#   CUSTOS_TEST_PG_SOCKET     the unix socket directory
#   CUSTOS_TEST_PG_PORT       the port (it only names the socket file)
#
# As root the server runs as the `postgres` system user (initdb refuses root), through
# runuser; as any other user it runs as that user. The cluster is stopped and its directory
# removed when the command ends, fails, or is interrupted; the script exits with the
# command's status.
#
# Environment: CUSTOS_PG_BIN (default /usr/lib/postgresql/15/bin), CUSTOS_PG_PORT (default
# 54329), TMPDIR (where the temporary directory goes).
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
pg_bin=${CUSTOS_PG_BIN:-/usr/lib/postgresql/15/bin}
port=${CUSTOS_PG_PORT:-54329}

die() {
    printf 'with-postgres: %s\n' "$*" >&2
    exit 2
}

if [[ $# -eq 0 ]]; then
    die "usage: ${0##*/} COMMAND [ARGS...]"
fi
for tool in initdb pg_ctl createdb; do
    [[ -x "$pg_bin/$tool" ]] || die "$pg_bin/$tool not found (install the Debian package postgresql, or set CUSTOS_PG_BIN)"
done

# Who runs the server: initdb refuses root, so root hands it to the postgres user.
server_user=$(id -un)
as_server=()
if [[ $(id -u) -eq 0 ]]; then
    server_user=postgres
    id -u "$server_user" >/dev/null 2>&1 || die "running as root, but there is no '$server_user' system user to run PostgreSQL as"
    command -v runuser >/dev/null 2>&1 || die "running as root, but runuser (util-linux) is missing"
    as_server=(runuser -u "$server_user" --)
fi

work_dir=$(mktemp -d "${TMPDIR:-/tmp}/custos-pg.XXXXXX")
data_dir="$work_dir/data"
socket_dir="$work_dir/sock"
log_file="$work_dir/server.log"
cluster_started=0

# shellcheck disable=SC2317  # reached through the traps below
cleanup() {
    local status=$?
    trap - EXIT INT TERM HUP
    if [[ $cluster_started -eq 1 ]]; then
        "${as_server[@]}" "$pg_bin/pg_ctl" -D "$data_dir" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf -- "$work_dir"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

mkdir -p "$data_dir" "$socket_dir"
chmod 700 "$work_dir" "$data_dir" "$socket_dir"
if [[ $(id -u) -eq 0 ]]; then
    chown -R "$server_user" "$work_dir"
fi

if ! "${as_server[@]}" "$pg_bin/initdb" -D "$data_dir" -U postgres --auth=trust \
    --encoding=UTF8 --locale=C.UTF-8 >"$work_dir/initdb.log" 2>&1; then
    cat "$work_dir/initdb.log" >&2
    die "initdb failed"
fi

# Settings live in the cluster's own configuration so pg-ctl.sh restarts it identically.
cat >>"$data_dir/postgresql.conf" <<CONF

# with-postgres.sh: private, throwaway test cluster
listen_addresses = ''
unix_socket_directories = '$socket_dir'
port = $port
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
CONF

cluster_started=1
if ! "${as_server[@]}" "$pg_bin/pg_ctl" -D "$data_dir" -l "$log_file" -w -t 60 start >/dev/null; then
    cat "$log_file" >&2 || true
    die "PostgreSQL did not start"
fi

"$pg_bin/createdb" -h "$socket_dir" -p "$port" -U postgres custos_test

export CUSTOS_TEST_DATABASE_URL="postgresql://postgres@/custos_test?host=$socket_dir&port=$port"
export CUSTOS_TEST_PG_CTL="$script_dir/pg-ctl.sh"
export CUSTOS_TEST_PG_DATA="$data_dir"
export CUSTOS_TEST_PG_SOCKET="$socket_dir"
export CUSTOS_TEST_PG_PORT="$port"
export CUSTOS_TEST_PG_BIN="$pg_bin"

printf 'with-postgres: PostgreSQL ready at %s\n' "$CUSTOS_TEST_DATABASE_URL" >&2

set +e
"$@"
command_status=$?
set -e
exit "$command_status"
