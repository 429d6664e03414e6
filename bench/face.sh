#!/usr/bin/env bash
# Face pipeline benchmark: Custos against the Python face_recognition 1.3.0 package (dlib-bin),
# side by side in one run, on the same images: the test images of face_recognition's sdist
# and frames made from ../shared/data at 640x480 and 1280x720.
#  - ours per stage (decode, detect, landmarks, chip, descriptor) and whole pipeline, one
#    thread, median and p95 over RUNS runs after WARMUP, at the peer's defaults (parity)
#    and at our selfie defaults; throughput on 1 thread and on all cores;
#  - the peer, same stages, at its defaults (HOG upsample 1, 5-point landmarks, 1 jitter),
#    installed by this script into its own virtualenv under bench/out (git-ignored).
# Last line: `ratio parity=P selfie=S` (see bench/peers/face_report.py).
# Times: CLOCK=cpu (default) reports the measuring thread's CPU time, so that other work on
# the machine does not distort the comparison; CLOCK=wall reports wall-clock time. Both are
# in the JSON lines under bench/out/face.
# Environment: RUNS (10), WARMUP (2), CLOCK (cpu), BUILD_DIR (.build), SHARED_DATA (../shared/data).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
runs=${RUNS:-10}
warmup=${WARMUP:-2}
build=${BUILD_DIR:-.build}
data=${SHARED_DATA:-$root/../shared/data}
out=bench/out/face
venv=bench/out/face-peer-venv
mkdir -p "$out"

scripts/install-deps.sh
[[ -f "$data/faces/MANIFEST.tsv" ]] || { echo "face.sh: no test data at $data" >&2; exit 1; }
swift build -c release --scratch-path "$build" --product custos >&2
bin="$build/release/custos"

if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "import face_recognition" 2>/dev/null; then
  echo "face.sh: installing the peer (face_recognition 1.3.0 on dlib-bin) into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check dlib-bin face_recognition_models numpy Pillow Click
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps face_recognition==1.3.0
fi

# The sdist's test images.
if [[ ! -d "$out/images/sdist" ]]; then
  "$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --no-binary :all: face_recognition==1.3.0 -d "$out/sdist"
  mkdir -p "$out/images/sdist"
  tar -xzf "$out"/sdist/face_recognition-1.3.0.tar.gz -C "$out/images/sdist" --strip-components=3 \
    --wildcards 'face_recognition-1.3.0/tests/test_images/*'
fi
"$venv/bin/python" bench/peers/face_frames.py "$data" "$out/images/frames" >/dev/null
images=("$out"/images/sdist/* "$out"/images/frames/*)

# One BLAS thread each: the comparison is per core; throughput uses one engine per core.
# (Count the cores first: nproc honours OMP_NUM_THREADS.)
cores=$(nproc --all)
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
echo "face.sh: $cores cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), ${#images[@]} images, $runs runs after $warmup" >&2
# Parity: ours and the peer image by image, alternating, so both meet the same conditions.
: > "$out/ours-parity.jsonl"
: > "$out/peer.jsonl"
for image in "${images[@]}"; do
  "$bin" face bench --preset peer --label ours-parity --runs "$runs" --warmup "$warmup" --threads 0 "$image" >> "$out/ours-parity.jsonl"
  "$venv/bin/python" bench/peers/face_recognition_bench.py --label peer --runs "$runs" --warmup "$warmup" "$image" >> "$out/peer.jsonl"
done
"$bin" face bench --preset selfie --label ours-selfie --runs "$runs" --warmup "$warmup" --threads "$cores" "${images[@]}" > "$out/ours-selfie.jsonl"
# Throughput on the selfie workload itself: the video-sized frames.
"$bin" face bench --preset selfie --label ours-frames --runs 1 --warmup 1 --threads "$cores" --rounds 8 "$out"/images/frames/* \
  | grep '"throughput"' > "$out/ours-throughput-frames.jsonl"
echo "load average before the report: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
python3 bench/peers/face_report.py --clock="${CLOCK:-cpu}" "$out/ours-parity.jsonl" "$out/ours-selfie.jsonl" "$out/peer.jsonl" \
  "$out/ours-throughput-frames.jsonl" | tee "$out/report.txt"
