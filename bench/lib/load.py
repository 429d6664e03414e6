#!/usr/bin/env python3
"""The load generator of bench/load.sh: a mixed workload against a live `custos serve` at a fixed
arrival rate (an open model: each operation starts at its scheduled time whether or not the
earlier ones have finished), with per-minute tables, the server's resident memory and a drift verdict.

Usage: load.py (everything from the environment; bench/load.sh sets it)

  URL, RP_KEY            the server and an rp-scope API key (the users are created with it)
  SERVER_PID             the server's process id: its VmRSS is read from /proc/PID/status
  STORE                  a label for the output (sqlite, postgresql)
  RATE                   operations started per second (default 40)
  DURATION, WARMUP       seconds measured (600), seconds of the same load before them, not counted (30)
  USERS                  activated users with a P-256 device key, made before the load (80)
  IDV_SHARE              share of the operations that are server biometric authentications (0.02)
  IDV_USERS              users enrolled with a face template for them (3)
  FRAMES                 the blink_selfie frames directory (empty: no biometric operations)
  OIDC_CLIENT, REDIRECT  a public OpenID client and its redirect URI (empty: no OpenID operations)
  MIX                    other weights, e.g. "status=30,login_device=15" (the rest keep their default)
  REPORT_EVERY           seconds per table (60)
  MAX_IN_FLIGHT          operations in flight at most (threads; default 4 x RATE, 64 to 100: the server
                         allows 128 connections from one address)
  SEED                   random seed of the mix (default: random, printed)

Operations (one arrival = one operation; its latency is the whole flow's, from its first request
to its last answer):
  status          GET /v1/idv/template in the user's session: 100 (a template) or 600 (none)
  login_device    login challenge, then the nonce signed by the device key alone (--password-at-login never)
  login_password  the same with the password; each login's session is logged out (204) after its timing
  notify_l0       the relying party sends a notification (201), the app answers an action of level 0 (100)
  notify_l1       the same with level 1: the answer asks for the password (102), the password answers it (100)
  oidc            bound-device sign-in (challenge, WebAuthn assertion, code) and the PKCE code exchange
  idv             workflow 8: initiate, confirm, 5 frames with a blink: MATCHED
Every answer other than the one expected (a transport failure, a 5xx, any other status or code) is an error.

Exit status: 0 no errors, 1 errors, 3 the setup failed.
"""
import base64
import concurrent.futures
import hashlib
import json
import os
import queue
import random
import secrets
import sys
import threading
import time

try:
    import requests
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
except ImportError as missing:
    print(f"load: {missing.name} is not installed; run scripts/install-deps.sh", file=sys.stderr)
    sys.exit(3)

FLOWS = ["status", "login_device", "login_password", "notify_l0", "notify_l1", "oidc", "idv"]
DEFAULT_WEIGHTS = {"status": 30, "login_device": 15, "login_password": 10, "notify_l0": 15, "notify_l1": 10, "oidc": 20}
STEPS = {
    "login_device": ["challenge", "login", "logout"], "login_password": ["challenge", "login", "logout"],
    "notify_l0": ["send", "answer"], "notify_l1": ["send", "answer", "password"],
    "oidc": ["sign_in", "assertion", "token"], "idv": ["initiate", "confirm", "frames"],
}
# Authentication: every other frame (6 fps) around a blink, as bench/idv.sh sends them; opt-in: the first 2 s at 12 fps.
AUTH_FRAMES, AUTH_FPS = [37, 39, 41, 43, 47], 6.0
ENROLL_FRAMES, ENROLL_FPS = list(range(1, 26)), 12.0
TIMEOUT = 60


class SetupFailed(Exception):
    pass


class FlowError(Exception):
    """An answer other than the one expected."""

    def __init__(self, step, detail, kind=None):
        super().__init__(f"{step}: {detail}")
        self.step = step
        self.kind = f"{step}: {kind or detail[:60]}"  # what the end's count of errors groups by


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def env_float(name, default):
    value = os.environ.get(name, "")
    return float(value) if value.strip() else default


def env_int(name, default):
    value = os.environ.get(name, "")
    return int(value) if value.strip() else default


