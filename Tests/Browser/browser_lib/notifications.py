"""The notifications screen: each level of proof, number matching, an expired password."""
import re

from browser_lib.driver import PASSWORD


class NotificationsFlows:
    """Flows of `Suite` (browser_lib.driver), mixed into the suite browser_flows.py runs."""

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
