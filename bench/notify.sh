#!/usr/bin/env bash
# Step-up notifications per second on this machine, on SQLite and on PostgreSQL: created by
# the relying party, answered through the SDK at level 0 (no step-up) and level 1 (the
# password step-up, Argon2id at the configured cost), and their webhooks delivered to a
# receiver on loopback, with p50/p95. Server, load and receiver share the machine's cores.
#   SECONDS_EACH=10 CONCURRENCY=4 ARGON2_MEMORY_KIB=65536 ARGON2_ITERATIONS=3 bench/notify.sh
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${SECONDS_EACH:-10}
concurrency=${CONCURRENCY:-4}
memory=${ARGON2_MEMORY_KIB:-65536}
iterations=${ARGON2_ITERATIONS:-3}

if [[ -z "${CUSTOS_BENCH_STORE:-}" ]]; then
  scripts/install-deps.sh
  swift build -c release >/dev/null
  echo "Argon2id t=$iterations m=${memory}KiB p=1; $(nproc) cores shared by server, load and webhook receiver; concurrency $concurrency"
  CUSTOS_BENCH_STORE=sqlite "$0"
  CUSTOS_BENCH_STORE=postgresql scripts/with-postgres.sh "$0"
  exit 0
fi

bin=.build/release/custos
data=$(mktemp -d)
pid=""
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$data"; }
trap cleanup EXIT

database=()
if [[ "$CUSTOS_BENCH_STORE" == postgresql ]]; then
  database=(--database-url "$CUSTOS_TEST_DATABASE_URL")
fi
key=$("$bin" admin apikey create --scope rp --label bench --data-dir "$data" "${database[@]}" | tail -n 1)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# --dev: webhooks may go to the loopback receiver over plain http. Biometrics off (no level 4 here).
"$bin" serve --dev --idv=false --data-dir "$data" "${database[@]}" --port "$port" --password-at-login never \
  --argon2-memory-kib "$memory" --argon2-iterations "$iterations" --log-level warning --rate-limit-per-ip 0 \
  --rate-limit-per-user 0 --webhook-backoff-ms 100 2>"$data/server.log" &
pid=$!
up=""
for _ in $(seq 1 100); do
  curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && { up=1; break; }
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if [[ -z "$up" ]]; then
  echo "bench/notify.sh: custos serve did not come up:" >&2
  cat "$data/server.log" >&2
  exit 1
fi
for level in 0 1; do
  echo "== $CUSTOS_BENCH_STORE, level $level"
  "$bin" bench notify --server "http://127.0.0.1:$port" --api-key "$key" --seconds "$seconds" --concurrency "$concurrency" --level "$level"
done
