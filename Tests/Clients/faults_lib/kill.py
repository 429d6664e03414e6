"""The kill scenario: SIGKILL under load, round after round, then every acknowledged write checked."""
import os
import random
import shutil
import tempfile
import time

from .postgres import Postgres
from .report import Report, log
from .scenario import Setup, check_common, describe, report_audit, report_clean_stop
from .server import sqlite_integrity


# MARK: Scenario: kill -9 under load


def kill_scenario(options, report: Report, store: str, postgres: "Postgres" = None):
    name = f"kill/{store}"
    log(f"\n== {name}: {options.rounds} round(s) of about {options.duration:g} s, {options.workers} clients, SIGKILL at a random moment")
    work = tempfile.mkdtemp(prefix="custos-faults-")
    setup, database = None, None
    try:
        database = postgres.create_database() if postgres else None
        setup = Setup(options, store, os.path.join(work, "data"), os.path.join(work, "server.log"), database)
        rng = random.Random(f"{options.seed}-{store}")
        audits, integrity, head = [], [], None
        for round_number in range(1, options.rounds + 1):
            setup.load.go()
            moment = rng.uniform(0.3, 1.0) * options.duration
            time.sleep(moment)
            lost_before = setup.load.lost_sent
            setup.load.server_up.clear()
            setup.server.kill()
            paused = setup.load.pause()
            in_flight = setup.load.lost_sent - lost_before
            intact, head, text = setup.server.audit_verify(head)
            audits.append((intact, text))
            checked = sqlite_integrity(os.path.join(work, "data")) if store == "sqlite" else None
            if checked is not None:
                integrity.append(checked)
            restart = setup.server.start()
            setup.load.server_up.set()
            log(f"  round {round_number}: killed after {moment:.1f} s with {in_flight} request(s) in flight; "
                f"audit chain {'intact' if intact else 'BROKEN'}" + (f"; integrity {checked.splitlines()[0]}" if checked else "")
                + f"; restarted in {restart:.2f} s" + ("" if paused else "; a client did not stop in time"))
            if round_number < options.rounds:  # the last round's check is check_common's
                lost = setup.checker.lost_writes()
                log(f"  round {round_number}: {sum(setup.ledger.acked.values())} writes acknowledged so far, {len(lost)} lost"
                    + "".join(f"\n    {line}" for line in lost[:10]))
                if lost:
                    report.check(f"{name}: round {round_number}: no acknowledged write lost", False, f"{len(lost)} lost")
        check_common(report, name, setup, options.outbox_timeout)
        status = setup.server.stop()
        intact, head, text = setup.server.audit_verify(head)
        audits.append((intact, text))
        report_audit(report, name, audits)
        if store == "sqlite":
            integrity.append(sqlite_integrity(os.path.join(work, "data")))
            report.check(f"{name}: integrity ok", all(result == "ok" for result in integrity),
                         f"PRAGMA integrity_check after each kill and at the end: {', '.join(r.splitlines()[0] for r in integrity)}")
        report_clean_stop(report, name, setup.server, status)
    except Exception as error:  # the scenario could not finish: a failure, with what stopped it
        report.check(f"{name}: ran to the end", False, describe(error))
    finally:
        if setup:
            setup.close()
        if database:
            postgres.drop_database(database)
        shutil.rmtree(work, ignore_errors=True)
