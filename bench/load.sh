#!/usr/bin/env bash
# A mixed workload at a fixed request rate for a given time, against a live `custos serve` on SQLite
# or PostgreSQL: an open model (each operation starts at its scheduled time, whether or not the
# earlier ones have finished) driven by bench/lib/load.py over a pool of users activated with fresh
# P-256 device keys before the measured window. The operations: template status; device login
# (the nonce signed by the device key alone) and password login (the same call with the password;
# the server runs with --password-at-login never, which still checks a password sent); notification
# sent with the rp key and answered at level 0 and at level 1 (the password); bound-device OpenID
# Connect sign-in (challenge, WebAuthn assertion, code) and its PKCE code exchange; and a small share
# of server biometric authentications (workflow 8: initiate, confirm, 5 frames of the blink_selfie
# recording with a blink, MATCHED). As in bench/idv.sh every authentication replays one recording
# (each time with other bytes), so the take memory that refuses replays is off (--take-memory-days 0).
#
# Every minute, and for the whole run: per operation count, p50/p95/p99 latency and errors, the
# throughput achieved against the target, and the server's resident memory (VmRSS). At the end, a
# drift verdict (RSS and p95, first minute against last) and one line:
#   load: store=S rate=R/s duration=Ds ops=N errors=E p95=..ms rss_start=..MiB rss_end=..MiB
# An error is a transport failure, a 5xx, or any answer other than the operation's expected one;
# the exit status is 1 when there was one. Builds nothing: it runs the release binary.
#
# Environment: RATE (operations per second, 40), DURATION (seconds measured, 600), WARMUP (seconds of
# the same load before, not counted, 30), USERS (80), IDV_SHARE (share of biometric authentications,
# 0.02; 0 for none), IDV_USERS (users enrolled for them, 3), MIX (other weights, e.g.
# "status=30,login_device=15,login_password=10,notify_l0=15,notify_l1=10,oidc=20", the defaults),
# REPORT_EVERY (60), SEED, ARGON2_MEMORY_KIB / ARGON2_ITERATIONS (65536 / 3), CUSTOS_BIN
# (.build/release/custos), CUSTOS_SHARED_DATA (../shared/data).
#   DURATION=120 bench/load.sh                                                   # SQLite
#   DURATION=60 scripts/with-postgres.sh bench/load.sh                           # PostgreSQL
#   (or CUSTOS_BENCH_STORE=postgresql scripts/with-postgres.sh bench/load.sh, as bench/fuzz-api.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/serve.sh
bin=${CUSTOS_BIN:-.build/release/custos}
if [[ -z "${CUSTOS_BENCH_STORE:-}" ]]; then
  CUSTOS_BENCH_STORE=sqlite
  [[ -n "${CUSTOS_TEST_DATABASE_URL:-}" ]] && CUSTOS_BENCH_STORE=postgresql
fi
export CUSTOS_BENCH_STORE
if [[ "$CUSTOS_BENCH_STORE" == postgresql && -z "${CUSTOS_TEST_DATABASE_URL:-}" ]]; then
  echo "load: PostgreSQL needs a database: scripts/with-postgres.sh bench/load.sh" >&2
  exit 2
fi
python=.custos/venv/bin/python
frames=${CUSTOS_SHARED_DATA:-../shared/data}/liveness/frames/blink_selfie
idv_share=${IDV_SHARE:-0.02}

[[ -x "$bin" ]] || { echo "load: no release binary at $bin (swift build -c release, or set CUSTOS_BIN)" >&2; exit 2; }
scripts/install-deps.sh
if [[ ! -d "$frames" ]]; then
  [[ "$idv_share" != 0 ]] && echo "load: note: $frames not found (the shared liveness data): no biometric authentications"
  frames="" idv_share=0
fi

# The server biometrics are on (the template status needs them); logins need no password, and one sent is checked.
bench_serve --idv=true --liveness-actions blink --take-memory-days 0 --password-at-login never
redirect=com.example.load:/callback
client=$("$bin" admin client create --server "$url" --api-key "$admin" --name load --redirect-uri "$redirect" --json \
  | "$python" -c 'import json,sys; print(json.load(sys.stdin)["client_id"])')
echo "load: $CUSTOS_BENCH_STORE, $bin; Argon2id t=$iterations m=${memory}KiB p=1; $(nproc) cores shared by server and load"

# The driver runs in the background so that an INT or TERM reaches this shell at once: bench_serve's
# exit trap then stops the server.
URL=$url RP_KEY=$key SERVER_PID=$pid STORE=$CUSTOS_BENCH_STORE FRAMES=$frames IDV_SHARE=$idv_share \
  OIDC_CLIENT=$client REDIRECT=$redirect "$python" bench/lib/load.py &
driver=$!
trap 'kill "$driver" 2>/dev/null; exit 130' INT
trap 'kill "$driver" 2>/dev/null; exit 143' TERM
status=0
wait "$driver" || status=$?
if ((status > 1)); then
  echo "load: the driver exited $status; server log:" >&2
  tail -n 20 "$data/server.log" >&2
fi
exit "$status"
