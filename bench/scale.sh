#!/usr/bin/env bash
# How the server's cost grows with its database. For each size, a new database filled with a year of
# history for that many users (`custos bench fill`, straight through the store: users with a device, 20
# audit events each, two closed notifications with their delivered webhooks, every tenth through CIBA,
# an OpenID grant with a live refresh token, a session for one user in twenty, and five earlier selfie
# takes for one user in a hundred) and a server on it. Then p50/p95 of what a few sample users do (bench/lib/scale.py), on all
# the sizes' servers at once, taken in turn sample by sample so that the machine's moods fall on every
# size alike: device and password login, template status, notification sent and answered (level 0),
# bound-device sign-in, code exchange, refresh, introspection, the user list's first and last page, one
# user's audit list, a server biometric authentication for users with 0, 50 and 200 earlier takes (the
# replay check opens each), and `custos admin audit verify` per event. Then the growth table and, last:
#   scale max-growth=G op=NAME sizes=A..B store=S
# The server runs Argon2id at 1 MiB, t=1, so a password login shows the database's work, not the hash's
# (bench/login.sh measures that); rate limits are off; everything shares this machine's cores.
#
#   bench/scale.sh                                        # SQLite, SIZES="10000 100000"
#   SIZES="10000 100000 1000000" bench/scale.sh            # 10^6 takes a while to fill
#   bench/scale.sh --postgres                             # PostgreSQL, a throwaway cluster (scripts/with-postgres.sh)
#   bench/scale.sh --database-url postgresql://…          # PostgreSQL: a database custos_scale_SIZE per size, made
#                                                         # (dropped first if it exists) through URL's server
# Environment: SIZES, SAMPLES (per operation, 100), IDV_USERS (users per take count, 4; 0 for none),
# CUSTOS_BIN (.build/release/custos), CUSTOS_SHARED_DATA (../shared/data). Builds nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${CUSTOS_BIN:-.build/release/custos}
python=.custos/venv/bin/python
database_url=""
case "${1:-}" in
  --postgres) exec scripts/with-postgres.sh "$0" --database-url-from-env ;;
  --database-url-from-env) database_url=$CUSTOS_TEST_DATABASE_URL ;;
  --database-url) database_url=${2:?--database-url needs a URL} ;;
  "") ;;
  *) echo "usage: bench/scale.sh [--postgres | --database-url URL]" >&2; exit 2 ;;
esac
[[ -x "$bin" ]] || { echo "scale: no release binary at $bin (swift build -c release, or set CUSTOS_BIN)" >&2; exit 2; }
scripts/install-deps.sh
store=sqlite
[[ -n "$database_url" ]] && store=postgresql
frames=${CUSTOS_SHARED_DATA:-../shared/data}/liveness/frames/blink_selfie
if [[ ! -d "$frames" ]]; then
  echo "scale: note: $frames not found (the shared liveness data): no biometric authentications"
  frames=""
fi
servers=() pids=() dirs=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  for dir in "${dirs[@]}"; do rm -rf "$dir"; done
}
trap cleanup EXIT
echo "scale: $store, $bin, sizes ${SIZES:-10000 100000}; $(nproc) cores shared by servers, filler and client"
field() { "$python" -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }

# A database of `size` users and a server on it; its description is appended to servers.
start_size() {
  local size=$1 data port url database=() pid
  data=$(mktemp -d)
  dirs+=("$data")
  if [[ -n "$database_url" ]]; then
    local name="custos_scale_$size"
    PGOPTIONS=--client-min-messages=warning psql -q "$database_url" -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name" >/dev/null
    database=(--database-url "$("$python" -c 'import sys, urllib.parse as u; p=u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/"+sys.argv[2])))' "$database_url" "$name")")
  fi
  local rp admin
  rp=$("$bin" admin apikey create --scope rp --label scale --data-dir "$data" "${database[@]}" | tail -n 1)
  admin=$("$bin" admin apikey create --scope admin --label scale --data-dir "$data" "${database[@]}" | tail -n 1)
  port=$("$python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  url="http://127.0.0.1:$port"
  "$bin" serve --dev --data-dir "$data" "${database[@]}" --port "$port" --argon2-memory-kib 1024 --argon2-iterations 1 \
    --log-level warning --rate-limit-per-ip 0 --rate-limit-per-user 0 --password-at-login never --liveness-actions blink \
    2>"$data/server.log" &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 1 100); do
    curl -fsS "$url/healthz" >/dev/null 2>&1 && break
    kill -0 "$pid" 2>/dev/null || { echo "scale: custos serve did not come up:" >&2; cat "$data/server.log" >&2; exit 1; }
    sleep 0.1
  done
  local redirect=com.example.scale:/callback public confidential
  public=$("$bin" admin client create --server "$url" --api-key "$admin" --name scale --redirect-uri "$redirect" --json)
  confidential=$("$bin" admin client create --server "$url" --api-key "$admin" --name scale-server --type confidential \
    --redirect-uri "$redirect" --json)
  local fill=("$bin" bench fill --dev --data-dir "$data" "${database[@]}")
  echo "== $size users"
  "${fill[@]}" --users "$size" | grep -v '^fill: [0-9]* users$'
  servers+=("$("$python" - "$url" "$rp" "$admin" "$(field client_id <<<"$public")" "$redirect" "$(field client_id <<<"$confidential")" \
    "$(field client_secret <<<"$confidential")" "$size" "$pid" "${#fill[@]}" "${fill[@]}" "$bin" admin audit verify --dev \
    --data-dir "$data" "${database[@]}" <<'PY'
import json, sys
a = sys.argv[1:]
count = int(a[9])
fill, verify = a[10:10 + count], a[10 + count:]
print(json.dumps({"URL": a[0], "RP_KEY": a[1], "ADMIN_KEY": a[2], "PUBLIC_CLIENT": a[3], "REDIRECT": a[4], "CONFIDENTIAL_CLIENT": a[5],
                  "CONFIDENTIAL_SECRET": a[6], "SIZE": a[7], "SERVER_PID": a[8], "FILL_CMD": fill, "VERIFY_CMD": verify}))
PY
)")
}

for size in ${SIZES:-10000 100000}; do
  start_size "$size"
done
results=${dirs[0]}/results.txt
SERVERS="[$(IFS=,; echo "${servers[*]}")]" STORE=$store FRAMES=$frames IDV_SHARE=0 \
  "$python" bench/lib/scale.py measure | tee "$results" | grep -v '^scale-result '
"$python" bench/lib/scale.py report "$results"
