#!/usr/bin/env python3
"""A relying party signing users in with Custos's OpenID Connect provider, written with authlib
(OAuth 2.0 / OpenID Connect client), joserfc (the ID token against the JWKS) and jwcrypto (the
encrypted ID token) — not Custos code. The user's step is done by the `custos` command acting as
the bound device (`custos signin --bound --authorization-url URL --yes`).

Usage: oidc_client.py CONFIG_JSON

CONFIG_JSON: issuer, custos (the binary), profile (the bound device's profile directory),
client_id, client_secret, redirect_uri, decryption_key (PEM of the client's encryption key),
jwt_client_id and jwt_key (PEM) of a private_key_jwt client, code_lifetime (seconds), user_id, claims
(the standard claims the relying party set for the user), post_logout_redirect_uri (the client's).

Runs discovery, the code flow with PKCE, validation of the ID token, userinfo, introspection,
refresh with rotation, reuse detection, revocation, the encrypted ID token, private_key_jwt, and
the error paths. Prints a JSON object of what it saw; exits 0 when every check held, 1 with the
failed check otherwise.
"""
import base64
import json
import secrets
import subprocess
import sys
import time
import urllib.parse

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.oauth2.rfc7523 import PrivateKeyJWT
from joserfc import jwt as jose_jwt
from joserfc.jwk import ECKey, KeySet
from jwcrypto import jwe as jwcrypto_jwe
from jwcrypto import jwk as jwcrypto_jwk

seen = {}


class CheckFailed(Exception):
    pass


def check(condition, what):
    if not condition:
        raise CheckFailed(what)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def approve(config, url, expect_ok=True):
    """The bound device approves the authorization request (the user's step)."""
    run = subprocess.run([config["custos"], "signin", "--bound", "--authorization-url", url, "--yes", "--json",
                          "--profile", config["profile"]], capture_output=True, text=True, timeout=60)
    if not expect_ok:
        return run
    check(run.returncode == 0, f"custos signin approved the request: {run.stderr.strip()}")
    return json.loads(run.stdout)


def custos_verify(config, token, client_id, extra=()):
    run = subprocess.run([config["custos"], "token", "verify", token, "--client-id", client_id, "--server", config["issuer"], *extra],
                         capture_output=True, text=True, timeout=60)
    return run.returncode, (run.stdout + run.stderr).strip()


def oauth_error(response):
    try:
        return response.json().get("error")
    except ValueError:
        return f"http {response.status_code}"


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as handle:
        config = json.load(handle)
    try:
        run_checks(config)
    except CheckFailed as failure:
        print(json.dumps(seen, sort_keys=True, indent=1))
        print(f"failed: {failure}")
        return 1
    print(json.dumps(seen, sort_keys=True, indent=1))
    return 0


