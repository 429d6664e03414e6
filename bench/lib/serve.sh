# Sourced by the benchmarks that run against a live `custos serve` on SQLite and on PostgreSQL.
#
#   bench_stores "$0"   — on the first call: installs what is missing, builds, prints the cost
#                         line, then runs the script again once per store and exits.
#   bench_serve ARGS…   — in each run: an rp API key ($key, also $admin for an admin key), a server
#                         on a free port ($port, $url) with the given extra options, rate limits
#                         off, Argon2id at $memory/$iterations; stopped and cleaned up on exit.

seconds=${SECONDS_EACH:-10}
concurrency=${CONCURRENCY:-4}
memory=${ARGON2_MEMORY_KIB:-65536}
iterations=${ARGON2_ITERATIONS:-3}
bin=.build/release/custos

bench_stores() {
  [[ -n "${CUSTOS_BENCH_STORE:-}" ]] && return 0
  scripts/install-deps.sh
  swift build -c release >/dev/null
  echo "Argon2id t=$iterations m=${memory}KiB p=1; $(nproc) cores shared by server and load; concurrency $concurrency"
  [[ -n "${BENCH_PEER:-}" ]] && echo "$BENCH_PEER"
  CUSTOS_BENCH_STORE=sqlite "$1"
  CUSTOS_BENCH_STORE=postgresql scripts/with-postgres.sh "$1"
  exit 0
}

bench_serve() {
  data=$(mktemp -d)
  pid=""
  trap 'if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null; fi; wait 2>/dev/null; rm -rf "$data"' EXIT
  local database=()
  if [[ "$CUSTOS_BENCH_STORE" == postgresql ]]; then
    database=(--database-url "$CUSTOS_TEST_DATABASE_URL")
  fi
  key=$("$bin" admin apikey create --scope rp --label bench --data-dir "$data" "${database[@]}" | tail -n 1)
  admin=$("$bin" admin apikey create --scope admin --label bench --data-dir "$data" "${database[@]}" | tail -n 1)
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  url="http://127.0.0.1:$port"
  "$bin" serve --dev --idv=false --data-dir "$data" "${database[@]}" --port "$port" --argon2-memory-kib "$memory" \
    --argon2-iterations "$iterations" --log-level warning --rate-limit-per-ip 0 --rate-limit-per-user 0 "$@" 2>"$data/server.log" &
  pid=$!
  for _ in $(seq 1 100); do
    curl -fsS "$url/healthz" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "$(basename "$0"): custos serve did not come up:" >&2
  cat "$data/server.log" >&2
  exit 1
}
