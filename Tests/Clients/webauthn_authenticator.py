#!/usr/bin/env python3
"""An independent WebAuthn authenticator and client against a live Custos server, written with the
`fido2` package's WebAuthn types (AuthenticatorData, AttestedCredentialData, AttestationObject,
CollectedClientData, the ES256 COSE key) and `cryptography` for the P-256 key, not Custos code.

Usage: webauthn_authenticator.py CONFIG_JSON

CONFIG_JSON keys:
  server          base URL the HTTP requests go to (http://127.0.0.1:PORT)
  origin          the origin the client reports in clientDataJSON (the issuer's origin)
  rp_id           the relying party id the authenticator scopes the credential to (the issuer's host)
  session_token   a session (cs_...) of the signed-in user who registers the passkey
  password        that user's password (asked again to register; sent with the sign-in where policy asks)
  user_id         optional: the user the session belongs to (checked in the answers and the ID token)
  client_id, redirect_uri
                  optional: a public OpenID client; with them the passkey also signs in on the
                  authorization endpoint's page flow (/v1/oidc/device-sign-in) and the ID token's
                  claims are read
  expect_acr, expect_amr
                  optional: the acr (string) and amr (list) the ID token must carry
  wrong_origin, wrong_rp_id
                  optional: the foreign origin and rp id of the refusal checks
                  (default https://evil.example and evil.example)
  observe         optional, default true: register a second passkey and record how the server
                  treats assertions WebAuthn Level 3 speaks to beyond the checks (recorded, never failing)

Checks: registration with attestation "none" accepted; sign-in to Custos itself with the passkey
(user verified) accepted; with an OpenID client, the page's sign-in accepted and the ID token's
claims; a replayed assertion, a sign count that did not advance, a wrong challenge, a wrong
origin and a wrong rp id refused; the passkey still signs in after the refusals. Prints one JSON
object of what was seen; exits 0 when every check held, 1 when one did not ("failed" names it).
"""
import base64
import hashlib
import json
import os
import sys
import time

import jwt
import requests
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2.cose import ES256
from fido2.utils import sha256, websafe_decode, websafe_encode
from fido2.webauthn import (Aaguid, AttestationObject, AttestedCredentialData, AuthenticatorData,
                            CollectedClientData)

FLAG = AuthenticatorData.FLAG
TIMEOUT = 20


class CheckFailed(Exception):
    pass


def check(condition, what):
    if not condition:
        raise CheckFailed(what)


class Authenticator:
    """A software authenticator holding discoverable ES256 credentials, one P-256 key each, with a
    per-credential signature counter. Nothing about the relying party is known to it beyond the
    rp id it is asked for."""

    def __init__(self):
        self.credentials = {}

    def make_credential(self, rp_id, user_handle, client_data, flags=FLAG.UP | FLAG.UV | FLAG.AT, credential_id=None):
        """authenticatorMakeCredential with attestation "none": the attestation object."""
        key = ec.generate_private_key(ec.SECP256R1())
        credential_id = credential_id or os.urandom(32)
        public_key = ES256.from_cryptography_key(key.public_key())
        attested = AttestedCredentialData.create(Aaguid.NONE, credential_id, public_key)
        auth_data = AuthenticatorData.create(sha256(rp_id.encode()), flags, 0, attested)
        self.credentials[credential_id] = {"key": key, "public_key": public_key, "rp_id": rp_id,
                                           "user_handle": user_handle, "counter": 0}
        # Attestation "none": an empty statement, so the client data is signed by nothing here.
        return credential_id, AttestationObject.create("none", auth_data, {})

    def get_assertion(self, rp_id, credential_id, client_data, flags=FLAG.UP | FLAG.UV, counter=None):
        """authenticatorGetAssertion: the authenticator data and the ES256 (DER) signature over
        authenticatorData || SHA-256(clientDataJSON). `counter` forces the signature counter
        (a cloned or replaying authenticator); otherwise it advances by one."""
        credential = self.credentials[credential_id]
        if counter is None:
            credential["counter"] += 1
            counter = credential["counter"]
        auth_data = AuthenticatorData.create(sha256(rp_id.encode()), flags, counter)
        signature = credential["key"].sign(bytes(auth_data) + client_data.hash, ec.ECDSA(hashes.SHA256()))
        # Our own bytes checked with the library's COSE key before anything is sent.
        credential["public_key"].verify(bytes(auth_data) + client_data.hash, signature)
        return auth_data, signature, credential["user_handle"]


