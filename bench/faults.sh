#!/usr/bin/env bash
# Fault injection against a live `custos serve` (Tests/Clients/faults.py has the details):
#   kill       SIGKILL under a write-heavy mixed load (users, activations, logins, logouts,
#              notifications answered at levels 0/1/3 with webhooks to a local receiver, OpenID
#              grants), ROUNDS times, restarting on the same data; a client-side ledger of every
#              acknowledged write is checked after each restart, with the audit chain, SQLite's
#              integrity and the webhook outbox (delivered; attempts >= the POSTs the receiver saw).
#              On SQLite and on PostgreSQL.
#   leaked-attempts
#              ten right logins of one user judged at once, the node killed mid-judgement: the
#              attempts they held come back by themselves once their leases expire (time to the
#              first right login let in printed); SQLite restarted, PostgreSQL on a second node.
#   pg-outage  PostgreSQL stopped under load: quick 503s, the process keeps running, recovery
#              without a restart (max latency and recovery time printed).
#   disk-full  SQLite on a small tmpfs filled up, then freed: clear errors, no crash, integrity ok.
#   read-only  SQLite on an ext4 loop image turned read-only under load, then repaired; a start on
#              a read-only mount.
#   Opt-in, run only when named (FAULTS_SCENARIOS=receivers,uploads,slow-clients or --scenarios …;
#   not in the default list; make test runs uploads and slow-clients on SQLite, FaultsCLITests):
#   receivers  webhook isolation: one relying party's healthy, failing (500 for 15 s), hanging and
#              closing (no answer for 15 s) receivers, ten webhooks each, two nodes on PostgreSQL
#              (else one SQLite node): the healthy one gets all within 10 s, the recovering ones all
#              within 90 s, no id POSTed more than --webhook-max-attempts or again after a 2xx, a
#              circuit opened (/metrics); per receiver deliveries, POSTs, duplicates, delays printed.
#   slow-clients 1,000 connections from 50 addresses trickling header lines on a server with
#              --max-connections 1000, --header-deadline 10 and --probe-port: the probe port answers
#              throughout, every trickler is cut within the deadline + 3 s, the main port recovers.
#   uploads    memory under 250 concurrent ~6 MB frame uploads from 2, then 16, then 16 loopback
#              source addresses on one server with the default upload memory limits: RSS idle, peak
#              and 5 s after each burst (peak <= idle + 256 + 150 MiB, after <= idle + 100 MiB), the
#              answers by status and code (no 5xx but 503 server_busy), then /healthz and a login.
# Prints the figures of each scenario, one PASS/FAIL line per check and last `N passed, M failed`;
# exits 0 only when every check run passed (SKIP lines say what could not run). Builds nothing: it runs the release binary. Needs root for
# the disk scenarios (they are skipped, with a message, where mounting is impossible).
# Environment: ROUNDS (5), DURATION (20 s of load per round), FAULTS_SHORT=1 (one short round of
# each, as make test runs it), FAULTS_SCENARIOS (kill,leaked-attempts,pg-outage,disk-full,read-only; also
# pg-freeze, receivers, uploads, slow-clients), FAULTS_STORES
# (sqlite,postgresql), FAULTS_OUTAGE (10 s), FAULTS_MAX_LATENCY (5 s), FAULTS_SEED, CUSTOS_BIN
# (.build/release/custos). Without CUSTOS_TEST_DATABASE_URL the script runs itself again under
# scripts/with-postgres.sh (FAULTS_NO_POSTGRES=1: SQLite only).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${CUSTOS_BIN:-.build/release/custos}
python=.custos/venv/bin/python

[[ -x "$bin" ]] || { echo "faults: no release binary at $bin (swift build -c release, or set CUSTOS_BIN)" >&2; exit 2; }
[[ -x "$python" ]] || scripts/install-deps.sh

if [[ -z "${CUSTOS_TEST_DATABASE_URL:-}" && "${FAULTS_NO_POSTGRES:-}" != 1 ]]; then
  exec scripts/with-postgres.sh "$0" "$@"
fi
exec "$python" Tests/Clients/faults.py --binary "$bin" "$@"
