"""What the py_webauthn scripts (webauthn_verify.py, webauthn_register.py) share: how a verdict is
written, and how a failure of the script itself is told from py_webauthn refusing what it checks."""
import base64
import sys
import traceback

USAGE = 2
SCRIPT_FAILED = 3


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def refusal(error: Exception) -> dict:
    """py_webauthn's refusal as a verdict: its exception's class and message, and what it wraps."""
    verdict = {"verified": False, "error": type(error).__name__, "reason": str(error)}
    if error.__cause__ is not None:
        verdict["cause"] = f"{type(error.__cause__).__name__}: {error.__cause__}"
    return verdict


def run(main) -> None:
    """Exits with `main()`'s status, or SCRIPT_FAILED with the traceback on standard error when it
    raised: not a verdict but a bug, bad input or a missing package."""
    try:
        status = main()
    except Exception:
        traceback.print_exc()
        status = SCRIPT_FAILED
    sys.exit(status)