class Client:
    """The WebAuthn client (the browser's part): collects the client data for an origin and asks
    the authenticator; `origin` and `rp_id` may be overridden to play a phishing page."""

    def __init__(self, authenticator, origin, rp_id):
        self.authenticator = authenticator
        self.origin = origin
        self.rp_id = rp_id

    def create(self, challenge, user_handle, **options):
        origin = options.pop("origin", self.origin)
        client_data = CollectedClientData.create(CollectedClientData.TYPE.CREATE, challenge, origin)
        credential_id, attestation = self.authenticator.make_credential(options.pop("rp_id", self.rp_id), user_handle,
                                                                        client_data, **options)
        return credential_id, attestation, client_data

    def get(self, challenge, credential_id, origin=None, rp_id=None, cross_origin=False, **options):
        client_data = CollectedClientData.create(CollectedClientData.TYPE.GET, challenge, origin or self.origin,
                                                 cross_origin=cross_origin)
        auth_data, signature, user_handle = self.authenticator.get_assertion(rp_id or self.rp_id, credential_id,
                                                                             client_data, **options)
        return {"authenticator_data": websafe_encode(bytes(auth_data)), "client_data_json": websafe_encode(bytes(client_data)),
                "signature": websafe_encode(signature), "counter": auth_data.counter, "flags": int(auth_data.flags)}


class Custos:
    """The server's passkey endpoints over HTTP."""

    def __init__(self, config):
        self.base = config["server"].rstrip("/")
        self.session = config["session_token"]
        self.password = config["password"]
        self.http = requests.Session()

    def post(self, path, body=None, bearer=None, form=None):
        headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
        if form is not None:
            response = self.http.post(self.base + path, data=form, headers=headers, timeout=TIMEOUT)
        else:
            response = self.http.post(self.base + path, json=body, headers=headers, timeout=TIMEOUT)
        return response.status_code, answer(response)

    def get(self, path, bearer=None, params=None):
        headers = {"Authorization": f"Bearer {bearer}"} if bearer else {}
        response = self.http.get(self.base + path, headers=headers, params=params, timeout=TIMEOUT, allow_redirects=False)
        return response

    def begin_registration(self):
        return self.post("/v1/passkeys/registration", {"password": self.password}, bearer=self.session)

    def finish_registration(self, registration_id, attestation, client_data, name):
        return self.post(f"/v1/passkeys/registration/{registration_id}",
                         {"attestation_object": websafe_encode(bytes(attestation)),
                          "client_data_json": websafe_encode(bytes(client_data)), "name": name}, bearer=self.session)

    def login_challenge(self):
        return self.post("/v1/login/passkey/challenge")

    def login(self, device_id, assertion):
        body = {"credential_id": device_id, "password": self.password,
                **{name: assertion[name] for name in ("authenticator_data", "client_data_json", "signature")}}
        return self.post("/v1/login/passkey", body)


def answer(response):
    try:
        return response.json()
    except ValueError:
        return {"http_body": response.text[:300]}


def error_of(status, body):
    """What a refusal said: the API's error envelope, an OAuth error, or a login outcome."""
    if isinstance(body.get("error"), dict):
        return {"status": status, "code": body["error"].get("code"), "message": body["error"].get("message")}
    if isinstance(body.get("error"), str):
        return {"status": status, "error": body["error"], "error_description": body.get("error_description")}
    seen = {"status": status}
    if isinstance(body.get("code"), str):
        seen["answer"] = "authorization code " + body["code"][:3] + "…"
    for name in ("status_code", "status_message", "attempts_left", "user_id", "device_id"):
        if name in body:
            seen[name] = body[name]
    if "session" in body:
        seen["session"] = "opened"
    return seen


def login_accepted(status, body):
    return status == 200 and body.get("status_code") == 100 and bool((body.get("session") or {}).get("token"))


