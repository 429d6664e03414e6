#!/usr/bin/env python3
"""The measuring half of bench/scale.sh.

  scale.py measure    against live servers, each on a database `custos bench fill` filled to its
                      size: every operation SAMPLES times on each, one request at a time, the
                      servers taken in turn sample by sample (so that the machine's moods fall on
                      every size alike); prints per server one line `scale-result {json}` (store,
                      size, and per operation its samples in ms)
  scale.py report F…  the growth table of the results in the files F (one per size), and as its
                      last line `scale max-growth=G op=NAME sizes=A..B store=S`

The environment of `measure` (bench/scale.sh sets it): SERVERS, a JSON list with for each server
URL, RP_KEY, ADMIN_KEY, PUBLIC_CLIENT and REDIRECT (a public OpenID client), CONFIDENTIAL_CLIENT and
CONFIDENTIAL_SECRET (for introspection), SIZE, SERVER_PID, FILL_CMD (the `custos bench fill …`
command line, a JSON list, that --takes and --take-users are appended to) and VERIFY_CMD (the
`custos admin audit verify …` command line); and STORE, FILL_PREFIX (the filled users' prefix),
SAMPLES (100), IDV_USERS (users per take count, 4; 0 for no biometric authentications), TAKES
("0 50 200"), FRAMES (the blink_selfie frames).

A user's history stays what it was (a few sample users do the operations, over and over): what grows
is everyone else's, the tables the operations search. Growth is the median at the largest size over
the median at the smallest; for `audit verify` it is the time per event.
"""
import concurrent.futures
import hashlib
import json
import os
import secrets
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from load import AUTH_FRAMES, ENROLL_FRAMES, FlowError, Load, SetupFailed, b64url  # noqa: E402

# The operations in the order of the table, with what each measures.
OPERATIONS = [
    ("device_login", "device login (challenge, signed nonce)"),
    ("password_login", "password login (the same with the password; Argon2id at 1 MiB, t=1)"),
    ("template_status", "template status"),
    ("notify_send", "notification sent by the relying party"),
    ("notify_answer", "notification answered (level 0)"),
    ("oidc_sign_in", "bound-device sign-in (challenge, assertion)"),
    ("code_exchange", "authorization-code exchange (PKCE)"),
    ("refresh", "refresh-token exchange"),
    ("introspect", "token introspection"),
    ("users_first", "user list, first page (100)"),
    ("users_last", "user list, last page (100)"),
    ("audit_by_user", "audit list of one user"),
    ("idv_0", "biometric authentication, 0 earlier takes added"),
    ("idv_50", "biometric authentication, 50 earlier takes"),
    ("idv_200", "biometric authentication, 200 earlier takes"),
    ("audit_verify_us_per_event", "audit verify, microseconds per event"),
]


