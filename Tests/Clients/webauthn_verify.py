#!/usr/bin/env python3
"""Verifies WebAuthn assertions with py_webauthn (the `webauthn` package), not Custos code.

Usage: webauthn_verify.py CASES_JSON

CASES_JSON holds the credential's public key (x, y base64url), the relying party id, the origin,
the challenge (base64url), the stored sign count, and a list of cases, each an assertion
(credential_id, authenticator_data, client_data_json, signature, all base64url) with a name.

Prints one JSON object, case name -> verdict:
  {"verified": true, "new_sign_count": N}              py_webauthn accepted the assertion;
  {"verified": false, "error": E, "reason": R}         py_webauthn refused it: E is its exception
                                                       (webauthn.helpers.exceptions, e.g.
                                                       InvalidAuthenticationResponse), R its
                                                       message, and "cause" the error it wraps, if any.

Exit status: 0 when every case has a verdict; 2 for a wrong command line; 3 when the script
itself failed (a missing package, an unreadable or malformed CASES_JSON, a key or credential
JSON that py_webauthn cannot even read, any error that is not py_webauthn's refusal of what it
verified), with the traceback on standard error and nothing on standard output.
"""
import json
import sys

from webauthn_verdicts import USAGE, b64url_decode, refusal, run


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return USAGE
    # Imported here, so that a missing package is the script failing (exit 3), never a verdict.
    import cbor2
    from webauthn import verify_authentication_response
    from webauthn.helpers import decode_credential_public_key, decoded_public_key_to_cryptography, parse_authentication_credential_json
    from webauthn.helpers.exceptions import WebAuthnException

    with open(sys.argv[1], encoding="utf-8") as handle:
        spec = json.load(handle)
    # COSE_Key for ES256 on P-256 (RFC 9053): kty EC2, alg -7, crv 1, x, y.
    cose_key = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: b64url_decode(spec["x"]), -3: b64url_decode(spec["y"])})
    # The key and each credential's JSON are the script's input, not what is judged: py_webauthn
    # not taking them is the script failing, so they are read before, and outside, the verdicts.
    decoded_public_key_to_cryptography(decode_credential_public_key(cose_key))
    results = {}
    for case in spec["cases"]:
        credential = parse_authentication_credential_json({
            "id": case["credential_id"],
            "rawId": case["credential_id"],
            "type": "public-key",
            "response": {
                "authenticatorData": case["authenticator_data"],
                "clientDataJSON": case["client_data_json"],
                "signature": case["signature"],
            },
            "clientExtensionResults": {},
        })
        try:
            verified = verify_authentication_response(
                credential=credential,
                expected_challenge=b64url_decode(spec["challenge"]),
                expected_rp_id=spec["rp_id"],
                expected_origin=spec["origin"],
                credential_public_key=cose_key,
                credential_current_sign_count=spec["stored_sign_count"],
                require_user_verification=True,
            )
        except WebAuthnException as error:  # py_webauthn's refusal; any other error is the script's own failure
            results[case["name"]] = refusal(error)
        else:
            results[case["name"]] = {"verified": True, "new_sign_count": verified.new_sign_count}
    print(json.dumps(results, sort_keys=True))
    return 0


if __name__ == "__main__":
    run(main)
