#!/usr/bin/env python3
"""Verifies WebAuthn registrations (attestation "none" and "packed" self-attestation) with
py_webauthn (the `webauthn` package), not Custos code.

Usage: webauthn_register.py CASES_JSON

CASES_JSON holds the relying party id, the origin, the challenge (base64url) and a list of
cases, each a registration (credential_id, attestation_object, client_data_json, base64url) with
a name. Prints one JSON object: case name -> "accepted <fmt>" or the verifier's reason for refusing.
"""
import base64
import json
import sys

from webauthn import verify_registration_response


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as handle:
        spec = json.load(handle)
    results = {}
    for case in spec["cases"]:
        credential = {
            "id": case["credential_id"],
            "rawId": case["credential_id"],
            "type": "public-key",
            "response": {"attestationObject": case["attestation_object"], "clientDataJSON": case["client_data_json"]},
            "clientExtensionResults": {},
        }
        try:
            verified = verify_registration_response(
                credential=credential,
                expected_challenge=b64url_decode(spec["challenge"]),
                expected_rp_id=spec["rp_id"],
                expected_origin=spec["origin"],
                require_user_verification=True,
            )
            fmt = getattr(verified.fmt, "value", verified.fmt)
            results[case["name"]] = f"accepted {fmt}"
        except Exception as error:  # every refusal, with its reason
            results[case["name"]] = f"refused: {type(error).__name__}: {error}"
    print(json.dumps(results, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
