"""The client side of HTTP: base64url and canonical JSON, a device's key, timed requests and what
a write whose outcome is unknown raises, and the webhook receiver with its signature check."""
import base64
import collections
import hashlib
import hmac
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import requests
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def canonical_json(value) -> bytes:
    """Sorted keys, no whitespace, `/` not escaped: what the server signs and hashes."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


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


def serve_posts(on_post, name: str = "receiver") -> ThreadingHTTPServer:
    """A loopback HTTP server on a free port, in threads of its own, that hands every POST's
    request handler to `on_post` and logs nothing."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            on_post(self)

        def log_message(self, *arguments):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True, name=name).start()
    return server


def answer_empty(handler: BaseHTTPRequestHandler, status: int):
    """Answers `status` with no body; a sender that gave up (or was killed) meanwhile is no error."""
    try:
        handler.send_response(status)
        handler.send_header("Content-Length", "0")
        handler.end_headers()
    except OSError:
        pass


class Receiver:
    """The relying party's webhook endpoint: counts every POST per delivery id (on arrival, before
    any delay), checks its signature later, and answers 200 — or, for some deliveries, a 500 to the
    first attempt (a retry) or a slow 200 (so that a kill can land during the POST)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.posts = collections.defaultdict(list)  # delivery id -> [(signature header, body)]
        self.server = serve_posts(self._post)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def _post(self, handler: BaseHTTPRequestHandler):
        body = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        delivery = handler.headers.get("X-Custos-Delivery") or ""
        with self.lock:
            self.posts[delivery].append((handler.headers.get("X-Custos-Signature") or "", body))
            attempt = len(self.posts[delivery])
        status, delay = self.answer(delivery, attempt)
        time.sleep(delay)
        answer_empty(handler, status)

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
