"""The operator's screens: the audit trail."""


class AdminFlows:
    """Flows of `Suite` (browser_lib.driver), mixed into the suite browser_flows.py runs."""

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
