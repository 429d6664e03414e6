"""The web app's flows in real Chromium (headless), driven by selenium, against a running
`custos serve`: a fake camera fed from Y4M files made with ffmpeg from the project's liveness
frames, and a virtual WebAuthn authenticator through the DevTools protocol. Each flow saves a
screenshot of its final screen at phone and desktop sizes and prints how long it took.

    browser_flows.py CONFIG.json      (base_url, admin_key, rp_key, data_dir, out_dir)

Exit status 0 when every flow passed; 2 when Chromium, chromium-driver or ffmpeg is missing."""
import base64
import hashlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

import requests
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
DRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
PASSWORD = "correct horse battery"
SIZES = {"phone": (390, 844), "desktop": (1280, 900)}


class Flow:
    """One flow's timer and screenshots."""

    def __init__(self, suite, name):
        self.suite, self.name, self.started = suite, name, time.monotonic()

    def __enter__(self):
        return self

    def __exit__(self, kind, error, trace):
        seconds = time.monotonic() - self.started
        if self.suite.driver is not None:
            self.suite.screenshots(self.name)
        if error is None:
            print(json.dumps({"flow": self.name, "passed": True, "seconds": round(seconds, 1)}), flush=True)
        else:
            print(json.dumps({"flow": self.name, "passed": False, "seconds": round(seconds, 1), "error": f"{kind.__name__}: {error}"}), flush=True)
            self.suite.failed.append(self.name)
            if self.suite.driver is not None:
                log = self.suite.driver.get_log("browser") if hasattr(self.suite.driver, "get_log") else []
                for entry in log[-20:]:
                    print("  console:", entry.get("message"), flush=True)
        return True  # the next flows still run; the exit status says a flow failed


