#!/usr/bin/env python3
"""API fuzzing of a live `custos serve` with schemathesis (an outside tool, not Custos code): every
operation of openapi.yaml gets generated requests, valid and invalid, and every answer is checked
against the document: no server error (5xx), a declared status code, a declared content type, a
body that fits the declared schema, and declared response headers.

Usage: api_fuzz.py CONFIG_JSON

CONFIG_JSON:
  base_url       the server, e.g. http://127.0.0.1:8080
  admin_key      an admin-scope API key's secret (ck_…)
  rp_key         an rp-scope API key's secret
  openapi        the path of openapi.yaml
  max_examples   generated requests per operation in the fuzzing phase (valid and invalid together), and
                 scenarios of the stateful phase; the coverage phase's cases do not depend on it
  seed           optional: replays a run (the summary line prints the seed it used)
  phases         optional: of examples, coverage, fuzzing, stateful (default: all four)
  max_steps      optional: requests per scenario of the stateful phase (default 6)
  operations     optional: only these operationIds
  request_timeout optional: seconds one answer may take before it counts as a failure (default 30)
  checks         optional: schemathesis's check names instead of the five above (e.g. adding
                 negative_data_rejection, positive_data_acceptance, unsupported_method)

Serve with the rate limits off (`--rate-limit-per-ip 0 --rate-limit-per-user 0`): past them the
sign-in, password and upload routes answer 429 whatever was sent, and the run's own activations fail.

Who calls: operations under /v1/admin/ use the admin key, the other API-key operations the rp key,
the session operations a real session: a user created through the admin API and activated with a
fresh P-256 device key. The run never destroys what it depends on: a revoke, delete, disable or reset
whose path names the keys that existed before the run, the session user, its device or its session
is sent to a decoy id instead; the session operations that end a session or use up attempts
(logout, revoking a session or a device, password change, answering a notification, passkey
registration, the IDV transaction steps) use a spare session user, replaced when it stops working.
Should the main session still die, it is renewed and a note says so on standard error. A 503
`idv_unavailable` (a server run with --idv=false) is not counted as a server error.

Findings are distinct per operation, check and status. The checks and the phases are
schemathesis's (examples: the document's examples; coverage: boundary and invalid values of each
parameter, unexpected methods; fuzzing: random valid and invalid requests; stateful: chains
through the links schemathesis infers between operations, e.g. a created user then deleted).

Output (standard output): one JSON line per distinct finding, {"operation", "check", "status",
"request" (a curl command; the secrets appear as $ADMIN_KEY, $RP_KEY, $SESSION, $SPARE_SESSION),
"detail"}, then a JSON summary line and, last, `api-fuzz: N requests, F failures`.
Exit status: 0 no failures, 1 failures, 2 schemathesis is not installed, 3 the run could not start
(an unreadable config or openapi.yaml, a server that does not answer, a session that cannot be made).
"""
import base64
import json
import secrets
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

try:
    import hypothesis.configuration
    import requests
    import schemathesis
    from cryptography.hazmat.primitives.asymmetric import ec
    from schemathesis.core.failures import ServerError
    from schemathesis.engine import Status, StopReason, events, from_schema
except ImportError as missing:
    print(f"api-fuzz: not run: {missing.name} is not installed; run scripts/install-deps.sh "
          "(the packages of scripts/requirements.txt in .custos/venv)", file=sys.stderr)
    sys.exit(2)

# The checks asked of every answer (schemathesis's names).
CHECKS = ["not_a_server_error", "status_code_conformance", "content_type_conformance",
          "response_schema_conformance", "response_headers_conformance"]
ALL_PHASES = ["examples", "coverage", "fuzzing", "stateful"]

