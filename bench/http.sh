#!/usr/bin/env bash
# Throughput of GET /healthz: custos serve against a raw libmicrohttpd C server with the
# same daemon options, in the same run. Servers are pinned to one core, wrk to the other.
# Prints requests/s for each and, as the last line, the ratio ours/raw.
#   DURATION=10 CONNECTIONS=64 THREADS=2 bench/http.sh
set -euo pipefail
cd "$(dirname "$0")/.."

duration=${DURATION:-10}
connections=${CONNECTIONS:-64}
threads=${THREADS:-2}
out=bench/out
mkdir -p "$out"

scripts/install-deps.sh
swift build -c release >/dev/null
cc -O2 -o "$out/mhd_hello" bench/peers/mhd_hello.c $(pkg-config --cflags --libs libmicrohttpd)

server_core=0 client_core=1
if [[ $(nproc) -lt 2 ]]; then client_core=0; fi
pin() { if command -v taskset >/dev/null; then exec taskset -c "$1" "${@:2}"; else exec "${@:2}"; fi; }

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_ready() {
  for _ in $(seq 1 100); do curl -fsS "http://127.0.0.1:$1/healthz" >/dev/null 2>&1 && return 0; sleep 0.1; done
  echo "server on port $1 did not come up" >&2; return 1
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
pin "$server_core" .build/release/custos serve --dev --data-dir "$data" --port "$ours_port" --threads "$threads" \
  2>"$out/custos-http.log" &
pids+=($!)
raw_port=$(free_port)
pin "$server_core" "$out/mhd_hello" "$raw_port" "$threads" &
pids+=($!)
wait_ready "$ours_port"
wait_ready "$raw_port"

# Warm both, then measure alternately so neither profits from a quieter moment.
DURATION_SAVE=$duration; duration=2; measure "$ours_port" >/dev/null; measure "$raw_port" >/dev/null; duration=$DURATION_SAVE
raw=$(measure "$raw_port")
ours=$(measure "$ours_port")

echo "wrk: ${duration}s, ${connections} connections, server threads ${threads}, server on core ${server_core}, wrk on core ${client_core}"
printf 'raw libmicrohttpd C  GET /healthz  %12.0f req/s\n' "$raw"
printf 'custos serve         GET /healthz  %12.0f req/s\n' "$ours"
awk -v a="$ours" -v b="$raw" 'BEGIN { printf "ratio ours/raw=%.3f\n", a / b }'