class Suite:
    def __init__(self, config):
        self.base = config["base_url"].rstrip("/")
        self.admin_key, self.rp_key = config["admin_key"], config["rp_key"]
        self.frames = os.path.join(config["data_dir"], "liveness", "frames", "blink_selfie")
        self.out = config["out_dir"]
        os.makedirs(self.out, exist_ok=True)
        self.work = tempfile.mkdtemp(prefix="custos-browser-")
        self.profile = os.path.join(self.work, "profile")
        self.driver = None
        self.failed = []
        self.user = "web-" + secrets.token_hex(3)
        self.code = None

    # MARK: browser

    def video(self, name, start=None, count=48):
        """A Y4M clip of blink_selfie frames start..start+count-1 at 12 fps (the recording's rate);
        start None: the first frame held still (a photo held up to the camera)."""
        path = os.path.join(self.work, f"{name}.y4m")
        if not os.path.exists(path):
            if start is None:
                source = ["-loop", "1", "-framerate", "12", "-i", os.path.join(self.frames, "frame_0001.jpg")]
            else:
                source = ["-framerate", "12", "-start_number", str(start), "-i", os.path.join(self.frames, "frame_%04d.jpg")]
            subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", *source, "-frames:v", str(count), "-pix_fmt", "yuv420p", path],
                           check=True)
        return path

    def launch(self, video):
        """Chromium on the suite's profile (its IndexedDB keeps the device key between launches)."""
        self.quit()
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--window-size=1280,900",
                         f"--user-data-dir={self.profile}", "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                         f"--use-file-for-fake-video-capture={video}", "--no-first-run", "--disable-extensions"]:
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(DRIVER), options=options)
        self.driver.set_window_size(*SIZES["desktop"])
        self.wait = WebDriverWait(self.driver, 30)

    def quit(self):
        if self.driver is not None:
            self.driver.quit()
            self.driver = None

    def screenshots(self, name):
        try:
            for size, (width, height) in SIZES.items():
                self.driver.set_window_size(width, height)
                time.sleep(0.3)
                self.driver.save_screenshot(os.path.join(self.out, f"{name}-{size}.png"))
            self.driver.set_window_size(*SIZES["desktop"])
        except Exception as error:  # a screenshot never hides the flow's own outcome
            print(f"  screenshot of {name} failed: {error}", flush=True)

    def open(self, route):
        self.driver.get(f"{self.base}/app/#/{route}")
        self.wait.until(EC.presence_of_element_located((By.ID, "screen-title")))

    def find(self, css, timeout=30):
        return WebDriverWait(self.driver, timeout).until(EC.visibility_of_element_located((By.CSS_SELECTOR, css)))

    def click(self, css, timeout=30):
        WebDriverWait(self.driver, timeout).until(EC.element_to_be_clickable((By.CSS_SELECTOR, css))).click()

    def type(self, css, text):
        element = self.find(css)
        element.clear()
        element.send_keys(text)

    def text(self, css, timeout=30):
        return self.find(css, timeout).text

    def sign_in(self):
        self.open("login")
        self.type("#login-password", PASSWORD)
        self.click("#login-submit")
        self.find("#dashboard-session")

    def result_dialog(self, timeout=60):
        """The selfie result dialog's title and fields."""
        dialog = self.find("#selfie-result", timeout)
        fields = {dd.get_attribute("data-field"): dd.text for dd in dialog.find_elements(By.CSS_SELECTOR, "dd")}
        return dialog.find_element(By.TAG_NAME, "h2").text, fields

    # MARK: the relying party's side

    def rp(self, method, path, body=None):
        answer = requests.request(method, self.base + path, json=body, headers={"Authorization": f"Bearer {self.rp_key}"}, timeout=30)
        assert answer.status_code < 300, f"{method} {path}: {answer.status_code} {answer.text}"
        return answer.json()

    def notify(self, level, number_matching=False):
        body = {"user_id": self.user, "subject": f"Approve payment (level {level})", "message": "Pay 25.00 EUR to Example Shop?",
                "actions": [{"label": "Approve", "action": "approve", "auth_level": level}, {"label": "Reject", "action": "reject", "auth_level": 0}],
                "authorization_details": {"type": "payment", "amount": "25.00", "currency": "EUR", "payee": "Example Shop"},
                "number_matching": number_matching}
        return self.rp("POST", "/v1/notifications", body)

    def answer_notification(self, created):
        self.open("notifications")
        card = f'[data-notification="{created["notification_uuid"]}"]'
        self.click(f"#notifications-pending {card} .open-notification")
        self.find("#notification-modal")

    # MARK: flows

    def headers(self):
        """Every page and file of the app, and the authorization endpoint's page, with their security headers."""
        pages = ["/app/", "/app/index.html"] + [f"/app/{name}" for name in
                 ["app.js", "core.js", "device.js", "devices.js", "selfie.js", "biometric.js", "notifications.js", "passkeys.js", "admin.js",
                  "authorize.js", "style.css"]]
        types = {"html": "text/html", "js": "text/javascript", "css": "text/css"}
        for page in pages:
            answer = requests.get(self.base + page, timeout=10)
            assert answer.status_code == 200, f"{page}: {answer.status_code}"
            self.check_page_headers(page, answer)
            extension = page.rsplit(".", 1)[-1] if "." in page.rsplit("/", 1)[-1] else "html"
            assert answer.headers["Content-Type"].startswith(types[extension]), f"{page}: {answer.headers['Content-Type']}"
            assert answer.headers.get("Cache-Control") == "no-cache", page
            etag = answer.headers["ETag"]
            again = requests.get(self.base + page, headers={"If-None-Match": etag}, timeout=10)
            assert again.status_code == 304 and not again.content, f"{page}: revalidation answered {again.status_code}"
        root = requests.get(self.base + "/", allow_redirects=False, timeout=10)
        assert root.status_code == 302 and root.headers["Location"] == "/app/", root.status_code
        # The sign-in page is served only by the authorization endpoint, once it checked the request
        # (its Cancel goes to the redirect URI); names outside the app's files are not found.
        for hostile in ["/app/authorize.html", "/app/..%2FPackage.swift", "/app/%2e%2e", "/app/missing.js", "/app/index.html.bak"]:
            answer = requests.get(self.base + hostile, timeout=10)
            assert answer.status_code == 404, f"{hostile}: {answer.status_code}"

    @staticmethod
    def check_page_headers(page, answer):
        """The security headers every page and file of the app carries."""
        csp = answer.headers.get("Content-Security-Policy", "")
        for directive in ["default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]:
            assert directive in csp, f"{page}: CSP lacks {directive}: {csp}"
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp, f"{page}: {csp}"
        assert answer.headers.get("X-Content-Type-Options") == "nosniff", page
        assert answer.headers.get("X-Frame-Options") == "DENY", page
        assert answer.headers.get("Referrer-Policy") == "no-referrer", page
        assert "Set-Cookie" not in answer.headers, f"{page} sets a cookie"
        if answer.headers["Content-Type"].startswith("text/html"):
            assert "<script>" not in answer.text and " on" + "click=" not in answer.text, f"{page} holds inline script"

    def admin_creates_user(self):
        self.launch(self.video("still"))
        self.open("admin")
        self.type("#admin-key", self.admin_key)
        self.click("#admin-key-submit")
        self.type("#admin-new-user", self.user)
        self.click("#admin-create-user")
        shown = self.text("#admin-activation-code")
        self.code = shown.strip()
        assert self.code, "no activation code shown"
        self.find(f'#admin-user-table tr[data-user="{self.user}"]')
        # The key lives in the page's memory only: a reload forgets it.
        self.driver.refresh()
        self.find("#admin-key")
        assert self.driver.execute_script("return localStorage.length + sessionStorage.length") == 0
        assert self.driver.get_cookies() == []

    def activate_and_opt_in(self):
        self.launch(self.video("take-a", start=1))
        self.open("activate")
        self.type("#activate-user", self.user)
        self.type("#activate-code", self.code)
        self.type("#activate-password", PASSWORD)
        self.type("#activate-password2", PASSWORD)
        self.click("#activate-submit")
        self.find("#dashboard-session")
        self.open("biometric")
        card = self.find('#template-status-card[data-status-code="600"]')
        assert "No biometric template found on the server" in card.text, card.text
        assert self.find("#start-authentication").get_attribute("disabled") is not None
        assert self.find("#start-disabled-note").is_displayed()
        self.open("optin")
        self.find('#template-status-card[data-status-code="600"]')
        self.click("#consent-accept")
        self.click("#start-optin")
        self.click('#selfie-confirm button[data-value="start"]')
        # The capture screen itself: the preview, the action asked now, the progress.
        WebDriverWait(self.driver, 10).until(lambda driver: "blink" in driver.find_element(By.ID, "selfie-instruction").text.lower())
        self.driver.save_screenshot(os.path.join(self.out, "selfie_capture-desktop.png"))
        title, fields = self.result_dialog()
        assert fields.get("Biometric Result") == "ENROLLED", (title, fields)
        self.click('#selfie-result button[data-value="dashboard"]')
        self.open("biometric")
        card = self.find('#template-status-card[data-status-code="100"]')
        assert "Your biometric template is stored on the server" in card.text
        # Nothing secret stays where other scripts could read it.
        assert self.driver.execute_script("return localStorage.length + sessionStorage.length") == 0
        assert self.driver.get_cookies() == []

    def authenticate_matched(self):
        self.launch(self.video("take-b", start=100))
        self.sign_in()
        self.open("biometric")
        self.find('#template-status-card[data-status-code="100"]')
        self.click("#start-authentication")
        self.click('#selfie-confirm button[data-value="start"]')
        title, fields = self.result_dialog()
        assert fields.get("Biometric Result") == "MATCHED", (title, fields)
        assert "Authentication Success" in title, title
        assert fields.get("Use Case") and fields.get("Transaction ID") not in (None, "N/A"), fields
        self.find('#selfie-result button[data-value="dashboard"]')

    def still_photo_fails_liveness(self):
        self.launch(self.video("still"))
        self.sign_in()
        self.open("biometric")
        self.click("#start-authentication")
        self.click('#selfie-confirm button[data-value="start"]')
        title, fields = self.result_dialog()
        assert fields.get("Biometric Result") == "LIVENESS_FAILED", (title, fields)
        self.find('#selfie-result button[data-value="ok"]')

    def close_at_confirmation(self):
        self.click('#selfie-result button[data-value="ok"]')
        self.click("#start-authentication")
        self.click('#selfie-confirm button[data-value="close"]')
        title, fields = self.result_dialog()
        assert "240" in fields.get("Biometric Result", ""), (title, fields)
        assert "cancelled" in title.lower(), title
        self.click('#selfie-result button[data-value="ok"]')

    def notification_with_password(self):
        created = self.notify(1)
        self.answer_notification(created)
        self.click('#notification-modal button.notification-action[data-action="approve"]')
        self.type("#stepup-password", PASSWORD)
        self.click('#stepup-password-dialog button[type="submit"]')
        title = self.find("#notification-result h2").text
        assert title == "Approved", title
        result = self.rp("GET", f"/v1/notifications/{created['notification_uuid']}/result")
        assert result["status"] == "answered" and result.get("auth_level") == 1, result

    def notification_with_device_signature(self):
        """Level 3: this browser's WebCrypto key signs the notification's canonical content."""
        self.click('#notification-result button[data-value]')
        created = self.notify(3)
        self.answer_notification(created)
        self.click('#notification-modal button.notification-action[data-action="approve"]')
        self.click('#stepup-device-dialog button[data-value="approve"]')
        title = self.find("#notification-result h2").text
        assert title == "Approved", self.text("#notification-result")
        result = self.rp("GET", f"/v1/notifications/{created['notification_uuid']}/result")
        assert result["status"] == "answered" and result.get("auth_level") == 3, result

    def wrong_number_refused(self):
        self.click('#notification-result button[data-value]')
        created = self.notify(0, number_matching=True)
        self.answer_notification(created)
        # Typed, not picked: nothing on the page gives the number away, and the actions wait for two digits.
        assert str(created["number"]) not in self.text("#notification-modal"), self.text("#notification-modal")
        approve = self.find('#notification-modal button.notification-action[data-action="approve"]')
        assert not approve.is_enabled(), "an action is enabled before a number was typed"
        wrong = 10 + (created["number"] - 10 + 1) % 90
        self.find("#notification-number").send_keys(str(wrong))
        self.click('#notification-modal button.notification-action[data-action="approve"]')
        title = self.find("#notification-result h2").text
        assert title == "Refused", title
        result = self.rp("GET", f"/v1/notifications/{created['notification_uuid']}/result")
        assert result["status"] == "failed", result

    def notification_with_selfie(self):
        self.launch(self.video("take-c", start=49))
        self.sign_in()
        created = self.notify(4, number_matching=True)
        self.answer_notification(created)
        self.find("#notification-number").send_keys(str(created["number"]))
        self.click('#notification-modal button.notification-action[data-action="approve"]')
        self.click('#selfie-confirm button[data-value="start"]')
        title = self.find("#notification-result h2", 90).text
        details = self.text("#notification-result")
        assert title == "Approved", details
        result = self.rp("GET", f"/v1/notifications/{created['notification_uuid']}/result")
        assert result["status"] == "answered" and result.get("auth_level") == 4 and "face" in result["amr"], result
        self.click('#notification-result button[data-value]')

    def authenticator(self):
        self.driver.execute_cdp_cmd("WebAuthn.enable", {"enableUI": False})
        return self.driver.execute_cdp_cmd("WebAuthn.addVirtualAuthenticator", {"options": {
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
            "isUserVerified": True, "automaticPresenceSimulation": True}})["authenticatorId"]

    def oidc_client(self, name="Example Shop"):
        answer = requests.post(self.base + "/v1/admin/oidc/clients", headers={"Authorization": f"Bearer {self.admin_key}"}, timeout=10,
                               json={"name": name, "client_type": "public", "redirect_uris": [self.base + "/callback"]})
        assert answer.status_code == 201, answer.text
        return answer.json()["client_id"]

    def sign_in_at_authorization_endpoint(self, choice):
        """A relying party's browser redirect to the authorization endpoint, answered in the page;
        authlib (an outside OAuth client) makes the request and exchanges the code with PKCE."""
        from authlib.integrations.requests_client import OAuth2Session
        from joserfc import jwt
        from joserfc.jwk import KeySet

        client_id = self.oidc_client()
        session = OAuth2Session(client_id, redirect_uri=self.base + "/callback", scope="openid", code_challenge_method="S256")
        verifier = secrets.token_urlsafe(48)
        nonce = secrets.token_urlsafe(16)
        url, state = session.create_authorization_url(self.base + "/oauth2/authorize", code_verifier=verifier, nonce=nonce)
        page = requests.get(url, timeout=10, allow_redirects=False)
        assert page.status_code == 200 and page.headers.get("Cache-Control") == "no-store", page.status_code
        self.check_page_headers("/oauth2/authorize", page)
        assert 'data-client-name="Example Shop"' in page.text, page.text
        self.driver.get(url)
        self.find("#consent")
        assert "Example Shop" in self.text("#screen-title")
        self.click(choice)
        WebDriverWait(self.driver, 30).until(lambda driver: driver.current_url.startswith(self.base + "/callback"))
        callback = self.driver.current_url
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))
        assert query.get("state") == state and query.get("iss") == self.base, query
        token = session.fetch_token(self.base + "/oauth2/token", authorization_response=callback, code_verifier=verifier)
        keys = KeySet.import_key_set(requests.get(self.base + "/.well-known/jwks.json", timeout=10).json())
        claims = jwt.decode(token["id_token"], keys).claims
        assert claims["sub"] == self.user and claims["aud"] in (client_id, [client_id]) and claims["nonce"] == nonce, claims
        assert claims["iss"] == self.base, claims
        # The code is single use.
        again = requests.post(self.base + "/oauth2/token", timeout=10, data={
            "grant_type": "authorization_code", "code": query["code"], "redirect_uri": self.base + "/callback",
            "client_id": client_id, "code_verifier": verifier})
        assert again.status_code == 400 and again.json()["error"] == "invalid_grant", again.text

    def passkey_register_and_sign_in(self):
        self.authenticator()
        self.open("passkeys")
        self.type("#passkey-name", "Virtual authenticator")
        self.click("#passkey-register")
        self.type("#passkey-password", PASSWORD)
        self.click('#passkey-password-dialog button[type="submit"]')
        self.find("#passkey-added")
        self.find("#passkey-list li.passkey")
        self.sign_in_at_authorization_endpoint(f'#authorize-choices button.signin-passkey[data-user="{self.user}"]')

    def passkey_app_sign_in(self):
        """The passkey signs in to the app itself, no account picked: the authenticator offers it."""
        self.open("login")
        self.type("#passkey-login-password", PASSWORD)
        self.click("#login-passkey")
        session = self.text("#dashboard-session")
        assert self.user in session and "pk_" in session, session

    def device_sign_in_at_authorization_endpoint(self):
        self.sign_in_at_authorization_endpoint(f'#authorize-choices button.signin-device[data-user="{self.user}"]')

    def admin_audit(self):
        """What the flows above did, in the audit trail, and the chain verified."""
        self.open("admin")
        self.type("#admin-key", self.admin_key)
        self.click("#admin-key-submit")
        self.type("#admin-audit-user", self.user)
        self.click("#admin-audit-load")
        events = self.find("#admin-audit-table").text
        for kind in ["biometric.enrolled", "idv.verdict", "notification.closed", "oidc.sign_in"]:
            assert kind in events, events
        self.click("#admin-audit-verify")
        assert "intact" in self.text("#admin-audit-result"), self.text("#admin-audit-result")
        self.driver.execute_script("document.getElementById('admin-audit').scrollIntoView()")

    def hostile_text_stays_text(self):
        """A relying party's texts and a client's name are shown as text, never run as markup."""
        hostile = '<img src=x onerror="window.pwned=1">'
        self.sign_in()
        created = self.rp("POST", "/v1/notifications", {
            "user_id": self.user, "subject": "Pay " + hostile, "message": "<script>window.pwned=1</script>",
            "actions": [{"label": "OK " + hostile, "action": "ok", "auth_level": 0}]})
        self.answer_notification(created)
        modal = self.find("#notification-modal").text
        assert hostile in modal and "<script>window.pwned=1</script>" in modal, modal
        self.click('#notification-modal button.notification-action[data-action="ok"]')
        self.find("#notification-result")
        client_id = self.oidc_client(name="Shop " + hostile)
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        self.driver.get(self.base + "/oauth2/authorize?" + urllib.parse.urlencode({
            "client_id": client_id, "redirect_uri": self.base + "/callback", "response_type": "code", "scope": "openid",
            "code_challenge": challenge, "code_challenge_method": "S256"}))
        assert hostile in self.text("#screen-title"), self.text("#screen-title")
        assert self.driver.execute_script("return window.pwned === undefined && document.querySelectorAll('img').length === 0")

    def opt_out(self):
        self.sign_in()
        self.open("optin")
        self.find('#template-status-card[data-status-code="100"]')
        self.click("#optout")
        self.click('#optout-confirm button[data-value="delete"]')
        assert self.find("#optout-result h2").text == "Template deleted"
        self.click('#optout-result button[data-value="ok"]')
        self.find('#template-status-card[data-status-code="600"]')
        self.open("biometric")
        self.find('#template-status-card[data-status-code="600"]')
        assert self.find("#start-authentication").get_attribute("disabled") is not None

    def kyc(self):
        """Identity verification (workflow 6) enrols a second user: a document photo chosen from
        disk, compared with a live selfie (take B: this user has no earlier takes to replay)."""
        user = "kyc-" + secrets.token_hex(3)
        code = self.rp("POST", "/v1/users", {"user_id": user})["activation"]["activation_code"]
        self.launch(self.video("take-b", start=100))
        self.open("activate")
        self.type("#activate-user", user)
        self.type("#activate-code", code)
        self.type("#activate-password", PASSWORD)
        self.type("#activate-password2", PASSWORD)
        self.click("#activate-submit")
        self.find("#dashboard-session")
        self.open("optin")
        self.find('#template-status-card[data-status-code="600"]')
        self.click("#consent-accept")
        self.find("#kyc-document").send_keys(os.path.join(self.frames, "frame_0120.jpg"))
        self.click("#start-kyc")
        self.click('#selfie-confirm button[data-value="start"]')
        title, fields = self.result_dialog()
        assert "Identity verified" in title and fields.get("Biometric Result") in ("MATCHED", "ENROLLED"), (title, fields)
        self.click('#selfie-result button[data-value="dashboard"]')
        self.open("optin")
        self.find('#template-status-card[data-status-code="100"]')

    def devices_listed_and_unbound(self):
        """Devices: a second device bound by a registration code shows how and from where it was
        bound, and the user unbinds it with the password again."""
        from cryptography.hazmat.primitives.asymmetric import ec

        self.sign_in()
        user = self.find("#who").text.removeprefix("Signed in as ").strip()
        code = self.rp("POST", f"/v1/users/{user}/registration-code")["registration_code"]
        numbers = ec.generate_private_key(ec.SECP256R1()).public_key().public_numbers()
        coordinate = lambda value: base64.urlsafe_b64encode(value.to_bytes(32, "big")).rstrip(b"=").decode()
        answer = requests.post(self.base + "/v1/devices/register", timeout=30, json={
            "user_id": user, "registration_code": code, "device_name": "Work laptop",
            "device_public_key": {"kty": "EC", "crv": "P-256", "x": coordinate(numbers.x), "y": coordinate(numbers.y)}})
        assert answer.status_code == 201, answer.text
        laptop = answer.json()["device_id"]
        self.open("devices")
        item = self.find(f'#device-list li[data-device="{laptop}"]')
        assert item.get_attribute("data-bound-by") == "registration_code" and "from 127.0.0.1" in item.text, item.text
        self.find('#device-list li[data-bound-by="activation"]')
        self.click(f'#device-list button.device-revoke[data-device="{laptop}"]')
        self.type("#device-revoke-password", PASSWORD)
        self.click('#device-revoke-dialog button[type="submit"]')
        self.find("#device-revoked")
        listed = self.rp("GET", f"/v1/users/{user}/devices")["devices"]
        assert any(d["device_id"] == laptop and d.get("revoked_at") for d in listed), listed

    def run(self):
        flows = [
            ("headers", self.headers), ("admin_creates_user", self.admin_creates_user), ("activate_opt_in", self.activate_and_opt_in),
            ("authenticate_matched", self.authenticate_matched), ("still_photo_liveness_failed", self.still_photo_fails_liveness),
            ("close_at_confirmation_240", self.close_at_confirmation), ("notification_password", self.notification_with_password),
            ("notification_device_signature", self.notification_with_device_signature),
            ("notification_wrong_number", self.wrong_number_refused), ("notification_selfie", self.notification_with_selfie),
            ("passkey_register_sign_in", self.passkey_register_and_sign_in),
            ("passkey_app_sign_in", self.passkey_app_sign_in), ("oidc_device_sign_in", self.device_sign_in_at_authorization_endpoint),
            ("admin_audit", self.admin_audit), ("hostile_text_stays_text", self.hostile_text_stays_text), ("opt_out", self.opt_out), ("kyc", self.kyc),
            ("devices_listed_and_unbound", self.devices_listed_and_unbound),
        ]
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
    return Suite(config).run()


if __name__ == "__main__":
    sys.exit(main())