# Session operations that end the session, unbind its device or use up the user's attempts towards a
# lockout (a wrong password where one is asked again, a failed or cancelled selfie): they run with the
# spare session. The IDV and passkey steps that follow one another go with them, so that a stateful
# run's next step belongs to the same user.
SPARE_SESSION_OPERATIONS = {
    "logout", "revokeSession", "revokeMyDevice", "changePassword", "updateNotification",
    "beginPasskeyRegistration", "completePasskeyRegistration",
    "initiateIDVTransaction", "setIDVSelfieProcessStartConfirmation", "cancelIDVTransaction",
    "submitIDVFrames", "submitIDVAdditionalDocumentScan",
}

# Path parameters that must not name what the run depends on, per operation: (parameter, kind).
PROTECTED_PATH_PARAMETERS = {
    "revokeAPIKey": [("id", "api_key")],
    "deleteUser": [("id", "user")],
    "disableUser": [("id", "user")],
    "resetUser": [("id", "user")],
    "revokeDevice": [("id", "user"), ("device", "device")],
    "revokeSession": [("id", "session")],
    "revokeMyDevice": [("id", "device")],
}
# What such a parameter is changed to: well-formed ids that name nothing.
DECOYS = {"api_key": "0000000000000000", "user": "api-fuzz-decoy", "device": "0" * 32, "session": "0" * 32}


class SetupFailed(Exception):
    """The run cannot start: exit status 3."""


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass
class Session:
    """A user activated on a fresh device key, with its session."""
    user_id: str
    device_id: str
    session_id: str
    token: str


class Server:
    """The few calls the run makes for itself, outside the fuzzing (never counted as its requests)."""

    def __init__(self, base_url: str, admin_key: str, timeout: float):
        self.base_url = base_url.rstrip("/")
        self.admin = {"Authorization": f"Bearer {admin_key}"}
        self.timeout = timeout
        self.http = requests.Session()

    def call(self, method: str, path: str, headers=None, **kwargs) -> requests.Response:
        return self.http.request(method, self.base_url + path, headers=headers, timeout=self.timeout, **kwargs)

    def new_session(self, role: str) -> Session:
        """Creates a user with the admin key and activates it with a new P-256 device key."""
        user_id = f"api-fuzz-{role}-{secrets.token_hex(4)}"
        created = self.call("POST", "/v1/users", self.admin, json={"user_id": user_id})
        if created.status_code != 201:
            raise SetupFailed(f"POST /v1/users answered {created.status_code}: {created.text[:300]}")
        code = created.json()["activation"]["activation_code"]
        numbers = ec.generate_private_key(ec.SECP256R1()).public_key().public_numbers()
        jwk = {"kty": "EC", "crv": "P-256", "x": b64url(numbers.x.to_bytes(32, "big")), "y": b64url(numbers.y.to_bytes(32, "big"))}
        activated = self.call("POST", "/v1/activate", json={
            "user_id": user_id, "activation_code": code, "password": secrets.token_urlsafe(18),
            "device_name": f"api-fuzz {role}", "device_public_key": jwk})
        if activated.status_code != 201 or activated.json().get("status_code") != 100:
            raise SetupFailed(f"POST /v1/activate answered {activated.status_code}: {activated.text[:300]}")
        body = activated.json()
        return Session(user_id, body["device_id"], body["session"]["session_id"], body["session"]["token"])

    def works(self, session: Session) -> bool:
        """Whether the session still authenticates (the run may have ended it or locked its user)."""
        try:
            return self.call("GET", "/v1/sessions", {"Authorization": f"Bearer {session.token}"}).status_code == 200
        except requests.RequestException:
            return False

    def api_key_ids(self) -> set:
        listed = self.call("GET", "/v1/admin/api-keys", self.admin)
        if listed.status_code != 200:
            raise SetupFailed(f"GET /v1/admin/api-keys with the admin key answered {listed.status_code}: {listed.text[:300]}")
        return {key["id"] for key in listed.json()["api_keys"]}


def note(**fields):
    """What the run did besides fuzzing, for people: standard error, one JSON line."""
    print(json.dumps({"note": fields}), file=sys.stderr, flush=True)


