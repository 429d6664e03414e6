#!/usr/bin/env bash
# A long API fuzzing run: schemathesis (Tests/Clients/api_fuzz.py) sends generated
# requests, valid and invalid, to every operation of openapi.yaml on a live `custos serve --dev`
# (temporary data directory, free loopback port, rate limits off), with an admin key, an rp key
# and real sessions, and checks each answer against the document: no 5xx, declared status codes,
# content types, bodies and headers. Prints one JSON line per distinct finding, then the requests
# made and the failures; exits 1 when there are failures. Builds nothing: it runs the release binary.
# Environment: EXAMPLES (100 generated requests per operation), SEED (random; the summary prints it), PHASES
# (examples,coverage,fuzzing,stateful), OPERATIONS (operationIds, comma-separated; default all),
# CHECKS (schemathesis check names, comma-separated; default the five of api_fuzz.py, e.g.
# positive_data_acceptance,status_code_conformance), IDV (false; true serves with server biometrics, which needs the face models),
# CUSTOS_BIN (.build/release/custos). On PostgreSQL: CUSTOS_BENCH_STORE=postgresql scripts/with-postgres.sh bench/fuzz-api.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# Argon2id at its cheapest: the run activates a fresh spare user whenever it ended the last one.
ARGON2_MEMORY_KIB=${ARGON2_MEMORY_KIB:-64} ARGON2_ITERATIONS=${ARGON2_ITERATIONS:-1}
source bench/lib/serve.sh
bin=${CUSTOS_BIN:-.build/release/custos}
export CUSTOS_BENCH_STORE=${CUSTOS_BENCH_STORE:-sqlite}
examples=${EXAMPLES:-100}
seed=${SEED:-$RANDOM$RANDOM}
python=.custos/venv/bin/python

[[ -x "$bin" ]] || { echo "fuzz-api: no release binary at $bin (swift build -c release, or set CUSTOS_BIN)" >&2; exit 2; }
scripts/install-deps.sh

bench_serve --idv="${IDV:-false}"
config="$data/fuzz.json"  # inside the data directory, which bench_serve's exit trap removes
URL=$url ADMIN_KEY=$admin RP_KEY=$key EXAMPLES=$examples SEED=$seed "$python" - "$config" <<'EOF'
import json, os, sys
env = os.environ
config = {"base_url": env["URL"], "admin_key": env["ADMIN_KEY"], "rp_key": env["RP_KEY"], "openapi": "openapi.yaml",
          "max_examples": int(env["EXAMPLES"]), "seed": int(env["SEED"])}
for name in ("PHASES", "OPERATIONS", "CHECKS"):
    if env.get(name):
        config[name.lower()] = env[name].split(",")
with open(sys.argv[1], "w") as handle:
    json.dump(config, handle)
EOF
echo "fuzz-api: $examples examples per operation, seed $seed (replay with SEED=$seed), $CUSTOS_BENCH_STORE, $bin" >&2
status=0
"$python" Tests/Clients/api_fuzz.py "$config" || status=$?
if ((status != 0 && status != 1)); then
  echo "fuzz-api: api_fuzz.py exited $status; server log:" >&2
  tail -n 20 "$data/server.log" >&2
fi
exit "$status"
