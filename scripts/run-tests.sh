#!/usr/bin/env bash
# Runs every test in release. Tests that stop the shared PostgreSQL server (suites named
# PostgresOutage…) get a second pass of their own, so they cannot disturb PostgreSQL tests
# running in parallel in the first, and run one at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
swift test -c release --scratch-path .build/test --skip PostgresOutage
log=$(mktemp)
trap 'rm -f "$log"' EXIT
CUSTOS_TEST_PG_OUTAGE=1 swift test -c release --scratch-path .build/test --no-parallel --filter PostgresOutage 2>&1 | tee "$log"
# A filter that matches nothing passes quietly: an outage pass that ran no test is a failure.
grep -Eq "Test run with [1-9][0-9]* tests?" "$log" || { echo "run-tests.sh: the PostgreSQL outage pass ran no test" >&2; exit 1; }
