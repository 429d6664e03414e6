#!/usr/bin/env bash
# Runs every test in release. Some suites get a pass of their own after the rest, one test at a
# time: those that stop the shared PostgreSQL server (PostgresOutage…), so they cannot disturb
# PostgreSQL tests running in parallel; the browser tests (BrowserCLITests) and the deployment
# test (DeployTLSCLITests: nginx in front of custos, a selfie over TLS), whose capture keeps real
# time; and the fault injection (FaultsCLITests: kill -9 under load, full and read-only disks) and
# the fuzzers (APIFuzzCLITests, ParserFuzzCLITests), which would take the CPU from the others;
# and the face fuzzer (FaceRobustnessTests), whose leak check reads the process's memory in use,
# which suites running beside it in the same process raise and lower.
set -euo pipefail
cd "$(dirname "$0")/.."
swift test -c release --scratch-path .build/test --skip PostgresOutage --skip BrowserCLITests --skip DeployTLSCLITests \
  --skip FaultsCLITests --skip APIFuzzCLITests --skip ParserFuzzCLITests --skip FaceRobustnessTests
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
isolated DeployTLSCLITests
isolated FaultsCLITests
isolated APIFuzzCLITests
isolated ParserFuzzCLITests
isolated FaceRobustnessTests
scripts/check-doc-blocks.sh .build/test/release/custos
