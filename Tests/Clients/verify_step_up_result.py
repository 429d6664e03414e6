#!/usr/bin/env python3
"""A relying party's server checking a Custos step-up result with PyJWT, not Custos code.

Usage: verify_step_up_result.py [--leeway SECONDS] JWKS_URL ISSUER API_KEY_ID TOKEN DETAILS_JSON

Fetches the JWKS, picks the key by the token's kid, verifies ES256, iss, aud (the id of the API
key that sent the notification) and iat, and checks that details_sha256 is the SHA-256 of the
canonical JSON (sorted keys, no whitespace) of the authorization_details the relying party sent,
DETAILS_JSON. Prints the claims as JSON and exits 0; prints the reason and exits 1 when refused.
"""
import base64
import hashlib
import json
import sys

import jwt


def main() -> int:
    arguments = sys.argv[1:]
    leeway = 0.0
    if arguments[:1] == ["--leeway"]:
        leeway = float(arguments[1])
        arguments = arguments[2:]
    if len(arguments) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    jwks_url, issuer, audience, token, details = arguments
    try:
        header = jwt.get_unverified_header(token)
        if header.get("typ") != "custos-step-up+jwt":
            print(f"refused: typ {header.get('typ')!r}")
            return 1
        key = jwt.PyJWKClient(jwks_url).get_signing_key_from_jwt(token)
        claims = jwt.decode(token, key.key, algorithms=["ES256"], audience=audience, issuer=issuer, leeway=leeway,
                            options={"require": ["iss", "sub", "aud", "iat", "exp", "jti", "notification_uuid", "status"]})
    except jwt.PyJWTError as error:
        print(f"refused: {type(error).__name__}: {error}")
        return 1
    canonical = json.dumps(json.loads(details), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    expected = base64.urlsafe_b64encode(hashlib.sha256(canonical).digest()).rstrip(b"=").decode()
    if claims.get("details_sha256") != expected:
        print("refused: the result covers other transaction details than those sent")
        return 1
    print(json.dumps(claims, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
