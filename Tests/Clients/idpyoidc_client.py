#!/usr/bin/env python3
"""A relying party signing users in with Custos's OpenID Connect provider, written with idpyoidc's
own RP classes (idpyoidc.client.rp_handler.RPHandler and the StandAloneClient it makes) — not Custos
code, and nothing in idpyoidc patched. The user's step is done by the `custos` command acting as the
bound device (`custos signin --bound --authorization-url URL --yes`).

Usage: idpyoidc_client.py CONFIG_JSON

CONFIG_JSON: issuer, custos (the binary), profile (the bound device's profile directory),
client_id, client_secret (a confidential client: client_secret_basic, its ID tokens signed RS256),
redirect_uri, user_id; optionally log_level (idpyoidc's logging on standard error, default CRITICAL).

idpyoidc does discovery (its full check of the provider configuration, OpenID Connect Discovery §3
included), the code flow with PKCE S256, state and nonce, the token request with
client_secret_basic, the ID token's validation against the provider's JWKS (signature, iss, aud,
exp, iat, nonce, alg RS256), userinfo and refresh; then the error paths: a response with a state it
never issued, one from another issuer (mix-up), a code swapped into another session, a refresh token
used twice (revoking the grant). Prints a JSON object of what it saw; exits 0 when every check held,
1 with the failed check otherwise.
"""
import json
import logging
import secrets
import subprocess
import sys
import urllib.parse

import requests

from cryptojwt.key_jar import KeyJar
from idpyoidc.client.defaults import DEFAULT_OIDC_SERVICES
from idpyoidc.client.exception import OidcServiceError
from idpyoidc.client.rp_handler import RPHandler
from idpyoidc.exception import VerificationError

# What the client was registered with, out of band (custos admin client create --type confidential
# --id-token-alg RS256): the OpenID Connect defaults.
ID_TOKEN_ALG = "RS256"
AUTH_METHOD = "client_secret_basic"
SCOPES = ["openid", "offline_access"]

seen = {}


class CheckFailed(Exception):
    pass


def check(condition, what):
    if not condition:
        raise CheckFailed(what)


def refused(what, error):
    return CheckFailed(f"{what}: idpyoidc refused it: {type(error).__name__}: {error}")


def approve(config, url):
    """The bound device approves the authorization request (the user's step)."""
    run = subprocess.run([config["custos"], "signin", "--bound", "--authorization-url", url, "--yes", "--json",
                          "--profile", config["profile"]], capture_output=True, text=True, timeout=60)
    check(run.returncode == 0, f"custos signin approved the request: {run.stderr.strip()}")
    return json.loads(run.stdout)


def query(url):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlparse(url).query))


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as handle:
        config = json.load(handle)
    logging.basicConfig(stream=sys.stderr, level=getattr(logging, config.get("log_level", "CRITICAL")))
    try:
        run_checks(config)
    except CheckFailed as failure:
        print(json.dumps(seen, sort_keys=True, indent=1))
        print(f"failed: {failure}")
        return 1
    print(json.dumps(seen, sort_keys=True, indent=1))
    return 0


