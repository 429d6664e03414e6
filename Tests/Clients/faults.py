#!/usr/bin/env python3
"""Fault injection against a live `custos serve`: what the server acknowledged stays true.

Usage: faults.py [--binary PATH] [--short] [--rounds N] [--duration SECONDS] [--scenarios LIST] [--stores LIST] [--seed N]

Scenarios (`--scenarios`, comma-separated; default kill,leaked-attempts,pg-outage,disk-full,read-only;
receivers, uploads and slow-clients run only when named):

  kill       Concurrent clients write (users created with an rp key, activations, device logins,
             logouts, notifications sent with a callback and answered at levels 0, 1 and 3, OpenID
             Connect grants) while a LEDGER records every write the server acknowledged (a 2xx with
             its id). Each round kills `custos serve` with SIGKILL at a random moment, checks the
             audit chain (`custos admin audit verify`, the head of the previous round kept) and
             SQLite's integrity, restarts the server on the same data directory (the same
             PostgreSQL database) and checks every acknowledged write against it: users exist,
             activated ones active with their device, live sessions work and ended ones stay ended,
             notifications keep their answer and signed result, grants' access tokens work. The
             webhook outbox must resume: every answered notification with a callback is delivered to
             the receiver this script runs, and the attempts the result API reports are at least the
             POSTs the receiver saw for that delivery id. After the last round the pending users'
             activation codes must still work, every device must log in and every refresh token
             must refresh. On SQLite, and on PostgreSQL where CUSTOS_TEST_DATABASE_URL is set
             (`--stores`).
  leaked-attempts
             Ten right logins of one user judged at once (a slow password hash) and the node killed
             with SIGKILL while they hold the user's attempts: the attempts are leases (5 s here,
             --attempt-lease-seconds) and must come back by themselves, the right password let in
             and never answered 153. On SQLite the node is restarted on the same data; on
             PostgreSQL a second node keeps running and must let the user in without any restart.
  pg-outage  PostgreSQL stopped under load ($CUSTOS_TEST_PG_CTL stop, then start): requests answer
             503 `database_unavailable` within --max-latency seconds, the process keeps running,
             and after PostgreSQL returns the same process serves again (recovery time printed).
  pg-freeze  Opt-in, not in the default list: the same with PostgreSQL frozen (SIGSTOP to the
             cluster's processes, then SIGCONT) instead of stopped, as a hung database host would be.
             A frozen server cannot time out its own statements: Custos gives one up after the
             statement timeout and a second (6 s by default) and may spend a reconnect attempt
             (connect_timeout, 2 s) on top, so run it with --max-latency 10
             (FAULTS_MAX_LATENCY=10). A request held through the thaw may succeed instead.
  disk-full  SQLite on a small tmpfs this script mounts, then fills: writes answer 2xx or a clear
             503/507 JSON error (never a 500, never a dropped connection), reads still work; once
             space returns the same process writes again. Then started on a full disk: a clear
             refusal or clear errors. `PRAGMA integrity_check` must say ok.
  read-only  SQLite on an ext4 image on a loop device, turned read-only under load the way the
             kernel does it on a disk error (errors=remount-ro): clear errors, no crash; then
             stopped, checked with e2fsck, mounted again and restarted: nothing acknowledged lost,
             integrity ok. Then started on a read-only mount: a clear refusal or clear errors.
             Without a loop device only the start on a read-only tmpfs is checked.
  receivers  Opt-in, not in the default list: webhook receivers that fail do not hold back a healthy
             one. Four loopback receivers, one relying party's (one API key): healthy (200 at
             once), failing (500 for 15 s, then 200), hanging (never answers; holds every POST far
             past --webhook-timeout 2) and closing (closes without an answer for 15 s, then 200);
             ten notifications answered for each queue their webhooks. Two nodes on one PostgreSQL
             database deliver (one SQLite node, and a SKIP line, without CUSTOS_TEST_DATABASE_URL).
             Printed per receiver: deliveries expected, delivered (distinct ids answered 2xx), POSTs,
             duplicates (POSTs of an id beyond its first answered 2xx) and the delay from queueing
             to the first 2xx (p50, max). Checks: the healthy receiver gets all within 10 s each;
             failing and closing get all once recovered (90 s at most); no id POSTed more than
             --webhook-max-attempts (8) times, none again after a 2xx; /metrics shows
             custos_webhook_circuit_openings_total > 0 on a node.
  slow-clients Opt-in, not in the default list: 1,000 connections from 50 loopback addresses
             send a request line, then a header line a second and never the end of the headers,
             on a server with --max-connections 1000, --header-deadline 10 and --probe-port (SQLite).
             Prints what the main port's /healthz answers meanwhile, when the server cut them (p50,
             max) and the probes' answers. Checks: every /healthz and /readyz on the probe port
             answered 200 (once a second each); every trickler cut within 10 s + 3 s; the main
             port answers again; a clean stop.
  uploads    Opt-in, not in the default list: memory under 250 concurrent uploads of about 6 MB
             (POST /v1/idv/transactions/{id}/frames, frames that are not JPEGs, server biometrics
             on, rate limits off), from 2 loopback source addresses (each address's 32 MiB upload
             budget binds), then from 16 (the 256 MiB total binds), then from 16 again, on one
             server with the default upload memory limits. VmRSS sampled every 100 ms: idle before
             the first burst, peak and 5 s after each, and the answers by status and error code.
             Checks per burst: peak - idle <= 256 MiB + 150 MiB, 5 s after <= idle + 100 MiB, every
             upload answered and no 5xx but 503 server_busy; then /healthz and a login. On each
             store of --stores.

Mounting needs root (CAP_SYS_ADMIN); where it is impossible the disk scenarios say so and are
skipped. Mounts are always undone on exit.

Prints per scenario what was acknowledged, lost (must be 0), the audit chain, the outbox, the
outage's latencies and recovery, the disk behaviour, one PASS/FAIL line per check, and last
`N passed, M failed` alone on a line. Exits 0 only when every check run passed (a scenario that
cannot run here prints SKIP and why), 1 otherwise, 2 when the binary is missing.

`--short` (FAULTS_SHORT=1): one kill round of a few seconds per store, a 3-second outage, the disk
checks: about a minute in all. Environment: ROUNDS, DURATION, FAULTS_SHORT, FAULTS_SCENARIOS,
FAULTS_STORES, FAULTS_OUTAGE, FAULTS_MAX_LATENCY, FAULTS_RECOVERY_LIMIT, FAULTS_REQUEST_TIMEOUT,
FAULTS_SEED, CUSTOS_BIN; and from scripts/with-postgres.sh CUSTOS_TEST_DATABASE_URL,
CUSTOS_TEST_PG_CTL, CUSTOS_TEST_PG_DATA, CUSTOS_TEST_PG_BIN, CUSTOS_TEST_PG_SOCKET, CUSTOS_TEST_PG_PORT.
"""
import os
import signal
import sys
import time

