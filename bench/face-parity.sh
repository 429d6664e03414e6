#!/usr/bin/env bash
# Descriptor parity with face_recognition 1.3.0: for the same image, face box and parameters
# (HOG upsample 1, 5-point alignment, 150 px chip with padding 0.25, 1 jitter), our
# descriptor equals the peer's to within 1e-3 per component. Uses the images and the peer
# virtualenv that bench/face.sh prepares (run it first, or this script prepares them).
# Environment: BUILD_DIR (.build), TOLERANCE (1e-3).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${BUILD_DIR:-.build}
out=bench/out/face
venv=bench/out/face-peer-venv
if [[ ! -x "$venv/bin/python" || ! -d "$out/images/sdist" || ! -d "$out/images/frames" ]]; then
  RUNS=1 WARMUP=0 bench/face.sh >/dev/null
fi
swift build -c release --scratch-path "$build" --product custos >&2
images=("$out"/images/sdist/* "$out"/images/frames/* "$root"/../shared/data/faces/group/two_people.jpg)
"$build/release/custos" face analyze --preset peer --descriptor "${images[@]}" > "$out/parity-ours.json"
"$venv/bin/python" bench/peers/face_parity.py "${TOLERANCE:-1e-3}" < "$out/parity-ours.json" | tee "$out/parity.txt"
