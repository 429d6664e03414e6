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

Exit status 0 when every flow passed; 2 when Chromium, chromium-driver or ffmpeg is missing."""
import base64
import hashlib
import json
import re
import os
import random
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


class CheckFailed(Exception):
    """A flow saw something other than what it expected."""


def check(flow, condition, expected, seen=None):
    """Fails `flow` unless `condition` holds, saying what it expected and what it saw instead.
    `seen` may be a function, called only on failure (a reading that costs a round trip to the
    browser). Unlike `assert`, `python -O` does not remove it."""
    if condition:
        return
    if callable(seen):
        try:
            seen = seen()
        except Exception as error:  # the failure is the flow's, not the reading's
            seen = f"(could not be read: {type(error).__name__}: {error})"
    raise CheckFailed(f"flow {flow}: expected {expected}; saw {seen!r}")


class Flow:
    """One flow's timer and screenshots."""

    def __init__(self, suite, name):
        self.suite, self.name, self.started = suite, name, time.monotonic()

    def __enter__(self):
        self.suite.flow = self.name
        self.suite.fresh()
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
        self.profile = None
        self.driver = None
        self.flow = None  # the flow running now, which `check` names
        self.failed = []
        self.user = None  # the user the flow running now signed in as

    def fresh(self):
        """A new flow's start: no browser, a new profile (IndexedDB holds the device key), no user."""
        self.quit()
        self.profile = tempfile.mkdtemp(prefix="profile-", dir=self.work)
        self.user = None

    def check(self, condition, expected, seen=None):
        """`check` for the flow running now."""
        check(self.flow, condition, expected, seen)

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
        """Chromium on the flow's profile (its IndexedDB keeps the device key between launches)."""
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
        self.check(answer.status_code < 300, f"{method} {path} to succeed (2xx)", f"{answer.status_code} {answer.text}")
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

    # MARK: a flow's own users

    def account(self, video):
        """A user the relying party created, activated in this browser (its device key in the
        profile): signed in on the dashboard, with `video` (a path) as the camera."""
        self.user = "web-" + secrets.token_hex(4)
        code = self.rp("POST", "/v1/users", {"user_id": self.user})["activation"]["activation_code"]
        self.launch(video)
        self.open("activate")
        self.type("#activate-user", self.user)
        self.type("#activate-code", code)
        self.type("#activate-password", PASSWORD)
        self.type("#activate-password2", PASSWORD)
        self.click("#activate-submit")
        self.find("#dashboard-session")

    def opt_in(self):
        """Biometric opt-in (workflow 10) on the app's screens: ENROLLED, back on the dashboard."""
        self.open("optin")
        self.find('#template-status-card[data-status-code="600"]')
        self.click("#consent-accept")
        self.click("#start-optin")
        self.click('#selfie-confirm button[data-value="start"]')
        title, fields = self.result_dialog()
        self.check(fields.get("Biometric Result") == "ENROLLED", "Biometric Result ENROLLED", (title, fields))
        self.click('#selfie-result button[data-value="dashboard"]')

    def enrolled_account(self, video):
        """`account` enrolled from take A of the recording, then the browser relaunched with
        `video` as the camera (another part of the recording, or a still) and signed in."""
        self.account(self.video("take-a", start=1))
        self.opt_in()
        self.launch(video)
        self.sign_in()

    def register_passkey(self):
        """A passkey of a virtual authenticator (user verification on) for the signed-in user."""
        self.authenticator_id = self.authenticator()
        self.open("passkeys")
        self.type("#passkey-name", "Virtual authenticator")
        self.click("#passkey-register")
        self.type("#passkey-password", PASSWORD)
        self.click('#passkey-password-dialog button[type="submit"]')
        self.find("#passkey-added")
        self.find("#passkey-list li.passkey")

    # MARK: flows

    def headers(self):
        """Every page and file of the app, and the authorization endpoint's page, with their security headers."""
        pages = ["/app/", "/app/index.html"] + [f"/app/{name}" for name in
                 ["app.js", "core.js", "device.js", "devices.js", "selfie.js", "biometric.js", "notifications.js", "passkeys.js", "admin.js",
                  "authorize.js", "style.css", "favicon.svg", "documentscan.js", "contract.js"]]
        types = {"html": "text/html", "js": "text/javascript", "css": "text/css", "svg": "image/svg+xml"}
        for page in pages:
            answer = requests.get(self.base + page, timeout=10)
            self.check(answer.status_code == 200, f"{page} served (200)", answer.status_code)
            self.check_page_headers(page, answer)
            extension = page.rsplit(".", 1)[-1] if "." in page.rsplit("/", 1)[-1] else "html"
            self.check(answer.headers["Content-Type"].startswith(types[extension]), f"{page} served as {types[extension]}",
                       answer.headers["Content-Type"])
            self.check(answer.headers.get("Cache-Control") == "no-cache", f"{page} with Cache-Control: no-cache",
                       answer.headers.get("Cache-Control"))
            etag = answer.headers["ETag"]
            again = requests.get(self.base + page, headers={"If-None-Match": etag}, timeout=10)
            self.check(again.status_code == 304 and not again.content, f"{page} revalidated by its ETag: 304, no body",
                       f"{again.status_code} with {len(again.content)} bytes")
        root = requests.get(self.base + "/", allow_redirects=False, timeout=10)
        self.check(root.status_code == 302 and root.headers["Location"] == "/app/", "/ redirected (302) to /app/",
                   f"{root.status_code} to {root.headers.get('Location')}")
        # The sign-in page is served only by the authorization endpoint, once it checked the request
        # (its Cancel goes to the redirect URI); names outside the app's files are not found.
        for hostile in ["/app/authorize.html", "/app/..%2FPackage.swift", "/app/%2e%2e", "/app/missing.js", "/app/index.html.bak"]:
            answer = requests.get(self.base + hostile, timeout=10)
            self.check(answer.status_code == 404, f"{hostile} not found (404)", answer.status_code)

    def check_page_headers(self, page, answer):
        """The security headers every page and file of the app carries."""
        csp = answer.headers.get("Content-Security-Policy", "")
        for directive in ["default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]:
            self.check(directive in csp, f"{page}: a Content-Security-Policy with {directive}", csp)
        self.check("unsafe-inline" not in csp and "unsafe-eval" not in csp, f"{page}: a CSP without unsafe-inline or unsafe-eval", csp)
        for header, value in [("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"), ("Referrer-Policy", "no-referrer")]:
            self.check(answer.headers.get(header) == value, f"{page}: {header}: {value}", answer.headers.get(header))
        self.check("Set-Cookie" not in answer.headers, f"{page} to set no cookie", answer.headers.get("Set-Cookie"))
        if answer.headers["Content-Type"].startswith("text/html"):
            inline = [marker for marker in ["<script>", " on" + "click="] if marker in answer.text]
            self.check(not inline, f"{page} to hold no inline script", inline)

    def admin_creates_user(self):
        user = "web-" + secrets.token_hex(4)
        self.launch(self.video("still"))
        self.open("admin")
        self.type("#admin-key", self.admin_key)
        self.click("#admin-key-submit")
        self.type("#admin-new-user", user)
        self.click("#admin-create-user")
        shown = self.text("#admin-activation-code")
        self.check(re.fullmatch(r"\S{8,}", shown.strip()), "an activation code shown", shown)
        self.find(f'#admin-user-table tr[data-user="{user}"]')
        # The key lives in the page's memory only: a reload forgets it.
        self.driver.refresh()
        self.find("#admin-key")
        self.nothing_stored()

    def activate_and_opt_in(self):
        self.account(self.video("take-a", start=1))
        self.open("biometric")
        card = self.find('#template-status-card[data-status-code="600"]')
        text = card.text
        self.check("No biometric template found on the server" in text, "the card to say no template is stored", text)
        self.check(self.find("#start-authentication").get_attribute("disabled") is not None, "Start authentication disabled", "it enabled")
        self.check(self.find("#start-disabled-note").is_displayed(), "the note saying why Start is disabled shown", "it hidden")
        self.open("optin")
        self.find('#template-status-card[data-status-code="600"]')
        self.click("#consent-accept")
        self.click("#start-optin")
        self.click('#selfie-confirm button[data-value="start"]')
        # The capture screen itself: the preview, the action asked now, the progress.
        WebDriverWait(self.driver, 10).until(lambda driver: "blink" in driver.find_element(By.ID, "selfie-instruction").text.lower())
        self.driver.save_screenshot(os.path.join(self.out, "selfie_capture-desktop.png"))
        title, fields = self.result_dialog()
        self.check(fields.get("Biometric Result") == "ENROLLED", "Biometric Result ENROLLED", (title, fields))
        self.click('#selfie-result button[data-value="dashboard"]')
        self.open("biometric")
        card = self.find('#template-status-card[data-status-code="100"]')
        text = card.text
        self.check("Your biometric template is stored on the server" in text, "the card to say the template is stored", text)
        # Nothing secret stays where other scripts could read it.
        self.nothing_stored()

    def nothing_stored(self):
        """Nothing in localStorage or sessionStorage, and no cookies."""
        stored = self.driver.execute_script("return localStorage.length + sessionStorage.length")
        self.check(stored == 0, "nothing in localStorage or sessionStorage", f"{stored} items")
        cookies = self.driver.get_cookies()
        self.check(cookies == [], "no cookies", cookies)

    def authenticate_matched(self):
        self.enrolled_account(self.video("take-b", start=100))
        self.open("biometric")
        self.find('#template-status-card[data-status-code="100"]')
        self.click("#start-authentication")
        self.click('#selfie-confirm button[data-value="start"]')
        title, fields = self.result_dialog()
        self.check(fields.get("Biometric Result") == "MATCHED", "Biometric Result MATCHED", (title, fields))
        self.check("Authentication Success" in title, "the title Authentication Success", title)
        self.check(fields.get("Use Case") and fields.get("Transaction ID") not in (None, "N/A"), "a Use Case and a Transaction ID", fields)
        self.find('#selfie-result button[data-value="dashboard"]')

    def still_photo_fails_liveness(self):
        self.enrolled_account(self.video("still"))
        self.open("biometric")
        self.click("#start-authentication")
        self.click('#selfie-confirm button[data-value="start"]')
        title, fields = self.result_dialog()
        self.check(fields.get("Biometric Result") == "LIVENESS_FAILED", "Biometric Result LIVENESS_FAILED", (title, fields))
        advice = self.text("#selfie-advice")
        self.check(len(advice) > 30 and "_" not in advice, "what to do next in plain words", advice)
        self.find('#selfie-result button[data-value="ok"]')

    def close_at_confirmation(self):
        self.enrolled_account(self.video("still"))
        self.open("biometric")
        self.click("#start-authentication")
        self.click('#selfie-confirm button[data-value="close"]')
        title, fields = self.result_dialog()
        self.check(title == "Authentication Error" and fields.get("Reason") == "User Cancelled" and fields.get("Error Code") == "240",
                   "the seed's cancel alert: Authentication Error, User Cancelled, Error Code: 240", (title, fields))
        self.click('#selfie-result button[data-value="ok"]')

    def lockout_alert_then_sign_out(self):
        """The fifth failed selfie: the alert says the account is locked, how it ends and who can
        lift it, and then the app signs out (the server ended the session) with that notice."""
        self.enrolled_account(self.video("still"))
        self.open("biometric")
        for attempt in range(1, 6):
            self.click("#start-authentication", 60)
            self.click('#selfie-confirm button[data-value="start"]')
            title, fields = self.result_dialog()
            if attempt < 5:
                self.check(fields.get("Biometric Result") == "LIVENESS_FAILED" and fields.get("Attempts Left") == str(5 - attempt),
                           f"attempt {attempt}: LIVENESS_FAILED with {5 - attempt} left", (title, fields))
                self.click('#selfie-result button[data-value="ok"]')
                WebDriverWait(self.driver, 30).until(EC.invisibility_of_element_located((By.ID, "selfie-result")))
        notice = self.text("#selfie-locked")
        self.check(title == "❌ Account locked" and re.search(r"locked until .+ \(in [45] minutes\)", notice) is not None
                   and "lifts by itself" in notice and "can lift it sooner" in notice,
                   "the title Account locked, until when (in 5 minutes, the first lock) and who can lift it", (title, notice))
        self.click('#selfie-result button[data-value="ok"]')
        self.check("locked" in self.text("#login-notice"), "the sign-in screen saying the account is locked", self.driver.current_url)

    def biometric_errors_as_the_seed_shows_them(self):
        """A template check and a start that fail: the seed's alerts, the card in its error state."""
        self.enrolled_account(self.video("still"))
        self.driver.execute_cdp_cmd("Network.enable", {})
        self.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/v1/idv/template*"]})
        self.open("biometric")
        alert = self.find("#template-check-error")
        self.check(alert.find_element(By.TAG_NAME, "h2").text == "Template Status Check Error"
                   and "Failed to check template status" in alert.text, "the seed's Template Status Check Error alert", alert.text)
        self.find('#template-status-card[data-status-code="error"]')
        self.check(not self.find("#start-authentication").is_enabled(), "Start Authentication off without a status", "enabled")
        self.click('#template-check-error button[data-value="ok"]')
        self.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*/v1/idv/transactions*"]})
        self.open("dashboard")  # the same URL again would not render the screen again
        self.open("biometric")
        self.find('#template-status-card[data-status-code="100"]')
        self.click("#start-authentication")
        alert = self.find("#start-error")
        self.check(alert.find_element(By.TAG_NAME, "h2").text == "Authentication Error" and "Failed to initiate authentication" in alert.text,
                   "the seed's start failure alert", alert.text)
        self.click('#start-error button[data-value="ok"]')
        self.driver.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})

    def newcomer_dashboard_and_phone_menu(self):
        """`/` tells a newcomer what Custos is and where the activation code comes from; no Admin
        entry without an admin key; a favicon; a dashboard that starts with opt-in while there is
        no template; on a phone the menu is one row."""
        self.launch(self.video("still"))
        self.driver.get(self.base + "/app/")
        intro = self.text("#newcomer")
        self.check("activation code" in intro and "approves" in intro, "a newcomer's introduction", intro)
        menu = [a.text for a in self.driver.find_elements(By.CSS_SELECTOR, "#menu a")]
        self.check("Admin" not in menu, "no Admin entry without an admin key", menu)
        icon = self.driver.find_element(By.CSS_SELECTOR, 'link[rel="icon"]').get_attribute("href")
        answer = requests.get(icon, timeout=10)
        self.check(answer.status_code == 200 and answer.headers.get("Content-Type", "").startswith("image/svg+xml"), "the favicon served",
                   (icon, answer.status_code))
        self.account(self.video("still"))
        self.find("#dashboard-optin-first")
        first = self.driver.find_element(By.CSS_SELECTOR, ".tiles a").get_attribute("id")
        self.check(first == "tile-optin", "opt-in as the first tile without a template", first)
        menu = [a.text for a in self.driver.find_elements(By.CSS_SELECTOR, "#menu a")]
        self.check("🔐 Biometric Authentication" in menu, "the seed's menu label", menu)
        self.driver.set_window_size(*SIZES["phone"])
        time.sleep(0.3)
        height = self.driver.execute_script("return document.getElementById('menu').getBoundingClientRect().height")
        self.check(height < 60, "the phone's menu one compact row (under 60 px)", f"{height} px")
        wide = self.driver.execute_script("return document.documentElement.scrollWidth > window.innerWidth")
        self.check(not wide, "nothing wider than the phone's screen", "a horizontal scroll")
        self.driver.set_window_size(*SIZES["desktop"])

    def approved_with_password(self, created, password=PASSWORD):
        """The password dialog of a level-1 step-up answered: the Approved alert, and the relying
        party's result answered at level 1."""
        self.type("#stepup-password", password)
        self.click('#stepup-password-dialog button[type="submit"]')
        title = self.find("#notification-result h2").text
        self.check(title == "Approved", "the result Approved", lambda: self.text("#notification-result"))
        result = self.rp("GET", f"/v1/notifications/{created['notification_uuid']}/result")
        self.check(result["status"] == "answered" and result.get("auth_level") == 1, "the notification answered at level 1", result)

    def notification_with_password(self):
        self.account(self.video("still"))
        created = self.notify(1)
        self.answer_notification(created)
        self.click('#notification-modal button.notification-action[data-action="approve"]')
        self.approved_with_password(created)

    def notification_with_device_signature(self):
        """Level 3: this browser's WebCrypto key signs the notification's canonical content."""
        self.account(self.video("still"))
        created = self.notify(3)
        self.answer_notification(created)
        self.click('#notification-modal button.notification-action[data-action="approve"]')
        self.click('#stepup-device-dialog button[data-value="approve"]')
        title = self.find("#notification-result h2").text
        self.check(title == "Approved", "the result Approved", lambda: self.text("#notification-result"))
        result = self.rp("GET", f"/v1/notifications/{created['notification_uuid']}/result")
        self.check(result["status"] == "answered" and result.get("auth_level") == 3, "the notification answered at level 3", result)

    def notification_with_passkey(self):
        """Level 1 by the browser's own verification: the user's passkey (user verified) answers
        instead of the password and is recorded as what it proved (level 3, swk). Declining it is
        the seed's 131, "Authentication Cancelled", with the action modal kept open; then the
        password answers."""
        self.account(self.video("still"))
        self.register_passkey()
        approve = '#notification-modal button.notification-action[data-action="approve"]'
        created = self.notify(1)
        self.answer_notification(created)
        self.click(approve)
        title = self.find("#notification-result h2").text
        self.check(title == "Approved", "the result Approved", lambda: self.text("#notification-result"))
        result = self.rp("GET", f"/v1/notifications/{created['notification_uuid']}/result")
        self.check(result["status"] == "answered" and result.get("auth_level") == 3 and result.get("amr") == ["swk"],
                   "the notification answered at level 3 (swk), not as the password", result)
        self.click('#notification-result button[data-value]')

        self.driver.execute_cdp_cmd("WebAuthn.setUserVerified", {"authenticatorId": self.authenticator_id, "isUserVerified": False})
        second = self.notify(1)
        self.answer_notification(second)
        for retry in ["retry", "password"]:
            self.click(approve)
            title = self.find("#notification-result h2").text
            details = self.text("#notification-result")
            self.check(title == "Authentication Cancelled" and "(131)" in details and
                       "Local device authentication was cancelled. Please try again." in details,
                       "the seed's 131 alert", details)
            self.click(f'#notification-result button[data-value="{retry}"]')
            if retry == "retry":
                self.find("#notification-modal")
        self.approved_with_password(second)

    def notification_password_expired(self):
        """110 on Notifications: the relying party expired the password; the right password at a
        level-1 step-up shows the Password expired alert, then the app signs out; signing in again
        opens the password change, and the new password answers the still pending notification."""
        self.account(self.video("still"))
        created = self.notify(1)
        self.rp("POST", f"/v1/users/{self.user}/expire-password")
        self.answer_notification(created)
        self.click('#notification-modal button.notification-action[data-action="approve"]')
        self.type("#stepup-password", PASSWORD)
        self.click('#stepup-password-dialog button[type="submit"]')
        title = self.find("#notification-result h2").text
        details = self.text("#notification-result")
        self.check(title == "Password expired" and "(110)" in details, "the Password expired alert with 110", (title, details))
        self.click('#notification-result button[data-value="ok"]')
        notice = self.text("#login-notice")
        self.check("expired" in notice and "sign in again" in notice, "signed out, told to sign in and set a new password", notice)
        self.type("#login-password", PASSWORD)
        self.click("#login-submit")
        new_password = PASSWORD + " renewed"
        self.type("#change-new", new_password)
        self.click("#change-submit")
        self.find("#dashboard-session")
        self.answer_notification(created)
        self.click('#notification-modal button.notification-action[data-action="approve"]')
        self.approved_with_password(created, new_password)

    def wrong_number_refused(self):
        self.account(self.video("still"))
        created = self.notify(0, number_matching=True)
        self.answer_notification(created)
        # Typed, not picked: nothing on the page gives the number away, and the actions wait for two digits.
        modal = self.text("#notification-modal")
        # Standalone numbers only: the amount (25.00), the expiry's date and time (12/2/2026,
        # 5:52:44) hold digits that may equal the number by chance.
        standalone = re.findall(r"(?<![\d./:,])\d+(?![\d./:,])", modal)
        self.check(str(created["number"]) not in standalone, f"the number to match ({created['number']}) nowhere on the page", modal)
        approve = self.find('#notification-modal button.notification-action[data-action="approve"]')
        self.check(not approve.is_enabled(), "the actions disabled until a number is typed", "Approve enabled")
        wrong = 10 + (created["number"] - 10 + 1) % 90
        self.find("#notification-number").send_keys(str(wrong))
        self.click('#notification-modal button.notification-action[data-action="approve"]')
        title = self.find("#notification-result h2").text
        self.check(title == "Refused", "the result Refused", title)
        result = self.rp("GET", f"/v1/notifications/{created['notification_uuid']}/result")
        self.check(result["status"] == "failed", "the notification failed", result)

    def notification_with_selfie(self):
        self.enrolled_account(self.video("take-c", start=49))
        created = self.notify(4, number_matching=True)
        self.answer_notification(created)
        self.find("#notification-number").send_keys(str(created["number"]))
        self.click('#notification-modal button.notification-action[data-action="approve"]')
        self.click('#selfie-confirm button[data-value="start"]')
        title = self.find("#notification-result h2", 90).text
        details = self.text("#notification-result")
        self.check(title == "Approved", "the result Approved", details)
        result = self.rp("GET", f"/v1/notifications/{created['notification_uuid']}/result")
        self.check(result["status"] == "answered" and result.get("auth_level") == 4 and "face" in result["amr"],
                   "the notification answered at level 4 with face in amr", result)
        self.click('#notification-result button[data-value]')

    def authenticator(self):
        self.driver.execute_cdp_cmd("WebAuthn.enable", {"enableUI": False})
        return self.driver.execute_cdp_cmd("WebAuthn.addVirtualAuthenticator", {"options": {
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
            "isUserVerified": True, "automaticPresenceSimulation": True}})["authenticatorId"]

    def oidc_client(self, name="Example Shop"):
        answer = requests.post(self.base + "/v1/admin/oidc/clients", headers={"Authorization": f"Bearer {self.admin_key}"}, timeout=10,
                               json={"name": name, "client_type": "public", "redirect_uris": [self.base + "/callback"]})
        self.check(answer.status_code == 201, "the OIDC client created (201)", f"{answer.status_code} {answer.text}")
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
        self.check(page.status_code == 200 and page.headers.get("Cache-Control") == "no-store",
                   "the authorization page (200) with Cache-Control: no-store",
                   f"{page.status_code}, Cache-Control {page.headers.get('Cache-Control')}")
        self.check_page_headers("/oauth2/authorize", page)
        self.check('data-client-name="Example Shop"' in page.text, "the page to name the client Example Shop", page.text)
        self.driver.get(url)
        self.find("#consent")
        title = self.text("#screen-title")
        self.check("Example Shop" in title, "the client's name in the title", title)
        self.click(choice)
        WebDriverWait(self.driver, 30).until(lambda driver: driver.current_url.startswith(self.base + "/callback"))
        callback = self.driver.current_url
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(callback).query))
        self.check(query.get("state") == state and query.get("iss") == self.base, f"the callback with state {state} and iss {self.base}",
                   query)
        token = session.fetch_token(self.base + "/oauth2/token", authorization_response=callback, code_verifier=verifier)
        keys = KeySet.import_key_set(requests.get(self.base + "/.well-known/jwks.json", timeout=10).json())
        claims = jwt.decode(token["id_token"], keys).claims
        self.check(claims["sub"] == self.user and claims["aud"] in (client_id, [client_id]) and claims["nonce"] == nonce,
                   f"an ID token for {self.user}, to {client_id}, with the nonce sent", claims)
        self.check(claims["iss"] == self.base, f"an ID token from {self.base}", claims)
        # The code is single use.
        again = requests.post(self.base + "/oauth2/token", timeout=10, data={
            "grant_type": "authorization_code", "code": query["code"], "redirect_uri": self.base + "/callback",
            "client_id": client_id, "code_verifier": verifier})
        self.check(again.status_code == 400 and again.json()["error"] == "invalid_grant", "the used code refused (400 invalid_grant)",
                   f"{again.status_code} {again.text}")

    def passkey_register_and_sign_in(self):
        self.account(self.video("still"))
        self.register_passkey()
        self.sign_in_at_authorization_endpoint(f'#authorize-choices button.signin-passkey[data-user="{self.user}"]')

    def passkey_app_sign_in(self):
        """The passkey signs in to the app itself, no account picked: the authenticator offers it."""
        self.account(self.video("still"))
        self.register_passkey()
        self.open("login")
        self.type("#passkey-login-password", PASSWORD)
        self.click("#login-passkey")
        session = self.text("#dashboard-session")
        self.check(self.user in session and "pk_" in session, f"a session of {self.user} through a pk_ device", session)

    def device_sign_in_at_authorization_endpoint(self):
        self.account(self.video("still"))
        self.sign_in_at_authorization_endpoint(f'#authorize-choices button.signin-device[data-user="{self.user}"]')

    def admin_audit(self):
        """What this flow's user did (enrolled, answered a notification, signed in at the
        authorization endpoint) in the audit trail, and the chain verified."""
        self.enrolled_account(self.video("still"))
        created = self.notify(0)
        self.answer_notification(created)
        self.click('#notification-modal button.notification-action[data-action="approve"]')
        self.find("#notification-result")
        self.sign_in_at_authorization_endpoint(f'#authorize-choices button.signin-device[data-user="{self.user}"]')
        self.open("admin")
        self.type("#admin-key", self.admin_key)
        self.click("#admin-key-submit")
        self.type("#admin-audit-user", self.user)
        self.click("#admin-audit-load")
        events = self.find("#admin-audit-table").text
        for kind in ["biometric.enrolled", "idv.verdict", "notification.closed", "oidc.sign_in"]:
            self.check(kind in events, f"{kind} in the audit trail", events)
        self.click("#admin-audit-verify")
        verdict = self.text("#admin-audit-result")
        self.check("intact" in verdict, "the audit chain verified intact", verdict)
        self.driver.execute_script("document.getElementById('admin-audit').scrollIntoView()")

    def document_scan_and_review(self):
        """Workflow 7 on its own screen: Close at the confirmation is the 240 alert; the front
        (the user's own portrait) and a back matched; the relying party reviews both images."""
        self.enrolled_account(self.video("still"))
        self.open("documentscan")
        self.find("#document-front").send_keys(os.path.join(self.frames, "frame_0120.jpg"))
        self.click("#start-document-scan")
        self.click('#document-confirm button[data-value="close"]')
        title, fields = self.result_dialog()
        self.check(title == "Authentication Error" and fields.get("Error Code") == "240", "Close: the 240 alert", (title, fields))
        self.click('#selfie-result button[data-value="ok"]')
        self.find("#document-back").send_keys(os.path.normpath(os.path.join(self.frames, "..", "..", "..", "faces", "profile", "hopper_45.png")))
        self.click("#start-document-scan")
        self.click('#document-confirm button[data-value="start"]')
        title, fields = self.result_dialog()
        self.check(title == "✅ Document matched" and fields.get("Biometric Result") == "MATCHED", "the document matched", (title, fields))
        transaction = fields.get("Transaction ID")
        self.click('#selfie-result button[data-value="dashboard"]')
        self.open("admin")
        self.type("#admin-key", self.rp_key)
        self.click("#admin-key-submit")
        self.type("#admin-document-transaction", transaction)
        self.click("#admin-document-review")
        decision = self.text('#admin-document-verdict dd[data-field="Decision"]')
        self.check(decision == "MATCHED", "the relying party reads the decision MATCHED", decision)
        for side in ["front", "back"]:
            image = self.find(f'#admin-document-result img[data-side="{side}"]')
            WebDriverWait(self.driver, 10).until(lambda driver: driver.execute_script("return arguments[0].complete", image))
            width = self.driver.execute_script("return arguments[0].naturalWidth", image)
            self.check(width > 0, f"the {side} image shown to the relying party", width)

    def canonical_json_matches_the_golden_cases(self):
        """The web app's canonicalJSON writes the same bytes as the server's StepUpContent for the
        shared golden cases (Tests/Fixtures/step-up-content.json, which WireGoldenTests holds Swift to)."""
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Fixtures", "step-up-content.json"), encoding="utf-8") as handle:
            cases = json.load(handle)["cases"]
        self.launch(self.video("still"))
        self.driver.get(self.base + "/app/")
        written = self.driver.execute_async_script(
            "const [cases, done] = arguments;"
            "import('/app/notifications.js').then((m) => done(cases.map((c) => m.canonicalJSON(c.input)))).catch((e) => done(String(e)));",
            cases)
        self.check(isinstance(written, list), "canonicalJSON imported and run", written)
        for case, text in zip(cases, written):
            self.check(text == case["canonical"], f"{case['name']}: the golden bytes", text)

    def hostile_text_stays_text(self):
        """A relying party's texts and a client's name are shown as text, never run as markup."""
        hostile = '<img src=x onerror="window.pwned=1">'
        self.account(self.video("still"))
        created = self.rp("POST", "/v1/notifications", {
            "user_id": self.user, "subject": "Pay " + hostile, "message": "<script>window.pwned=1</script>",
            "actions": [{"label": "OK " + hostile, "action": "ok", "auth_level": 0}]})
        self.answer_notification(created)
        modal = self.find("#notification-modal").text
        self.check(hostile in modal and "<script>window.pwned=1</script>" in modal, "the subject, message and label shown as text", modal)
        self.click('#notification-modal button.notification-action[data-action="ok"]')
        self.find("#notification-result")
        client_id = self.oidc_client(name="Shop " + hostile)
        verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        self.driver.get(self.base + "/oauth2/authorize?" + urllib.parse.urlencode({
            "client_id": client_id, "redirect_uri": self.base + "/callback", "response_type": "code", "scope": "openid",
            "code_challenge": challenge, "code_challenge_method": "S256"}))
        title = self.text("#screen-title")
        self.check(hostile in title, "the client's name shown as text in the title", title)
        clean = self.driver.execute_script("return window.pwned === undefined && document.querySelectorAll('img').length === 0")
        self.check(clean, "no script run (window.pwned unset) and no <img> made from the name", "window.pwned set or an <img> in the page")

    def opt_out(self):
        """Opt-out needs the proof a template change needs: refused until a biometric
        authentication matched in this session, then the template is deleted."""
        self.enrolled_account(self.video("take-b", start=100))
        self.open("optin")
        self.find('#template-status-card[data-status-code="100"]')
        self.click("#optout")
        self.click('#optout-confirm button[data-value="delete"]')
        title = self.find("#optout-result h2").text
        self.check(title == "Verify your face first", "the result Verify your face first", title)
        self.click('#optout-result button[data-value="ok"]')
        self.open("biometric")
        self.click("#start-authentication")
        self.click('#selfie-confirm button[data-value="start"]')
        title, fields = self.result_dialog()
        self.check(fields.get("Biometric Result") == "MATCHED", "Biometric Result MATCHED", (title, fields))
        self.click('#selfie-result button[data-value="dashboard"]')
        self.open("optin")
        self.find('#template-status-card[data-status-code="100"]')
        self.click("#optout")
        self.click('#optout-confirm button[data-value="delete"]')
        title = self.find("#optout-result h2").text
        self.check(title == "Template deleted", "the result Template deleted", title)
        self.click('#optout-result button[data-value="ok"]')
        self.find('#template-status-card[data-status-code="600"]')
        self.open("biometric")
        self.find('#template-status-card[data-status-code="600"]')
        self.check(self.find("#start-authentication").get_attribute("disabled") is not None, "Start authentication disabled", "it enabled")

    def kyc(self):
        """Identity verification (workflow 6) enrols a new user: a document photo chosen from
        disk, compared with a live selfie (take B: this user has no earlier takes to replay)."""
        self.account(self.video("take-b", start=100))
        self.open("optin")
        self.find('#template-status-card[data-status-code="600"]')
        self.click("#consent-accept")
        self.find("#kyc-document").send_keys(os.path.join(self.frames, "frame_0120.jpg"))
        self.click("#start-kyc")
        self.click('#selfie-confirm button[data-value="start"]')
        title, fields = self.result_dialog()
        self.check("Identity verified" in title and fields.get("Biometric Result") in ("MATCHED", "ENROLLED"),
                   "Identity verified, Biometric Result MATCHED or ENROLLED", (title, fields))
        self.click('#selfie-result button[data-value="dashboard"]')
        self.open("optin")
        self.find('#template-status-card[data-status-code="100"]')

    def devices_listed_and_unbound(self):
        """Devices: a second device bound by a registration code shows how and from where it was
        bound, and the user unbinds it with the password again."""
        from cryptography.hazmat.primitives.asymmetric import ec

        self.account(self.video("still"))
        user = self.find("#who").text.removeprefix("Signed in as ").strip()
        self.check(user == self.user, f"signed in as {self.user}", user)
        code = self.rp("POST", f"/v1/users/{user}/registration-code")["registration_code"]
        numbers = ec.generate_private_key(ec.SECP256R1()).public_key().public_numbers()
        coordinate = lambda value: base64.urlsafe_b64encode(value.to_bytes(32, "big")).rstrip(b"=").decode()
        answer = requests.post(self.base + "/v1/devices/register", timeout=30, json={
            "user_id": user, "registration_code": code, "device_name": "Work laptop",
            "device_public_key": {"kty": "EC", "crv": "P-256", "x": coordinate(numbers.x), "y": coordinate(numbers.y)}})
        self.check(answer.status_code == 201, "the device registered (201)", f"{answer.status_code} {answer.text}")
        laptop = answer.json()["device_id"]
        self.open("devices")
        item = self.find(f'#device-list li[data-device="{laptop}"]')
        bound_by, text = item.get_attribute("data-bound-by"), item.text
        self.check(bound_by == "registration_code" and "from 127.0.0.1" in text, "the laptop bound by registration_code from 127.0.0.1",
                   (bound_by, text))
        self.check("On probation" in text, "the laptop shown on probation (bound without another device's approval)", text)
        self.find('#device-list li[data-bound-by="activation"]')
        self.click(f'#device-list button.device-revoke[data-device="{laptop}"]')
        self.type("#device-revoke-password", PASSWORD)
        self.click('#device-revoke-dialog button[type="submit"]')
        self.find("#device-revoked")
        listed = self.rp("GET", f"/v1/users/{user}/devices")["devices"]
        self.check(any(d["device_id"] == laptop and d.get("revoked_at") for d in listed), f"{laptop} listed as revoked", listed)

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
    return Suite(config).run()


if __name__ == "__main__":
    sys.exit(main())
