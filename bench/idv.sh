#!/usr/bin/env bash
# Server biometric authentications over HTTP on this machine: each one is the whole workflow 8
# (initiate, confirm, 5 frames of 640x480 with a blink, liveness, match against the template),
# through the SDK, at concurrency 1 and 2. Prints the client's whole-flow latency and
# authentications per second, and the server-side time of the frames request (liveness +
# match) from the server's access log. Server and load share the machine's cores.
#   SECONDS_EACH=15 bench/idv.sh      (CUSTOS_BIN: a binary built already)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${SECONDS_EACH:-15}
frames_root=${CUSTOS_SHARED_DATA:-../shared/data}/liveness/frames/blink_selfie
[[ -d "$frames_root" ]] || { echo "bench/idv.sh: $frames_root not found (the shared liveness data)"; exit 2; }

scripts/install-deps.sh
# CUSTOS_BIN: a custos binary built already (then nothing is built).
bin=${CUSTOS_BIN:-.build/release/custos}
[[ -n "${CUSTOS_BIN:-}" ]] || swift build -c release >/dev/null
work=$(mktemp -d)
pid=""
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

# Opt-in: 2 s with two blinks at 12 fps; authentication: every other frame (6 fps) around a blink:
# open, open, open, closed, open (frame 47: the eyes fully open again; 45 is borderline).
mkdir -p "$work/enroll" "$work/auth" "$work/data"
for i in $(seq 1 25); do cp "$frames_root/frame_$(printf %04d "$i").jpg" "$work/enroll/"; done
for i in 37 39 41 43 47; do cp "$frames_root/frame_$(printf %04d "$i").jpg" "$work/auth/"; done

key=$("$bin" admin apikey create --scope rp --label bench --data-dir "$work/data" | tail -n 1)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

run() { # concurrency [serve options…]
  local concurrency=$1 port log; shift; port=$(free_port); log="$work/server-$concurrency-$#.log"
  # Every round replays one recording (with fresh bytes): the take memory that refuses replays
  # is off here, so each round is judged in full.
  "$bin" serve --dev --data-dir "$work/data" --port "$port" --liveness-actions blink --max-attempts 100 --take-memory-days 0 \
    --rate-limit-per-ip 0 --rate-limit-per-user 0 "$@" 2>"$log" &
  pid=$!
  for _ in $(seq 1 300); do curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  "$bin" bench idv --server "http://127.0.0.1:$port" --api-key "$key" --enroll "$work/enroll" --frames "$work/auth" \
    --fps 6 --enroll-fps 12 --seconds "$seconds" --concurrency "$concurrency"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
  python3 - "$log" "$concurrency" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if '"route":"/v1/idv/transactions/{id}/frames"' in l]
ordered = [l["duration_us"] / 1000 for l in lines if l.get("status") == 200]
samples = sorted(ordered[int(sys.argv[2]):])  # the first ones are the users' opt-ins (25 frames)
p = lambda values, q: values[min(len(values) - 1, int(len(values) * q))]
if samples:
    print(f"  server-side frames request (liveness + match): p50 {p(samples, 0.5):.1f} ms, p95 {p(samples, 0.95):.1f} ms over {len(samples)} (concurrency {sys.argv[2]})")
refused = sorted(l["duration_us"] / 1000 for l in lines if l.get("status") == 503)
if refused:
    print(f"  server-side frames request refused busy (503): {len(refused)}, p50 {p(refused, 0.5):.2f} ms, max {refused[-1]:.2f} ms")
PY
}

echo "$(nproc) cores shared by server and load; target: server-side p50 <= 120 ms at concurrency 1, >= 8/s at concurrency 2"
run 1
run 2
# Overload: one face worker and a 1 s bound on the expected wait, for eight users at once. Frames
# that could not start within the bound are refused at once (503 server_busy, Retry-After) rather
# than left waiting; the clients retry after Retry-After. Prints how fast a refusal comes.
echo "overload: --face-workers 1 --face-queue-seconds 1, concurrency 8"
run 8 --face-workers 1 --face-queue-seconds 1
