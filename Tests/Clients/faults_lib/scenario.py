"""What every scenario uses: a server set up with its keys, receiver, ledger and load, the checks
every scenario ends with, and why a scenario stopped."""
import secrets
import traceback

import requests

from .checker import Checker
from .client import Receiver
from .ledger import Ledger
from .load import REDIRECT_URI, Context, Load
from .report import Report, log
from .server import Server, ServerFailed


def describe(error: Exception) -> str:
    """Why a scenario stopped: the error, and where for anything but a server that would not run."""
    if isinstance(error, ServerFailed):
        return str(error)
    return f"{type(error).__name__}: {error}\n" + "".join(traceback.format_exception(error)[-4:])


# MARK: Scenario helpers


class Setup:
    """A server with its keys, the OpenID client, the receiver, the ledger and the load."""

    def __init__(self, options, name: str, data_dir: str, log_path: str, database_url: str = None, timings=None):
        self.options = options
        self.server = Server(options.binary, data_dir, log_path, database_url)
        admin = self.server.create_key("admin")
        rp = self.server.create_key("rp")
        self.server.start()
        # The first JWKS makes the signing keys: before the load, so that no measured request waits for an RSA key.
        requests.get(self.server.url + "/.well-known/jwks.json", timeout=60)
        self.receiver = Receiver()
        created = requests.post(self.server.url + "/v1/admin/oidc/clients", headers={"Authorization": f"Bearer {admin['key']}"}, timeout=30,
                                json={"name": "Faults", "client_type": "public", "redirect_uris": [REDIRECT_URI]})
        if created.status_code not in (200, 201):
            raise ServerFailed(f"POST /v1/admin/oidc/clients answered {created.status_code}: {created.text[:200]}")
        self.context = Context(self.server.url, admin["key"], rp["key"], rp["id"], self.receiver, created.json()["client_id"],
                               f"f{secrets.token_hex(3)}-{name}", options.request_timeout, timings)
        self.ledger = Ledger()
        self.load = Load(self.context, self.ledger, options.workers, options.seed)
        self.checker = Checker(self.context, self.ledger)

    def close(self):
        self.load.finish()
        if self.server.alive():
            self.server.stop()
        self.receiver.stop()


def check_common(report: Report, name: str, setup: Setup, outbox_timeout: float, final: bool = True):
    """Lost writes, the outbox, unexpected answers: the checks every scenario ends with."""
    ledger = setup.ledger
    lost = setup.checker.lost_writes()
    if final:
        lost += setup.checker.still_usable()
    log(f"  writes acknowledged: {ledger.acked_line()}")
    log(f"  writes in doubt (sent, no answer or a refusal): {sum(ledger.doubtful.values())} {dict(ledger.doubtful)}")
    log(f"  lost: {len(lost)}")
    for line in lost[:20]:
        log(f"    {line}")
    report.check(f"{name}: no acknowledged write lost", not lost, f"{sum(ledger.acked.values())} acknowledged, {len(lost)} lost")
    figures = setup.checker.outbox(outbox_timeout)
    resumed = not figures["undelivered"] and not figures["attempts_below_posts"] and not figures["never_posted"] and not figures["bad_signatures"]
    log(f"  outbox: {figures['delivered']}/{figures['answered']} answered notifications with a callback delivered, "
        f"{figures['posts']} POSTs seen, attempts >= POSTs for {'every' if not figures['attempts_below_posts'] else 'not every'} delivery, "
        f"{figures['bad_signatures']} bad signatures")
    for line in (figures["undelivered"] + figures["attempts_below_posts"] + [f"{u}: delivered, never POSTed" for u in figures["never_posted"]])[:10]:
        log(f"    {line}")
    report.check(f"{name}: outbox resumed", resumed,
                 f"{figures['delivered']}/{figures['answered']} delivered, {figures['posts']} POSTs, {len(figures['attempts_below_posts'])} "
                 f"deliveries with fewer attempts than POSTs, {figures['bad_signatures']} bad signatures")
    unexpected = list(ledger.unexpected)
    for line in unexpected[:10]:
        log(f"    unexpected: {line}")
    report.check(f"{name}: no unexpected answer", not unexpected, f"{len(unexpected)} unexpected answers or dropped connections")


def report_audit(report: Report, name: str, results: list):
    """results: (intact, text) of each verification."""
    broken = [text for intact, text in results if not intact]
    for text in broken[:3]:
        log(f"    {text}")
    last = results[-1][1].splitlines()[0] if results else "not run"
    report.check(f"{name}: audit chain ok", bool(results) and not broken,
                 f"{len(results) - len(broken)}/{len(results)} verifications intact; last: {last}")


def report_clean_stop(report: Report, name: str, server: Server, status: int = None):
    """Stops `server` (unless its SIGTERM exit `status` is given) and checks that it stopped cleanly,
    with no crash in its log."""
    crashes = server.crashed_in_log()
    if status is None:
        status = server.stop()
    report.check(f"{name}: stops cleanly, no crash in the log", status == 0 and not crashes,
                 f"SIGTERM exit status {status}" + (f"; {crashes[:2]}" if crashes else ""))
