#!/usr/bin/env python3
"""Verifies WebAuthn assertions with py_webauthn (the `webauthn` package), not Custos code.

Usage: webauthn_verify.py CASES_JSON

CASES_JSON holds the credential's public key (x, y base64url), the relying party id, the origin,
the challenge (base64url), the stored sign count, and a list of cases, each an assertion
(credential_id, authenticator_data, client_data_json, signature, all base64url) with a name.
Prints one JSON object: case name -> "accepted" or the verifier's reason for refusing.
"""
import base64
import json
import sys

import cbor2
from webauthn import verify_authentication_response
from webauthn.helpers.exceptions import InvalidAuthenticationResponse


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as handle:
        spec = json.load(handle)
    # COSE_Key for ES256 on P-256 (RFC 9053): kty EC2, alg -7, crv 1, x, y.
    cose_key = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: b64url_decode(spec["x"]), -3: b64url_decode(spec["y"])})
    results = {}
    for case in spec["cases"]:
        credential = {
            "id": case["credential_id"],
            "rawId": case["credential_id"],
            "type": "public-key",
            "response": {
                "authenticatorData": case["authenticator_data"],
                "clientDataJSON": case["client_data_json"],
                "signature": case["signature"],
            },
            "clientExtensionResults": {},
        }
        try:
            verify_authentication_response(
                credential=credential,
                expected_challenge=b64url_decode(spec["challenge"]),
                expected_rp_id=spec["rp_id"],
                expected_origin=spec["origin"],
                credential_public_key=cose_key,
                credential_current_sign_count=spec["stored_sign_count"],
                require_user_verification=True,
            )
            results[case["name"]] = "accepted"
        except InvalidAuthenticationResponse as error:
            results[case["name"]] = f"refused: {error}"
        except Exception as error:  # a malformed case is a refusal too, with its reason
            results[case["name"]] = f"refused: {type(error).__name__}: {error}"
    print(json.dumps(results, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
