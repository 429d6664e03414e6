#!/usr/bin/env python3
"""Verifies WebAuthn registrations (attestation "none" and "packed" self-attestation) with
py_webauthn (the `webauthn` package), not Custos code.

Usage: webauthn_register.py CASES_JSON

CASES_JSON holds the relying party id, the origin, the challenge (base64url) and a list of
cases, each a registration (credential_id, attestation_object, client_data_json, base64url) with
a name.

Prints one JSON object, case name -> verdict:
  {"verified": true, "fmt": F}                         py_webauthn accepted the registration,
                                                       whose attestation format is F;
  {"verified": false, "error": E, "reason": R}         py_webauthn refused it: E is its exception
                                                       (webauthn.helpers.exceptions, e.g.
                                                       InvalidRegistrationResponse), R its
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
    from webauthn import verify_registration_response
    from webauthn.helpers import parse_registration_credential_json
    from webauthn.helpers.exceptions import WebAuthnException

    with open(sys.argv[1], encoding="utf-8") as handle:
        spec = json.load(handle)
    results = {}
    for case in spec["cases"]:
        # Each credential's JSON is the script's input, not what is judged: py_webauthn not
        # taking it is the script failing, so it is read before, and outside, the verdict.
        credential = parse_registration_credential_json({
            "id": case["credential_id"],
            "rawId": case["credential_id"],
            "type": "public-key",
            "response": {"attestationObject": case["attestation_object"], "clientDataJSON": case["client_data_json"]},
            "clientExtensionResults": {},
        })
        try:
            verified = verify_registration_response(
                credential=credential,
                expected_challenge=b64url_decode(spec["challenge"]),
                expected_rp_id=spec["rp_id"],
                expected_origin=spec["origin"],
                require_user_verification=True,
            )
        except WebAuthnException as error:  # py_webauthn's refusal; any other error is the script's own failure
            results[case["name"]] = refusal(error)
        else:
            results[case["name"]] = {"verified": True, "fmt": getattr(verified.fmt, "value", verified.fmt)}
    print(json.dumps(results, sort_keys=True))
    return 0


if __name__ == "__main__":
    run(main)
