#!/usr/bin/env bash
# Liveness evaluation on ../shared/data/liveness through `custos eval liveness`: BPCER on
# windows of the genuine frame sequences (blink_selfie 12 fps, head_turn and talking_obama
# 10 fps) and APCER per presentation-attack type (replayed and re-encoded frames, photos
# moved by hand and tilted to fake a blink or a turn, the printed-photo and screen-replay
# samples; earlier takes replayed re-encoded, resized, mirrored, reversed, cropped, padded with held
# frames, with frames dropped and repeated, or in part), in ISO/IEC 30107-3 terms, with counts and
# failure reasons, and the replayed takes refused beside the genuine acceptance. Targets: APCER 0% for
# repeated frames and warped photos, BPCER <= 10%.
# Environment: WINDOW (16 frames), BUILD_DIR (.build), SHARED_DATA (../shared/data); extra
# arguments go to the command (e.g. --actions blink, --json).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${BUILD_DIR:-.build}
data=${SHARED_DATA:-$root/../shared/data}

scripts/install-deps.sh
[[ -f "$data/liveness/MANIFEST.tsv" ]] || { echo "liveness.sh: no liveness data at $data/liveness" >&2; exit 1; }
swift build -c release --scratch-path "$build" --product custos >&2
export OPENBLAS_NUM_THREADS=1
"$build/release/custos" eval liveness --data "$data/liveness" --window "${WINDOW:-16}" "$@"