def run_checks(config):
    issuer, client_id, redirect_uri = config["issuer"], config["client_id"], config["redirect_uri"]
    redirect = urllib.parse.urlparse(redirect_uri)
    # A statically registered client: idpyoidc's preferences are matched against the provider's
    # metadata at discovery, and what is left is what the client uses.
    client_configs = {issuer: {
        "issuer": issuer,
        "client_type": "oidc",
        "client_id": client_id,
        "client_secret": config["client_secret"],
        "redirect_uris": [redirect_uri],
        "client_authn_methods": [AUTH_METHOD],
        "preference": {
            "response_types_supported": ["code"],
            "scopes_supported": SCOPES,
            "token_endpoint_auth_methods_supported": [AUTH_METHOD],
            "id_token_signing_alg_values_supported": [ID_TOKEN_ALG],
        },
        "add_ons": {"pkce": {"function": "idpyoidc.client.oauth2.add_on.pkce.add_support",
                             "kwargs": {"code_challenge_length": 64, "code_challenge_method": "S256"}}},
        # idpyoidc's default services and its RP-Initiated Logout service, as its configuration takes them.
        "services": dict(DEFAULT_OIDC_SERVICES, end_session={"class": "idpyoidc.client.oidc.end_session.EndSession"}),
        "post_logout_redirect_uris": [config["post_logout_redirect_uri"]],
    }}
    # An empty key jar: this client signs nothing, and RPHandler would otherwise write key files.
    handler = RPHandler(base_url=f"{redirect.scheme}://{redirect.netloc}", client_configs=client_configs, keyjar=KeyJar(),
                        httpc_params={"verify": True, "timeout": 10})

    # Discovery: idpyoidc fetches and verifies the provider configuration, loads the JWKS.
    try:
        client = handler.client_setup(issuer)
    except Exception as error:
        raise refused("discovery (GET /.well-known/openid-configuration)", error)
    context = client.get_context()
    provider = context.provider_info
    check(provider["issuer"] == issuer, "discovery names the issuer")
    check(ID_TOKEN_ALG in provider["id_token_signing_alg_values_supported"], f"discovery offers {ID_TOKEN_ALG} ID tokens")
    check("S256" in provider.get("code_challenge_methods_supported", []), "discovery offers PKCE S256")
    check(context.get_usage("token_endpoint_auth_method") == AUTH_METHOD, f"idpyoidc settled on {AUTH_METHOD}")
    check(context.get_usage("id_token_signed_response_alg") == ID_TOKEN_ALG, f"idpyoidc settled on {ID_TOKEN_ALG} ID tokens")
    keys = client.keyjar.get_issuer_keys(issuer)
    # (cryptojwt drops a whole JWKS it cannot read, e.g. a key with both use and key_ops: log_level DEBUG says why)
    check(len(keys) > 0, "idpyoidc loaded the provider's JWKS (GET jwks_uri)")
    # The registration made out of band is what idpyoidc holds responses to, as it holds those of a
    # dynamic registration: the token endpoint's ID tokens must then be signed with ID_TOKEN_ALG.
    context.registration_response = {"client_id": client_id, "redirect_uris": [redirect_uri],
                                      "token_endpoint_auth_method": AUTH_METHOD,
                                      "id_token_signed_response_alg": ID_TOKEN_ALG}
    seen["discovery"] = {"issuer": provider["issuer"], "id_token_signing_alg_values_supported": provider["id_token_signing_alg_values_supported"],
                         "jwks": sorted(f"{key.kty}:{key.kid}" for key in keys)}

    def authorize():
        """An authorization request made by idpyoidc, approved by the device; the response's parameters."""
        url = handler.init_authorization(client=client)
        request = query(url)
        answer = approve(config, url)
        check(answer["location"].startswith(redirect_uri + "?"), "the device's answer goes to the registered redirect URI")
        return request, query(answer["location"])

    # The code flow: idpyoidc's request carries state, nonce and the PKCE challenge.
    request, response = authorize()
    check(request["response_type"] == "code" and request["client_id"] == client_id and request["redirect_uri"] == redirect_uri,
          "idpyoidc asks for a code for this client and redirect URI")
    check(request.get("code_challenge_method") == "S256" and len(request.get("code_challenge", "")) == 43, "the request carries a PKCE S256 challenge")
    check(request.get("state") and request.get("nonce"), "the request carries state and nonce")
    check(set(request["scope"].split()) == set(SCOPES), "the request asks for the registered scopes")
    check(response.get("state") == request["state"], "the authorization response carries the request's state")
    check(response.get("iss") == issuer, "the authorization response names the issuer (RFC 9207)")
    state = request["state"]
    try:
        handler.finalize_auth(client, issuer, response)
    except Exception as error:
        raise refused("the authorization response", error)
    seen["authorization"] = {"response_type": "code", "pkce": "S256", "state": "matched", "iss": response["iss"],
                             "prompt": request.get("prompt")}

    # The token request (client_secret_basic, the PKCE verifier); idpyoidc verifies the ID token.
    try:
        tokens = handler.get_access_and_id_token(state=state, client=client)
    except Exception as error:
        raise refused("the token response (POST /oauth2/token, its id_token)", error)
    id_token = tokens["id_token"]
    check(id_token is not None, "the token response carries an ID token idpyoidc verified")
    check(id_token.jws_header["alg"] == ID_TOKEN_ALG, f"the ID token is signed {ID_TOKEN_ALG}")
    check(id_token["iss"] == issuer, "the ID token's iss is the issuer")
    check(client_id in id_token["aud"], "the ID token's aud holds the client")
    check(id_token.get("nonce") == request["nonce"], "the ID token's nonce is the request's")
    check(id_token["sub"] == config["user_id"], "the ID token's sub is the user")
    check(bool(id_token.get("acr")), "the ID token has an acr")
    check(id_token["exp"] > id_token["iat"] and "auth_time" in id_token, "the ID token has exp after iat, and auth_time")
    session = handler.get_session_information(state, client=client)
    check(session["token_type"].lower() == "bearer" and session["expires_in"] > 0, "the token answer is a Bearer token with its lifetime")
    check(bool(session.get("refresh_token")), "offline_access gave a refresh token")
    seen["id_token"] = {"alg": id_token.jws_header["alg"], "kid": id_token.jws_header.get("kid"), "iss": id_token["iss"],
                        "aud": id_token["aud"], "sub": id_token["sub"], "acr": id_token["acr"], "amr": id_token.get("amr"),
                        "nonce": "matched"}

    # Userinfo with the access token.
    try:
        info = handler.get_user_info(state, client=client)
    except Exception as error:
        raise refused("the userinfo response (GET /oauth2/userinfo)", error)
    check(info["sub"] == id_token["sub"], "userinfo's sub is the ID token's")
    seen["userinfo"] = info.to_dict()

    # Refresh: new tokens, and a new ID token about the same authentication (OpenID Connect Core §12.2).
    first_access, first_refresh = session["access_token"], session["refresh_token"]
    try:
        refreshed = handler.refresh_access_token(state, client=client)
    except Exception as error:
        raise refused("the refresh response (POST /oauth2/token, grant_type refresh_token)", error)
    check(refreshed["access_token"] != first_access, "a refresh gives a new access token")
    check(refreshed.get("refresh_token") and refreshed["refresh_token"] != first_refresh, "a refresh rotates the refresh token")
    renewed = refreshed.get("__verified_id_token")
    check(renewed is not None, "the refresh response carries an ID token idpyoidc verified")
    check(renewed.jws_header["alg"] == ID_TOKEN_ALG, f"the refreshed ID token is signed {ID_TOKEN_ALG}")
    check(renewed["iss"] == issuer and renewed["sub"] == id_token["sub"] and client_id in renewed["aud"],
          "the refreshed ID token has the first one's iss, sub and aud")
    check(renewed.get("auth_time") == id_token["auth_time"], "the refreshed ID token keeps the authentication's auth_time")
    try:
        again = handler.get_user_info(state, client=client, access_token=refreshed["access_token"])
    except Exception as error:
        raise refused("userinfo with the refreshed access token", error)
    check(again["sub"] == id_token["sub"], "the refreshed access token answers userinfo")
    seen["refresh"] = {"access_token": "new", "refresh_token": "rotated", "id_token": {"alg": renewed.jws_header["alg"], "sub": renewed["sub"]}}

    # A refresh token used twice: refused, and the grant's newest refresh token with it.
    reused = client.do_request("refresh_token", state=state, request_args={"refresh_token": first_refresh}, authn_method=AUTH_METHOD)
    check(reused.get("error") == "invalid_grant", f"a refresh token used twice is invalid_grant: {reused.to_dict()}")
    try:
        handler.refresh_access_token(state, client=client)
        raise CheckFailed("after the reuse, the newest refresh token still worked")
    except OidcServiceError as error:
        check(str(error) == "invalid_grant", f"after the reuse, the newest refresh token is invalid_grant: {error}")
    try:
        handler.get_user_info(state, client=client, access_token=refreshed["access_token"])
        raise CheckFailed("after the reuse, the grant's access token still answered userinfo")
    except OidcServiceError as error:
        check(str(error) == "invalid_token", f"after the reuse, userinfo refuses the grant's access token: {error}")
    seen["refresh_reuse"] = "invalid_grant; the grant was revoked (its access token invalid_token at userinfo)"

    # Error paths idpyoidc catches itself, on a real response of a new sign-in.
    request, response = authorize()
    stranger = dict(response, state=secrets.token_urlsafe(32))
    try:
        handler.finalize_auth(client, issuer, stranger)
        raise CheckFailed("idpyoidc accepted a response with a state it never issued")
    except KeyError as error:
        check("Unknown state" in str(error), f"a state never issued is refused as unknown: {error}")
    seen["wrong_state"] = "refused by idpyoidc: unknown state"
    mixed_up = dict(response, iss="https://mix-up.example")
    try:
        handler.finalize_auth(client, issuer, mixed_up)
        raise CheckFailed("idpyoidc accepted a response naming another issuer")
    except VerificationError as error:
        check("Issuer mismatch" in str(error), f"a response from another issuer is refused: {error}")
    seen["wrong_iss"] = "refused by idpyoidc: issuer mismatch (RFC 9207)"

    # The same code swapped into another session of this client (code injection): that session's
    # PKCE verifier does not match, and the provider refuses the code.
    other = query(handler.init_authorization(client=client))
    try:
        handler.finalize_auth(client, issuer, dict(response, state=other["state"]))
    except Exception as error:
        raise refused("the swapped authorization response", error)
    try:
        handler.get_access_and_id_token(state=other["state"], client=client)
        raise CheckFailed("a code swapped into another session was exchanged")
    except OidcServiceError as error:
        check(str(error) == "invalid_grant", f"a code swapped into another session is invalid_grant: {error}")
    seen["code_injection"] = "invalid_grant (PKCE)"

    # RP-Initiated Logout with idpyoidc's own request (id_token_hint, post_logout_redirect_uri,
    # state): the provider ends the grant and sends the browser to the registered address.
    request, response = authorize()
    try:
        handler.finalize_auth(client, issuer, response)
        handler.get_access_and_id_token(state=request["state"], client=client)
        logout = handler.logout(request["state"], client=client)
    except Exception as error:
        raise refused("RP-initiated logout (end_session_endpoint)", error)
    sent = query(logout["url"])
    check(logout["url"].startswith(provider["end_session_endpoint"] + "?") and sent.get("id_token_hint") and sent.get("state"),
          f"idpyoidc's logout request names the ID token and a state: {logout['url'][:120]}")
    answer = requests.get(logout["url"], allow_redirects=False, timeout=10)
    after = query(answer.headers.get("Location", ""))
    check(answer.status_code == 302 and answer.headers["Location"].startswith(config["post_logout_redirect_uri"] + "?")
          and after.get("state") == sent["state"], f"the provider sends the browser to the registered address with the state: {answer.status_code}")
    try:
        handler.refresh_access_token(request["state"], client=client)
        raise CheckFailed("after logout the refresh token still worked")
    except OidcServiceError as error:
        check(str(error) == "invalid_grant", f"after logout the refresh token is invalid_grant: {error}")
    seen["logout"] = "idpyoidc's end-session request honoured; the grant ended"


if __name__ == "__main__":
    sys.exit(main())