def login_refused(status, body):
    return not (status == 200 and body.get("status_code") == 100) and "session" not in body


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Run:
    def __init__(self, config):
        self.config = config
        self.custos = Custos(config)
        self.authenticator = Authenticator()
        self.client = Client(self.authenticator, config["origin"], config["rp_id"])
        self.wrong_origin = config.get("wrong_origin", "https://evil.example")
        self.wrong_rp_id = config.get("wrong_rp_id", "evil.example")
        self.user_id = config.get("user_id")
        self.oidc = bool(config.get("client_id") and config.get("redirect_uri"))
        self.seen = {"authenticator": "fido2 WebAuthn types + cryptography P-256 (attestation none)"}
        self.failed = []

    # -- the ceremonies --------------------------------------------------------------------

    def register(self, name, client=None, **authenticator_options):
        """Options, the authenticator's attestation, the finish; (status, body, credential id, options)."""
        status, options = self.custos.begin_registration()
        if status != 201:
            return status, options, None, None
        credential_id, attestation, client_data = (client or self.client).create(websafe_decode(options["challenge"]),
                                                                     options["user_id"].encode(), **authenticator_options)
        status, body = self.custos.finish_registration(options["registration_id"], attestation, client_data, name)
        return status, body, credential_id, options

    def login(self, device_id, credential_id, challenge=None, **assertion_options):
        """A passkey sign-in to Custos itself; (status, body, the request's assertion)."""
        status, started = self.custos.login_challenge()
        check(status == 200 and "challenge" in started, f"the passkey sign-in challenge was answered: {status} {started}")
        signed = websafe_decode(started["challenge"]) if challenge is None else challenge
        assertion = self.client.get(signed, credential_id, **assertion_options)
        status, body = self.custos.login(device_id, assertion)
        return status, body, assertion

    def begin_sign_in(self, device_id):
        """The authorization endpoint's page, then the device sign-in it starts for the passkey."""
        config = self.config
        verifier = b64url(os.urandom(32))
        request = {"client_id": config["client_id"], "redirect_uri": config["redirect_uri"], "response_type": "code",
                   "scope": "openid", "state": b64url(os.urandom(12)), "nonce": b64url(os.urandom(12)),
                   "code_challenge": b64url(hashlib.sha256(verifier.encode()).digest()), "code_challenge_method": "S256"}
        status, challenge = self.custos.post("/v1/oidc/device-sign-in", {"device_id": device_id, **request})
        check(status == 200 and "authorization_id" in challenge, f"the device sign-in was started: {status} {challenge}")
        return request, verifier, challenge

    def answer_sign_in(self, challenge, device_id, credential_id, signed=None, **assertion_options):
        signed = websafe_decode(challenge["challenge"]) if signed is None else signed
        assertion = self.client.get(signed, credential_id, **assertion_options)
        body = {"credential_id": device_id,
                **{name: assertion[name] for name in ("authenticator_data", "client_data_json", "signature")}}
        status, answered = self.custos.post(f"/v1/oidc/device-sign-in/{challenge['authorization_id']}/assertion", body)
        return status, answered, body

    # -- the checks ------------------------------------------------------------------------

    def step(self, name, function):
        try:
            function()
        except CheckFailed as failure:
            self.failed.append(f"{name}: {failure}")
            raise

    def run(self):
        try:
            self.step("registration", self.check_registration)
            self.step("passkey_login", self.check_login)
            if self.oidc:
                self.step("oidc_sign_in", self.check_sign_in)
            else:
                self.seen["oidc_sign_in"] = "not run: no client_id and redirect_uri in the configuration"
            self.step("replayed_assertion", self.check_replay)
            self.step("stale_sign_count", self.check_stale_count)
            self.step("wrong_challenge", self.check_wrong_challenge)
            self.step("wrong_origin", self.check_wrong_origin)
            self.step("wrong_rp_id", self.check_wrong_rp_id)
            self.step("after_refusals", self.check_after_refusals)
        except CheckFailed:
            pass
        if self.config.get("observe", True) and not self.failed:
            try:
                self.observe()
            except (CheckFailed, requests.RequestException, KeyError) as failure:
                self.seen.setdefault("observations", {})["stopped"] = f"{type(failure).__name__}: {failure}"
        self.seen["failed"] = self.failed
        return not self.failed

    def check_registration(self):
        status, options = self.custos.begin_registration()
        seen = self.seen["registration"] = {"options_status": status}
        check(status == 201, f"the registration options were answered 201: {status} {options}")
        seen["options"] = {name: options.get(name) for name in ("rp_id", "origin", "user_id", "algorithms", "attestation",
                                                              "user_verification")}
        check(options.get("attestation") == "none", f"attestation none was asked: {options.get('attestation')}")
        check(-7 in (options.get("algorithms") or []), f"ES256 (-7) was offered: {options.get('algorithms')}")
        check(options.get("rp_id") == self.config["rp_id"], f"the options name rp id {self.config['rp_id']}: {options.get('rp_id')}")
        check(options.get("origin") == self.config["origin"], f"the options name origin {self.config['origin']}: {options.get('origin')}")
        if self.user_id:
            check(options.get("user_id") == self.user_id, f"the options are for {self.user_id}: {options.get('user_id')}")
        credential_id, attestation, client_data = self.client.create(websafe_decode(options["challenge"]),
                                                                     options["user_id"].encode())
        parsed = AttestationObject(bytes(attestation))
        seen["attestation"] = {"fmt": parsed.fmt, "flags": int(parsed.auth_data.flags), "att_stmt": dict(parsed.att_stmt)}
        status, device = self.custos.finish_registration(options["registration_id"], attestation, client_data, "fido2 passkey")
        seen["status"] = status
        seen["device"] = {name: device.get(name) for name in ("device_id", "user_id", "name")} if status == 201 else error_of(status, device)
        self.device_id = "pk_" + b64url(credential_id)
        self.credential_id = credential_id
        check(status == 201, f"the attestation was accepted: {status} {device}")
        check(device.get("device_id") == self.device_id, f"the device id is pk_ + the credential id: {device.get('device_id')}")
        if self.user_id:
            check(device.get("user_id") == self.user_id, f"the passkey is {self.user_id}'s: {device.get('user_id')}")
        listed = self.custos.get("/v1/devices", bearer=self.custos.session)
        seen["listed_in_devices"] = listed.status_code == 200 and any(
            item.get("device_id") == self.device_id for item in answer(listed).get("devices", []))
        check(seen["listed_in_devices"], "the passkey is among the user's devices")

    def check_login(self):
        status, body, assertion = self.login(self.device_id, self.credential_id)
        seen = self.seen["passkey_login"] = {"flags": assertion["flags"], "counter": assertion["counter"], **error_of(status, body)}
        self.login_body = {"credential_id": self.device_id, "password": self.config["password"],
                           **{name: assertion[name] for name in ("authenticator_data", "client_data_json", "signature")}}
        check(login_accepted(status, body), f"the passkey signed in (status_code 100 with a session): {status} {body}")
        check(body.get("device_id") == self.device_id, f"the session is the passkey's: {body.get('device_id')}")
        if self.user_id:
            check(body.get("user_id") == self.user_id, f"the user signed in is {self.user_id}: {body.get('user_id')}")
        token = body["session"]["token"]
        sessions = self.custos.get("/v1/sessions", bearer=token)
        seen["session_device"] = next((item.get("device_id") for item in answer(sessions).get("sessions", [])
                                       if item.get("session_id") == body["session"].get("session_id")), None)
        check(seen["session_device"] == self.device_id, f"the new session works and names the passkey: {sessions.status_code}")

    def check_sign_in(self):
        page = self.custos.get("/oauth2/authorize", params={
            "client_id": self.config["client_id"], "redirect_uri": self.config["redirect_uri"], "response_type": "code",
            "scope": "openid", "state": "s", "code_challenge": b64url(hashlib.sha256(b"page").digest()),
            "code_challenge_method": "S256"})
        seen = self.seen["oidc_sign_in"] = {"authorize_page": f"{page.status_code} {page.headers.get('Content-Type', '')}"}
        check(page.status_code == 200, f"the authorization endpoint served its sign-in page: {page.status_code}")
        request, verifier, challenge = self.begin_sign_in(self.device_id)
        seen["challenge"] = {name: challenge.get(name) for name in ("rp_id", "origin", "user_verification")}
        check(challenge.get("rp_id") == self.config["rp_id"] and challenge.get("origin") == self.config["origin"],
              f"the challenge names this rp id and origin: {seen['challenge']}")
        status, code, body = self.answer_sign_in(challenge, self.device_id, self.credential_id)
        seen["assertion_status"] = status
        check(status == 200 and str(code.get("code", "")).startswith("ac_"), f"the assertion got a code: {status} {code}")
        check(code.get("state") == request["state"], "the code answers with the request's state")
        status, tokens = self.custos.post("/oauth2/token", form={
            "grant_type": "authorization_code", "code": code["code"], "redirect_uri": request["redirect_uri"],
            "client_id": request["client_id"], "code_verifier": verifier})
        check(status == 200 and "id_token" in tokens, f"the code was exchanged: {status} {tokens}")
        discovery = self.custos.get("/.well-known/openid-configuration").json()
        keys = jwt.PyJWKSet.from_dict(self.custos.get("/.well-known/jwks.json").json())
        kid = jwt.get_unverified_header(tokens["id_token"]).get("kid")
        key = next((item for item in keys.keys if item.key_id == kid), None)
        check(key is not None, f"the ID token's kid {kid} is in the JWKS")
        claims = jwt.decode(tokens["id_token"], key.key, algorithms=["ES256"], audience=request["client_id"],
                            issuer=discovery["issuer"])
        seen["claims"] = {name: claims.get(name) for name in ("sub", "acr", "amr", "auth_time", "nonce", "azp")}
        check(claims.get("nonce") == request["nonce"], "the ID token carries the request's nonce")
        if self.user_id:
            check(claims.get("sub") == self.user_id, f"the ID token's sub is {self.user_id}: {claims.get('sub')}")
        if "expect_acr" in self.config:
            check(claims.get("acr") == self.config["expect_acr"], f"acr is {self.config['expect_acr']}: {claims.get('acr')}")
        if "expect_amr" in self.config:
            check(claims.get("amr") == self.config["expect_amr"], f"amr is {self.config['expect_amr']}: {claims.get('amr')}")
        self.sign_in_answered = (challenge["authorization_id"], body)

    def check_replay(self):
        # The very assertion that signed in, sent again: its challenge was spent.
        status, body = self.custos.post("/v1/login/passkey", self.login_body)
        seen = self.seen["replayed_assertion"] = {"login": error_of(status, body)}
        check(login_refused(status, body), f"the replayed sign-in assertion was refused: {status} {body}")
        if self.oidc:
            authorization_id, answered = self.sign_in_answered
            status, body = self.custos.post(f"/v1/oidc/device-sign-in/{authorization_id}/assertion", answered)
            seen["oidc_sign_in"] = error_of(status, body)
            check(status >= 400 and "code" not in body, f"the replayed page sign-in assertion was refused: {status} {body}")

    def check_stale_count(self):
        # A fresh challenge, signed correctly, but with the counter of the last accepted assertion:
        # what a cloned authenticator would send.
        stored = self.authenticator.credentials[self.credential_id]["counter"]
        status, body, assertion = self.login(self.device_id, self.credential_id, counter=stored)
        self.seen["stale_sign_count"] = {"stored": stored, "presented": assertion["counter"], **error_of(status, body)}
        check(login_refused(status, body), f"a sign count that did not advance was refused: {status} {body}")

    def check_wrong_challenge(self):
        # A challenge the server never issued (the issued one unanswered beside it).
        status, body, _ = self.login(self.device_id, self.credential_id, challenge=os.urandom(32))
        seen = self.seen["wrong_challenge"] = {"login": error_of(status, body)}
        check(login_refused(status, body), f"a sign-in over another challenge was refused: {status} {body}")
        if self.oidc:
            # The page's sign-in: the challenge is bound to its authorization request.
            _, _, challenge = self.begin_sign_in(self.device_id)
            status, answered, _ = self.answer_sign_in(challenge, self.device_id, self.credential_id, signed=os.urandom(32))
            seen["oidc_sign_in"] = error_of(status, answered)
            check(status >= 400 and "code" not in answered, f"a page sign-in over another challenge was refused: {status} {answered}")

    def check_wrong_origin(self):
        status, body, _ = self.login(self.device_id, self.credential_id, origin=self.wrong_origin)
        self.seen["wrong_origin"] = {"origin": self.wrong_origin, **error_of(status, body)}
        check(login_refused(status, body), f"an assertion for origin {self.wrong_origin} was refused: {status} {body}")

    def check_wrong_rp_id(self):
        status, body, _ = self.login(self.device_id, self.credential_id, rp_id=self.wrong_rp_id)
        self.seen["wrong_rp_id"] = {"rp_id": self.wrong_rp_id, **error_of(status, body)}
        check(login_refused(status, body), f"an assertion for rp id {self.wrong_rp_id} was refused: {status} {body}")

    def check_after_refusals(self):
        # The refusals were for their reasons: the same passkey, done right, still signs in.
        status, body, assertion = self.login(self.device_id, self.credential_id)
        self.seen["after_refusals"] = {"counter": assertion["counter"], **error_of(status, body)}
        check(login_accepted(status, body), f"the passkey still signed in after the refusals: {status} {body}")

    # -- observations (recorded, never failing) ----------------------------------------------

    def observe(self):
        seen = self.seen["observations"] = {}

        def record(name, status, body, **extra):
            seen[name] = {**extra, **error_of(status, body)}

        # Registration without UV, as an authenticator that only tests presence produces it
        # (soft-webauthn 0.1.4's flags: UP | AT).
        status, body, _, _ = self.register("no uv", flags=FLAG.UP | FLAG.AT)
        record("registration_without_uv", status, body, flags=int(FLAG.UP | FLAG.AT))
        # A second passkey for the probes, so their refusals count against it and not the first.
        status, body, credential_id, _ = self.register("probe passkey")
        check(status == 201, f"a second passkey registered: {status} {body}")
        device_id = "pk_" + b64url(credential_id)
        # §7.1 (registering a new credential): a credential id already registered is refused.
        other = Client(Authenticator(), self.config["origin"], self.config["rp_id"])
        status, body, _, _ = self.register("same id", client=other, credential_id=credential_id)
        record("registration_same_credential_id", status, body)
        # §7.1: a registration for another origin or rp id.
        status, body, _, _ = self.register("other origin", origin=self.wrong_origin)
        record("registration_wrong_origin", status, body)
        status, body, _, _ = self.register("other rp", rp_id=self.wrong_rp_id)
        record("registration_wrong_rp_id", status, body)
        # §7.2 (verifying an assertion): user verification required, UV missing.
        status, body, assertion = self.login(device_id, credential_id, flags=FLAG.UP)
        record("login_without_uv", status, body, flags=assertion["flags"])
        # §7.2, the step new in Level 3: BS (backed up) set without BE (backup eligible) must fail.
        status, body, assertion = self.login(device_id, credential_id, flags=FLAG.UP | FLAG.UV | FLAG.BS)
        record("login_bs_without_be", status, body, flags=assertion["flags"])
        # crossOrigin true in the client data (§7.2 leaves it to the RP; Custos expects same-origin).
        status, body, _ = self.login(device_id, credential_id, cross_origin=True)
        record("login_cross_origin", status, body)
        if self.oidc:
            # The page's sign-in names user_verification "required" in its challenge: UV missing.
            _, _, challenge = self.begin_sign_in(device_id)
            status, answered, body = self.answer_sign_in(challenge, device_id, credential_id, flags=FLAG.UP)
            record("oidc_sign_in_without_uv", status, answered, flags=int(FLAG.UP),
                   challenge_user_verification=challenge.get("user_verification"))
        # Sign count 0 after a nonzero one: an authenticator that stopped counting.
        status, body, assertion = self.login(device_id, credential_id, counter=0)
        record("login_counter_reset_to_zero", status, body, presented=assertion["counter"])


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as handle:
        config = json.load(handle)
    missing = [name for name in ("server", "origin", "rp_id", "session_token", "password") if not config.get(name)]
    if missing:
        print(json.dumps({"failed": [f"configuration: missing {', '.join(missing)}"]}))
        return 1
    run = Run(config)
    try:
        ok = run.run()
    except (requests.RequestException, jwt.PyJWTError, KeyError, ValueError) as error:
        run.seen["failed"] = run.failed + [f"error: {type(error).__name__}: {error}"]
        ok = False
    run.seen["elapsed_s"] = round(time.monotonic() - START, 2)
    print(json.dumps(run.seen, sort_keys=True))
    return 0 if ok else 1


START = time.monotonic()

if __name__ == "__main__":
    sys.exit(main())
