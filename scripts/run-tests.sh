#!/usr/bin/env bash
# Runs every test in release. Tests that stop the shared PostgreSQL server (suites named
# PostgresOutage…) get a second pass of their own, so they cannot disturb PostgreSQL tests
# running in parallel in the first, and run one at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
swift test -c release --skip PostgresOutage
CUSTOS_TEST_PG_OUTAGE=1 swift test -c release --no-parallel --filter PostgresOutage
