"""The leaked-attempts scenario: a node killed while it judges a user's passwords must not leave the
user's attempts held. Every login takes one of the user's attempts before its password hash is judged;
SIGKILL lands while ten right logins are judged, so the attempts they hold are never given back by
the process that took them. They are leases: once expired they come back by themselves, on every node.
"""
import os
import shutil
import sqlite3
import tempfile
import threading
import time
from urllib.parse import urlparse

from .client import Api, Doubt, Refused
from .ledger import User, activated_user
from .load import log_in
from .postgres import Postgres
from .report import Report, log
from .scenario import describe
from .server import Server

LEASE_SECONDS = 5
# A password hash slow enough (64 MiB, 24 passes) that the ten logins are being judged at the kill.
SLOW_HASH = ["--workers", "12", "--argon2-memory-kib", "65536", "--argon2-iterations", "24",
             "--attempt-lease-seconds", str(LEASE_SECONDS)]
PASSWORD = "leaked-attempts-password"


def leaked_attempts_scenario(options, report: Report, store: str, postgres: "Postgres" = None):
    """SQLite: the node restarted on the same data. PostgreSQL: two nodes; the one judging is killed,
    the other, which keeps running, must serve the user once the leases have expired."""
    name = f"leaked-attempts/{store}"
    log(f"\n== {name}: ten right logins judged at once, SIGKILL mid-judgement, leases of {LEASE_SECONDS} s")
    work = tempfile.mkdtemp(prefix="custos-faults-")
    database, servers = None, []
    try:
        database = postgres.create_database() if postgres else None
        data_dir = os.path.join(work, "data")
        first = Server(options.binary, data_dir, os.path.join(work, "server-1.log"), database, SLOW_HASH)
        servers.append(first)
        rp = first.create_key("rp")
        first.start()
        survivor = first
        if postgres:
            survivor = Server(options.binary, data_dir, os.path.join(work, "server-2.log"), database, SLOW_HASH)
            servers.append(survivor)
            survivor.start()
        user = activated_user(Api(first.url, options.request_timeout), rp["key"], f"leaked-{os.getpid()}-{int(time.time() * 1000) % 100000}", PASSWORD)

        # Ten right logins at once on the first node; the kill lands while they are judged.
        threads = [threading.Thread(target=quiet_login, args=(first.url, user), daemon=True) for _ in range(10)]
        for thread in threads:
            thread.start()
        held = wait_for_held_attempts(store, data_dir, database, postgres, user.user_id)
        first.kill()
        killed_at = time.monotonic()
        held_after_kill = held_attempts(store, data_dir, database, postgres, user.user_id)
        log(f"  killed with {held_after_kill} attempt(s) of the user held by tries in flight")
        report.check(f"{name}: the kill left attempts held", held_after_kill > 0,
                     f"{held_after_kill} held at the kill (the scenario must catch tries in flight)")
        if not postgres:
            first.start()

        # The right password again, until it is let in: once the leases expired it must be.
        api = Api(survivor.url, options.request_timeout)
        answers, recovered = [], None
        while time.monotonic() - killed_at < LEASE_SECONDS + 60:
            try:
                log_in(api, user)
                recovered = time.monotonic() - killed_at
                break
            except Refused as refused:
                body = refused.answer.body if isinstance(refused.answer.body, dict) else {}
                answers.append(f"{refused.answer.status} {refused.answer.error_code or body.get('status_code')}")
                time.sleep(0.5)
            except Doubt as doubt:
                answers.append(str(doubt))
                time.sleep(0.5)
        left = held_attempts(store, data_dir, database, postgres, user.user_id)
        outcome = f"let in {recovered:.1f} s after the kill" if recovered is not None else "never let in"
        log(f"  the right password {outcome} (leases of {LEASE_SECONDS} s; answers before: {', '.join(answers) or 'none'}); "
            f"attempts held after: {left}")
        report.check(f"{name}: the held attempts come back by themselves", recovered is not None and left == 0,
                     f"let in after {recovered:.1f} s, {left} held after" if recovered is not None
                     else f"never let in within {LEASE_SECONDS + 60} s: {answers[-3:]}")
        report.check(f"{name}: no 153 for the right password", not any(" 153" in answer or "attempts_exhausted" in answer for answer in answers),
                     f"answers before it was let in: {answers[:5]}")
    except Exception as error:
        report.check(f"{name}: ran to the end", False, describe(error))
    finally:
        for server in servers:
            if server.alive():
                server.stop()
        if database:
            postgres.drop_database(database)
        shutil.rmtree(work, ignore_errors=True)



def quiet_login(url: str, user: User):
    """A login whose answer does not matter: the kill ends most of them."""
    try:
        log_in(Api(url, 60), user)
    except Exception:
        pass


def wait_for_held_attempts(store, data_dir, database, postgres, user_id: str, timeout: float = 30) -> int:
    """Waits until tries in flight hold the user's attempts (all five, or what the hashes allow)."""
    started, held = time.monotonic(), 0
    while time.monotonic() - started < timeout:
        held = held_attempts(store, data_dir, database, postgres, user_id)
        if held >= 5 or (held > 0 and time.monotonic() - started > 3):
            return held
        time.sleep(0.05)
    return held


def held_attempts(store, data_dir, database, postgres, user_id: str) -> int:
    """The leases held on the user's credential attempts, read from the database itself."""
    query = "SELECT count(*) FROM counter_leases WHERE key = 'attempts:' || '%s'" % user_id.replace("'", "''")
    if store == "sqlite":
        with sqlite3.connect(f"file:{os.path.join(data_dir, 'custos.sqlite')}?mode=ro", uri=True, timeout=10) as connection:
            return connection.execute(query).fetchone()[0]
    answered = postgres.client("psql", "-d", urlparse(database).path.lstrip("/"), "-Atc", query)
    return int(answered.stdout.strip() or 0)
