#!/usr/bin/env python3
"""Fault injection against a live `custos serve`: what the server acknowledged stays true.

Usage: faults.py [--binary PATH] [--short] [--rounds N] [--duration SECONDS] [--scenarios LIST] [--stores LIST] [--seed N]

Scenarios (`--scenarios`, comma-separated; default kill,pg-outage,disk-full,read-only):

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
  pg-outage  PostgreSQL stopped under load ($CUSTOS_TEST_PG_CTL stop, then start): requests answer
             503 `database_unavailable` within --max-latency seconds, the process keeps running,
             and after PostgreSQL returns the same process serves again (recovery time printed).
  pg-freeze  Opt-in, not in the default list: the same with PostgreSQL frozen (SIGSTOP to the
             cluster's processes, then SIGCONT) instead of stopped, as a hung database host would be.
  disk-full  SQLite on a small tmpfs this script mounts, then fills: writes answer 2xx or a clear
             503/507 JSON error (never a 500, never a dropped connection), reads still work; once
             space returns the same process writes again. Then started on a full disk: a clear
             refusal or clear errors. `PRAGMA integrity_check` must say ok.
  read-only  SQLite on an ext4 image on a loop device, turned read-only under load the way the
             kernel does it on a disk error (errors=remount-ro): clear errors, no crash; then
             stopped, checked with e2fsck, mounted again and restarted: nothing acknowledged lost,
             integrity ok. Then started on a read-only mount: a clear refusal or clear errors.
             Without a loop device only the start on a read-only tmpfs is checked.

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
import argparse
import base64
import collections
import hashlib
import hmac
import json
import os
import random
import secrets
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlparse, urlunparse

import jwt
import requests
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

REDIRECT_URI = "com.example.faults:/callback"
PASSWORD_ALPHABET = "abcdefghijkmnopqrstuvwxyz23456789"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def canonical_json(value) -> bytes:
    """Sorted keys, no whitespace, `/` not escaped: what the server signs and hashes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def log(text: str):
    print(text, flush=True)


def describe(error: Exception) -> str:
    """Why a scenario stopped: the error, and where for anything but a server that would not run."""
    if isinstance(error, ServerFailed):
        return str(error)
    return f"{type(error).__name__}: {error}\n" + "".join(traceback.format_exception(error)[-4:])


# MARK: Report


class Report:
    """PASS/FAIL lines, the figures printed with them, and the final count."""

    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.failures = []

    def check(self, name: str, ok: bool, detail: str):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            self.failures.append(name)
        log(f"{'PASS' if ok else 'FAIL'} {name}: {detail}")

    def skip(self, name: str, why: str):
        self.skipped += 1
        log(f"SKIP {name}: {why}")

    def summary(self) -> str:
        return f"{self.passed} passed, {self.failed} failed"


# MARK: Device keys


class DeviceKey:
    """A device's P-256 key, as the SDK's file key store keeps it."""

    def __init__(self):
        self.private = ec.generate_private_key(ec.SECP256R1())

    def jwk(self) -> dict:
        numbers = self.private.public_key().public_numbers()
        return {"kty": "EC", "crv": "P-256", "x": b64url(numbers.x.to_bytes(32, "big")), "y": b64url(numbers.y.to_bytes(32, "big"))}

    def sign_der(self, data: bytes) -> bytes:
        return self.private.sign(data, ec.ECDSA(hashes.SHA256()))

    def sign_raw(self, data: bytes) -> str:
        """ES256 as JOSE writes it: r||s, 64 bytes, base64url."""
        r, s = decode_dss_signature(self.sign_der(data))
        return b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


# MARK: HTTP


class Doubt(Exception):
    """A write whose outcome the client cannot know: it may or may not have happened."""


class Lost(Doubt):
    """No answer: the connection failed or timed out."""

    def __init__(self, message: str, sent: bool):
        super().__init__(message)
        self.sent = sent  # False when the connection was refused: the request never reached a server


class Refused(Doubt):
    """An answer other than the one expected."""

    def __init__(self, answer):
        super().__init__(f"{answer.method} {answer.route} answered {answer.status}: {answer.text[:200]}")
        self.answer = answer


@dataclass
class Answer:
    method: str
    route: str
    status: int
    body: object
    text: str
    started: float
    elapsed: float

    @property
    def error_code(self):
        if isinstance(self.body, dict) and isinstance(self.body.get("error"), dict):
            return self.body["error"].get("code")
        return None


@dataclass
class Timing:
    """One request as a client saw it: for the outage's latencies."""
    route: str
    started: float
    elapsed: float
    status: object  # an int, or the exception's name
    code: object = None


class Api:
    """One client's HTTP connection to the server; every request is timed and kept when `timings` is given."""

    def __init__(self, base_url: str, timeout: float, timings=None):
        self.base_url = base_url
        self.timeout = timeout
        self.timings = timings
        self.http = requests.Session()
        self.waiting = None  # (route, when it was sent) while a request waits for its answer

    def reset(self):
        """A fresh connection pool: after a kill the kept-alive connections are dead."""
        self.http.close()
        self.http = requests.Session()

    def call(self, method: str, path: str, route: str = None, token: str = None, expect=None, **kwargs) -> Answer:
        route = route or path
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        started = time.monotonic()
        self.waiting = (route, started)
        try:
            response = self.http.request(method, self.base_url + path, headers=headers, timeout=self.timeout, **kwargs)
        except requests.RequestException as error:
            self.waiting = None
            elapsed = time.monotonic() - started
            self._keep(Timing(route, started, elapsed, type(error).__name__))
            refused = isinstance(error, requests.ConnectionError) and "refused" in str(error).lower()
            raise Lost(f"{method} {route}: {type(error).__name__}", sent=not refused) from None
        self.waiting = None
        elapsed = time.monotonic() - started
        try:
            body = response.json()
        except ValueError:
            body = None
        answer = Answer(method, route, response.status_code, body, response.text, started, elapsed)
        self._keep(Timing(route, started, elapsed, response.status_code, answer.error_code))
        if expect is not None and response.status_code not in (expect if isinstance(expect, tuple) else (expect,)):
            raise Refused(answer)
        return answer

    def _keep(self, timing: Timing):
        if self.timings is not None:
            self.timings.append(timing)  # list.append is atomic


# MARK: Webhook receiver