@dataclass
class Accounts:
    """Who each operation is called as, and what the run keeps alive."""
    server: Server
    admin_key: str
    rp_key: str
    main: Session = None
    spare: Session = None
    protected: dict = field(default_factory=lambda: {kind: set() for kind in DECOYS})
    # Every secret the run used and the name a reproduction shows instead.
    names: dict = field(default_factory=dict)
    renewals: int = 0
    spares: int = 1
    redirected: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def start(self):
        self.names = {self.admin_key: "ADMIN_KEY", self.rp_key: "RP_KEY"}
        self.protected["api_key"] |= self.server.api_key_ids()
        self.main = self._new_main()
        self.spare = self._new_spare()

    def _new_main(self) -> Session:
        session = self.server.new_session("main")
        self.names[session.token] = "SESSION"
        self.protected["user"].add(session.user_id)
        self.protected["device"].add(session.device_id)
        self.protected["session"].add(session.session_id)
        return session

    def _new_spare(self) -> Session:
        session = self.server.new_session("spare")
        self.names[session.token] = "SPARE_SESSION"
        return session

    def identity(self, operation) -> str | None:
        """admin, rp, session, spare, or None for an operation that takes no credentials."""
        raw = operation.definition.raw
        security = raw.get("security", operation.schema.raw_schema.get("security", []))
        schemes = {name for requirement in security for name in requirement}
        if "session" in schemes:
            return "spare" if raw.get("operationId") in SPARE_SESSION_OPERATIONS else "session"
        if "apiKey" in schemes:
            return "admin" if operation.path.startswith("/v1/admin/") else "rp"
        return None

    def token(self, identity: str) -> str:
        with self.lock:
            if identity == "admin":
                return self.admin_key
            if identity == "rp":
                return self.rp_key
            if identity == "spare":
                # Checked before each use: the operations it is for may have just ended it.
                if not self.server.works(self.spare):
                    self.spare = self._new_spare()
                    self.spares += 1
                return self.spare.token
            return self.main.token

    def keep_main_alive(self, operation: str, status: int):
        """After a 401/403 to the main session: renew it if the run managed to end it."""
        with self.lock:
            if self.server.works(self.main):
                return
            self.renewals += 1
            note(renewed="main session", after=operation, status=status, user=self.main.user_id)
            self.main = self._new_main()

    def protect(self, case):
        """Sends a destructive call that names a protected key, user, device or session to a decoy."""
        for parameter, kind in PROTECTED_PATH_PARAMETERS.get(case.operation.definition.raw.get("operationId"), []):
            value = (case.path_parameters or {}).get(parameter)
            if isinstance(value, str) and value in self.protected[kind]:
                case.path_parameters[parameter] = DECOYS[kind]
                self.redirected += 1


def error_code(content: bytes):
    """The code of Custos's error envelope, or None."""
    try:
        error = json.loads(content).get("error")
    except (ValueError, AttributeError):
        return None
    return error.get("code") if isinstance(error, dict) else None


def install_hooks(schema, accounts: Accounts, counts: dict):
    """Credentials per operation, the protection of the run's own accounts, the request count, and
    what is not a finding."""

    @schema.auth(refresh_interval=None)  # never cached: the spare session changes under the run
    class CustosAuth:
        def get(self, case, context):
            identity = accounts.identity(case.operation)
            return None if identity is None else accounts.token(identity)

        def set(self, case, token, context):
            case.headers = case.headers or {}
            case.headers["Authorization"] = f"Bearer {token}"

    @schemathesis.hook
    def before_call(context, case, kwargs):
        accounts.protect(case)

    @schemathesis.hook
    def after_call(context, case, response):
        counts["requests"] += 1
        phase = case.meta.phase.name.value if case.meta is not None else "other"
        counts["by_phase"][phase] = counts["by_phase"].get(phase, 0) + 1
        counts["statuses"][response.status_code] = counts["statuses"].get(response.status_code, 0) + 1
        sent = (case.headers or {}).get("Authorization")
        if response.status_code in (401, 403) and sent == f"Bearer {accounts.main.token}":
            accounts.keep_main_alive(case.operation.label, response.status_code)

    @schemathesis.hook
    def filter_failure(context, failure, case, response):
        # A server run with --idv=false answers the IDV routes 503 idv_unavailable, as openapi.yaml
        # says: not a server error. The answer's other checks still count.
        if isinstance(failure, ServerError) and response.status_code == 503 and error_code(response.content) == "idv_unavailable":
            counts["idv_unavailable"] += 1
            return False
        return True


