"""The web app's flows in real Chromium (headless), driven by selenium, against a running
`custos serve`: a fake camera fed from Y4M files made with ffmpeg from the project's liveness
frames, and a virtual WebAuthn authenticator through the DevTools protocol. Each flow saves a
screenshot of its final screen at phone and desktop sizes and prints how long it took.

Each flow stands alone: it starts on a new browser profile (no device key, no session) and makes
the users it needs through the relying party's API and the app's own screens (`account`,
`enrolled_account`), so a flow passes or fails by itself; they run in a random order, printed
as "seed" (BROWSER_SEED=N repeats it).

    browser_flows.py CONFIG.json      (base_url, admin_key, rp_key, data_dir, out_dir)

Prints, one JSON object a line, first {"flows": [NAME, ...]}, the flows it is about to run in
order (this list is the only one: BrowserCLITests checks that every flow in it passed), then for
each {"flow": NAME, "passed": true|false, "seconds": S}, with "error" when it failed. A flow's
checks (`check`, not `assert`, so that `python -O` keeps them) say what they expected and saw.

Exit status 0 when every flow passed; 2 when Chromium, chromium-driver or ffmpeg is missing.

The flows live by screen in browser_lib/ (its __init__ lists the parts), each a mixin of the
one driver, `browser_lib.driver.Suite`; this file lists them and runs them."""
import json
import os
import random
import secrets
import shutil
import sys

from browser_lib.pages import PagesFlows
from browser_lib.identity import IdentityFlows
from browser_lib.biometric import BiometricFlows
from browser_lib.notifications import NotificationsFlows
from browser_lib.signin import SignInFlows
from browser_lib.admin import AdminFlows
from browser_lib.driver import CHROMIUM, DRIVER, Flow, Suite


class BrowserFlows(PagesFlows, IdentityFlows, BiometricFlows, NotificationsFlows, SignInFlows, AdminFlows, Suite):
    """Every screen's flows on one browser driver."""

    def run(self):
        flows = [
            ("headers", self.headers), ("admin_creates_user", self.admin_creates_user), ("activate_opt_in", self.activate_and_opt_in),
            ("authenticate_matched", self.authenticate_matched), ("still_photo_liveness_failed", self.still_photo_fails_liveness),
            ("close_at_confirmation_240", self.close_at_confirmation), ("lockout_alert_then_sign_out", self.lockout_alert_then_sign_out),
            ("biometric_errors_as_the_seed", self.biometric_errors_as_the_seed_shows_them),
            ("newcomer_dashboard_phone_menu", self.newcomer_dashboard_and_phone_menu), ("notification_password", self.notification_with_password),
            ("notification_device_signature", self.notification_with_device_signature),
            ("notification_passkey_level_one", self.notification_with_passkey),
            ("notification_password_expired_110", self.notification_password_expired),
            ("notification_wrong_number", self.wrong_number_refused), ("notification_selfie", self.notification_with_selfie),
            ("passkey_register_sign_in", self.passkey_register_and_sign_in),
            ("passkey_app_sign_in", self.passkey_app_sign_in), ("oidc_device_sign_in", self.device_sign_in_at_authorization_endpoint),
            ("oidc_form_post", self.form_post_sign_in),
            ("admin_audit", self.admin_audit), ("canonical_json_golden", self.canonical_json_matches_the_golden_cases),
            ("document_scan_and_review", self.document_scan_and_review), ("hostile_text_stays_text", self.hostile_text_stays_text), ("opt_out", self.opt_out), ("kyc", self.kyc),
            ("devices_listed_and_unbound", self.devices_listed_and_unbound),
        ]
        # BROWSER_FLOWS=a,b runs only those (for working on them); `make test` runs every flow.
        only = [name for name in os.environ.get("BROWSER_FLOWS", "").split(",") if name]
        if only:
            flows = [flow for flow in flows if flow[0] in only]
        # In a random order each run (BROWSER_SEED repeats one): no flow leans on another's state.
        seed = int(os.environ.get("BROWSER_SEED") or secrets.randbelow(10**6))
        random.Random(seed).shuffle(flows)
        # The only list of the flows: BrowserCLITests checks that each one printed here passed.
        print(json.dumps({"flows": [name for name, _ in flows], "seed": seed}), flush=True)
        try:
            for name, flow in flows:
                with Flow(self, name):
                    flow()
        finally:
            self.quit()
            shutil.rmtree(self.work, ignore_errors=True)
        return 1 if self.failed else 0


def main():
    missing = [name for name, path in [("chromium", CHROMIUM), ("chromedriver", DRIVER), ("ffmpeg", shutil.which("ffmpeg"))]
               if not path or not os.path.exists(path)]
    if missing:
        print(f"browser tests need {', '.join(missing)} (Debian packages chromium, chromium-driver, ffmpeg: scripts/install-deps.sh)")
        return 2
    with open(sys.argv[1]) as handle:
        config = json.load(handle)
    return BrowserFlows(config).run()


if __name__ == "__main__":
    sys.exit(main())
