#!/usr/bin/env python3
"""A Shared Signals receiver checking Custos's Security Event Tokens with PyJWT, not Custos code.

Usage: verify_security_events.py JWKS_URL ISSUER AUDIENCE TOKEN...

For each token (as pushed to the receiver, RFC 8935): the header's typ is secevent+jwt (RFC 8417
§2.3); the ES256 signature verifies under the JWKS key its kid names; iss, aud (the receiver's
API key id), iat and jti are present and right; there is exactly one event, under a CAEP or SSF
event-type URI, with an integer event_timestamp; and sub_id is an iss_sub or opaque subject
(SSF 1.0 §3). Prints a JSON list of {"typ", "claims"} and exits 0; prints the reason and exits 1
at the first token refused.
"""
import json
import sys

import jwt

EVENT_PREFIXES = ("https://schemas.openid.net/secevent/caep/event-type/", "https://schemas.openid.net/secevent/ssf/event-type/")


def main() -> int:
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    jwks_url, issuer, audience, tokens = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    client = jwt.PyJWKClient(jwks_url)
    seen = []
    for token in tokens:
        try:
            header = jwt.get_unverified_header(token)
            if header.get("typ") != "secevent+jwt":
                print(f"refused: typ {header.get('typ')!r}")
                return 1
            key = client.get_signing_key_from_jwt(token)
            claims = jwt.decode(token, key.key, algorithms=["ES256"], audience=audience, issuer=issuer,
                                options={"require": ["iss", "aud", "iat", "jti"]})
        except jwt.PyJWTError as error:
            print(f"refused: {type(error).__name__}: {error}")
            return 1
        events = claims.get("events")
        if not isinstance(events, dict) or len(events) != 1:
            print(f"refused: events must hold one event: {events!r}")
            return 1
        (uri, event), = events.items()
        if not uri.startswith(EVENT_PREFIXES) or not isinstance(event, dict) or not isinstance(event.get("event_timestamp"), int):
            print(f"refused: not a CAEP/SSF event with an event_timestamp: {uri} {event!r}")
            return 1
        subject = claims.get("sub_id") or {}
        if subject.get("format") not in ("iss_sub", "opaque") or (subject.get("format") == "iss_sub" and subject.get("iss") != issuer):
            print(f"refused: sub_id {subject!r}")
            return 1
        seen.append({"typ": header["typ"], "claims": claims})
    print(json.dumps(seen, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