def schemathesis_config(config: dict) -> "schemathesis.Config":
    phases = config.get("phases", ALL_PHASES)
    unknown = set(phases) - set(ALL_PHASES)
    if unknown:
        raise SetupFailed(f"unknown phases {sorted(unknown)}; known: {ALL_PHASES}")
    settings = {
        "base-url": config["base_url"].rstrip("/"),
        "workers": 1,  # one request at a time: a small machine, and failures that replay alone
        "continue-on-failure": True,  # keep generating after an operation's first failure: more distinct findings
        "request-timeout": config.get("request_timeout", 30),
        "suppress-health-check": ["all"],  # slow or heavily filtered generation is no finding about the server
        "cache": {"enabled": False},  # nothing written beside the run, no replay of earlier runs
        "output": {"sanitization": {"enabled": False}},  # the secrets are named in the reproductions instead
        "generation": {"max-examples": int(config["max_examples"]), "mode": "all", "database": "none"},
        "checks": {"enabled": False, **{check: {"enabled": True} for check in config.get("checks", CHECKS)}},
        "phases": {phase: {"enabled": phase in phases} for phase in ALL_PHASES},
    }
    settings["phases"]["stateful"]["max-steps"] = int(config.get("max_steps", 6))
    if config.get("seed") is not None:
        settings["seed"] = int(config["seed"])
    return schemathesis.Config.from_dict(settings)


def mask(text: str, names: dict) -> str:
    """A curl command (or a message quoting one) with the run's secrets shown as shell variables."""
    for secret, name in names.items():
        # The usual place, quoted so that the shell expands it; then anywhere else.
        text = text.replace(f"'Authorization: Bearer {secret}'", f'"Authorization: Bearer ${name}"').replace(secret, f"${name}")
    return text


def reproduction(case) -> str:
    """The case as a curl command."""
    try:
        return case.as_curl_command()
    except Exception as error:  # a case curl cannot express still deserves its finding
        return f"{case.method} {case.formatted_path} ({error})"


class Findings:
    """Distinct failures: one per operation, check and status."""

    def __init__(self, accounts: Accounts):
        self.accounts = accounts
        self.seen = {}

    def add(self, operation: str, check: str, status, request: str, detail: str):
        key = (operation, check, status)
        if key in self.seen:
            return
        names = self.accounts.names  # the messages quote requests too
        finding = {"operation": operation, "check": check, "status": status, "request": mask(request, names),
                   "detail": mask(detail, names)[:1200]}
        self.seen[key] = finding
        print(json.dumps(finding), flush=True)

    def from_scenario(self, event):
        """The failed checks of one finished scenario (one operation in one phase, or a stateful run)."""
        recorder = event.recorder
        for case_id, nodes in recorder.checks.items():
            for node in nodes:
                if node.status != Status.FAILURE or node.failure_info is None:
                    continue
                failure = node.failure_info.failure
                case_node = recorder.cases.get(case_id)
                interaction = recorder.interactions.get(case_id)
                status = interaction.response.status_code if interaction and interaction.response else None
                request = reproduction(case_node.value) if case_node else node.failure_info.code_sample
                steps = node.failure_info.steps
                if len(steps) > 1:  # a stateful failure: the requests before the failing one too
                    request = "\n".join(step.curl for step in steps[:-1]) + "\n" + request
                self.add(failure.operation or recorder.label, node.name, status, request, f"{failure.title}: {failure.message}")

    def from_error(self, event):
        """An error instead of an answer: a refused or dropped connection, a timeout, a tool error."""
        notes = "".join(getattr(event.value, "__notes__", []))  # case.call notes the curl of a request that got no answer
        request = notes.split("Reproduce with:", 1)[1].strip() if "Reproduce with:" in notes else ""
        self.add(event.label, "error", None, request, f"{event.info.title}: {event.info.message}")


