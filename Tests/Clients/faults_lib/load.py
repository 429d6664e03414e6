"""The load: what the clients share, the workers writing at random (each acknowledged write into
the ledger), the flows they run (device login, answering a notification, an OpenID Connect sign-in),
and the prober that times requests through an outage."""
import hashlib
import random
import secrets
import threading
import time
from dataclasses import dataclass

from .client import Answer, Api, DeviceKey, Doubt, Lost, Receiver, Refused, b64url, canonical_json
from .ledger import Grant, Ledger, Notification, Session, User

REDIRECT_URI = "com.example.faults:/callback"
PASSWORD_ALPHABET = "abcdefghijkmnopqrstuvwxyz23456789"


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