class Scale(Load):
    """One server: its sample users, and its samples."""

    def __init__(self, server):
        os.environ.setdefault("USERS", "4")
        os.environ.update({key: str(value) for key, value in server.items()})
        os.environ["OIDC_CLIENT"] = server["PUBLIC_CLIENT"]
        super().__init__()
        env = os.environ
        self.admin = {"Authorization": f"Bearer {env['ADMIN_KEY']}"}
        self.public_client = env["PUBLIC_CLIENT"]
        self.confidential = (env["CONFIDENTIAL_CLIENT"], env["CONFIDENTIAL_SECRET"])
        self.size = int(env["SIZE"])
        self.prefix = env.get("FILL_PREFIX", "fill")
        self.samples_wanted = int(env.get("SAMPLES", "100"))
        self.idv_per_level = int(env.get("IDV_USERS", "4"))
        self.takes = [int(count) for count in env.get("TAKES", "0 50 200").split()]
        self.fill_cmd = server["FILL_CMD"]
        self.verify_cmd = server["VERIFY_CMD"]
        self.results = {}

    def sample_once(self, index, flow):
        """Runs `flow` once (it gets `record(step)` callbacks as load.py's flows do) and keeps the
        milliseconds of the steps it names in its result."""
        user = self.all_users[index % len(self.all_users)]
        steps, last = {}, [time.monotonic()]

        def record(step):
            now = time.monotonic()
            steps[step] = (now - last[0]) * 1000
            last[0] = now
        for key, parts in flow(user, record).items():
            self.results.setdefault(key, []).append(sum(steps[part] for part in parts))

    # ---- operations --------------------------------------------------------------------------------------

    def login(self, password):
        def flow(user, record):
            self.op_login(user, record, password)()
            return {"password_login" if password else "device_login": ["challenge", "login"]}
        return flow

    def status(self, user, record):
        self.op_status(user, record)
        return {"template_status": ["status"]}

    def notify(self, user, record):
        self.op_notify(user, record, 0)
        return {"notify_send": ["send"], "notify_answer": ["answer"]}

    def sign_in(self, user, record, client_id, secret=None):
        """Bound-device sign-in and the code exchange; the tokens."""
        c = self.client
        verifier = b64url(secrets.token_bytes(32))
        challenge = c.call("sign_in", "POST", "/v1/oidc/device-sign-in", 200, json={
            "device_id": user.device_id, "client_id": client_id, "redirect_uri": self.redirect, "response_type": "code",
            "scope": "openid offline_access", "state": "s", "nonce": "n",
            "code_challenge": b64url(hashlib.sha256(verifier.encode()).digest()), "code_challenge_method": "S256"})
        code = self.assert_device(user, challenge)
        record("sign_in")
        form = {"grant_type": "authorization_code", "code": code["code"], "redirect_uri": self.redirect, "code_verifier": verifier}
        auth = None
        if secret is None:
            form["client_id"] = client_id
        else:
            auth = (client_id, secret)
        tokens = self.token_call(form, auth)
        record("token")
        if not tokens.get("refresh_token"):
            raise FlowError("token", f"no refresh token: {json.dumps(tokens)[:200]}")
        return tokens

    def token_call(self, form, auth=None):
        response = self.client.http().post(self.url + "/oauth2/token", data=form, auth=auth, timeout=60)
        if response.status_code != 200:
            raise FlowError("token", f"HTTP {response.status_code}: {response.text[:200]}")
        return response.json()

    def oidc(self, user, record):
        self.sign_in(user, record, self.public_client)
        return {"oidc_sign_in": ["sign_in"], "code_exchange": ["token"]}

    def refresh_chain(self):
        """Each sample spends the refresh token the one before got."""
        user = self.all_users[0]
        token = [self.sign_in(user, lambda step: None, self.public_client)["refresh_token"]]

        def flow(user, record):
            answer = self.token_call({"grant_type": "refresh_token", "refresh_token": token[0], "client_id": self.public_client})
            record("refresh")
            token[0] = answer["refresh_token"]
            return {"refresh": ["refresh"]}
        return flow

    def introspection(self):
        client_id, secret = self.confidential
        access = self.sign_in(self.all_users[0], lambda step: None, client_id, secret)["access_token"]

        def flow(user, record):
            response = self.client.http().post(self.url + "/oauth2/introspect", data={"token": access}, auth=(client_id, secret),
                                               timeout=60)
            record("introspect")
            if response.status_code != 200 or response.json().get("active") is not True:
                raise FlowError("introspect", f"HTTP {response.status_code}: {response.text[:200]}")
            return {"introspect": ["introspect"]}
        return flow

    def user_list(self, name, after):
        def flow(user, record):
            path = "/v1/users?limit=100" + (f"&after={after}" if after else "")
            body = self.client.call("users", "GET", path, 200, self.rp)
            record("users")
            if len(body.get("users", [])) != 100:
                raise FlowError("users", f"{len(body.get('users', []))} users on the page, not 100")
            return {name: ["users"]}
        return flow

    def audit_of_user(self, user_id):
        def flow(user, record):
            body = self.client.call("audit", "GET", f"/v1/admin/audit?user={user_id}&limit=100", 200, self.admin)
            record("audit")
            if not body.get("events"):
                raise FlowError("audit", f"no events of {user_id}")
            return {"audit_by_user": ["audit"]}
        return flow

    def prepare_biometrics(self):
        """IDV_USERS users per take count, enrolled and given their earlier takes; nil when off."""
        if self.idv_per_level == 0 or not self.frames_dir:
            return []
        self.auth_frames = self.read_frames(AUTH_FRAMES)
        enroll_frames = self.read_frames(ENROLL_FRAMES)
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            groups = {takes: list(pool.map(lambda index: self.new_user(index, f"scale-idv{takes}"), range(self.idv_per_level)))
                      for takes in self.takes}
            list(pool.map(lambda user: self.enroll(user, enroll_frames), [user for users in groups.values() for user in users]))
        for takes, users in groups.items():
            if takes:
                subprocess.run(self.fill_cmd + ["--takes", str(takes), "--take-users", ",".join(user.user_id for user in users)],
                               check=True, stdout=subprocess.DEVNULL)
        return [(takes, user) for takes, users in groups.items() for user in users]

    def authenticate(self, takes, user):
        """One server biometric authentication: the frames request's milliseconds."""
        steps, last = {}, [time.monotonic()]

        def record(step):
            now = time.monotonic()
            steps[step] = (now - last[0]) * 1000
            last[0] = now
        self.op_idv(user, record)
        self.results.setdefault(f"idv_{takes}", []).append(steps["frames"])

    def audit_verify(self):
        started = time.monotonic()
        output = subprocess.run(self.verify_cmd, check=True, capture_output=True, text=True).stdout
        seconds = time.monotonic() - started
        events = next((int(word) for line in output.splitlines() if line.startswith("audit chain intact")
                       for word in line.replace(",", " ").split() if word.isdigit()), 0)
        if events == 0:
            raise SetupFailed(f"audit verify said: {output[:300]}")
        self.results["audit_verify_us_per_event"] = [seconds * 1e6 / events]
        self.results["audit_events"] = [events]
        print(f"scale: {self.size:,}: audit verify: {events} events in {seconds:.1f} s ({events / seconds:,.0f} events/s)", flush=True)

    def setup(self):
        self.all_users = [self.new_user(index, "scale") for index in range(self.users_wanted)]

    def flows(self):
        """The operations' flows in order, each with its name (built after `setup`)."""
        return [
            ("device login", self.login(False)), ("password login", self.login(True)), ("template status", self.status),
            ("notifications", self.notify), ("OpenID sign-in", self.oidc), ("refresh", self.refresh_chain()),
            ("introspection", self.introspection()), ("user list (first page)", self.user_list("users_first", None)),
            ("user list (last page)", self.user_list("users_last", f"{self.prefix}-{self.size - 100:07d}")),
            ("audit list of a user", self.audit_of_user(f"{self.prefix}-{self.size // 2:07d}")),
        ]

    def result_line(self):
        return "scale-result " + json.dumps({"store": self.store, "size": self.size, "samples": self.results})


