"""The receivers scenario: webhook receivers that fail, hang or close the connection must not hold
back a healthy one, and the ones that recover must get everything.

Four receivers on loopback, the callbacks of one relying party (one API key, a user each):
`healthy` answers 200 at once; `failing` answers 500 for its first RECOVERY_SECONDS, then 200;
`hanging` accepts every POST and never answers (it holds the connection until the scenario ends,
far past the server's --webhook-timeout); `closing` reads each POST and closes the connection
without an answer for its first RECOVERY_SECONDS, then answers 200. Each records every POST: when
it arrived, its delivery id (the `X-Custos-Delivery` header) and what it answered.

PER_RECEIVER notifications per receiver are sent and answered (which queues their webhooks in the
outbox) as fast as one client can, interleaved, the moment each answer was acknowledged noted. On
PostgreSQL two nodes serve one database and both deliver from the outbox; on SQLite one node.
"""
import collections
import os
import shutil
import statistics
import tempfile
import threading
import time
from dataclasses import dataclass

import requests

from .client import Api, answer_empty, serve_posts
from .ledger import Notification, activated_user
from .load import answer_notification
from .postgres import Postgres
from .report import Report, log
from .scenario import describe
from .server import Server

KINDS = ("healthy", "failing", "hanging", "closing")
PER_RECEIVER = 10
RECOVERY_SECONDS = 15.0     # failing and closing answer 200 from then on (counted from the first answer)
WAIT_SECONDS = 90.0         # for healthy, failing and closing to have every delivery
HEALTHY_MAX_DELAY = 10.0    # queueing to the healthy receiver's first 2xx, at most
MAX_ATTEMPTS = 8
# The webhook settings of the nodes (the server's defaults but for a shorter timeout and backoff).
WEBHOOK_OPTIONS = ["--webhook-timeout", "2", "--webhook-connect-timeout", "1", "--webhook-backoff-ms", "500",
                   "--webhook-max-attempts", str(MAX_ATTEMPTS)]
PASSWORD = "receivers-password"


# MARK: Receivers


@dataclass
class Post:
    arrived: float      # time.monotonic() on arrival, before any answer
    delivery: str       # X-Custos-Delivery
    status: object      # the status answered, or None (no answer: held, or the connection closed)


class BehavingReceiver:
    """One receiver of `kind` on its own loopback port; `begin(t0)` starts its clock (failing and
    closing recover RECOVERY_SECONDS after it)."""

    def __init__(self, kind: str):
        self.kind = kind
        self.posts = []
        self.lock = threading.Lock()
        self.released = threading.Event()   # the hanging receiver lets its connections go
        self.recovers_at = float("inf")
        self.server = serve_posts(self._post, name=f"receiver-{self.kind}")
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook/{self.kind}"

    def _post(self, handler):
        arrived = time.monotonic()
        try:
            handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        except OSError:
            return
        status = self.decide(arrived)
        with self.lock:
            self.posts.append(Post(arrived, handler.headers.get("X-Custos-Delivery") or "", status))
        if status is None:
            if self.kind == "hanging":
                self.released.wait()
            handler.close_connection = True  # no answer: the connection is closed
            return
        answer_empty(handler, status)

    def begin(self, t0: float):
        self.recovers_at = t0 + RECOVERY_SECONDS

    def decide(self, now: float):
        if self.kind == "healthy":
            return 200
        if self.kind == "hanging":
            return None
        if now < self.recovers_at:
            return 500 if self.kind == "failing" else None
        return 200

    def snapshot(self) -> list:
        with self.lock:
            return list(self.posts)

    def first_ok(self) -> dict:
        """delivery id -> arrival of its first POST answered 2xx."""
        firsts = {}
        for post in self.snapshot():
            if isinstance(post.status, int) and 200 <= post.status < 300 and post.delivery not in firsts:
                firsts[post.delivery] = post.arrived
        return firsts

    def stop(self):
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


# MARK: Helpers


def metric(url: str, name: str):
    """A counter or gauge from GET /metrics, or None when absent or the node did not answer."""
    try:
        text = requests.get(url + "/metrics", timeout=10).text
    except requests.RequestException:
        return None
    for line in text.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == name:
            return float(parts[1])
    return None


def seconds(values: list) -> str:
    if not values:
        return "p50 -, max -"
    return f"p50 {statistics.median(values):.2f} s, max {max(values):.2f} s"


