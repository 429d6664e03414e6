#!/usr/bin/env bash
# Throughput of GET /healthz: custos serve against a raw libmicrohttpd C server with the
# same event-loop options (bench/peers/mhd_hello.c says what it leaves out), in the same run.
# Servers are pinned to one core, wrk to the other. On a VM, a slower server leaves wrk idle
# and each answer must wake it across cores, so handler work costs more than its own time.
# Prints requests/s for each (median of alternating rounds) and, as the last line, the
# ratio ours/raw. Run it on an otherwise idle machine.
#   DURATION=5 ROUNDS=5 CONNECTIONS=64 THREADS=2 bench/http.sh      (CUSTOS_BIN: a binary built already)
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${DURATION:-5}
rounds=${ROUNDS:-5}
connections=${CONNECTIONS:-64}
threads=${THREADS:-2}
out=bench/out
mkdir -p "$out"

scripts/install-deps.sh
# CUSTOS_BIN: a custos binary built already (then nothing is built).
bin=${CUSTOS_BIN:-.build/release/custos}
[[ -n "${CUSTOS_BIN:-}" ]] || swift build -c release >/dev/null
cc -O2 -o "$out/mhd_hello" bench/peers/mhd_hello.c $(pkg-config --cflags --libs libmicrohttpd)

server_core=0 client_core=1
if [[ $(nproc) -lt 2 ]]; then client_core=0; fi
pin() { if command -v taskset >/dev/null; then exec taskset -c "$1" "${@:2}"; else exec "${@:2}"; fi; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_ready() {
  for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$1/healthz" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "server on port $1 did not come up" >&2
  if [[ "$1" == "$ours_port" ]]; then tail -n 5 "$out/custos-http.log" >&2; fi
  return 1
}
measure() { # port -> requests/s
  pin "$client_core" wrk -t1 -c"$connections" -d"${duration}s" "http://127.0.0.1:$1/healthz" \
    | awk '/Requests\/sec/ {print $2}'
}

pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$data"; }
data=$(mktemp -d)
trap cleanup EXIT

ours_port=$(free_port)
# Biometrics off: /healthz needs no face models, and loading them would only slow the start.
pin "$server_core" "$bin" serve --dev --idv=false --data-dir "$data" --port "$ours_port" --threads "$threads" \
  2>"$out/custos-http.log" &
pids+=($!)
raw_port=$(free_port)
pin "$server_core" "$out/mhd_hello" "$raw_port" "$threads" &
pids+=($!)
wait_ready "$ours_port"
wait_ready "$raw_port"

# Warm both, then measure in alternating rounds so neither profits from a quieter moment;
# report each one's median round.
saved=$duration; duration=2; measure "$ours_port" >/dev/null; measure "$raw_port" >/dev/null; duration=$saved
raw_rounds=() ours_rounds=()
for _ in $(seq 1 "$rounds"); do
  raw_rounds+=("$(measure "$raw_port")")
  ours_rounds+=("$(measure "$ours_port")")
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
raw=$(median "${raw_rounds[@]}")
ours=$(median "${ours_rounds[@]}")

echo "wrk: ${rounds} alternating rounds of ${duration}s, ${connections} connections; server threads ${threads} on core ${server_core}, wrk on core ${client_core}"
echo "raw rounds:  ${raw_rounds[*]}"
echo "ours rounds: ${ours_rounds[*]}"
printf 'raw libmicrohttpd C  GET /healthz  %12.0f req/s (median)\n' "$raw"
printf 'custos serve         GET /healthz  %12.0f req/s (median)\n' "$ours"
awk -v a="$ours" -v b="$raw" 'BEGIN { printf "ratio ours/raw=%.3f\n", a / b }'
