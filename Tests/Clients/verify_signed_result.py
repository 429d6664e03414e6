#!/usr/bin/env python3
"""A relying party's server checking a Custos signed result with PyJWT, not Custos code.

Usage: verify_signed_result.py [--leeway SECONDS] JWKS_URL ISSUER AUDIENCE TOKEN [NONCE]
Fetches the JWKS, picks the key by the token's kid, verifies ES256, iss, aud, exp and iat
(and the nonce when given), allowing --leeway seconds of clock skew (default 0). Prints the claims as JSON and exits 0; prints the reason and
exits 1 when the token is refused.
"""
import json
import sys

import jwt


def main() -> int:
    arguments = sys.argv[1:]
    leeway = 0.0
    if arguments[:1] == ["--leeway"]:
        leeway = float(arguments[1])
        arguments = arguments[2:]
    if len(arguments) not in (4, 5):
        print(__doc__, file=sys.stderr)
        return 2
    jwks_url, issuer, audience, token = arguments[:4]
    nonce = arguments[4] if len(arguments) == 5 else None
    try:
        key = jwt.PyJWKClient(jwks_url).get_signing_key_from_jwt(token)
        claims = jwt.decode(token, key.key, algorithms=["ES256"], audience=audience, issuer=issuer, leeway=leeway,
                            options={"require": ["iss", "sub", "aud", "exp", "iat", "jti"]})
    except jwt.PyJWTError as error:
        print(f"refused: {type(error).__name__}: {error}")
        return 1
    if nonce is not None and claims.get("nonce") != nonce:
        print("refused: the nonce is not the one the relying party issued")
        return 1
    print(json.dumps(claims, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
