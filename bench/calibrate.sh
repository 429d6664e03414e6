#!/usr/bin/env bash
# Calibrates the face match threshold on ../shared/data/faces/identities: every same and every
# different pair of its identity folders, through `custos eval calibrate`, at a target
# false-match rate. Prints the threshold, its FMR and FNMR with their counts (and the
# rule-of-three caveat when there are too few different pairs for the target).
# Environment: TARGET_FMR (1e-3), BUILD_DIR (.build), SHARED_DATA (../shared/data); extra
# arguments go to the command (e.g. --preset selfie, --json).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${BUILD_DIR:-.build}
data=${SHARED_DATA:-$root/../shared/data}

scripts/install-deps.sh
[[ -d "$data/faces/identities" ]] || { echo "calibrate.sh: no identities at $data/faces/identities" >&2; exit 1; }
swift build -c release --scratch-path "$build" --product custos >&2
"$build/release/custos" eval calibrate --identities "$data/faces/identities" --target-fmr "${TARGET_FMR:-1e-3}" "$@"