# MARK: Scenario: receivers that fail, hang or close beside a healthy one


def receivers_scenario(options, report: Report, postgres: "Postgres" = None):
    """Two nodes on PostgreSQL (`postgres` given), else one SQLite node."""
    store = "postgresql" if postgres else "sqlite"
    name = f"receivers/{store}"
    nodes_wanted = 2 if postgres else 1
    log(f"\n== {name}: {PER_RECEIVER} webhooks each to a healthy, a failing (500 for {RECOVERY_SECONDS:g} s), a hanging and a "
        f"closing (no answer for {RECOVERY_SECONDS:g} s) receiver, {nodes_wanted} node(s) delivering")
    if not postgres:
        report.skip(f"{name}: two nodes", "CUSTOS_TEST_DATABASE_URL is not set (run under scripts/with-postgres.sh): one SQLite node only")
    work = tempfile.mkdtemp(prefix="custos-faults-")
    database, nodes, receivers = None, [], {}
    try:
        database = postgres.create_database() if postgres else None
        data_dir = os.path.join(work, "data")  # one data directory: the nodes share the dev master key
        for index in range(nodes_wanted):
            nodes.append(Server(options.binary, data_dir, os.path.join(work, f"server-{index + 1}.log"), database, WEBHOOK_OPTIONS))
        # One relying party (API key) for all four: its receivers share half of a node's delivery slots,
        # so a hanging or failing one could take the healthy one's share if anything could.
        rp = nodes[0].create_key("rp")
        keys = {kind: rp for kind in KINDS}
        for node in nodes:
            node.start()
        log(f"  nodes: {', '.join(node.url for node in nodes)}; --webhook-timeout 2 s, --webhook-connect-timeout 1 s, "
            f"--webhook-backoff-ms 500, --webhook-max-attempts {MAX_ATTEMPTS}; a circuit opens after 5 failures in a row "
            f"for 30 s (the server's own); the four receivers are one relying party's (one API key)")
        receivers = {kind: BehavingReceiver(kind) for kind in KINDS}
        apis = [Api(node.url, options.request_timeout) for node in nodes]
        tag = f"r{os.getpid()}-{int(time.time()) % 100000}"
        users = {kind: activated_user(apis[0], keys[kind]["key"], f"{tag}-{kind}", PASSWORD) for kind in KINDS}

        # Every notification sent first, then answered interleaved across the receivers and the nodes.
        notifications = []  # (kind, Notification)
        for number in range(PER_RECEIVER):
            for kind in KINDS:
                request = {"user_id": users[kind].user_id, "subject": f"Webhook {kind} {number}", "message": "Approve?",
                           "actions": [{"label": "Approve", "action": "approve", "auth_level": 0}],
                           "expires_in": 3600, "callback_url": receivers[kind].url}
                sent = apis[0].call("POST", "/v1/notifications", token=keys[kind]["key"], json=request, expect=201)
                notifications.append((kind, Notification(sent.body["notification_uuid"], users[kind], request, sent.body.get("number"))))
        t0 = time.monotonic()
        for receiver in receivers.values():
            receiver.begin(t0)
        queued = {}  # uuid -> when its answer was acknowledged
        for index, (kind, notification) in enumerate(notifications):
            answer_notification(apis[index % len(apis)], notification, "approve")
            queued[notification.uuid] = time.monotonic()
        log(f"  {len(notifications)} notifications answered in {time.monotonic() - t0:.2f} s (their webhooks queued)")

        # Until healthy, failing and closing have every delivery (hanging never answers).
        deadline = t0 + WAIT_SECONDS
        waited_for = ("healthy", "failing", "closing")
        while time.monotonic() < deadline:
            if all(len(receivers[kind].first_ok()) >= PER_RECEIVER for kind in waited_for):
                break
            time.sleep(0.25)
        finished = time.monotonic() - t0
        openings = [metric(node.url, "custos_webhook_circuit_openings_total") for node in nodes]
        deferrals = [metric(node.url, "custos_webhook_deferrals_total") for node in nodes]

        # The delivery id of each notification, and the server's own view of its delivery.
        deliveries = {}  # uuid -> the result API's delivery
        for kind, notification in notifications:
            result = apis[0].call("GET", f"/v1/notifications/{notification.uuid}/result", "/v1/notifications/{id}/result",
                                  token=keys[kind]["key"])
            deliveries[notification.uuid] = (result.body or {}).get("delivery") or {}

        log(f"  waited {finished:.1f} s (limit {WAIT_SECONDS:g} s) from the first answer; failing and closing recovered at "
            f"{RECOVERY_SECONDS:g} s")
        log("  duplicates: POSTs of a delivery id beyond its first that the receiver answered 2xx (a delivery sent again "
            "after it was delivered)")
        figures = {}
        for kind in KINDS:
            posts = receivers[kind].snapshot()
            firsts = receivers[kind].first_ok()
            mine = [notification for k, notification in notifications if k == kind]
            ids = {deliveries[n.uuid].get("delivery_id"): n.uuid for n in mine}
            per_id = collections.Counter(post.delivery for post in posts)
            ok_per_id = collections.Counter(post.delivery for post in posts if isinstance(post.status, int) and 200 <= post.status < 300)
            delays = [firsts[delivery] - queued[uuid] for delivery, uuid in ids.items() if delivery in firsts]
            states = collections.Counter(deliveries[n.uuid].get("state", "none") for n in mine)
            strangers = [delivery for delivery in per_id if delivery not in ids]
            figures[kind] = {
                "delivered": sum(1 for delivery in ids if delivery in firsts), "posts": len(posts),
                "duplicates": sum(count - 1 for count in ok_per_id.values() if count > 1),
                "most": max(per_id.values(), default=0), "delays": delays, "strangers": strangers}
            f = figures[kind]
            log(f"  {kind:8} expected {len(mine)}, delivered {f['delivered']} (distinct ids answered 2xx), POSTs {len(posts)}, "
                f"duplicates {f['duplicates']}, most POSTs for one id {f['most']}, delay queued -> first 2xx {seconds(delays)}; "
                f"server says {dict(states)}" + (f"; {len(strangers)} unknown delivery ids" if strangers else ""))
        log(f"  circuit openings per node: {[int(o) if o is not None else None for o in openings]}; deferrals per node: "
            f"{[int(d) if d is not None else None for d in deferrals]}")

        healthy = figures["healthy"]
        report.check(f"{name}: the healthy receiver is not held back",
                     healthy["delivered"] == PER_RECEIVER and healthy["delays"] and max(healthy["delays"]) <= HEALTHY_MAX_DELAY,
                     f"{healthy['delivered']}/{PER_RECEIVER} delivered, delay {seconds(healthy['delays'])} (limit {HEALTHY_MAX_DELAY:g} s "
                     f"beside a hanging, a failing and a closing receiver)")
        for kind in ("failing", "closing"):
            f = figures[kind]
            report.check(f"{name}: the {kind} receiver gets every delivery once it recovers", f["delivered"] == PER_RECEIVER,
                         f"{f['delivered']}/{PER_RECEIVER} delivered within {WAIT_SECONDS:g} s, delay {seconds(f['delays'])} "
                         f"(it recovered {RECOVERY_SECONDS:g} s after the first answer)")
        most = max(f["most"] for f in figures.values())
        report.check(f"{name}: no delivery POSTed more than --webhook-max-attempts", most <= MAX_ATTEMPTS,
                     f"at most {most} POSTs for one delivery id, max attempts {MAX_ATTEMPTS}")
        duplicates = sum(f["duplicates"] for f in figures.values())
        report.check(f"{name}: no delivery sent again after a 2xx", duplicates == 0,
                     f"{duplicates} duplicate POSTs" + (f" ({len(nodes)} nodes: each delivery must be sent by one)" if len(nodes) > 1 else ""))
        report.check(f"{name}: circuits opened", any(o and o > 0 for o in openings),
                     f"custos_webhook_circuit_openings_total per node: {openings}")
        crashes = [line for node in nodes for line in node.crashed_in_log()]
        report.check(f"{name}: the nodes keep running", all(node.alive() for node in nodes) and not crashes,
                     f"{sum(node.alive() for node in nodes)}/{len(nodes)} alive" + (f"; {crashes[:2]}" if crashes else ""))
    except Exception as error:  # the scenario could not finish: a failure, with what stopped it
        report.check(f"{name}: ran to the end", False, describe(error))
    finally:
        for receiver in receivers.values():
            receiver.stop()
        for node in nodes:
            if node.alive():
                node.stop()
        if database:
            postgres.drop_database(database)
        shutil.rmtree(work, ignore_errors=True)
