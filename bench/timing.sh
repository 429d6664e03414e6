#!/usr/bin/env bash
# Whether an answer's time tells who exists: samples the answer time of each kind of refusal that
# must not be told apart, interleaved in random order, each from a new client address, against a
# live `custos serve` with production Argon2id (64 MiB, t=3), and compares each kind with the
# reference by the Mann-Whitney U test and the gap between medians (bootstrap 95% interval).
#
#   password registration (POST /v1/devices/register with a password; one Argon2id verification each):
#     wrong password (the reference), unknown user, disabled user
#   login without a device proof (POST /v1/login; none of them reaches the password):
#     wrong signature of an active user's device (the reference), unknown user, disabled user's
#     device, unknown device of an active user
#
# Prints a table per group, then one line:
#   timing: samples=N per kind, worst=KIND p=P median-gap=Gms verdict=indistinguishable|DISTINGUISHABLE
# and exits 1 when a kind is distinguishable (p < 0.001 and a median gap over 1% of the reference).
# This is a benchmark, not a test: `make test` proves the same property by the work each answer does
# (Tests/CustosCoreTests/EqualWorkTests.swift); this measures it on the real server.
#
# Environment: SAMPLES (per kind, 150), ARGON2_MEMORY_KIB / ARGON2_ITERATIONS (65536 / 3), SEED,
# CUSTOS_BIN (.build/release/custos). On PostgreSQL: CUSTOS_BENCH_STORE=postgresql scripts/with-postgres.sh bench/timing.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/serve.sh
bin=${CUSTOS_BIN:-.build/release/custos}
export CUSTOS_BENCH_STORE=${CUSTOS_BENCH_STORE:-sqlite}
python=.custos/venv/bin/python

[[ -x "$bin" ]] || { echo "timing: no release binary at $bin (swift build -c release, or set CUSTOS_BIN)" >&2; exit 2; }
scripts/install-deps.sh

# Each sample comes from its own address (X-Forwarded-For from a trusted proxy on loopback), so no
# per-address limit answers in its place.
bench_serve --password-registration --trusted-proxies 127.0.0.1 --password-at-login never
echo "timing: $CUSTOS_BENCH_STORE, $bin; Argon2id t=$iterations m=${memory}KiB p=1; $(nproc) cores"
URL=$url RP_KEY=$key SAMPLES=${SAMPLES:-150} SEED=${SEED:-$RANDOM$RANDOM} "$python" bench/lib/timing.py
