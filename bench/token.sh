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
source bench/lib/serve.sh
BENCH_PEER="peer: Keycloak sizing guide, ~15 password logins/s per vCPU (= ~$((15 * $(nproc)))/s on $(nproc) vCPUs) for the password fallback"
bench_stores "$0"

bench_serve
redirect=com.example.bench:/callback
client=$("$bin" admin client create --server "$url" --api-key "$admin" --name bench --redirect-uri "$redirect" --json \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["client_id"])')
echo "== $CUSTOS_BENCH_STORE"
"$bin" bench token --server "$url" --api-key "$key" --seconds "$seconds" --concurrency "$concurrency" \
  --client-id "$client" --redirect-uri "$redirect"