class Receiver:
    """The relying party's webhook endpoint: counts every POST per delivery id (on arrival, before
    any delay), checks its signature later, and answers 200 — or, for some deliveries, a 500 to the
    first attempt (a retry) or a slow 200 (so that a kill can land during the POST)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.posts = collections.defaultdict(list)  # delivery id -> [(signature header, body)]
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                delivery = self.headers.get("X-Custos-Delivery") or ""
                with receiver.lock:
                    receiver.posts[delivery].append((self.headers.get("X-Custos-Signature") or "", body))
                    attempt = len(receiver.posts[delivery])
                status, delay = receiver.answer(delivery, attempt)
                time.sleep(delay)
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass  # the sender was killed meanwhile

            def log_message(self, *arguments):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    @staticmethod
    def answer(delivery: str, attempt: int):
        draw = hashlib.sha256(delivery.encode()).digest()[0]
        if attempt == 1 and draw < 26:
            return 500, 0.0
        if draw > 230:
            return 200, 0.3 + (draw - 230) / 40
        return 200, 0.0

    def seen(self, delivery: str) -> list:
        with self.lock:
            return list(self.posts.get(delivery, []))

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def signature_valid(header: str, body: bytes, secret: str) -> bool:
    """X-Custos-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>."""
    fields = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    if "t" not in fields or "v1" not in fields:
        return False
    expected = hmac.new(secret.encode(), fields["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, fields["v1"])


# MARK: The server process


class ServerFailed(Exception):
    pass


class Server:
    """`custos serve` on a data directory (and a PostgreSQL database), on one port across restarts."""

    def __init__(self, binary: str, data_dir: str, log_path: str, database_url: str = None, extra=()):
        self.binary = binary
        self.data_dir = data_dir
        self.log_path = log_path
        self.database_url = database_url
        self.extra = list(extra)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = None
        self.starts = 0

    def store_options(self) -> list:
        return ["--data-dir", self.data_dir] + (["--database-url", self.database_url] if self.database_url else [])

    def cli(self, arguments: list, timeout: float = 300) -> subprocess.CompletedProcess:
        environment = {name: value for name, value in os.environ.items() if not name.startswith("CUSTOS_")}
        return subprocess.run([self.binary] + arguments, capture_output=True, text=True, timeout=timeout, env=environment)

    def create_key(self, scope: str) -> dict:
        made = self.cli(["admin", "apikey", "create", "--scope", scope, "--label", f"faults-{scope}", "--json"] + self.store_options())
        if made.returncode != 0:
            raise ServerFailed(f"admin apikey create exited {made.returncode}: {made.stderr.strip()}")
        return json.loads(made.stdout)

    def arguments(self) -> list:
        return ([self.binary, "serve", "--dev", "--idv=false", "--port", str(self.port), "--issuer", self.url,
                 "--argon2-memory-kib", "64", "--argon2-iterations", "1", "--rate-limit-per-ip", "0", "--rate-limit-per-user", "0",
                 "--notify-max-pending-per-user", "1000", "--webhook-timeout", "2", "--webhook-connect-timeout", "1",
                 "--webhook-backoff-ms", "200", "--webhook-max-attempts", "30", "--oidc-access-token-lifetime", "3600",
                 "--oidc-code-lifetime", "120", "--shutdown-grace", "3", "--log-level", "warning"]
                + self.store_options() + self.extra)

    def launch(self):
        """Starts the process without waiting for it (see `wait_ready`)."""
        self.starts += 1
        with open(self.log_path, "a") as handle:
            handle.write(f'{{"faults":"start {self.starts}"}}\n')
        environment = {name: value for name, value in os.environ.items() if not name.startswith("CUSTOS_")}
        self.process = subprocess.Popen(self.arguments(), stdout=subprocess.DEVNULL, stderr=open(self.log_path, "a"),
                                        env=environment, start_new_session=True)

    def wait_ready(self, timeout: float = 60) -> float:
        """Seconds until /healthz answered; raises when the process ended first or never answered."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if self.process.poll() is not None:
                raise ServerFailed(f"custos serve exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                if requests.get(self.url + "/healthz", timeout=1).status_code == 200:
                    return time.monotonic() - started
            except requests.RequestException:
                pass
            time.sleep(0.05)
        raise ServerFailed(f"custos serve did not answer /healthz within {timeout} s:\n{self.log_tail()}")

    def start(self, attempts: int = 3) -> float:
        """Starts and waits for /healthz; retries when the port is still held by the killed process."""
        for attempt in range(attempts):
            self.launch()
            try:
                return self.wait_ready()
            except ServerFailed:
                if attempt == attempts - 1 or self.process.poll() is None:
                    raise
                time.sleep(1)
        raise AssertionError("unreachable")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def stop(self, timeout: float = 20) -> int:
        """SIGTERM; the exit status (negative: the signal that ended it)."""
        if not self.alive():
            return self.process.returncode if self.process else 0
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return -signal.SIGKILL

    def audit_verify(self, expect_head: str = None):
        """(intact, the head to expect next time, what it printed)."""
        arguments = ["admin", "audit", "verify", "--dev"] + self.store_options() + (["--expect-head", expect_head] if expect_head else [])
        verified = self.cli(arguments)
        text = (verified.stdout + verified.stderr).strip()
        head = None
        if "--expect-head " in text:
            head = text.rsplit("--expect-head ", 1)[1].rstrip(")").strip()
        return verified.returncode == 0 and "audit chain intact" in text, head, text

    def log_tail(self, lines: int = 15) -> str:
        try:
            with open(self.log_path) as handle:
                return "".join(handle.readlines()[-lines:])
        except OSError:
            return ""

    def crashed_in_log(self) -> list:
        """Log lines that say the process hit a fatal error."""
        try:
            with open(self.log_path, errors="replace") as handle:
                return [line.strip() for line in handle if "Fatal error" in line or "Segmentation" in line or "panic" in line.lower()]
        except OSError:
            return []


def sqlite_integrity(data_dir: str) -> str:
    """`PRAGMA integrity_check` of the server's database: the sqlite3 command where installed, else Python's sqlite3."""
    path = os.path.join(data_dir, "custos.sqlite")
    if shutil.which("sqlite3"):
        checked = subprocess.run(["sqlite3", path, "PRAGMA integrity_check;"], capture_output=True, text=True, timeout=60)
        return (checked.stdout + checked.stderr).strip()
    with sqlite3.connect(path) as connection:
        return "\n".join(row[0] for row in connection.execute("PRAGMA integrity_check"))


# MARK: The ledger


@dataclass
class User:
    user_id: str
    code: str
    state: str = "pending"  # pending, active
    activation_in_doubt: bool = False
    password: str = None
    device_id: str = None
    key: DeviceKey = None
    token: str = None  # the activation's session: the one that answers notifications


@dataclass
class Session:
    user_id: str
    token: str
    state: str = "live"  # live, ended, end_in_doubt


@dataclass
class Notification:
    uuid: str
    user: User
    request: dict
    number: int = None
    state: str = "pending"  # pending, answered, answer_in_doubt
    action: str = None
    level: int = None


@dataclass
class Grant:
    user_id: str
    access_token: str
    refresh_token: str


class Ledger:
    """Every write the server acknowledged, and what is in doubt (sent, no answer)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.users = []
        self.sessions = []
        self.notifications = []
        self.grants = []
        self.acked = collections.Counter()
        self.doubtful = collections.Counter()
        self.unexpected = []  # answers no fault explains: (route, status, text)

    def ack(self, kind: str, item=None, into: list = None):
        with self.lock:
            self.acked[kind] += 1
            if into is not None:
                into.append(item)

    def doubt(self, kind: str):
        with self.lock:
            self.doubtful[kind] += 1

    def note_unexpected(self, what: str):
        with self.lock:
            self.unexpected.append(what)

    def acked_line(self) -> str:
        kinds = ["users", "activations", "logins", "logouts", "notifications", "answers", "grants"]
        total = sum(self.acked[kind] for kind in kinds)
        return ", ".join(f"{kind} {self.acked[kind]}" for kind in kinds) + f" (total {total})"


# MARK: Load


@dataclass
class Context:
    """What the clients share: the server's address, the keys, the receiver, the OpenID client."""
    url: str
    admin_key: str
    rp_key: str
    rp_key_id: str
    receiver: Receiver
    client_id: str
    prefix: str
    timeout: float
    timings: list = None
    unavailable_expected: bool = False  # 503 database_unavailable is then a refusal, not a defect


class Worker(threading.Thread):
    """One client writing at random: its own users, sessions and notifications, so that no two
    clients race on one object and the ledger's expectations stay exact."""

    def __init__(self, index: int, context: Context, ledger: Ledger, load, seed: int):
        super().__init__(daemon=True, name=f"faults-worker-{index}")
        self.index = index
        self.context = context
        self.ledger = ledger
        self.load = load
        self.random = random.Random(seed)
        self.api = Api(context.url, context.timeout, context.timings)
        self.created = 0
        self.pending_users = []
        self.active_users = []
        self.extra_sessions = []
        self.open_notifications = []
        self.idle = threading.Event()

    # The loop

    def run(self):
        while not self.load.finished.is_set():
            if not self.load.going.is_set():
                self.idle.set()
                self.load.going.wait(0.05)
                continue
            self.idle.clear()
            operation = self.pick()
            try:
                operation()
            except Lost as lost:
                self.api.reset()
                self.load.count_lost(lost)
                if self.load.server_up.is_set():
                    self.ledger.note_unexpected(f"no answer while the server was up: {lost}")
                time.sleep(0.05)
            except Refused as refused:
                answer = refused.answer
                if not (self.context.unavailable_expected and answer.status in (503, 507)):
                    self.ledger.note_unexpected(f"{answer.method} {answer.route} {answer.status} {answer.text[:160]}")
                time.sleep(0.05)
        self.idle.set()

    def pick(self):
        choices = [(self.create_user, 2)]
        if self.pending_users:
            choices.append((self.activate, 3))
        if self.active_users:
            choices += [(self.login, 2), (self.notify, 4), (self.sign_in, 1)]
        if self.extra_sessions:
            choices.append((self.logout, 1))
        if self.open_notifications:
            choices.append((self.answer, 4))
        operations, weights = zip(*choices)
        return self.random.choices(operations, weights)[0]

    def call(self, *arguments, **keywords) -> Answer:
        return self.api.call(*arguments, **keywords)

    # Writes: each records itself in the ledger only once acknowledged

    def create_user(self):
        self.created += 1
        user_id = f"{self.context.prefix}-w{self.index}-{self.created}"
        try:
            answer = self.call("POST", "/v1/users", token=self.context.rp_key, json={"user_id": user_id}, expect=201)
        except Doubt:
            self.ledger.doubt("users")
            raise
        user = User(user_id, answer.body["activation"]["activation_code"])
        self.ledger.ack("users", user, self.ledger.users)
        self.pending_users.append(user)

    def activate(self):
        user = self.pending_users.pop(self.random.randrange(len(self.pending_users)))
        key = DeviceKey()
        password = "".join(self.random.choice(PASSWORD_ALPHABET) for _ in range(16))
        try:
            answer = self.call("POST", "/v1/activate", expect=201, json={
                "user_id": user.user_id, "activation_code": user.code, "password": password,
                "device_name": f"faults {self.index}", "device_public_key": key.jwk()})
            if answer.body.get("status_code") != 100:
                raise Refused(answer)
        except Doubt:
            user.activation_in_doubt = True
            self.ledger.doubt("activations")
            raise
        user.state, user.password, user.key = "active", password, key
        user.device_id, user.token = answer.body["device_id"], answer.body["session"]["token"]
        self.ledger.ack("activations", Session(user.user_id, user.token), self.ledger.sessions)
        self.active_users.append(user)

    def login(self):
        user = self.random.choice(self.active_users)
        try:
            session = log_in(self.api, user)
        except Doubt:
            self.ledger.doubt("logins")
            raise
        self.ledger.ack("logins", session, self.ledger.sessions)
        self.extra_sessions.append(session)

    def logout(self):
        session = self.extra_sessions.pop(self.random.randrange(len(self.extra_sessions)))
        try:
            self.call("POST", "/v1/logout", token=session.token, expect=204)
        except Doubt:
            session.state = "end_in_doubt"
            self.ledger.doubt("logouts")
            raise
        session.state = "ended"
        self.ledger.ack("logouts")

    def notify(self):
        user = self.random.choice(self.active_users)
        level = self.random.choice([0, 1, 3])
        request = {"user_id": user.user_id, "subject": f"Payment {self.random.randrange(10000)}", "message": "Pay 12.50 EUR to ACME Ltd?",
                   "actions": [{"label": "Approve", "action": "approve", "auth_level": level},
                               {"label": "Deny", "action": "deny", "auth_level": 0}],
                   "expires_in": 3600, "callback_url": self.context.receiver.url}
        if self.random.random() < 0.5:
            request["authorization_details"] = {"type": "payment", "amount": "12.50", "currency": "EUR", "payee": "ACME Ltd",
                                                "reference": f"r-{self.random.randrange(10**6)}"}
        if self.random.random() < 0.3:
            request["number_matching"] = True
        try:
            answer = self.call("POST", "/v1/notifications", token=self.context.rp_key, json=request, expect=201)
        except Doubt:
            self.ledger.doubt("notifications")
            raise
        notification = Notification(answer.body["notification_uuid"], user, request, answer.body.get("number"))
        self.ledger.ack("notifications", notification, self.ledger.notifications)
        self.open_notifications.append(notification)

    def answer(self):
        notification = self.open_notifications.pop(self.random.randrange(len(self.open_notifications)))
        action = "approve" if self.random.random() < 0.75 else "deny"
        try:
            level = answer_notification(self.api, notification, action)
        except Doubt:
            notification.state = "answer_in_doubt"
            self.ledger.doubt("answers")
            raise
        notification.state, notification.action, notification.level = "answered", action, level
        self.ledger.ack("answers")

    def sign_in(self):
        user = self.random.choice(self.active_users)
        try:
            grant = oidc_sign_in(self.api, self.context.client_id, user)
        except Doubt:
            self.ledger.doubt("grants")
            raise
        self.ledger.ack("grants", grant, self.ledger.grants)


def log_in(api: Api, user: User) -> Session:
    """The device signs a fresh nonce; the password too (the default policy asks it every time)."""
    challenge = api.call("POST", "/v1/login/challenge", expect=200, json={"user_id": user.user_id, "device_id": user.device_id})
    nonce = challenge.body["nonce"]
    body = {"user_id": user.user_id, "device_id": user.device_id, "nonce": nonce, "signature": user.key.sign_raw(nonce.encode())}
    if challenge.body.get("password_required", True):
        body["password"] = user.password
    answer = api.call("POST", "/v1/login", expect=200, json=body)
    if answer.body.get("status_code") != 100:
        raise Refused(answer)
    return Session(user.user_id, answer.body["session"]["token"])


def answer_notification(api: Api, notification: Notification, action: str) -> int:
    """Answers with `action`, then with the proof its step-up asks for; the level proven."""
    route = "/v1/notifications/{id}/actions"
    path = f"/v1/notifications/{notification.uuid}/actions"
    body = {"action": action}
    if notification.number is not None:
        body["number"] = notification.number
    answer = api.call("POST", path, route, token=notification.user.token, expect=200, json=body)
    level = 0
    if answer.body.get("status_code") == 102:
        level = answer.body["step_up"]["auth_level"]
        if level == 1:
            body["password"] = notification.user.password
        elif level == 3:
            body["signature"] = notification.user.key.sign_raw(canonical_json(signed_content(notification, action)))
        answer = api.call("POST", path, route, token=notification.user.token, expect=200, json=body)
    if answer.body.get("status_code") != 100:
        raise Refused(answer)
    return level


def signed_content(notification: Notification, action: str) -> dict:
    content = {"notification_uuid": notification.uuid, "action": action, "subject": notification.request["subject"],
               "message": notification.request["message"]}
    if "authorization_details" in notification.request:
        content["authorization_details"] = notification.request["authorization_details"]
    if notification.number is not None:
        content["number"] = notification.number
    return content


def oidc_sign_in(api: Api, client_id: str, user: User) -> Grant:
    """The bound device signs the sign-in challenge as a WebAuthn assertion; the code is exchanged with PKCE."""
    verifier = secrets.token_urlsafe(48)
    begun = api.call("POST", "/v1/oidc/device-sign-in", expect=200, json={
        "device_id": user.device_id, "client_id": client_id, "redirect_uri": REDIRECT_URI, "response_type": "code",
        "scope": "openid offline_access", "state": secrets.token_urlsafe(8), "nonce": secrets.token_urlsafe(8),
        "code_challenge": b64url(hashlib.sha256(verifier.encode()).digest()), "code_challenge_method": "S256"})
    challenge = begun.body
    authenticator_data = hashlib.sha256(challenge["rp_id"].encode()).digest() + bytes([0x01]) + bytes(4)
    client_data = canonical_json({"type": "webauthn.get", "challenge": challenge["challenge"], "origin": challenge["origin"],
                                  "crossOrigin": False})
    signature = user.key.sign_der(authenticator_data + hashlib.sha256(client_data).digest())
    coded = api.call("POST", f"/v1/oidc/device-sign-in/{challenge['authorization_id']}/assertion", "/v1/oidc/device-sign-in/{id}/assertion",
                     expect=200, json={"credential_id": user.device_id, "authenticator_data": b64url(authenticator_data),
                                       "client_data_json": b64url(client_data), "signature": b64url(signature)})
    tokens = api.call("POST", "/oauth2/token", expect=200, data={
        "grant_type": "authorization_code", "code": coded.body["code"], "redirect_uri": REDIRECT_URI, "client_id": client_id,
        "code_verifier": verifier})
    return Grant(user.user_id, tokens.body["access_token"], tokens.body["refresh_token"])


class Load:
    """The workers, started paused; `go` and `pause` around the faults."""

    def __init__(self, context: Context, ledger: Ledger, workers: int, seed: int):
        self.going = threading.Event()
        self.finished = threading.Event()
        self.server_up = threading.Event()
        self.server_up.set()
        self.lock = threading.Lock()
        self.lost_sent = 0
        self.lost_unsent = 0
        self.workers = [Worker(index, context, ledger, self, seed * 1000 + index) for index in range(workers)]
        for worker in self.workers:
            worker.start()

    def count_lost(self, lost: Lost):
        with self.lock:
            if lost.sent:
                self.lost_sent += 1
            else:
                self.lost_unsent += 1

    def go(self):
        self.going.set()

    def pause(self, timeout: float = 60) -> bool:
        """Stops the workers after their current request; whether all stopped in time."""
        self.going.clear()
        deadline = time.monotonic() + timeout
        for worker in self.workers:
            if not worker.idle.wait(max(0.0, deadline - time.monotonic())):
                return False
        return True

    def finish(self):
        self.finished.set()
        self.going.set()
        for worker in self.workers:
            worker.join(30)


# MARK: Checking the ledger against the server


class Checker:
    """Reads back every acknowledged write. Only while the load is paused: the ledger is then exact."""

    def __init__(self, context: Context, ledger: Ledger):
        self.context = context
        self.ledger = ledger
        self.api = Api(context.url, context.timeout)
        self.jwks = None

    def rp(self, path: str, route: str) -> Answer:
        return self.api.call("GET", path, route, token=self.context.rp_key)

    def lost_writes(self) -> list:
        """What the server no longer holds of what it acknowledged (read-only)."""
        self.jwks = jwt.PyJWKSet.from_dict(self.api.call("GET", "/.well-known/jwks.json", expect=200).body)
        lost = []
        for user in list(self.ledger.users):
            lost += self.user_lost(user)
        for session in list(self.ledger.sessions):
            lost += self.session_lost(session)
        for notification in list(self.ledger.notifications):
            lost += self.notification_lost(notification)
        for grant in list(self.ledger.grants):
            lost += self.grant_lost(grant)
        return lost

    def user_lost(self, user: User) -> list:
        shown = self.rp(f"/v1/users/{user.user_id}", "/v1/users/{id}")
        if shown.status != 200:
            return [f"user {user.user_id}: GET answered {shown.status} {shown.error_code}"]
        status = shown.body["status"]
        if user.state == "active":
            if status != "active":
                return [f"user {user.user_id}: activated (acknowledged) but {status}"]
            devices = self.rp(f"/v1/users/{user.user_id}/devices", "/v1/users/{id}/devices")
            listed = {device["device_id"]: device for device in (devices.body or {}).get("devices", [])}
            device = listed.get(user.device_id)
            if device is None or device.get("revoked_at"):
                return [f"user {user.user_id}: device {user.device_id} {'revoked' if device else 'missing'}"]
            return []
        allowed = ("pending_activation", "active") if user.activation_in_doubt else ("pending_activation",)
        return [] if status in allowed else [f"user {user.user_id}: created, not activated, but {status}"]

    def session_lost(self, session: Session) -> list:
        if session.state == "end_in_doubt":
            return []
        listed = self.api.call("GET", "/v1/sessions", token=session.token)
        if session.state == "live" and listed.status != 200:
            return [f"session of {session.user_id}: acknowledged, now {listed.status} {listed.error_code}"]
        if session.state == "ended" and listed.status != 401:
            return [f"session of {session.user_id}: logged out (acknowledged), now {listed.status}"]
        return []

    def notification_lost(self, notification: Notification) -> list:
        result = self.rp(f"/v1/notifications/{notification.uuid}/result", "/v1/notifications/{id}/result")
        name = f"notification {notification.uuid}"
        if result.status != 200:
            return [f"{name}: GET result answered {result.status} {result.error_code}"]
        status = result.body["status"]
        if notification.state == "pending":
            return [] if status == "pending" else [f"{name}: never answered, yet {status}"]
        if notification.state == "answer_in_doubt" and status == "pending":
            return []
        if status != "answered":
            return [f"{name}: answered (acknowledged) but {status}"]
        chosen = (result.body.get("action"), result.body.get("auth_level"))
        if notification.state == "answered" and chosen != (notification.action, notification.level):
            return [f"{name}: answered {notification.action} at level {notification.level}, now {result.body.get('action')} at "
                    f"{result.body.get('auth_level')}"]
        return self.signed_result_wrong(notification, result.body)

    def signed_result_wrong(self, notification: Notification, result: dict) -> list:
        token = result.get("signed_result")
        name = f"notification {notification.uuid}"
        if not token:
            return [f"{name}: answered without a signed result"]
        try:
            key = self.jwks[jwt.get_unverified_header(token)["kid"]]
            claims = jwt.decode(token, key.key, algorithms=["ES256"], audience=self.context.rp_key_id, issuer=self.context.url)
        except (jwt.PyJWTError, KeyError) as error:
            return [f"{name}: signed result refused: {type(error).__name__}: {error}"]
        if (claims.get("notification_uuid"), claims.get("status"), claims.get("action"), claims.get("sub")) != \
                (notification.uuid, "answered", result.get("action"), notification.user.user_id):
            return [f"{name}: the signed result says otherwise: {claims}"]
        return []

    def grant_lost(self, grant: Grant) -> list:
        answered = self.api.call("GET", "/oauth2/userinfo", token=grant.access_token)
        if answered.status != 200 or (answered.body or {}).get("sub") != grant.user_id:
            return [f"grant of {grant.user_id}: userinfo answered {answered.status} {answered.text[:100]}"]
        return []

    def still_usable(self) -> list:
        """The last check, with writes: codes still activate, devices log in, refresh tokens refresh."""
        problems = []
        for user in list(self.ledger.users):
            if user.state == "pending":
                problems += self.code_unusable(user)
            elif user.state == "active":
                try:
                    log_in(self.api, user)
                except Doubt as error:
                    problems.append(f"user {user.user_id}: its device cannot log in: {error}")
        for grant in list(self.ledger.grants):
            refreshed = self.api.call("POST", "/oauth2/token", data={"grant_type": "refresh_token", "refresh_token": grant.refresh_token,
                                                                     "client_id": self.context.client_id})
            if refreshed.status != 200:
                problems.append(f"grant of {grant.user_id}: refresh answered {refreshed.status} {refreshed.text[:120]}")
            else:
                grant.refresh_token = refreshed.body.get("refresh_token", grant.refresh_token)
        return problems

    def code_unusable(self, user: User) -> list:
        shown = self.rp(f"/v1/users/{user.user_id}", "/v1/users/{id}")
        if shown.status == 200 and shown.body["status"] == "active" and user.activation_in_doubt:
            return []  # the activation in doubt happened: the code is spent, legitimately
        key = DeviceKey()
        password = secrets.token_urlsafe(12)
        activated = self.api.call("POST", "/v1/activate", json={
            "user_id": user.user_id, "activation_code": user.code, "password": password, "device_name": "faults check",
            "device_public_key": key.jwk()})
        if activated.status != 201 or activated.body.get("status_code") != 100:
            return [f"user {user.user_id}: its activation code no longer works: {activated.status} {activated.text[:120]}"]
        user.state, user.password, user.key, user.device_id = "active", password, key, activated.body["device_id"]
        user.token = activated.body["session"]["token"]
        return []

    def delivery(self, notification: Notification):
        """The result API's delivery of a notification's webhook."""
        return (self.rp(f"/v1/notifications/{notification.uuid}/result", "/v1/notifications/{id}/result").body or {}).get("delivery")

    def outbox(self, timeout: float) -> dict:
        """Waits until every answered notification with a callback is delivered; then compares the
        attempts the result API reports with the POSTs the receiver saw for each delivery id."""
        secret = self.rp("/v1/webhooks/secret", "/v1/webhooks/secret").body["secret"]
        deadline = time.monotonic() + timeout
        figures = {"answered": 0, "delivered": 0, "posts": 0, "undelivered": [], "attempts_below_posts": [], "bad_signatures": 0,
                   "never_posted": []}
        waiting = [n for n in self.ledger.notifications if n.state in ("answered", "answer_in_doubt")]
        final = {}
        while waiting:
            still = []
            for notification in waiting:
                result = self.rp(f"/v1/notifications/{notification.uuid}/result", "/v1/notifications/{id}/result").body or {}
                if result.get("status") == "pending":
                    continue  # an answer in doubt that did not happen
                delivery = result.get("delivery") or {}
                if delivery.get("state") == "delivered" or delivery.get("state") == "failed":
                    final[notification.uuid] = delivery
                else:
                    still.append(notification)
            waiting = still
            if waiting and time.monotonic() > deadline:
                break
            if waiting:
                time.sleep(0.25)
        figures["answered"] = len(final) + len(waiting)
        figures["undelivered"] = [f"{n.uuid}: {json.dumps(self.delivery(n))}" for n in waiting]
        for uuid, delivery in final.items():
            seen = self.context.receiver.seen(delivery.get("delivery_id", ""))
            figures["posts"] += len(seen)
            if delivery.get("state") != "delivered":
                figures["undelivered"].append(f"{uuid}: {json.dumps(delivery)}")
                continue
            figures["delivered"] += 1
            if not seen:
                figures["never_posted"].append(uuid)
            if delivery.get("attempts", 0) < len(seen):
                figures["attempts_below_posts"].append(f"{delivery['delivery_id']}: attempts {delivery.get('attempts')}, POSTs seen {len(seen)}")
            figures["bad_signatures"] += sum(1 for header, body in seen if not signature_valid(header, body, secret))
        return figures


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
        crashes = setup.server.crashed_in_log()
        report.check(f"{name}: stops cleanly, no crash in the log", status == 0 and not crashes,
                     f"SIGTERM exit status {status}" + (f"; {crashes[:2]}" if crashes else ""))
    except Exception as error:  # the scenario could not finish: a failure, with what stopped it
        report.check(f"{name}: ran to the end", False, describe(error))
    finally:
        if setup:
            setup.close()
        if database:
            postgres.drop_database(database)
        shutil.rmtree(work, ignore_errors=True)


# MARK: Scenario: PostgreSQL stopped under load


class Postgres:
    """scripts/with-postgres.sh's cluster: a database of our own, and its stop and start."""

    def __init__(self):
        environment = os.environ
        self.url = environment.get("CUSTOS_TEST_DATABASE_URL", "")
        self.pg_ctl = environment.get("CUSTOS_TEST_PG_CTL", "")
        self.bin = environment.get("CUSTOS_TEST_PG_BIN", "/usr/lib/postgresql/15/bin")
        query = dict(parse_qsl(urlparse(self.url).query)) if self.url else {}
        self.socket = environment.get("CUSTOS_TEST_PG_SOCKET") or query.get("host", "")
        self.port = environment.get("CUSTOS_TEST_PG_PORT") or query.get("port", "5432")

    @property
    def available(self) -> bool:
        return bool(self.url)

    def client(self, tool: str, *arguments) -> subprocess.CompletedProcess:
        return subprocess.run([os.path.join(self.bin, tool), "-h", self.socket, "-p", self.port, "-U", "postgres", *arguments],
                              capture_output=True, text=True, timeout=60)

    def create_database(self) -> str:
        """A fresh database, so that the run neither sees nor disturbs what the tests keep in custos_test."""
        name = "faults_" + secrets.token_hex(6)
        made = self.client("createdb", name)
        if made.returncode != 0:
            raise ServerFailed(f"createdb {name}: {made.stderr.strip()}")
        parsed = urlparse(self.url)
        return urlunparse(parsed._replace(path="/" + name))

    def drop_database(self, url: str):
        self.client("dropdb", "--if-exists", "--force", urlparse(url).path.lstrip("/"))

    def control(self, action: str) -> int:
        """`stop` or `start` through $CUSTOS_TEST_PG_CTL; `freeze` and `thaw` stop and continue the
        cluster's processes (SIGSTOP, SIGCONT): PostgreSQL unresponsive rather than gone."""
        if action in ("freeze", "thaw"):
            return self.signal_cluster(signal.SIGSTOP if action == "freeze" else signal.SIGCONT)
        return subprocess.run([self.pg_ctl, action], capture_output=True, text=True, timeout=90).returncode

    def signal_cluster(self, number: int) -> int:
        """Signals the postmaster (from its postmaster.pid) and its children, by process id."""
        try:
            with open(os.path.join(os.environ.get("CUSTOS_TEST_PG_DATA", ""), "postmaster.pid")) as handle:
                postmaster = int(handle.readline())
        except (OSError, ValueError):
            return 2
        pids = [postmaster]
        for entry in os.listdir("/proc"):
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    if entry.isdigit() and int(handle.read().rsplit(")", 1)[1].split()[1]) == postmaster:
                        pids.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
        for pid in pids:
            os.kill(pid, number)
        return 0


class Prober(threading.Thread):
    """Every 0.1 s: /healthz, /readyz, a read and a write, each timed (the outage's latencies) and
    the first moment after `watch_from` at which /readyz and a write both succeed again."""

    def __init__(self, context: Context, ledger: Ledger, read_user: str):
        super().__init__(daemon=True, name="faults-prober")
        self.ledger = ledger
        self.api = Api(context.url, context.timeout, context.timings)
        self.context = context
        self.read_user = read_user
        self.stopping = threading.Event()
        self.watch_from = None
        self.recovered_at = None
        self.count = 0

    def run(self):
        while not self.stopping.is_set():
            self.count += 1
            ready = write = False
            try:
                self.api.call("GET", "/healthz")
                ready = self.api.call("GET", "/readyz").status == 200
                self.api.call("GET", f"/v1/users/{self.read_user}", "/v1/users/{id}", token=self.context.rp_key)
                user_id = f"{self.context.prefix}-probe-{self.count}"
                created = self.api.call("POST", "/v1/users", token=self.context.rp_key, json={"user_id": user_id})
                write = created.status == 201
                if write:
                    self.ledger.ack("users", User(user_id, created.body["activation"]["activation_code"]), self.ledger.users)
            except Lost:
                self.api.reset()
            if ready and write and self.watch_from is not None and self.recovered_at is None:
                self.recovered_at = time.monotonic()
            time.sleep(0.1)


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
        clear = [t for t in inside if t.status == 503 and t.code == "database_unavailable"]
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
        report.check(f"{name}: requests answer 503 database_unavailable", bool(inside) and len(clear) == len(inside),
                     f"{len(clear)}/{len(inside)} requests during the outage answered 503 database_unavailable; others: "
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


# MARK: Scenarios: a full disk and a read-only disk


class Mounts:
    """Mounts made by this run, always undone (also on SIGTERM and SIGINT)."""

    def __init__(self):
        self.points = []
        self.loops = []

    def tmpfs(self, point: str, size: str):
        os.makedirs(point, exist_ok=True)
        made = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", point], capture_output=True, text=True)
        if made.returncode != 0:
            raise PermissionError(made.stderr.strip() or f"mount exited {made.returncode}")
        self.points.append(point)

    def ext4(self, image: str, point: str, size_mib: int) -> str:
        """An ext4 image on a loop device, mounted errors=remount-ro; the loop device's name."""
        with open(image, "wb") as handle:
            handle.truncate(size_mib * 1024 * 1024)
        made = subprocess.run(["mkfs.ext4", "-q", "-F", image], capture_output=True, text=True)
        if made.returncode != 0:
            raise PermissionError(f"mkfs.ext4: {made.stderr.strip()}")
        attached = subprocess.run(["losetup", "-f", "--show", image], capture_output=True, text=True)
        if attached.returncode != 0:
            raise PermissionError(f"losetup: {attached.stderr.strip()}")
        device = attached.stdout.strip()
        self.loops.append(device)
        os.makedirs(point, exist_ok=True)
        mounted = subprocess.run(["mount", "-o", "errors=remount-ro", device, point], capture_output=True, text=True)
        if mounted.returncode != 0:
            raise PermissionError(f"mount {device}: {mounted.stderr.strip()}")
        self.points.append(point)
        return device

    def remount(self, point: str, mode: str) -> subprocess.CompletedProcess:
        return subprocess.run(["mount", "-o", f"remount,{mode}", point], capture_output=True, text=True)

    def unmount(self, point: str):
        if point in self.points:
            subprocess.run(["umount", point], capture_output=True)
            if not os.path.ismount(point):
                self.points.remove(point)

    def mount_again(self, device: str, point: str) -> subprocess.CompletedProcess:
        mounted = subprocess.run(["mount", "-o", "errors=remount-ro", device, point], capture_output=True, text=True)
        if mounted.returncode == 0:
            self.points.append(point)
        return mounted

    def cleanup(self):
        for point in reversed(self.points):
            subprocess.run(["umount", point], capture_output=True)
            if os.path.ismount(point):
                subprocess.run(["umount", "-l", point], capture_output=True)
        self.points = []
        for device in self.loops:
            subprocess.run(["losetup", "-d", device], capture_output=True)
        self.loops = []


def fill(directory: str) -> int:
    """Writes a file until the file system has no byte left; its size."""
    path = os.path.join(directory, "filler")
    written = 0
    with open(path, "wb", buffering=0) as handle:
        for chunk in (1 << 20, 1 << 16, 1 << 12, 512, 1):
            block = bytes(chunk)
            while True:
                try:
                    handle.write(block)
                    written += chunk
                except OSError:
                    break
        try:
            os.fsync(handle.fileno())
        except OSError:
            pass
    return written


class Writes:
    """Plain sequential writes and reads against a server whose disk misbehaves: every answer kept."""

    def __init__(self, setup: Setup, label: str):
        self.setup = setup
        self.api = Api(setup.context.url, setup.options.request_timeout)
        self.label = label
        self.count = 0
        self.answers = collections.Counter()
        self.acked_users = []
        self.read_answers = collections.Counter()
        self.slowest = 0.0

    def one_write(self) -> bool:
        """A user created (a write that grows the database); whether it was acknowledged."""
        self.count += 1
        user_id = f"{self.setup.context.prefix}-{self.label}-{self.count}"
        try:
            answer = self.api.call("POST", "/v1/users", token=self.setup.context.rp_key, json={"user_id": user_id})
        except Lost as lost:
            self.api.reset()
            self.answers[f"no answer ({lost})"] += 1
            return False
        self.slowest = max(self.slowest, answer.elapsed)
        self.answers[f"{answer.status} {answer.error_code or ''}".strip()] += 1
        if answer.status == 201:
            user = User(user_id, answer.body["activation"]["activation_code"])
            self.setup.ledger.ack("users", user, self.setup.ledger.users)
            return True
        return False

    def one_notification(self):
        users = [user for user in self.setup.ledger.users if user.state == "active"]
        if not users:
            return
        try:
            answer = self.api.call("POST", "/v1/notifications", token=self.setup.context.rp_key, json={
                "user_id": users[self.count % len(users)].user_id, "subject": "Disk", "message": "x" * 1500,
                "actions": [{"label": "OK", "action": "ok", "auth_level": 0}], "expires_in": 3600})
        except Lost as lost:
            self.api.reset()
            self.answers[f"no answer ({lost})"] += 1
            return
        self.slowest = max(self.slowest, answer.elapsed)
        self.answers[f"{answer.status} {answer.error_code or ''}".strip()] += 1
        if answer.status == 201:
            user = users[self.count % len(users)]
            self.setup.ledger.ack("notifications", Notification(answer.body["notification_uuid"], user, {}), self.setup.ledger.notifications)

    def one_read(self):
        users = self.setup.ledger.users
        if not users:
            return
        try:
            answer = self.api.call("GET", f"/v1/users/{users[0].user_id}", "/v1/users/{id}", token=self.setup.context.rp_key)
            self.read_answers[str(answer.status)] += 1
        except Lost:
            self.api.reset()
            self.read_answers["no answer"] += 1

    def run(self, seconds: float, until_errors: int = 0):
        """Writes and reads for `seconds` (or until `until_errors` refusals were seen)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.one_write()
            self.one_notification()
            self.one_read()
            refused = sum(count for answer, count in self.answers.items() if not answer.startswith("201"))
            if until_errors and refused >= until_errors:
                break

    def clear(self) -> tuple:
        """(every answer a 2xx or a clear 503/507 JSON error, the answers that are not)."""
        bad = {answer: count for answer, count in self.answers.items()
               if not (answer.startswith("201") or answer.split(" ")[0] in ("503", "507") and len(answer.split(" ")) == 2)}
        return not bad, bad


def wait_for_write(writes: Writes, timeout: float) -> float:
    """Seconds until a write is acknowledged again (None if never)."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if writes.one_write():
            return time.monotonic() - started
        time.sleep(0.1)
    return None


def baseline(setup: Setup, seconds: float):
    """Some load before the fault: users, activations, notifications answered, grants."""
    setup.load.go()
    time.sleep(seconds)
    setup.load.pause()


def disk_full_scenario(options, report: Report, mounts: Mounts):
    name = "disk-full"
    log(f"\n== {name}: SQLite on a {options.tmpfs_size} tmpfs, filled under load, then freed")
    work = tempfile.mkdtemp(prefix="custos-faults-")
    point = os.path.join(work, "disk")
    try:
        mounts.tmpfs(point, options.tmpfs_size)
    except PermissionError as error:
        report.skip(name, f"cannot mount a tmpfs here ({error}); the full-disk checks did not run")
        shutil.rmtree(work, ignore_errors=True)
        return
    setup = None
    try:
        data = os.path.join(point, "data")
        setup = Setup(options, "full", data, os.path.join(work, "server.log"))
        setup.context.unavailable_expected = True
        baseline(setup, options.warmup)
        filled = fill(point)
        free = shutil.disk_usage(point).free
        writes = Writes(setup, "full")
        writes.run(options.fault_seconds * 3, until_errors=40)  # stops at the 40th refusal
        clear, bad = writes.clear()
        alive = setup.server.alive()
        log(f"  filled {filled / 1048576:.1f} MiB ({free} bytes left); while full: writes {dict(writes.answers)}, reads {dict(writes.read_answers)}, "
            f"slowest {writes.slowest:.2f} s")
        refused = sum(count for answer, count in writes.answers.items() if not answer.startswith("201"))
        report.check(f"{name}: clear errors while full", clear and refused > 0,
                     f"{refused} writes refused, all 503/507 JSON errors" if clear and refused else
                     (f"not clear: {bad}" if not clear else "no write was refused: the disk never filled"))
        report.check(f"{name}: no crash, reads work", alive and set(writes.read_answers) <= {"200"},
                     f"process {'alive' if alive else 'GONE'}; reads {dict(writes.read_answers)}")
        os.remove(os.path.join(point, "filler"))
        recovery = wait_for_write(writes, 20)
        log("  space freed: first write acknowledged after " + (f"{recovery:.2f} s" if recovery is not None else "never"))
        report.check(f"{name}: works again once space returns", recovery is not None and setup.server.alive(),
                     f"a write acknowledged {recovery:.2f} s after the space returned, no restart" if recovery is not None
                     else "no write acknowledged")
        baseline(setup, 1.0)
        setup.context.unavailable_expected = False
        check_common(report, name, setup, options.outbox_timeout, final=False)
        status = setup.server.stop()
        log(f"  stopped: SIGTERM exit {status}")
        start_on_full_disk(report, setup, point)
        integrity = sqlite_integrity(data)
        intact, _, text = setup.server.audit_verify()
        log(f"  at the end: integrity {integrity.splitlines()[0]}; {text.splitlines()[0]}")
        report.check(f"{name}: integrity ok", integrity == "ok", f"PRAGMA integrity_check: {integrity[:200]}")
        report_audit(report, name, [(intact, text)])
    except Exception as error:  # the scenario could not finish: a failure, with what stopped it
        report.check(f"{name}: ran to the end", False, describe(error))
    finally:
        if setup:
            setup.close()
        mounts.cleanup()
        shutil.rmtree(work, ignore_errors=True)


def trigger_fs_error(device: str):
    """What ext4 does on a disk error with errors=remount-ro: the file system turns read-only at once,
    open files included (a `mount -o remount,ro` would be refused while the database is open)."""
    with open(f"/sys/fs/ext4/{os.path.basename(device)}/trigger_fs_error", "w") as handle:
        handle.write("faults: read-only disk\n")


def read_only_scenario(options, report: Report, mounts: Mounts):
    name = "read-only"
    log(f"\n== {name}: SQLite on ext4 turned read-only under load (errors=remount-ro), then repaired; then a start on a read-only mount")
    work = tempfile.mkdtemp(prefix="custos-faults-")
    point = os.path.join(work, "disk")
    device = None
    try:
        device = mounts.ext4(os.path.join(work, "disk.img"), point, 64)
        if not os.path.exists(f"/sys/fs/ext4/{os.path.basename(device)}/trigger_fs_error"):
            raise PermissionError("no /sys/fs/ext4/*/trigger_fs_error")
    except PermissionError as error:
        mounts.cleanup()
        log(f"  no ext4 loop device here ({error}): only the start on a read-only tmpfs is checked")
        device = None
        try:
            mounts.tmpfs(point, options.tmpfs_size)
        except PermissionError as error:
            report.skip(name, f"cannot mount here ({error}); the read-only checks did not run")
            shutil.rmtree(work, ignore_errors=True)
            return
    setup = None
    data = os.path.join(point, "data")
    try:
        setup = Setup(options, "ro", data, os.path.join(work, "server.log"))
        setup.context.unavailable_expected = True
        baseline(setup, options.warmup)
        if device:
            live_read_only(options, report, mounts, setup, device, point)
        start_read_only(report, mounts, setup, point)
        baseline(setup, 1.0)
        setup.context.unavailable_expected = False
        check_common(report, name, setup, options.outbox_timeout, final=False)
        status = setup.server.stop()
        integrity = sqlite_integrity(data)
        intact, _, text = setup.server.audit_verify()
        log(f"  after SIGTERM (exit {status}): integrity {integrity.splitlines()[0]}; {text.splitlines()[0]}")
        report.check(f"{name}: integrity ok", integrity == "ok", f"PRAGMA integrity_check: {integrity[:200]}")
        report_audit(report, name, [(intact, text)])
    except Exception as error:  # the scenario could not finish: a failure, with what stopped it
        report.check(f"{name}: ran to the end", False, describe(error))
    finally:
        if setup:
            setup.close()
        mounts.cleanup()
        shutil.rmtree(work, ignore_errors=True)


def live_read_only(options, report: Report, mounts: Mounts, setup: Setup, device: str, point: str):
    """The disk turns read-only under the running server; it is stopped, checked, mounted and restarted."""
    name = "read-only"
    trigger_fs_error(device)
    writes = Writes(setup, "ro")
    writes.run(options.fault_seconds / 2, until_errors=20)
    clear, bad = writes.clear()
    alive = setup.server.alive()
    log(f"  read-only under load: writes {dict(writes.answers)}, reads {dict(writes.read_answers)}, slowest {writes.slowest:.2f} s")
    refused = sum(count for answer, count in writes.answers.items() if not answer.startswith("201"))
    report.check(f"{name}: clear errors while read-only", clear and refused > 0,
                 f"{refused} writes refused, all 503/507 JSON errors" if clear and refused else
                 (f"not clear: {bad}" if not clear else "no write was refused"))
    report.check(f"{name}: no crash, reads work", alive and set(writes.read_answers) <= {"200"},
                 f"process {'alive' if alive else 'GONE'}; reads {dict(writes.read_answers)}")
    status = setup.server.stop()
    mounts.unmount(point)
    repaired = subprocess.run(["e2fsck", "-f", "-y", device], capture_output=True, text=True)
    mounted = mounts.mount_again(device, point)
    log(f"  stopped (exit {status}); e2fsck exit {repaired.returncode}; mounted again: {'ok' if mounted.returncode == 0 else mounted.stderr.strip()}")
    try:
        restart = setup.server.start()
        again = wait_for_write(writes, 20)
        report.check(f"{name}: restarts after repair and writes", again is not None,
                     f"restarted in {restart:.2f} s, a write acknowledged after {again:.2f} s" if again is not None else "no write acknowledged")
    except ServerFailed as error:
        report.check(f"{name}: restarts after repair and writes", False, str(error))


def start_read_only(report: Report, mounts: Mounts, setup: Setup, point: str):
    """`custos serve` started on a read-only mount: a clear refusal to start, or clear errors."""
    name = "read-only"
    if setup.server.alive():
        setup.server.stop()
    remounted = mounts.remount(point, "ro")
    if remounted.returncode != 0:
        report.skip(f"{name}: start on a read-only mount", f"remount ro refused: {remounted.stderr.strip()}")
        setup.server.start()
        return
    try:
        ok, outcome = observe_start(setup, "rostart")
        log(f"  started on a read-only mount: {outcome}")
        report.check(f"{name}: start on a read-only mount is clear", ok, outcome)
    finally:
        mounts.remount(point, "rw")
        setup.server.start()


def start_on_full_disk(report: Report, setup: Setup, point: str):
    """`custos serve` started on a full disk: a clear refusal to start, or clear errors; then it starts again once freed."""
    name = "disk-full"
    if setup.server.alive():
        setup.server.stop()
    fill(point)
    try:
        ok, outcome = observe_start(setup, "fullstart")
        log(f"  started on a full disk: {outcome}")
        report.check(f"{name}: start on a full disk is clear", ok, outcome)
    finally:
        os.remove(os.path.join(point, "filler"))
    setup.server.start()
    lost = setup.checker.lost_writes()
    again = wait_for_write(Writes(setup, "freed"), 20)
    report.check(f"{name}: starts and writes once freed, nothing lost", again is not None and not lost,
                 (f"a write acknowledged {again:.2f} s after the start" if again is not None else "no write acknowledged")
                 + f"; {len(lost)} of {sum(setup.ledger.acked.values())} acknowledged writes lost across the restart"
                 + "".join(f"\n    {line}" for line in lost[:5]))
    setup.server.stop()


def observe_start(setup: Setup, label: str) -> tuple:
    """Starts the server on a broken disk: (clear, what happened). Clear is a refusal with an exit
    status and a message, or a server whose writes answer 2xx or 503/507 and whose reads work."""
    setup.server.launch()
    try:
        setup.server.wait_ready(30)
    except ServerFailed:
        code = setup.server.process.returncode
        lines = [line for line in setup.server.log_tail(5).splitlines() if line.strip() and '"faults"' not in line]
        return code is not None and 0 < code < 128, f"refuses to start: exit {code}: {lines[-1][:240] if lines else '(nothing logged)'}"
    writes = Writes(setup, label)
    writes.run(2, until_errors=5)
    clear, _ = writes.clear()
    alive = setup.server.alive()
    status = setup.server.stop()
    return (clear and alive and set(writes.read_answers) <= {"200"},
            f"serves: writes {dict(writes.answers)}, reads {dict(writes.read_answers)}; SIGTERM exit {status}")


# MARK: Main


def options_from(arguments) -> argparse.Namespace:
    environment = os.environ
    short = environment.get("FAULTS_SHORT") == "1"
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=environment.get("CUSTOS_BIN", ".build/release/custos"))
    parser.add_argument("--short", action="store_true", default=short)
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--duration", type=float, default=None, help="seconds of load per kill round (the kill lands at 30-100%%)")
    parser.add_argument("--scenarios", default=environment.get("FAULTS_SCENARIOS", "kill,pg-outage,disk-full,read-only"))
    parser.add_argument("--stores", default=environment.get("FAULTS_STORES", "sqlite,postgresql"))
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--seed", type=int, default=int(environment.get("FAULTS_SEED") or secrets.randbelow(10**9)))
    parser.add_argument("--max-latency", type=float, default=float(environment.get("FAULTS_MAX_LATENCY", "5")))
    parser.add_argument("--recovery-limit", type=float, default=float(environment.get("FAULTS_RECOVERY_LIMIT", "10")))
    parser.add_argument("--request-timeout", type=float, default=float(environment.get("FAULTS_REQUEST_TIMEOUT", "20")),
                        help="seconds before a request without an answer counts as a hang (raise it on a loaded machine)")
    options = parser.parse_args(arguments)
    rounds_default, duration_default = (1, 4.0) if options.short else (5, 20.0)
    options.rounds = options.rounds or int(environment.get("ROUNDS") or rounds_default)
    options.duration = options.duration or float(environment.get("DURATION") or duration_default)
    options.workers = options.workers or (4 if options.short else 6)
    options.warmup = 2.0 if options.short else max(3.0, options.duration / 4)
    options.outage = float(environment.get("FAULTS_OUTAGE") or (3.0 if options.short else 10.0))
    options.fault_seconds = 4.0 if options.short else 10.0
    options.outbox_timeout = 60.0
    options.tmpfs_size = "24m"
    options.scenarios = [s.strip() for s in options.scenarios.split(",") if s.strip()]
    options.stores = [s.strip() for s in options.stores.split(",") if s.strip()]
    unknown = set(options.scenarios) - {"kill", "pg-outage", "pg-freeze", "disk-full", "read-only"}
    if unknown or set(options.stores) - {"sqlite", "postgresql"}:
        parser.error(f"unknown scenario or store: {sorted(unknown | (set(options.stores) - {'sqlite', 'postgresql'}))}")
    return options


def main(arguments) -> int:
    options = options_from(arguments)
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
        if "kill" in options.scenarios:
            for store in options.stores:
                if store == "postgresql" and not postgres.available:
                    report.skip(f"kill/{store}", "CUSTOS_TEST_DATABASE_URL is not set (run under scripts/with-postgres.sh)")
                    continue
                kill_scenario(options, report, store, postgres if store == "postgresql" else None)
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
    finally:
        mounts.cleanup()
    log(f"\nfaults: {time.monotonic() - started:.0f} s, seed {options.seed}" + (f"; failed: {', '.join(report.failures)}" if report.failures else ""))
    log(report.summary())
    # Nothing failed, and something was checked or said why it could not be.
    return 0 if report.failed == 0 and (report.passed or report.skipped) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
