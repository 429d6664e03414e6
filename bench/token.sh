#!/usr/bin/env bash
# OpenID Connect sign-in per second on this machine, on SQLite and on PostgreSQL: bound-device
# sign-ins (challenge, WebAuthn assertion, authorization code) and their PKCE code exchanges,
# discovery and JWKS reads, and the password fallback (a new device registered with the
# password, Argon2id at the configured cost), each with p50/p95. Server and load share the
# machine's cores. The peer: Keycloak's published sizing, about 15 password logins per second
# per vCPU, for the password fallback.
#   SECONDS_EACH=10 CONCURRENCY=4 ARGON2_MEMORY_KIB=65536 ARGON2_ITERATIONS=3 bench/token.sh
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${SECONDS_EACH:-10}
concurrency=${CONCURRENCY:-4}
memory=${ARGON2_MEMORY_KIB:-65536}
iterations=${ARGON2_ITERATIONS:-3}

if [[ -z "${CUSTOS_BENCH_STORE:-}" ]]; then
  scripts/install-deps.sh
  swift build -c release >/dev/null
  echo "Argon2id t=$iterations m=${memory}KiB p=1; $(nproc) cores shared by server and load; concurrency $concurrency"
  echo "peer: Keycloak sizing guide, ~15 password logins/s per vCPU (= ~$((15 * $(nproc)))/s on $(nproc) vCPUs) for the password fallback"
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
admin=$("$bin" admin apikey create --scope admin --label bench --data-dir "$data" "${database[@]}" | tail -n 1)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# Biometrics off (not measured here); rate limits off.
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
  echo "bench/token.sh: custos serve did not come up:" >&2
  cat "$data/server.log" >&2
  exit 1
fi
redirect=com.example.bench:/callback
client=$("$bin" admin client create --server "http://127.0.0.1:$port" --api-key "$admin" --name bench --redirect-uri "$redirect" --json \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["client_id"])')
echo "== $CUSTOS_BENCH_STORE"
"$bin" bench token --server "http://127.0.0.1:$port" --api-key "$key" --seconds "$seconds" --concurrency "$concurrency" \
  --client-id "$client" --redirect-uri "$redirect"
