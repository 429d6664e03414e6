#!/usr/bin/env bash
# Longer coverage-guided fuzzing of the parsers that read what clients send (libFuzzer, with
# AddressSanitizer and, for the C image decoders, UndefinedBehaviorSanitizer): CFaceShim's image decoders, JSON bodies, form bodies and
# the OpenID authorization request, CBOR and WebAuthn authenticator data and attestation objects,
# JWS, JWE and JWK, and the request path and X-Forwarded-For. Prints executions and findings per target.
# Environment: SECONDS_PER_TARGET (300), TARGETS (all: image json form webauthn jose http).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck disable=SC2086
exec Tests/Fuzz/run.sh "${SECONDS_PER_TARGET:-300}" ${TARGETS:-}
