#!/usr/bin/env bash
# Step-up notifications per second on this machine, on SQLite and on PostgreSQL: created by
# the relying party, answered through the SDK at level 0 (no step-up) and level 1 (the
# password step-up, Argon2id at the configured cost), and their webhooks delivered to a
# receiver on loopback, with p50/p95. Server, load and receiver share the machine's cores.
#   SECONDS_EACH=10 CONCURRENCY=4 ARGON2_MEMORY_KIB=65536 ARGON2_ITERATIONS=3 bench/notify.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/serve.sh
bench_stores "$0"

# --dev: webhooks may go to the loopback receiver over plain http. Biometrics off (no level 4 here).
bench_serve --password-at-login never --webhook-backoff-ms 100
for level in 0 1; do
  echo "== $CUSTOS_BENCH_STORE, level $level"
  "$bin" bench notify --server "$url" --api-key "$key" --seconds "$seconds" --concurrency "$concurrency" --level "$level"
done
