#!/usr/bin/env bash
# Longer robustness run of the face decoder + detector than CI's: the Swift fuzz test
# (Tests/CustosFaceTests/FaceRobustnessTests.swift) with more mutated and truncated real
# images. No crash, no hang (slowest case under 10 s), bounded memory (RSS growth under 200 MB).
# Environment: ITERATIONS (100000), SEED (random), BUILD_DIR (.build).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
scripts/install-deps.sh
export CUSTOS_FUZZ_ITERATIONS=${ITERATIONS:-100000}
export CUSTOS_FUZZ_SEED=${SEED:-$RANDOM$RANDOM}
echo "fuzz-face: $CUSTOS_FUZZ_ITERATIONS cases, seed $CUSTOS_FUZZ_SEED (replay with SEED=$CUSTOS_FUZZ_SEED)" >&2
swift test -c release --scratch-path "${BUILD_DIR:-.build}" --filter FaceRobustnessTests 2>&1 | grep -E "fuzz:|✔|✘|error"
