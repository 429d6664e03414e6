"""The browser and the relying party a flow works with: Chromium on a fake camera, the checks, the
flows' own users. Each screen's flows are a mixin beside this (see browser_flows.py)."""
import json
import os
import secrets
import shutil
import subprocess
import tempfile
import time

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

    def authenticator(self):
        self.driver.execute_cdp_cmd("WebAuthn.enable", {"enableUI": False})
        return self.driver.execute_cdp_cmd("WebAuthn.addVirtualAuthenticator", {"options": {
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
            "isUserVerified": True, "automaticPresenceSimulation": True}})["authenticatorId"]