def measure():
    """Every operation on every server, the servers in turn sample by sample."""
    scales = [Scale(server) for server in json.loads(os.environ["SERVERS"])]
    for scale in scales:
        scale.setup()
    flows = [scale.flows() for scale in scales]
    for position, (name, _) in enumerate(flows[0]):
        for index in range(scales[0].samples_wanted):
            for scale, own in zip(scales, flows):
                scale.sample_once(index, own[position][1])
        print(f"scale: {name} done", flush=True)
    takes = [scale.prepare_biometrics() for scale in scales]
    for turn in range(max(len(own) for own in takes)):
        for scale, own in zip(scales, takes):
            if turn < len(own):
                scale.authenticate(*own[turn])
    if any(takes):
        print("scale: biometric authentications done", flush=True)
    for scale in scales:
        scale.audit_verify()
    for scale in scales:
        print(scale.result_line(), flush=True)


def percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else float("nan")


def report(paths):
    runs = []
    for path in paths:
        with open(path) as handle:
            for line in handle:
                if line.startswith("scale-result "):
                    runs.append(json.loads(line[len("scale-result "):]))
    if not runs:
        print("scale: no results to report", file=sys.stderr)
        return 1
    runs.sort(key=lambda run: run["size"])
    store = runs[0]["store"]
    sizes = [run["size"] for run in runs]
    print(f"\nscale: {store}, p50 / p95 in ms (audit verify: microseconds per event), growth = p50 at {sizes[-1]:,} "
          f"users / p50 at {sizes[0]:,}")
    header = f"{'operation':<70}" + "".join(f"{size:>20,}" for size in sizes) + f"{'growth':>9}"
    print(header)
    print("-" * len(header))
    worst = (0.0, "", "")
    for key, label in OPERATIONS:
        cells, medians = [], []
        for run in runs:
            values = run["samples"].get(key, [])
            if not values:
                cells.append(f"{'-':>20}")
                medians.append(None)
                continue
            p50, p95 = percentile(values, 0.5), percentile(values, 0.95)
            cells.append(f"{p50:>9.2f} / {p95:>8.2f}")
            medians.append(p50)
        growth = medians[-1] / medians[0] if medians[0] and medians[-1] else None
        print(f"{label:<70}" + "".join(cells) + (f"{growth:>8.2f}x" if growth else f"{'-':>9}"))
        if growth and growth > worst[0]:
            worst = (growth, key, label)
    events = [run["samples"].get("audit_events", [0])[0] for run in runs]
    print("audit events in the chain: " + ", ".join(f"{count:,}" for count in events))
    print(f"scale max-growth={worst[0]:.2f} op={worst[1]} sizes={sizes[0]}..{sizes[-1]} store={store}")
    return 0


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "report":
        return report(sys.argv[2:])
    if len(sys.argv) == 2 and sys.argv[1] == "measure":
        try:
            measure()
        except (SetupFailed, FlowError, subprocess.CalledProcessError) as failure:
            print(f"scale: {failure}", file=sys.stderr)
            return 1
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