def fuzz(schema, findings: Findings) -> tuple[StopReason, dict]:
    """Runs the phases; reports findings as they come. The stop reason, and each phase's outcome
    (with, for the stateful phase, how many links between operations it followed)."""
    stop = StopReason.COMPLETED
    phases = {}
    for event in from_schema(schema).execute():
        if isinstance(event, events.PhaseStarted) and isinstance(event.payload, events.StatefulPhasePayload):
            phases["stateful_links"] = event.payload.transitions_selected
        if isinstance(event, events.ScenarioFinished):
            findings.from_scenario(event)
        elif isinstance(event, events.NonFatalError):
            findings.from_error(event)
        elif isinstance(event, events.FatalError):
            findings.add("*", "error", None, "", f"schemathesis stopped: {event.exception!r}")
        elif isinstance(event, events.PhaseFinished):
            phases[event.phase.name.value] = event.status.value
        elif isinstance(event, events.EngineFinished):
            stop = event.stop_reason
    return stop, phases


def check_own_keys(accounts: Accounts, findings: Findings):
    """The run's keys must still work at its end: had it revoked one, every later request made with it
    was refused and fuzzed nothing."""
    for name, key, path in (("admin_key", accounts.admin_key, "/v1/admin/api-keys"), ("rp_key", accounts.rp_key, "/v1/users")):
        try:
            status = accounts.server.call("GET", path, {"Authorization": f"Bearer {key}"}).status_code
        except requests.RequestException as error:
            status, detail = None, repr(error)
        else:
            detail = f"answered {status}"
        if status != 200:
            findings.add("*", "run_integrity", status, f"GET {path} with the {name}", f"the run's {name} no longer works: {detail}")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 3
    # Hypothesis keeps files in its home directory (default ./.hypothesis): a temporary one instead.
    with tempfile.TemporaryDirectory(prefix="api-fuzz-") as home:
        hypothesis.configuration.set_hypothesis_home_dir(home)
        return run(sys.argv[1])


def run(config_path: str) -> int:
    started = time.monotonic()
    try:
        with open(config_path, encoding="utf-8") as handle:
            config = json.load(handle)
        schema = schemathesis.openapi.from_path(config["openapi"], config=schemathesis_config(config))
        if config.get("operations"):
            schema = schema.include(operation_id=list(config["operations"]))
        server = Server(config["base_url"], config["admin_key"], float(config.get("request_timeout", 30)))
        accounts = Accounts(server, config["admin_key"], config["rp_key"])
        accounts.start()
    except (OSError, KeyError, ValueError, SetupFailed, requests.RequestException, schemathesis.errors.LoaderError) as error:
        print(f"api-fuzz: could not start: {error!r}", file=sys.stderr)
        return 3

    counts = {"requests": 0, "by_phase": {}, "statuses": {}, "idv_unavailable": 0}
    install_hooks(schema, accounts, counts)
    findings = Findings(accounts)
    stop, phases = fuzz(schema, findings)
    if stop != StopReason.COMPLETED:
        findings.add("*", "error", None, "", f"the run stopped early: {stop.value}")
    check_own_keys(accounts, findings)

    failures = len(findings.seen)
    summary = {"requests": counts["requests"], "requests_by_phase": counts["by_phase"],
               "statuses": dict(sorted(counts["statuses"].items())), "failures": failures, "seconds": round(time.monotonic() - started, 1),
               "seed": schema.config.seed, "max_examples": int(config["max_examples"]), "phases": phases,
               "operations": sum(1 for _ in schema.get_all_operations()), "decoys": accounts.redirected,
               "spare_sessions": accounts.spares, "session_renewals": accounts.renewals, "idv_unavailable": counts["idv_unavailable"]}
    print(json.dumps({"summary": summary}), flush=True)
    print(f"api-fuzz: {counts['requests']} requests, {failures} failures", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