from faults_lib.attempts import leaked_attempts_scenario
from faults_lib.disk import disk_full_scenario, read_only_scenario
from faults_lib.kill import kill_scenario
from faults_lib.mounts import Mounts
from faults_lib.options import options_from
from faults_lib.pg_outage import pg_outage_scenario
from faults_lib.postgres import Postgres
from faults_lib.receivers import receivers_scenario
from faults_lib.slow_clients import slow_clients_scenario
from faults_lib.report import Report, log
from faults_lib.uploads import uploads_scenario


# MARK: Main


def main(arguments) -> int:
    options = options_from(arguments, __doc__)
    if not os.access(options.binary, os.X_OK):
        print(f"faults: no custos binary at {options.binary} (set CUSTOS_BIN or --binary)", file=sys.stderr)
        return 2
    options.binary = os.path.abspath(options.binary)
    report = Report()
    postgres = Postgres()
    mounts = Mounts()

    def interrupted(number, frame):
        raise SystemExit(128 + number)

    signal.signal(signal.SIGTERM, interrupted)
    log(f"faults: {'short' if options.short else 'long'} run, seed {options.seed}, {options.binary}; scenarios {','.join(options.scenarios)}")
    started = time.monotonic()
    try:
        for scenario, run in (("kill", kill_scenario), ("leaked-attempts", leaked_attempts_scenario)):
            if scenario not in options.scenarios:
                continue
            for store in options.stores:
                if store == "postgresql" and not postgres.available:
                    report.skip(f"{scenario}/{store}", "CUSTOS_TEST_DATABASE_URL is not set (run under scripts/with-postgres.sh)")
                    continue
                run(options, report, store, postgres if store == "postgresql" else None)
        for scenario in ("pg-outage", "pg-freeze"):
            if scenario not in options.scenarios:
                continue
            if postgres.available and postgres.pg_ctl:
                pg_outage_scenario(options, report, postgres, freeze=scenario == "pg-freeze")
            else:
                report.skip(scenario, "CUSTOS_TEST_DATABASE_URL and CUSTOS_TEST_PG_CTL are not set (run under scripts/with-postgres.sh)")
        if "disk-full" in options.scenarios:
            disk_full_scenario(options, report, mounts)
        if "read-only" in options.scenarios:
            read_only_scenario(options, report, mounts)
        if "receivers" in options.scenarios:
            # Two nodes on PostgreSQL where there is one, else one SQLite node.
            on_postgres = postgres.available and "postgresql" in options.stores
            receivers_scenario(options, report, postgres if on_postgres else None)
        if "slow-clients" in options.scenarios:
            slow_clients_scenario(options, report)
        if "uploads" in options.scenarios:
            for store in options.stores:
                if store == "postgresql" and not postgres.available:
                    report.skip(f"uploads/{store}", "CUSTOS_TEST_DATABASE_URL is not set (run under scripts/with-postgres.sh)")
                    continue
                uploads_scenario(options, report, store, postgres if store == "postgresql" else None)
    finally:
        mounts.cleanup()
    log(f"\nfaults: {time.monotonic() - started:.0f} s, seed {options.seed}" + (f"; failed: {', '.join(report.failures)}" if report.failures else ""))
    log(report.summary())
    # Nothing failed, and something was checked or said why it could not be.
    return 0 if report.failed == 0 and (report.passed or report.skipped) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
