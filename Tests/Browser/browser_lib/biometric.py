"""The selfie screens: authentication, liveness, cancelling, lockout, errors, opt-out, KYC, document scan."""
import re
import os

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait


class BiometricFlows:
    """Flows of `Suite` (browser_lib.driver), mixed into the suite browser_flows.py runs."""

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
