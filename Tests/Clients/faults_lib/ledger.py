"""The ledger: every write the server acknowledged (users, sessions, notifications, grants), and
what is in doubt."""
import collections
import threading
from dataclasses import dataclass

from .client import Api, DeviceKey


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


def activated_user(api: Api, rp_key: str, user_id: str, password: str) -> User:
    """A user created with `rp_key` and activated: its device key, password, device and session token."""
    created = api.call("POST", "/v1/users", token=rp_key, json={"user_id": user_id}, expect=201)
    user = User(user_id, created.body["activation"]["activation_code"])
    key = DeviceKey()
    answer = api.call("POST", "/v1/activate", expect=201, json={
        "user_id": user_id, "activation_code": user.code, "password": password, "device_name": "faults phone",
        "device_public_key": key.jwk()})
    user.state, user.password, user.key = "active", password, key
    user.device_id, user.token = answer.body["device_id"], answer.body["session"]["token"]
    return user
