#!/usr/bin/env python3
"""A relying party's OpenID CIBA client, written with requests and PyJWT, not Custos code.

Usage: ciba_client.py ISSUER CLIENT_ID CLIENT_SECRET USER_ID ACR READY_FILE [--leeway SECONDS]

Reads the discovery document, sends a backchannel authentication request for USER_ID asking
for ACR (with authorization_details of a payment), writes the auth_req_id to READY_FILE (so the
test can have the user approve), and polls the token endpoint: once at once and once again
without waiting, which must answer authorization_pending then slow_down; then at the interval
(plus 5 s after a slow_down) until tokens come. Validates the ID token against the JWKS
(ES256, iss, aud, exp, iat, acr) and the access token's signature, prints the claims as JSON and
exits 0. Exits 1 with the reason when anything is off, 3 when the request ended access_denied or
expired_token (printed).
"""
import json
import sys
import time

import jwt
import requests

CIBA_GRANT = "urn:openid:params:grant-type:ciba"


def fail(message: str) -> int:
    print(f"refused: {message}")
    return 1


def main() -> int:
    arguments = sys.argv[1:]
    leeway = 5.0
    if "--leeway" in arguments:
        index = arguments.index("--leeway")
        leeway = float(arguments[index + 1])
        del arguments[index:index + 2]
    if len(arguments) != 6:
        print(__doc__, file=sys.stderr)
        return 2
    issuer, client_id, client_secret, user_id, acr, ready_file = arguments

    discovery = requests.get(issuer + "/.well-known/openid-configuration", timeout=10)
    discovery.raise_for_status()
    config = discovery.json()
    if config.get("issuer") != issuer:
        return fail(f"discovery names issuer {config.get('issuer')!r}")
    if CIBA_GRANT not in config.get("grant_types_supported", []) or "poll" not in config.get("backchannel_token_delivery_modes_supported", []):
        return fail("discovery does not advertise the CIBA poll mode")
    if acr not in config.get("acr_values_supported", []):
        return fail(f"discovery does not support {acr}")

    auth = (client_id, client_secret)
    impostor = requests.post(config["backchannel_authentication_endpoint"], auth=(client_id, client_secret + "x"), timeout=10,
                             data={"scope": "openid", "login_hint": user_id})
    if impostor.status_code != 401 or impostor.json().get("error") != "invalid_client" or "Basic" not in impostor.headers.get("WWW-Authenticate", ""):
        return fail(f"a wrong client secret answered {impostor.status_code} {impostor.text}")
    details = [{"type": "payment", "amount": "42.00", "currency": "EUR", "payee": "Corner Shop"}]
    started = requests.post(config["backchannel_authentication_endpoint"], auth=auth, timeout=10, data={
        "scope": "openid", "login_hint": user_id, "binding_message": "W4K2", "acr_values": acr,
        "requested_expiry": "120", "authorization_details": json.dumps(details)})
    if started.status_code != 200:
        return fail(f"backchannel request answered {started.status_code}: {started.text}")
    body = started.json()
    auth_req_id, interval = body["auth_req_id"], int(body["interval"])

    def poll():
        return requests.post(config["token_endpoint"], auth=auth, timeout=10,
                             data={"grant_type": CIBA_GRANT, "auth_req_id": auth_req_id})

    first = poll()
    if first.status_code != 400 or first.json().get("error") != "authorization_pending":
        return fail(f"the first poll answered {first.status_code} {first.text}")
    second = poll()
    if second.status_code != 400 or second.json().get("error") != "slow_down":
        return fail(f"a poll inside the interval answered {second.status_code} {second.text}")
    interval += 5
    seen = {"authorization_pending", "slow_down"}
    with open(ready_file, "w") as ready:
        ready.write(auth_req_id)

    deadline = time.time() + 120
    tokens = None
    while time.time() < deadline:
        time.sleep(interval)
        answer = poll()
        if answer.status_code == 200:
            tokens = answer.json()
            break
        error = answer.json().get("error")
        if error == "authorization_pending":
            continue
        if error == "slow_down":
            interval += 5
            continue
        print(json.dumps({"error": error, "seen": sorted(seen)}))
        return 3
    if tokens is None:
        return fail("no tokens before the deadline")
    if tokens.get("token_type") != "Bearer" or not isinstance(tokens.get("expires_in"), int):
        return fail(f"the token answer is malformed: {tokens}")
    again = poll()
    if again.status_code != 400 or again.json().get("error") != "invalid_grant":
        return fail(f"a second exchange of the same auth_req_id answered {again.status_code} {again.text}")

    jwks = jwt.PyJWKClient(config["jwks_uri"])
    try:
        id_key = jwks.get_signing_key_from_jwt(tokens["id_token"])
        claims = jwt.decode(tokens["id_token"], id_key.key, algorithms=["ES256"], audience=client_id, issuer=issuer,
                            leeway=leeway, options={"require": ["iss", "sub", "aud", "exp", "iat", "acr", "amr"]})
        access_key = jwks.get_signing_key_from_jwt(tokens["access_token"])
        access = jwt.decode(tokens["access_token"], access_key.key, algorithms=["ES256"], audience=issuer, issuer=issuer,
                            leeway=leeway)
    except jwt.PyJWTError as error:
        return fail(f"{type(error).__name__}: {error}")
    if claims["sub"] != user_id or claims["acr"] != acr:
        return fail(f"the ID token is for {claims['sub']} at {claims['acr']}")
    if access.get("client_id") != client_id:
        return fail("the access token is for another client")
    claims["polls_seen"] = sorted(seen)
    print(json.dumps(claims, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
