#!/usr/bin/env bash
# Logins per second on this machine, through the SDK (nonce, ES256 signature, login), for
# device-only and device+password logins, with Argon2id at the configured cost (default
# t=3, m=64 MiB, p=1). Server and load share the machine's cores.
#   SECONDS_EACH=10 CONCURRENCY=4 ARGON2_MEMORY_KIB=65536 ARGON2_ITERATIONS=3 bench/login.sh
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${SECONDS_EACH:-10}
concurrency=${CONCURRENCY:-4}
memory=${ARGON2_MEMORY_KIB:-65536}
iterations=${ARGON2_ITERATIONS:-3}

scripts/install-deps.sh
swift build -c release >/dev/null
bin=.build/release/custos
data=$(mktemp -d)
pid=""
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$data"; }
trap cleanup EXIT

key=$("$bin" admin apikey create --scope rp --label bench --data-dir "$data" | tail -n 1)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

run() { # password_at_login, extra bench flags
  local port log; port=$(free_port); log="$data/server-$1.log"
  # Biometrics off: logins never use them, and they would need the face models.
  "$bin" serve --dev --idv=false --data-dir "$data" --port "$port" --password-at-login "$1" \
    --argon2-memory-kib "$memory" --argon2-iterations "$iterations" --log-level warning \
    --rate-limit-per-ip 0 2>"$log" &
  pid=$!
  local up=""
  for _ in $(seq 1 100); do
    curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && { up=1; break; }
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if [[ -z "$up" ]]; then
    echo "bench/login.sh: custos serve did not come up:" >&2
    cat "$log" >&2
    exit 1
  fi
  "$bin" bench login --server "http://127.0.0.1:$port" --api-key "$key" --seconds "$seconds" --concurrency "$concurrency" "${@:2}"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
}

echo "Argon2id t=$iterations m=${memory}KiB p=1; $(nproc) cores shared by server and load; concurrency $concurrency"
run never --no-password
run always
echo "reference: Keycloak documents about 15 password logins per second per vCPU"
