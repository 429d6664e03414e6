#!/usr/bin/env bash
# Runs the libFuzzer targets (built by Tests/Fuzz/build.sh) for SECONDS each, every one from a
# copy of its seed corpus in Tests/Fuzz/corpus (what a run adds stays in the copy):
#   Tests/Fuzz/run.sh [SECONDS] [TARGET…]      targets: image json form webauthn jose http
# Prints a line per target (executions, corpus size, findings) and, last, `N passed, M failed`.
# A finding (crash, trap, sanitizer report, an input slower than 10 s) fails its target; the
# input that caused it is kept in .build/fuzz/findings/<run>/<target>/ and its report printed.
# FUZZ_LEAKS=1 turns LeakSanitizer on (off by default: the Swift targets' lazily made globals,
# and OpenSSL's one-time initialisation, read as leaks to it).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
seconds=${1:-5}
[[ $# -gt 0 ]] && shift
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(image json form webauthn jose http)

Tests/Fuzz/build.sh
run_dir=.build/fuzz/findings/$(date +%Y%m%d-%H%M%S)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
for target in "${targets[@]}"; do
  binary=.build/fuzz/parsers
  [[ $target == image ]] && binary=.build/fuzz/image
  mkdir -p "$work/$target" "$run_dir/$target"
  cp Tests/Fuzz/corpus/"$target"/* "$work/$target/"
  log=$work/$target.log
  status=0
  ASAN_OPTIONS=detect_leaks=${FUZZ_LEAKS:-0} CUSTOS_FUZZ_TARGET=$target "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -detect_leaks="${FUZZ_LEAKS:-0}" -artifact_prefix="$run_dir/$target/" "$work/$target" >"$log" 2>&1 || status=$?
  executions=$(awk '/stat::number_of_executed_units/ {print $2}' "$log")
  findings=$(find "$run_dir/$target" -type f | wc -l)
  echo "fuzz: target=$target seconds=$seconds executions=${executions:-0} corpus=$(find "$work/$target" -type f | wc -l) findings=$findings"
  if [[ $status -eq 0 && $findings -eq 0 ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "fuzz: $target failed (exit $status); inputs kept in $run_dir/$target" >&2
    grep -E "ERROR|SUMMARY|==[0-9]+==|#[0-9]+ 0x" "$log" | head -40 >&2 || tail -20 "$log" >&2
  fi
done
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