class User:
    def __init__(self, user_id, password, key, device_id, token, template=False):
        self.user_id, self.password, self.key = user_id, password, key
        self.device_id, self.token, self.template = device_id, token, template

    @property
    def bearer(self):
        return {"Authorization": f"Bearer {self.token}"}

    def sign_raw(self, message: bytes) -> str:
        """ES256, raw r||s, base64url (the login nonce)."""
        r, s = decode_dss_signature(self.key.sign(message, ec.ECDSA(hashes.SHA256())))
        return b64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


class Client:
    """One requests.Session per thread (kept-alive connections), and the checks of each answer."""

    def __init__(self, base_url):
        self.base_url = base_url.rstrip("/")
        self.local = threading.local()

    def http(self):
        session = getattr(self.local, "session", None)
        if session is None:
            session = self.local.session = requests.Session()
        return session

    def call(self, step, method, path, expect, headers=None, **kwargs):
        try:
            response = self.http().request(method, self.base_url + path, headers=headers, timeout=TIMEOUT, **kwargs)
        except requests.RequestException as error:
            raise FlowError(step, f"transport: {type(error).__name__}: {str(error)[:160]}", f"transport: {type(error).__name__}")
        if response.status_code != expect:
            raise FlowError(step, f"HTTP {response.status_code} (expected {expect}): {response.text[:200]}",
                            f"HTTP {response.status_code} {error_code(response)}")
        if expect == 204:
            return None
        try:
            return response.json()
        except ValueError:
            raise FlowError(step, f"HTTP {response.status_code}, not JSON: {response.text[:200]}")


def error_code(response):
    """The code of Custos's error envelope (or an OAuth error), else ''."""
    try:
        body = response.json()
    except ValueError:
        return ""
    if not isinstance(body, dict):
        return ""
    error = body.get("error")
    return error.get("code", "") if isinstance(error, dict) else str(error or "")


def expect_code(step, body, *codes):
    if body.get("status_code") not in codes:
        raise FlowError(step, f"status_code {body.get('status_code')} (expected {'/'.join(map(str, codes))}): {json.dumps(body)[:200]}",
                        f"status_code {body.get('status_code')}")


def with_comment(jpeg: bytes, text: str) -> bytes:
    """The JPEG with a comment segment after SOI: other bytes, the same image."""
    payload = text.encode()
    return jpeg[:2] + b"\xff\xfe" + (len(payload) + 2).to_bytes(2, "big") + payload + jpeg[2:]


