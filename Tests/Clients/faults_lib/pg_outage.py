"""The PostgreSQL outage scenario: PostgreSQL stopped (pg-outage) or frozen (pg-freeze) under load."""
import collections
import os
import shutil
import tempfile
import time

from .client import Timing
from .load import Prober
from .postgres import Postgres
from .report import Report, log
from .scenario import Setup, check_common, describe, report_audit


# MARK: Scenario: PostgreSQL stopped under load


def pg_outage_scenario(options, report: Report, postgres: Postgres, freeze: bool = False):
    """PostgreSQL stopped (pg-outage) or, opt-in, frozen with SIGSTOP (pg-freeze) under load."""
    name, down, up = ("pg-freeze", "freeze", "thaw") if freeze else ("pg-outage", "stop", "start")
    log(f"\n== {name}: PostgreSQL {'frozen (SIGSTOP)' if freeze else 'stopped'} for {options.outage:g} s under load, then "
        f"{'continued' if freeze else 'started'}; the same server process throughout")
    work = tempfile.mkdtemp(prefix="custos-faults-")
    setup, database, prober, stopped = None, None, None, False
    timings = []
    try:
        database = postgres.create_database()
        setup = Setup(options, name.replace("-", ""), os.path.join(work, "data"), os.path.join(work, "server.log"), database, timings)
        setup.context.unavailable_expected = True
        pid = setup.server.process.pid
        setup.load.go()
        time.sleep(options.warmup)
        reference = next((user.user_id for user in setup.ledger.users), "nobody")
        prober = Prober(setup.context, setup.ledger, reference)
        prober.start()
        time.sleep(0.5)
        stop_began = time.monotonic()
        stopped = True
        stop_status = postgres.control(down)
        stop_done = time.monotonic()
        time.sleep(options.outage)
        start_began = time.monotonic()
        start_status = postgres.control(up)
        stopped = False
        start_done = time.monotonic()
        prober.watch_from = start_done
        deadline = start_done + options.recovery_limit + 10
        while prober.recovered_at is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)
        all_paused = setup.load.pause()
        prober.stopping.set()
        prober.join(30)
        # A request still without an answer counts with the time it has waited so far.
        now = time.monotonic()
        for api in [worker.api for worker in setup.load.workers] + [prober.api]:
            waiting = api.waiting
            if waiting:
                timings.append(Timing(waiting[0] + " (no answer yet)", waiting[1], now - waiting[1], "no answer"))
        if not all_paused:
            log("  a client was still waiting for an answer a minute after the outage")
        # During the outage: every request that overlapped it.
        during = [t for t in timings if t.started < start_began and t.started + t.elapsed > stop_done]
        inside = [t for t in during if t.started >= stop_done and t.route not in ("/healthz",)]
        statuses = collections.Counter(f"{t.status} {t.code}" if t.code else str(t.status) for t in inside)
        # How long each request was held once the database went away (a request already running
        # then counts from the stop on): the longest is what "no request hangs" measures.
        def held(t):
            return t.started + t.elapsed - max(t.started, stop_began)
        slowest = max((held(t) for t in during), default=0.0)
        slow_route = max(during, key=held).route if during else "-"
        started_inside = max((t.elapsed for t in inside), default=0.0)
        # A frozen server answers again once continued: a request it held that ends after that may
        # succeed (it was neither refused nor lost). A stopped server has nothing to finish.
        clear = [t for t in inside if (t.status == 503 and t.code == "database_unavailable")
                 or (freeze and isinstance(t.status, int) and t.status < 300 and t.started + t.elapsed >= start_began)]
        health = [t for t in timings if t.route == "/healthz" and stop_done <= t.started < start_began]
        recovery = (prober.recovered_at - start_done) if prober.recovered_at else None
        log(f"  PostgreSQL {down}: exit {stop_status} in {stop_done - stop_began:.2f} s; "
            f"{up}: exit {start_status} in {start_done - start_began:.2f} s")
        log(f"  requests during the outage: {len(inside)} ({dict(statuses)}); max latency {started_inside:.2f} s of those started in it, "
            f"{slowest:.2f} s held after the stop began ({slow_route}); "
            f"/healthz {collections.Counter(str(t.status) for t in health)}")
        before = [t for t in timings if t.started + t.elapsed <= stop_began]
        if before:
            normal = max(before, key=lambda t: t.elapsed)
            log(f"  before the outage: {len(before)} requests, max latency {normal.elapsed:.2f} s ({normal.route})")
        for t in sorted(during, key=held, reverse=True)[:3]:
            log(f"    slowest: {t.route} {t.status} {t.code or ''}, started {t.started - stop_began:+.2f} s from the stop, took {t.elapsed:.2f} s")
        log(f"  PostgreSQL outage max latency: {slowest:.2f} s; recovery time: " + (f"{recovery:.2f} s" if recovery is not None else "none"))
        report.check(f"{name}: requests answer 503 database_unavailable" + (" (or succeed once thawed)" if freeze else ""),
                     bool(inside) and len(clear) == len(inside),
                     f"{len(clear)}/{len(inside)} requests during the outage answered 503 database_unavailable"
                     + (" or succeeded after the thaw" if freeze else "") + "; others: "
                     f"{dict(collections.Counter(s for s in statuses.elements() if s != '503 database_unavailable'))}")
        wrong = [t for t in during if not isinstance(t.status, int) or (t.status >= 500 and (t.status, t.code) != (503, "database_unavailable"))]
        report.check(f"{name}: no other server error", not wrong,
                     f"{len(during)} requests overlapped the outage; " + (", ".join(f"{t.route} {t.status} {t.code or ''}" for t in wrong[:5])
                                                                         if wrong else "none answered another 5xx or dropped its connection"))
        report.check(f"{name}: no request hangs", slowest <= options.max_latency,
                     f"max latency {slowest:.2f} s ({slow_route}), limit {options.max_latency:g} s")
        report.check(f"{name}: the process keeps running", setup.server.alive() and setup.server.process.pid == pid
                     and all(t.status == 200 for t in health), f"pid {pid} {'alive' if setup.server.alive() else 'GONE'}; /healthz answered 200 "
                     f"{sum(1 for t in health if t.status == 200)}/{len(health)} times during the outage")
        report.check(f"{name}: recovers without a restart", recovery is not None and recovery <= options.recovery_limit,
                     (f"/readyz 200 and a write acknowledged {recovery:.2f} s after PostgreSQL was back" if recovery is not None
                      else "never recovered") + f" (limit {options.recovery_limit:g} s)")
        check_common(report, name, setup, options.outbox_timeout, final=False)
        intact, _, text = setup.server.audit_verify()
        report_audit(report, name, [(intact, text)])
    except Exception as error:  # the scenario could not finish: a failure, with what stopped it
        report.check(f"{name}: ran to the end", False, describe(error))
    finally:
        if stopped:
            postgres.control(up)
        if prober:
            prober.stopping.set()
        if setup:
            setup.close()
        if database:
            postgres.drop_database(database)
        shutil.rmtree(work, ignore_errors=True)
