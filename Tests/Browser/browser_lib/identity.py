"""Accounts and devices: the admin screen, activation, the dashboard, the devices screen."""
import base64
import re
import os
import secrets
import time

import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from browser_lib.driver import PASSWORD, SIZES


class IdentityFlows:
    """Flows of `Suite` (browser_lib.driver), mixed into the suite browser_flows.py runs."""

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
        # The user's OpenID claims, edited on the screen and read back through the API.
        self.click(f'#admin-user-table tr[data-user="{user}"] button.claims')
        self.type("#admin-claim-name", "Web Tester")
        self.type("#admin-claim-email", f"{user}@example.com")
        self.click("#admin-claim-email_verified")
        self.click("#admin-claims-save")
        WebDriverWait(self.driver, 30).until(lambda driver: "Claims of" in driver.find_element(By.ID, "admin-status").text)
        stored = requests.get(f"{self.base}/v1/users/{user}/claims", headers={"Authorization": f"Bearer {self.admin_key}"}, timeout=10).json()
        self.check({k: stored.get(k) for k in ["name", "email", "email_verified"]} == {"name": "Web Tester", "email": f"{user}@example.com", "email_verified": True}
                   and isinstance(stored.get("updated_at"), int), "the claims saved from the admin screen", stored)
        # A value the server refuses is shown with its code, and nothing changes.
        self.type("#admin-claim-phone_number", "0612")
        self.click("#admin-claims-save")
        refused = self.find('#admin-claims-error [data-error-code="invalid_field"]').text
        self.check("phone_number" in refused, "the refused claim named on the screen", refused)
        again = requests.get(f"{self.base}/v1/users/{user}/claims", headers={"Authorization": f"Bearer {self.admin_key}"}, timeout=10).json()
        self.check(again == stored, "a refused save changes nothing", again)
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