class Load:
    def __init__(self):
        env = os.environ
        self.url = env["URL"]
        self.rp = {"Authorization": f"Bearer {env['RP_KEY']}"}
        self.pid = env.get("SERVER_PID", "")
        self.store = env.get("STORE", "?")
        self.rate = env_float("RATE", 40)
        self.duration = env_float("DURATION", 600)
        self.warmup = env_float("WARMUP", 30)
        self.users_wanted = env_int("USERS", 80)
        self.idv_share = env_float("IDV_SHARE", 0.02)
        self.idv_users_wanted = env_int("IDV_USERS", 3)
        self.frames_dir = env.get("FRAMES", "")
        self.oidc_client = env.get("OIDC_CLIENT", "")
        self.redirect = env.get("REDIRECT", "")
        self.report_every = env_float("REPORT_EVERY", 60)
        self.max_in_flight = env_int("MAX_IN_FLIGHT", min(100, max(64, int(4 * self.rate))))
        self.unit = "minute" if self.report_every == 60 else "window"
        self.seed = env_int("SEED", secrets.randbelow(2**31))
        self.random = random.Random(self.seed)
        self.client = Client(self.url)
        self.lock = threading.Lock()
        self.users = queue.Queue()      # checked out by one operation at a time (no user sees two at once)
        self.idv_users = queue.Queue()
        self.all_users = []
        self.auth_frames = []
        self.weights = self._weights(env.get("MIX", ""))
        # Measurements: a window per table; samples[window][name] = [ms…]; errors likewise.
        self.window = -1                # -1: warm-up
        self.samples = {}
        self.errors = {}
        self.error_shown = 0
        self.error_kinds = {}
        self.scheduled = {}
        self.cancelled = 0
        self.measured_from = float("inf")
        self.lags = []
        self.rss = {}                   # window -> [KiB…]
        self.cpu = {}                   # window -> [(time, server CPU s, driver CPU s)…]
        self.requests = 0

    def _weights(self, mix):
        weights = dict(DEFAULT_WEIGHTS)
        for item in filter(None, (part.strip() for part in mix.split(","))):
            name, _, value = item.partition("=")
            if name not in DEFAULT_WEIGHTS:
                raise SetupFailed(f"MIX: unknown operation {name!r} (known: {', '.join(DEFAULT_WEIGHTS)})")
            weights[name] = float(value)
        notes = []
        if not self.oidc_client:
            weights["oidc"] = 0
            notes.append("no OpenID client: oidc skipped")
        if self.idv_share > 0 and not self.frames_dir:
            notes.append("no frames: idv skipped")
            self.idv_share = 0
        if self.users_wanted < 1:
            raise SetupFailed("USERS must be at least 1")
        if self.idv_share > 0 and self.idv_users_wanted < 1:
            raise SetupFailed("IDV_SHARE > 0 needs IDV_USERS >= 1")
        total = sum(weights.values())
        if total <= 0 or not 0 <= self.idv_share < 1:
            raise SetupFailed("the mix is empty, or IDV_SHARE is not in [0, 1)")
        shares = {name: weight / total * (1 - self.idv_share) for name, weight in weights.items()}
        shares["idv"] = self.idv_share
        for note in notes:
            print(f"load: note: {note}", flush=True)
        return {name: share for name, share in shares.items() if share > 0}

    # ---- setup -------------------------------------------------------------------------------------------

    def new_user(self, index, prefix):
        user_id = f"{prefix}-{index:04d}-{secrets.token_hex(3)}"
        password = "load " + secrets.token_urlsafe(12)
        created = self.client.call("create", "POST", "/v1/users", 201, self.rp, json={"user_id": user_id})
        code = created["activation"]["activation_code"]
        key = ec.generate_private_key(ec.SECP256R1())
        numbers = key.public_key().public_numbers()
        jwk = {"kty": "EC", "crv": "P-256", "x": b64url(numbers.x.to_bytes(32, "big")), "y": b64url(numbers.y.to_bytes(32, "big"))}
        body = self.client.call("activate", "POST", "/v1/activate", 201, json={
            "user_id": user_id, "activation_code": code, "password": password, "device_name": "load", "device_public_key": jwk})
        expect_code("activate", body, 100)
        return User(user_id, password, key, body["device_id"], body["session"]["token"])

    def read_frames(self, numbers):
        frames = []
        for number in numbers:
            path = os.path.join(self.frames_dir, f"frame_{number:04d}.jpg")
            try:
                with open(path, "rb") as handle:
                    frames.append(handle.read())
            except OSError as error:
                raise SetupFailed(f"cannot read {path}: {error}")
        return frames

    def enroll(self, user, frames):
        """Biometric opt-in (workflow 10), paced like a camera: the frames span the time since the challenge."""
        started = self.client.call("optin", "POST", "/v1/idv/transactions", 201, user.bearer,
                                   json={"workflow": 10, "reason": "load", "consent": {"accepted": True, "version": "load"}})
        transaction = started["idv_audit_transaction_id"]
        challenge = self.client.call("optin confirm", "POST", f"/v1/idv/transactions/{transaction}/confirm", 200, user.bearer)
        span = (len(frames) - 1) * 1000 / ENROLL_FPS
        time.sleep(span / 1000 + 0.05)
        body = self.client.call("optin frames", "POST", f"/v1/idv/transactions/{transaction}/frames", 200, user.bearer,
                                json={"nonce": challenge["nonce"], "frames": self.stamped(frames, ENROLL_FPS, f"enroll {user.user_id}")})
        status = self.client.call("template", "GET", "/v1/idv/template", 200, user.bearer)
        if status.get("status_code") != 100:
            raise SetupFailed(f"the opt-in of {user.user_id} made no template: {json.dumps(body)[:300]}")
        user.template = True

    @staticmethod
    def stamped(frames, fps, tag):
        """Frames stamped as captured up to now at fps, each made unique by a JPEG comment."""
        span = (len(frames) - 1) * 1000 / fps
        start = int(time.time() * 1000 - span)
        return [{"captured_at_ms": start + int(index * 1000 / fps),
                 "image": base64.b64encode(with_comment(jpeg, f"custos load {tag} {index}")).decode()}
                for index, jpeg in enumerate(frames)]

    def setup(self):
        started = time.monotonic()
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            users = list(pool.map(lambda index: self.new_user(index, "load"), range(self.users_wanted)))
        for user in users:
            self.users.put(user)
        self.all_users = list(users)
        if "idv" in self.weights:
            self.auth_frames = self.read_frames(AUTH_FRAMES)
            enroll_frames = self.read_frames(ENROLL_FRAMES)
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                idv_users = list(pool.map(lambda index: self.new_user(index, "load-idv"), range(self.idv_users_wanted)))
                list(pool.map(lambda user: self.enroll(user, enroll_frames), idv_users))
            for user in idv_users:
                self.idv_users.put(user)
            self.all_users += idv_users
        print(f"load: {len(self.all_users)} users activated ({self.idv_users.qsize()} with a face template) "
              f"in {time.monotonic() - started:.1f} s", flush=True)

    # ---- the operations ----------------------------------------------------------------------------------

    def op_status(self, user, record):
        body = self.client.call("status", "GET", "/v1/idv/template", 200, user.bearer)
        record("status")
        expect_code("status", body, 100 if user.template else 600)

    def op_login(self, user, record, password):
        c = self.client
        challenge = c.call("challenge", "POST", "/v1/login/challenge", 200,
                           json={"user_id": user.user_id, "device_id": user.device_id})
        record("challenge")
        if challenge.get("password_required"):
            raise FlowError("challenge", "password_required is true: serve with --password-at-login never")
        request = {"user_id": user.user_id, "device_id": user.device_id, "nonce": challenge["nonce"],
                   "signature": user.sign_raw(challenge["nonce"].encode())}
        if password:
            request["password"] = user.password
        body = c.call("login", "POST", "/v1/login", 200, json=request)
        record("login")
        expect_code("login", body, 100)
        token = body["session"]["token"]
        return lambda: c.call("logout", "POST", "/v1/logout", 204, {"Authorization": f"Bearer {token}"})

    def op_notify(self, user, record, level):
        c = self.client
        sent = c.call("send", "POST", "/v1/notifications", 201, self.rp, json={
            "user_id": user.user_id, "subject": "Payment to ACME", "message": "Pay 12.50 EUR to ACME Ltd?",
            "actions": [{"label": "Approve", "action": "approve", "auth_level": level},
                        {"label": "Deny", "action": "deny", "auth_level": 0}],
            "authorization_details": {"type": "payment", "amount": "12.50", "currency": "EUR", "payee": "ACME Ltd"}})
        record("send")
        path = f"/v1/notifications/{sent['notification_uuid']}/actions"
        body = c.call("answer", "POST", path, 200, user.bearer, json={"action": "approve"})
        record("answer")
        if level == 0:
            expect_code("answer", body, 100)
            return
        expect_code("answer", body, 102)
        if (body.get("step_up") or {}).get("challenge_mode") != 3:
            raise FlowError("answer", f"step_up is not the password: {json.dumps(body)[:200]}")
        body = c.call("password", "POST", path, 200, user.bearer, json={"action": "approve", "password": user.password})
        record("password")
        expect_code("password", body, 100)

    def op_oidc(self, user, record):
        c = self.client
        verifier = b64url(secrets.token_bytes(32))
        nonce, state = secrets.token_urlsafe(12), secrets.token_urlsafe(12)
        challenge = c.call("sign_in", "POST", "/v1/oidc/device-sign-in", 200, json={
            "device_id": user.device_id, "client_id": self.oidc_client, "redirect_uri": self.redirect, "response_type": "code",
            "scope": "openid", "state": state, "nonce": nonce,
            "code_challenge": b64url(hashlib.sha256(verifier.encode()).digest()), "code_challenge_method": "S256"})
        record("sign_in")
        code = self.assert_device(user, challenge)
        record("assertion")
        if code.get("state") != state or not code.get("code"):
            raise FlowError("assertion", f"no code for this state: {json.dumps(code)[:200]}")
        tokens = c.call("token", "POST", "/oauth2/token", 200, data={
            "grant_type": "authorization_code", "code": code["code"], "redirect_uri": self.redirect,
            "client_id": self.oidc_client, "code_verifier": verifier})
        record("token")
        if not tokens.get("access_token") or not tokens.get("id_token"):
            raise FlowError("token", f"no tokens: {json.dumps(tokens)[:200]}")
        claims = json.loads(base64.urlsafe_b64decode(tokens["id_token"].split(".")[1] + "=="))
        if claims.get("nonce") != nonce or claims.get("sub") != user.user_id:
            raise FlowError("token", f"the ID token names another nonce or subject: {claims}")

    def assert_device(self, user, challenge):
        """The WebAuthn assertion a bound device answers a sign-in challenge with (the SDK's
        WebAuthnSigning: UP and UV, counter 0); the server's answer (the code and state)."""
        authenticator_data = hashlib.sha256(challenge["rp_id"].encode()).digest() + bytes([0x05]) + bytes(4)
        client_data = json.dumps({"challenge": challenge["challenge"], "crossOrigin": False, "origin": challenge["origin"],
                                  "type": "webauthn.get"}, separators=(",", ":")).encode()
        signature = user.key.sign(authenticator_data + hashlib.sha256(client_data).digest(), ec.ECDSA(hashes.SHA256()))
        return self.client.call("assertion", "POST", f"/v1/oidc/device-sign-in/{challenge['authorization_id']}/assertion", 200, json={
            "credential_id": user.device_id, "authenticator_data": b64url(authenticator_data),
            "client_data_json": b64url(client_data), "signature": b64url(signature)})

    def op_idv(self, user, record):
        c = self.client
        started = c.call("initiate", "POST", "/v1/idv/transactions", 201, user.bearer, json={"workflow": 8, "reason": "load"})
        record("initiate")
        transaction = started["idv_audit_transaction_id"]
        challenge = c.call("confirm", "POST", f"/v1/idv/transactions/{transaction}/confirm", 200, user.bearer)
        record("confirm")
        frames = self.stamped(self.auth_frames, AUTH_FPS, f"{transaction}")
        body = c.call("frames", "POST", f"/v1/idv/transactions/{transaction}/frames", 200, user.bearer,
                      json={"nonce": challenge["nonce"], "frames": frames})
        record("frames")
        expect_code("frames", body, 100)
        verdict = (body.get("biometric_result") or {}).get("display_text")
        if verdict != "MATCHED":
            raise FlowError("frames", f"{verdict}: {json.dumps(body.get('biometric_result'))[:200]}")

    # ---- running -----------------------------------------------------------------------------------------

    def run_flow(self, flow, scheduled):
        pool = self.idv_users if flow == "idv" else self.users
        user = self.random_user() if flow == "status" else pool.get()
        begun = time.monotonic()
        steps = {}
        last = [begun]

        def record(step):
            now = time.monotonic()
            steps[step] = (now - last[0]) * 1000
            last[0] = now

        after = None
        error = None
        try:
            if flow == "status":
                self.op_status(user, record)
            elif flow in ("login_device", "login_password"):
                after = self.op_login(user, record, flow == "login_password")
            elif flow in ("notify_l0", "notify_l1"):
                self.op_notify(user, record, 0 if flow == "notify_l0" else 1)
            elif flow == "oidc":
                self.op_oidc(user, record)
            elif flow == "idv":
                self.op_idv(user, record)
            elapsed = (time.monotonic() - begun) * 1000
            if after is not None:  # the login's own session ends, outside the login's timing
                mark = time.monotonic()
                after()
                steps["logout"] = (time.monotonic() - mark) * 1000
        except FlowError as failure:
            error = failure
        except Exception as failure:  # a malformed answer (a missing field) is an error too
            error = FlowError("?", f"{type(failure).__name__}: {failure}", type(failure).__name__)
        finally:
            if flow != "status":
                pool.put(user)
        with self.lock:
            window = self.window
            self.requests += len(steps) + (1 if error else 0)
            if scheduled >= self.measured_from:
                self.lags.append((begun - scheduled) * 1000)
            if error:
                self.errors.setdefault(window, {}).setdefault(flow, 0)
                self.errors[window][flow] += 1
                kind = f"{flow} {error.kind}"
                self.error_kinds[kind] = self.error_kinds.get(kind, 0) + 1
                if self.error_shown < 20:
                    self.error_shown += 1
                    print(f"load: error: {flow} {error}", file=sys.stderr, flush=True)
            else:
                bucket = self.samples.setdefault(window, {})
                bucket.setdefault(flow, []).append(elapsed)
                for step, ms in steps.items():
                    bucket.setdefault(f"{flow}.{step}", []).append(ms)

    def random_user(self):
        return random.choice(self.all_users)

    def sample_rss(self, stop):
        """Every second: the server's VmRSS, and the CPU time of the server and of this driver."""
        while not stop.wait(1.0):
            kib, server_cpu = self.read_rss(), self.read_cpu()
            times = os.times()
            with self.lock:
                if kib is not None:
                    self.rss.setdefault(self.window, []).append(kib)
                self.cpu.setdefault(self.window, []).append((time.monotonic(), server_cpu, times.user + times.system))

    def read_cpu(self):
        """The server's CPU seconds so far (/proc/PID/stat: user and system), and the seconds its threads
        spent ready to run but waiting for a CPU (the sum of /proc/PID/task/*/schedstat's run delay: what
        the machine's other work took from it); None when unreadable."""
        try:
            with open(f"/proc/{self.pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            used = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None
        waited = 0
        try:
            tasks = os.listdir(f"/proc/{self.pid}/task")
        except OSError:
            return None
        for task in tasks:
            try:
                with open(f"/proc/{self.pid}/task/{task}/schedstat") as handle:
                    waited += int(handle.read().split()[1])
            except (OSError, ValueError, IndexError):
                continue  # a thread that just ended
        return used, waited / 1e9

    def cpu_wait(self, window):
        """Seconds per second the server's threads waited for a CPU in the window, or None."""
        samples = [sample for sample in self.cpu.get(window, []) if sample[1] is not None]
        if len(samples) < 2:
            return None
        return max(0.0, samples[-1][1][1] - samples[0][1][1]) / (samples[-1][0] - samples[0][0])

    def cpu_text(self, windows):
        """Average cores used by the server and by this driver over the windows' samples."""
        samples = [sample for window in windows for sample in self.cpu.get(window, [])]
        if len(samples) < 2 or samples[0][1] is None or samples[-1][1] is None:
            return "CPU ?"
        seconds = samples[-1][0] - samples[0][0]
        server = (samples[-1][1][0] - samples[0][1][0]) / seconds
        waited = max(0.0, samples[-1][1][1] - samples[0][1][1]) / seconds
        driver = (samples[-1][2] - samples[0][2]) / seconds
        return (f"CPU: server {server:.2f} cores (its threads waited {waited:.2f} s/s for a CPU), "
                f"load driver {driver:.2f} cores (of {os.cpu_count()})")

    def read_rss(self):
        try:
            with open(f"/proc/{self.pid}/status") as handle:
                for line in handle:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except (OSError, ValueError):
            return None
        return None

    def run(self):
        names = list(self.weights)
        cumulative, total = [], 0.0
        for name in names:
            total += self.weights[name]
            cumulative.append(total)
        print(f"load: store={self.store} rate={self.rate:g}/s warm-up={self.warmup:g}s duration={self.duration:g}s "
              f"seed={self.seed} mix: " + ", ".join(f"{name} {self.weights[name] * 100:.1f}%" for name in names), flush=True)
        baseline = self.read_rss()
        stop = threading.Event()
        sampler = threading.Thread(target=self.sample_rss, args=(stop,), daemon=True)
        sampler.start()
        executor = concurrent.futures.ThreadPoolExecutor(self.max_in_flight)
        interval = 1.0 / self.rate
        origin = time.monotonic() + 0.1
        measured_from = self.measured_from = origin + self.warmup
        end = measured_from + self.duration
        windows = max(1, int(-(-self.duration // self.report_every)))
        self.window_bounds = [(measured_from + i * self.report_every, min(end, measured_from + (i + 1) * self.report_every))
                              for i in range(windows)]
        self.scheduled = {}
        index = 0
        futures = set()
        while True:
            scheduled = origin + index * interval
            if scheduled >= end:
                break
            now = time.monotonic()
            # Move the window on (and print the finished one) at its boundary.
            current = -1 if now < measured_from else min(windows - 1, int((now - measured_from) // self.report_every))
            if current != self.window:
                with self.lock:
                    previous, self.window = self.window, current
                if previous >= 0:
                    self.report(previous)
            if scheduled > now:
                time.sleep(scheduled - now)
            flow = names[self._pick(cumulative, total)]
            futures.add(executor.submit(self.run_flow, flow, scheduled))
            if scheduled >= measured_from:
                window = min(windows - 1, int((scheduled - measured_from) // self.report_every))
                self.scheduled[window] = self.scheduled.get(window, 0) + 1
            index += 1
            if index % 256 == 0:
                futures = {future for future in futures if not future.done()}
        # What has not started 2 s after the schedule's end (a backlog: the rate was not held) is dropped;
        # what runs finishes, in the last window.
        concurrent.futures.wait(futures, timeout=2)
        executor.shutdown(wait=False, cancel_futures=True)
        self.cancelled = sum(1 for future in futures if future.cancelled())
        concurrent.futures.wait(futures, timeout=2 * TIMEOUT)
        stop.set()
        sampler.join()
        last_rss = self.read_rss()
        if last_rss is not None:
            with self.lock:
                self.rss.setdefault(self.window, []).append(last_rss)
        self.report(self.window)
        return self.summary(baseline)

    def _pick(self, cumulative, total):
        point = self.random.random() * total
        for position, bound in enumerate(cumulative):
            if point < bound:
                return position
        return len(cumulative) - 1

    # ---- reports -----------------------------------------------------------------------------------------

    @staticmethod
    def percentile(sorted_samples, q):
        if not sorted_samples:
            return float("nan")
        return sorted_samples[min(len(sorted_samples) - 1, int(len(sorted_samples) * q))]

    def table(self, samples, errors, rows):
        lines = [f"  {'operation':<26} {'count':>7} {'p50 ms':>9} {'p95 ms':>9} {'p99 ms':>9} {'errors':>7}"]
        for name in rows:
            values = sorted(samples.get(name, []))
            failed = errors.get(name, 0)
            if not values and not failed:
                continue
            p = lambda q: f"{self.percentile(values, q):.1f}" if values else "-"
            lines.append(f"  {name:<26} {len(values):>7} {p(0.5):>9} {p(0.95):>9} {p(0.99):>9} {failed:>7}")
        return lines

    def rows(self, steps):
        rows = []
        for flow in FLOWS:
            if flow not in self.weights:
                continue
            rows.append(flow)
            if steps:
                rows += [f"{flow}.{step}" for step in STEPS.get(flow, [])]
        return rows

    def report(self, window):
        with self.lock:
            samples = {name: list(values) for name, values in self.samples.get(window, {}).items()}
            errors = dict(self.errors.get(window, {}))
            rss = list(self.rss.get(window, []))
        start, stop = self.window_bounds[window]
        seconds = max(1e-9, stop - start)
        done = sum(len(samples.get(flow, [])) for flow in FLOWS)
        failed = sum(errors.values())
        print(f"== {self.store} {self.unit} {window + 1} ({start - self.window_bounds[0][0]:.0f}-{stop - self.window_bounds[0][0]:.0f} s): "
              f"scheduled {self.scheduled.get(window, 0) / seconds:.1f}/s, completed {(done + failed) / seconds:.1f}/s "
              f"(target {self.rate:g}/s), errors {failed}, server RSS {self.rss_text(rss)}; {self.cpu_text([window])}", flush=True)
        print("\n".join(self.table(samples, errors, self.rows(steps=False))), flush=True)

    @staticmethod
    def rss_text(samples):
        if not samples:
            return "?"
        ordered = sorted(samples)
        return (f"floor {ordered[0] / 1024:.1f} MiB, median {ordered[len(ordered) // 2] / 1024:.1f} MiB, "
                f"max {ordered[-1] / 1024:.1f} MiB")

    def rss_floor(self, window):
        """The window's resident memory without what passes, in MiB: the least of its 1-second samples.
        Each Argon2id hash in flight holds its memory cost (64 MiB by default) for a moment and gives it
        back, so the median and the maximum swing with how many overlap; a leak raises the floor."""
        samples = self.rss.get(window)
        return min(samples) / 1024 if samples else None

    def window_p95(self, window):
        values = sorted(v for flow in FLOWS for v in self.samples.get(window, {}).get(flow, []))
        return self.percentile(values, 0.95)

    def summary(self, baseline):
        measured = [w for w in range(len(self.window_bounds))]
        samples, errors = {}, {}
        for window in measured:
            for name, values in self.samples.get(window, {}).items():
                samples.setdefault(name, []).extend(values)
            for name, count in self.errors.get(window, {}).items():
                errors[name] = errors.get(name, 0) + count
        warmup_errors = sum(self.errors.get(-1, {}).values())
        ops = sum(len(samples.get(flow, [])) for flow in FLOWS)
        failed = sum(errors.values())
        scheduled = sum(self.scheduled.values())
        everything = sorted(v for flow in FLOWS for v in samples.get(flow, []))
        p95 = self.percentile(everything, 0.95)
        lags = sorted(self.lags)
        late = sum(1 for lag in lags if lag > 100)
        print(f"== {self.store} whole run: {self.duration:g} s at {self.rate:g}/s, after {self.warmup:g} s of warm-up", flush=True)
        print("\n".join(self.table(samples, errors, self.rows(steps=True))), flush=True)
        print(f"  {'all':<26} {ops:>7} {self.percentile(everything, 0.5):>9.1f} {p95:>9.1f} "
              f"{self.percentile(everything, 0.99):>9.1f} {failed:>7}", flush=True)
        print(f"throughput: {(ops + failed) / self.duration:.2f}/s completed, target {self.rate:g}/s ({scheduled} scheduled in "
              f"{self.duration:g} s, {self.cancelled} of them never started); {self.requests} HTTP requests in all, warm-up included", flush=True)
        held = late <= 0.01 * max(1, scheduled) and not self.cancelled
        print(f"rate: {'held' if held else 'NOT HELD'}: start lag p50 {self.percentile(lags, 0.5):.1f} ms, p99 "
              f"{self.percentile(lags, 0.99):.1f} ms, max {lags[-1] if lags else 0:.1f} ms; {late} of {len(lags)} started over 100 ms late"
              + ("" if held else " (the latencies above are from each operation's first request: add the lag for what a user "
                 "arriving on schedule saw; the server, or this machine, did not keep up)"), flush=True)
        print(f"{self.cpu_text(range(len(self.window_bounds)))}; load average at the end {os.getloadavg()[0]:.2f}", flush=True)
        print(f"errors: {failed} measured, {warmup_errors} in the warm-up", flush=True)
        for kind, count in sorted(self.error_kinds.items(), key=lambda item: -item[1]):
            print(f"  {count:>7}  {kind}", flush=True)

        first, last = 0, len(self.window_bounds) - 1
        rss_start, rss_end = self.rss_floor(first), self.rss_floor(last)
        mib = lambda value: "?" if value is None else f"{value:.1f}"
        p95_first, p95_last = self.window_p95(first), self.window_p95(last)
        baseline_text = f"{baseline / 1024:.1f} MiB" if baseline else "?"
        if last == first:
            print(f"drift: a single window of {self.report_every:g} s (DURATION <= REPORT_EVERY): no first/last comparison; "
                  f"RSS {baseline_text} after setup, floor {mib(rss_end)} MiB; p95 {p95_last:.1f} ms", flush=True)
        else:
            if rss_start is None or rss_end is None:
                growth_text, rss_verdict = "", "unknown (the server's /proc entry could not be read)"
            else:
                growth = rss_end - rss_start
                growth_text = f", {growth:+.1f} MiB"
                rss_verdict = "stable" if growth <= max(16.0, 0.10 * rss_start) else "GROWING"
            ratio = p95_last / p95_first if p95_first > 0 else float("nan")
            p95_verdict = "stable" if ratio <= 1.5 or p95_last - p95_first < 20 else "DEGRADING"
            print(f"drift: RSS floor {mib(rss_start)} MiB ({self.unit} 1) -> {mib(rss_end)} MiB ({self.unit} {last + 1}){growth_text}: "
                  f"{rss_verdict}; p95 {p95_first:.1f} ms -> {p95_last:.1f} ms (x{ratio:.2f}): {p95_verdict}; "
                  f"RSS after setup {baseline_text}", flush=True)
            waits = self.cpu_wait(first), self.cpu_wait(last)
            if None not in waits:
                print(f"drift: the server's threads waited {waits[0]:.2f} s/s for a CPU in {self.unit} 1, {waits[1]:.2f} s/s in "
                      f"{self.unit} {last + 1} (a rise means the machine's other work took the CPUs from the server, not the server slowing by itself)", flush=True)
        print(f"load: store={self.store} rate={self.rate:g}/s duration={self.duration:g}s ops={ops} errors={failed + warmup_errors} "
              f"p95={p95:.1f}ms rss_start={mib(rss_start)}MiB rss_end={mib(rss_end)}MiB rate_held={'yes' if held else 'no'}", flush=True)
        return 1 if failed + warmup_errors else 0


def main():
    try:
        load = Load()
        load.setup()
    except (SetupFailed, FlowError, KeyError, ValueError) as error:
        print(f"load: setup failed: {error}", file=sys.stderr)
        return 3
    return load.run()


if __name__ == "__main__":
    sys.exit(main())