def run_checks(config):
    issuer = config["issuer"]
    discovery = requests.get(issuer + "/.well-known/openid-configuration", timeout=10).json()
    check(discovery["issuer"] == issuer, "discovery names the issuer")
    check("S256" in discovery["code_challenge_methods_supported"], "discovery offers PKCE S256")
    check("private_key_jwt" in discovery["token_endpoint_auth_methods_supported"], "discovery offers private_key_jwt")
    keys = KeySet.import_key_set(requests.get(discovery["jwks_uri"], timeout=10).json())
    seen["discovery"] = "ok"

    redirect_uri = config["redirect_uri"]

    def session():
        return OAuth2Session(config["client_id"], config["client_secret"], scope="openid offline_access", redirect_uri=redirect_uri,
                             code_challenge_method="S256", token_endpoint_auth_method="client_secret_basic")

    def sign_in(client, **extra):
        verifier = secrets.token_urlsafe(48)
        nonce = secrets.token_urlsafe(16)
        url, state = client.create_authorization_url(discovery["authorization_endpoint"], code_verifier=verifier, nonce=nonce, **extra)
        answer = approve(config, url)
        check(answer["state"] == state, "the authorization response carries the request's state")
        check(answer["iss"] == issuer, "the authorization response names the issuer (RFC 9207)")
        return answer, verifier, nonce

    def validate_id_token(id_token, nonce, client_id):
        token = jose_jwt.decode(id_token, keys, algorithms=["ES256"])
        jose_jwt.JWTClaimsRegistry(iss={"essential": True, "value": issuer}, aud={"essential": True, "value": client_id},
                                   nonce={"essential": nonce is not None, "value": nonce}, sub={"essential": True},
                                   exp={"essential": True}, auth_time={"essential": True}).validate(token.claims)
        return token.claims

    # The code flow with PKCE, a confidential client (client_secret_basic).
    client = session()
    answer, verifier, nonce = sign_in(client)
    token = client.fetch_token(discovery["token_endpoint"], authorization_response=answer["location"], code_verifier=verifier)
    check(token["token_type"].lower() == "bearer" and token["expires_in"] > 0, "the token answer is a Bearer token with its lifetime")
    claims = validate_id_token(token["id_token"], nonce, config["client_id"])
    check(claims["sub"] == config["user_id"], "the ID token's sub is the user")
    check(claims["acr"] == "urn:custos:acr:3" and claims["amr"] == ["swk"],
          "the ID token says a bound device's software key signed in, and claims no more (no hwk, no user)")
    seen["id_token"] = {"sub": claims["sub"], "acr": claims["acr"], "amr": claims["amr"]}

    # Many stacks ask for "openid profile email" by default: a scope the server does not know is
    # left out (OIDC Core 3.1.2.1), and the token answer names the scope granted.
    wide = OAuth2Session(config["client_id"], config["client_secret"], scope="openid profile email offline_access phone https://rp.example/orders",
                         redirect_uri=redirect_uri, code_challenge_method="S256")
    answer, verifier, nonce = sign_in(wide)
    granted = wide.fetch_token(discovery["token_endpoint"], authorization_response=answer["location"], code_verifier=verifier)
    check(granted.get("scope") == "openid profile email offline_access phone" and "refresh_token" in granted,
          f"a scope the server does not know is ignored, and the granted scope is returned: {granted.get('scope')}")
    seen["scope"] = granted["scope"]
    # The claims the relying party set for the user, released by scope (OIDC Core 5.4): profile,
    # email and phone were granted, address was not asked for.
    stated = config["claims"]
    released = wide.get(discovery["userinfo_endpoint"]).json()
    for name in ["name", "given_name", "family_name", "email", "email_verified", "phone_number"]:
        check(released.get(name) == stated[name], f"userinfo releases {name} of a granted scope: {released}")
    check("address" not in released and isinstance(released.get("updated_at"), int),
          f"userinfo releases no claim of a scope not granted, and updated_at as seconds: {released}")
    check(set(["name", "email", "phone_number", "address", "updated_at"]) <= set(discovery["claims_supported"]),
          "discovery's claims_supported names the claims userinfo releases")
    seen["claims"] = sorted(released)

    # The authorization request as a form (OIDC Core 3.1.2.1): a valid one is sent on to GET with
    # the same parameters, a refused one goes back to the redirect URI as GET's would.
    poster = session()
    verifier, nonce = secrets.token_urlsafe(48), secrets.token_urlsafe(16)
    url, state = poster.create_authorization_url(discovery["authorization_endpoint"], code_verifier=verifier, nonce=nonce)
    form = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(url).query))
    posted = requests.post(discovery["authorization_endpoint"], data=form, allow_redirects=False, timeout=10)
    check(posted.status_code == 303 and posted.headers.get("Location", "").startswith(discovery["authorization_endpoint"] + "?"),
          f"a posted authorization request is sent on to the GET endpoint: {posted.status_code}")
    check(dict(urllib.parse.parse_qsl(urllib.parse.urlparse(posted.headers["Location"]).query)) == form,
          "the GET endpoint gets the form's parameters unchanged")
    answer = approve(config, posted.headers["Location"])
    check(answer["state"] == state, "the posted request's state comes back with the code")
    posted_token = poster.fetch_token(discovery["token_endpoint"], authorization_response=answer["location"], code_verifier=verifier)
    check(validate_id_token(posted_token["id_token"], nonce, config["client_id"])["sub"] == config["user_id"],
          "a posted authorization request signs the user in")
    refused = requests.post(discovery["authorization_endpoint"], data=dict(form, response_type="token"), allow_redirects=False, timeout=10)
    query = urllib.parse.parse_qs(urllib.parse.urlparse(refused.headers.get("Location", "")).query)
    check(refused.status_code == 302 and query.get("error") == ["unsupported_response_type"] and query.get("state") == [state],
          "a refused posted request goes back to the redirect URI with the error and state")
    seen["authorize_post"] = "303 to GET; refusals redirected with state"
    access = jose_jwt.decode(token["access_token"], keys, algorithms=["ES256"])
    check(access.header.get("typ") == "at+jwt" and access.claims["client_id"] == config["client_id"], "the access token is an RFC 9068 JWT")

    info = client.get(discovery["userinfo_endpoint"])
    check(info.status_code == 200 and info.json() == {"sub": config["user_id"]},
          f"userinfo answers the user, and no claim to a token without their scopes: {info.json()}")
    seen["userinfo"] = info.json()

    introspected = client.introspect_token(discovery["introspection_endpoint"], token=token["access_token"]).json()
    check(introspected["active"] is True and introspected["sub"] == config["user_id"], "introspection: the access token is active")

    # Refresh: rotation, then the old refresh token again revokes the grant.
    first_refresh = token["refresh_token"]
    refreshed = client.refresh_token(discovery["token_endpoint"], refresh_token=first_refresh)
    check(refreshed["refresh_token"] != first_refresh, "a refresh rotates the refresh token")
    validate_id_token(refreshed["id_token"], None, config["client_id"])
    reused = requests.post(discovery["token_endpoint"], data={"grant_type": "refresh_token", "refresh_token": first_refresh},
                           auth=(config["client_id"], config["client_secret"]), timeout=10)
    check(reused.status_code == 400 and oauth_error(reused) == "invalid_grant", "a refresh token used twice is invalid_grant")
    after_reuse = requests.post(discovery["token_endpoint"], data={"grant_type": "refresh_token", "refresh_token": refreshed["refresh_token"]},
                                auth=(config["client_id"], config["client_secret"]), timeout=10)
    check(oauth_error(after_reuse) == "invalid_grant", "reuse revoked the grant: the newest refresh token is dead too")
    dead = client.introspect_token(discovery["introspection_endpoint"], token=refreshed["access_token"]).json()
    check(dead["active"] is False, "reuse revoked the grant: its access token is inactive")
    seen["refresh"] = "rotated; reuse revoked the grant"

    # Revocation (RFC 7009) of a refresh token ends the grant's access token too.
    client = session()
    answer, verifier, nonce = sign_in(client)
    token = client.fetch_token(discovery["token_endpoint"], authorization_response=answer["location"], code_verifier=verifier)
    revoked = client.revoke_token(discovery["revocation_endpoint"], token=token["refresh_token"], token_type_hint="refresh_token")
    check(revoked.status_code == 200, "revocation answers 200")
    check(client.introspect_token(discovery["introspection_endpoint"], token=token["access_token"]).json()["active"] is False,
          "after revocation the access token is inactive")
    denied = requests.get(discovery["userinfo_endpoint"], headers={"Authorization": "Bearer " + token["access_token"]}, timeout=10)
    check(denied.status_code == 401 and "invalid_token" in denied.headers.get("WWW-Authenticate", ""),
          "userinfo refuses a revoked access token with a Bearer challenge")
    seen["revocation"] = "ok"

    # RP-Initiated Logout 1.0: the ID token names the grant; it ends, and the browser goes on to
    # the address the client registered, with the state.
    client = session()
    answer, verifier, nonce = sign_in(client)
    token = client.fetch_token(discovery["token_endpoint"], authorization_response=answer["location"], code_verifier=verifier)
    after = config["post_logout_redirect_uri"]
    check(discovery.get("end_session_endpoint", "").startswith(issuer), "discovery names the end_session_endpoint")
    logout_state = secrets.token_urlsafe(16)
    logout = requests.get(discovery["end_session_endpoint"], allow_redirects=False, timeout=10,
                          params={"id_token_hint": token["id_token"], "post_logout_redirect_uri": after, "state": logout_state})
    check(logout.status_code == 302 and logout.headers.get("Location") == f"{after}?state={logout_state}",
          f"logout sends the browser to the registered address with the state: {logout.status_code} {logout.headers.get('Location')}")
    ended = requests.post(discovery["token_endpoint"], auth=(config["client_id"], config["client_secret"]), timeout=10,
                          data={"grant_type": "refresh_token", "refresh_token": token["refresh_token"]})
    check(ended.status_code == 400 and ended.json().get("error") == "invalid_grant", "after logout the refresh token is invalid_grant")
    check(requests.get(discovery["userinfo_endpoint"], headers={"Authorization": "Bearer " + token["access_token"]}, timeout=10).status_code == 401,
          "after logout the access token is refused")
    stray = requests.get(discovery["end_session_endpoint"], allow_redirects=False, timeout=10,
                         params={"id_token_hint": token["id_token"], "post_logout_redirect_uri": "https://evil.example/"})
    check(stray.status_code == 400 and "Location" not in stray.headers, "an unregistered post-logout address is refused, never redirected to")
    seen["logout"] = "grant ended; redirected to the registered address with state; others refused"

    # A wrong PKCE verifier.
    client = session()
    answer, verifier, nonce = sign_in(client)
    wrong = requests.post(discovery["token_endpoint"], data={"grant_type": "authorization_code", "code": answer["code"],
                                                             "redirect_uri": redirect_uri, "code_verifier": secrets.token_urlsafe(48)},
                          auth=(config["client_id"], config["client_secret"]), timeout=10)
    check(oauth_error(wrong) == "invalid_grant", "a wrong code_verifier is invalid_grant")

    # A reused code: refused, and what the first exchange gave is revoked.
    client = session()
    answer, verifier, nonce = sign_in(client)
    token = client.fetch_token(discovery["token_endpoint"], authorization_response=answer["location"], code_verifier=verifier)
    again = requests.post(discovery["token_endpoint"], data={"grant_type": "authorization_code", "code": answer["code"],
                                                             "redirect_uri": redirect_uri, "code_verifier": verifier},
                          auth=(config["client_id"], config["client_secret"]), timeout=10)
    check(oauth_error(again) == "invalid_grant", "a reused code is invalid_grant")
    check(client.introspect_token(discovery["introspection_endpoint"], token=token["access_token"]).json()["active"] is False,
          "a reused code revokes the access token the first exchange gave")
    stale = requests.post(discovery["token_endpoint"], data={"grant_type": "refresh_token", "refresh_token": token["refresh_token"]},
                          auth=(config["client_id"], config["client_secret"]), timeout=10)
    check(oauth_error(stale) == "invalid_grant", "a reused code revokes the refresh token the first exchange gave")
    seen["code_reuse"] = "refused; first tokens revoked"

    # A redirect URI that is not registered: refused by the device's sign-in, and the browser
    # endpoint answers the user agent itself (no redirect to an unknown place).
    client = OAuth2Session(config["client_id"], config["client_secret"], scope="openid", redirect_uri="https://evil.test/callback",
                           code_challenge_method="S256")
    url, _ = client.create_authorization_url(discovery["authorization_endpoint"], code_verifier=secrets.token_urlsafe(48))
    refused = approve(config, url, expect_ok=False)
    check(refused.returncode == 10 and "redirect_uri" in refused.stderr, f"an unregistered redirect_uri is refused: {refused.stderr.strip()}")
    browser = requests.get(url, allow_redirects=False, timeout=10)
    check(browser.status_code == 400 and "Location" not in browser.headers, "the authorization endpoint does not redirect to an unregistered URI")
    # An error with a good redirect URI goes back to it with the state.
    bad_scope = session()
    url, state = bad_scope.create_authorization_url(discovery["authorization_endpoint"], scope="email", code_verifier=secrets.token_urlsafe(48))
    bounced = requests.get(url, allow_redirects=False, timeout=10)
    query = urllib.parse.parse_qs(urllib.parse.urlparse(bounced.headers.get("Location", "")).query)
    check(bounced.status_code == 302 and query.get("error") == ["invalid_scope"] and query.get("state") == [state],
          "an invalid request with a good redirect URI is redirected with error and state")
    seen["redirect_uri"] = "unregistered refused; errors redirected only to registered URIs"

    # An expired code.
    client = session()
    answer, verifier, nonce = sign_in(client)
    time.sleep(config["code_lifetime"] + 1.5)
    late = requests.post(discovery["token_endpoint"], data={"grant_type": "authorization_code", "code": answer["code"],
                                                            "redirect_uri": redirect_uri, "code_verifier": verifier},
                         auth=(config["client_id"], config["client_secret"]), timeout=10)
    check(oauth_error(late) == "invalid_grant", "an expired code is invalid_grant")
    seen["expired_code"] = "invalid_grant"

    # The encrypted ID token: a JWE only the client's key opens, holding the signed ID token.
    client = session()
    answer, verifier, nonce = sign_in(client, encrypted="true")
    token = client.fetch_token(discovery["token_endpoint"], authorization_response=answer["location"], code_verifier=verifier)
    check(token["id_token"].count(".") == 4, "the encrypted ID token is a compact JWE")
    with open(config["decryption_key"], "rb") as handle:
        private = jwcrypto_jwk.JWK.from_pem(handle.read())
    envelope = jwcrypto_jwe.JWE()
    envelope.deserialize(token["id_token"], key=private)
    header = json.loads(envelope.objects["protected"])
    check(header["alg"] == "ECDH-ES+A256KW" and header["enc"] == "A256GCM" and header.get("cty") == "JWT", "JWE ECDH-ES+A256KW / A256GCM, cty JWT")
    inner = envelope.payload.decode()
    claims = validate_id_token(inner, nonce, config["client_id"])
    status, output = custos_verify(config, token["id_token"], config["client_id"], ["--decryption-key", config["decryption_key"], "--nonce", nonce])
    check(status == 0, f"custos token verify opens and verifies the encrypted ID token: {output}")
    seen["encrypted_id_token"] = {"alg": header["alg"], "enc": header["enc"], "sub": claims["sub"]}

    # custos token verify, as the relying party's server: valid, then forgeries refused.
    status, output = custos_verify(config, inner, config["client_id"])
    check(status == 0, f"custos token verify accepts a valid ID token: {output}")
    segments = inner.split(".")
    unsigned = b64url(json.dumps({"alg": "none", "typ": "JWT"}).encode()) + "." + segments[1] + "."
    status, output = custos_verify(config, unsigned, config["client_id"])
    check(status == 10, f"an alg none token is refused: {output}")
    stranger = ECKey.generate_key("P-256", parameters={"kid": json.loads(base64.urlsafe_b64decode(segments[0] + "==").decode())["kid"]})
    forged = jose_jwt.encode({"alg": "ES256", "kid": stranger.kid}, json.loads(base64.urlsafe_b64decode(segments[1] + "==")), stranger)
    status, output = custos_verify(config, forged, config["client_id"])
    check(status == 10, f"a token signed by an unknown key is refused: {output}")
    status, output = custos_verify(config, inner, "oc_someone_else")
    check(status == 10 and "aud" in output, f"a token for another audience is refused: {output}")
    seen["token_verify"] = "valid accepted; alg none, unknown key, wrong audience refused"

    # private_key_jwt: authlib signs the client assertion with the client's EC key.
    with open(config["jwt_key"], "rb") as handle:
        jwt_key = ECKey.import_key(handle.read())
    jwt_client = OAuth2Session(config["jwt_client_id"], jwt_key, scope="openid", redirect_uri=redirect_uri, code_challenge_method="S256",
                               token_endpoint_auth_method="private_key_jwt")
    jwt_client.register_client_auth_method(PrivateKeyJWT(discovery["token_endpoint"], alg="ES256"))
    verifier = secrets.token_urlsafe(48)
    url, state = jwt_client.create_authorization_url(discovery["authorization_endpoint"], code_verifier=verifier, nonce="n-jwt")
    answer = approve(config, url)
    token = jwt_client.fetch_token(discovery["token_endpoint"], authorization_response=answer["location"], code_verifier=verifier)
    validate_id_token(token["id_token"], "n-jwt", config["jwt_client_id"])
    assertion = PrivateKeyJWT(discovery["token_endpoint"], alg="ES256").sign(jwt_client, discovery["token_endpoint"])
    form = {"token": token["access_token"], "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": assertion}
    first = requests.post(discovery["introspection_endpoint"], data=form, timeout=10)
    check(first.status_code == 200 and first.json()["active"] is True, "private_key_jwt authenticates introspection")
    replayed = requests.post(discovery["introspection_endpoint"], data=form, timeout=10)
    check(replayed.status_code == 401 and oauth_error(replayed) == "invalid_client", "a replayed client assertion is refused")
    # RFC 7523 §3: an assertion not valid yet, or issued in the future, is refused.
    for claim in ("nbf", "iat"):
        now = int(time.time())
        claims = {"iss": config["jwt_client_id"], "sub": config["jwt_client_id"], "aud": discovery["token_endpoint"],
                  "exp": now + 60, "jti": secrets.token_urlsafe(16), claim: now + 600}
        early = jose_jwt.encode({"alg": "ES256"}, claims, jwt_key)
        refused = requests.post(discovery["introspection_endpoint"], timeout=10, data={
            "token": token["access_token"], "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": early})
        check(refused.status_code == 401 and oauth_error(refused) == "invalid_client", f"a client assertion with {claim} in the future is refused")
    check("none" not in discovery["introspection_endpoint_auth_methods_supported"],
          "discovery offers introspection only to the methods it accepts (no none)")
    seen["private_key_jwt"] = "ok; replayed assertion, future nbf and iat refused"


if __name__ == "__main__":
    sys.exit(main())
