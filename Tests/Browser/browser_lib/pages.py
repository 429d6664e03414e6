"""The app's files and pages: security headers, canonical JSON, text an attacker wrote."""
import base64
import hashlib
import json
import os
import secrets
import urllib.parse

import requests


class PagesFlows:
    """Flows of `Suite` (browser_lib.driver), mixed into the suite browser_flows.py runs."""

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

    def canonical_json_matches_the_golden_cases(self):
        """The web app's canonicalJSON writes the same bytes as the server's StepUpContent for the
        shared golden cases (Tests/Fixtures/step-up-content.json, which WireGoldenTests holds Swift to)."""
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Fixtures", "step-up-content.json"), encoding="utf-8") as handle:
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
