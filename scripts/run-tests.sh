#!/usr/bin/env bash
# Runs every test in release. Two kinds of suite get a pass of their own after the rest, one
# test at a time: those that stop the shared PostgreSQL server (PostgresOutage…), so they cannot
# disturb PostgreSQL tests running in parallel, and the browser tests (BrowserCLITests), whose
# camera capture keeps real time and should not compete with the other suites for the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
swift test -c release --scratch-path .build/test --skip PostgresOutage --skip BrowserCLITests
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# A filter that matches nothing passes quietly: a pass that ran no test is a failure.
isolated() {
  local name=$1
  shift
  env "$@" swift test -c release --scratch-path .build/test --skip-build --no-parallel --filter "$name" 2>&1 | tee "$log"
  grep -Eq "Test run with [1-9][0-9]* tests?" "$log" || { echo "run-tests.sh: the $name pass ran no test" >&2; exit 1; }
}
isolated PostgresOutage CUSTOS_TEST_PG_OUTAGE=1
isolated BrowserCLITests
