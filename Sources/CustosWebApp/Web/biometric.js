// Server biometrics: the Biometric Authentication screen of the seed (the template status card
// and banner, the Start Authentication button's states), and opt-in / KYC / opt-out.
import { api, E, h, banner, showError, showDialog, screen, blobBase64, busy } from "./core.js";
import { status as code, workflow } from "./contract.js";
import { runSelfie, showResultDialog } from "./selfie.js";

/** The consent text's version: the server records which text the user accepted. */
export const CONSENT_VERSION = "custos-web-2026-12";
const CONSENT_TEXT = "I agree that a template of my face is computed from a live selfie, stored encrypted on this " +
  "server, and compared with new selfies when I authenticate. I can delete it at any time with opt-out.";

/** The template status card: green banner for 100, red with the opt-in note for 600. */
function statusCard(status) {
  const exists = status.status_code === code.success;
  return h("section", { class: `card status ${exists ? "ok" : "error"}`, id: "template-status-card", "data-status-code": status.status_code },
    h("h2", {}, exists ? "✅ Biometric Template Status" : "⚠️ Biometric Template Status"),
    banner(exists ? "ok" : "error",
      exists ? "Your biometric template is stored on the server. You can proceed with authentication."
        : "No biometric template found on the server. Please complete biometric opt-in first.",
      { id: "template-banner" }),
    h("p", { class: "muted", id: "template-status-code" }, `Status: ${status.status_message} (Code: ${status.status_code})`));
}

/** The card when the check itself failed: no status to show, the reason instead. */
function errorCard(error) {
  return h("section", { class: "card status error", id: "template-status-card", "data-status-code": "error" },
    h("h2", {}, "⚠️ Biometric Template Status"),
    banner("error", `Error: ${errorText(error)}`, { id: "template-banner" }));
}

/** An error's words, with its code when the server gave one. */
function errorText(error) {
  return error?.code ? `${error.message} (${error.code})` : String(error?.message ?? error);
}

async function templateStatus() {
  return api(E.templateStatus, { auth: "session" });
}

let refreshOnReturn = null;

screen("biometric", {
  title: "Biometric Authentication",
  session: true,
  render(view) {
    const ui = {
      card: h("div", { id: "template-status" }),
      button: h("button", { type: "button", class: "primary", id: "start-authentication" }, "Start Authentication"),
      note: h("p", { class: "hint", id: "start-disabled-note", hidden: true }, "Authentication needs a biometric template: complete biometric opt-in first. ",
        h("a", { href: "#/optin" }, "Go to opt-in")),
      errors: h("div", { id: "biometric-error" }),
      status: null, checking: false, authenticating: false,
    };
    const render = () => updateButton(ui);
    const check = async () => {
      ui.checking = true;
      render();
      try {
        ui.status = await templateStatus();
        ui.card.replaceChildren(statusCard(ui.status));
      } catch (error) {
        // The seed's error state: the card says so, the button stays off, and the alert explains.
        ui.status = null;
        ui.card.replaceChildren(errorCard(error));
        await showDialog({ id: "template-check-error", title: "Template Status Check Error",
          body: [h("p", {}, `Failed to check template status: ${errorText(error)}`)] });
      } finally {
        ui.checking = false;
        render();
      }
    };
    ui.button.addEventListener("click", async () => {
      ui.authenticating = true;
      ui.errors.replaceChildren();
      render();
      try {
        let transaction;
        try {
          transaction = await api(E.initiateIDV, { body: { workflow: workflow.serverBiometricAuthentication, reason: "Server Biometric Authentication" }, auth: "session" });
        } catch (error) {
          await showDialog({ id: "start-error", title: "Authentication Error",
            body: [h("p", {}, `Failed to initiate authentication: ${errorText(error)}`)] });
          return;
        }
        if (transaction.result) await showResultDialog(transaction.result, workflow.serverBiometricAuthentication);
        else await runSelfie({ transactionID: transaction.idv_audit_transaction_id, workflow: workflow.serverBiometricAuthentication, reason: transaction.reason });
      } catch (error) {
        showError(ui.errors, error);
      } finally {
        ui.authenticating = false;
        if (location.hash === "#/biometric") await check();
      }
    });
    view.append(h("p", {}, "Your face template lives on the server. A live selfie is compared with it; the server answers with the result and the attempts left."),
      ui.card, ui.errors, h("div", { class: "stack" }, ui.button, ui.note));
    refreshOnReturn = () => { if (document.visibilityState === "visible" && !ui.authenticating) check(); };
    document.addEventListener("visibilitychange", refreshOnReturn);
    return check();
  },
  leave() {
    if (refreshOnReturn) document.removeEventListener("visibilitychange", refreshOnReturn);
    refreshOnReturn = null;
  },
});

/** The seed's button states: checking, authenticating, disabled with its note, enabled. */
function updateButton(ui) {
  const exists = ui.status?.status_code === code.success;
  if (ui.checking) {
    ui.button.textContent = "Checking Template Status...";
    ui.button.disabled = true;
    ui.note.hidden = true;
  } else if (ui.authenticating) {
    ui.button.textContent = "Authenticating...";
    ui.button.disabled = true;
    ui.note.hidden = true;
  } else {
    ui.button.textContent = "Start Authentication";
    ui.button.disabled = !exists;
    ui.note.hidden = !ui.status || exists;
  }
  ui.button.dataset.state = ui.checking ? "checking" : ui.authenticating ? "authenticating" : exists ? "enabled" : "disabled";
}

screen("optin", {
  title: "Biometric opt-in / opt-out",
  session: true,
  async render(view) {
    const current = h("div", { id: "optin-status" });
    const errors = h("div", { id: "optin-error" });
    const refresh = async () => current.replaceChildren(statusCard(await templateStatus()));
    const consent = h("input", { type: "checkbox", id: "consent-accept" });
    const consentBox = h("fieldset", { class: "card stack", id: "consent" },
      h("legend", {}, "Consent"),
      h("p", { id: "consent-text" }, CONSENT_TEXT),
      h("p", { class: "muted", id: "consent-version" }, `Consent text version ${CONSENT_VERSION}`),
      h("div", { class: "check" }, consent, h("label", { for: "consent-accept" }, "I have read and accept this")));
    const requireConsent = () => {
      if (!consent.checked) throw new Error("Accept the consent text first.");
      return { accepted: true, version: CONSENT_VERSION };
    };
    const run = (button, work) => button.addEventListener("click", async () => {
      await busy(button, errors, work);
      await refresh().catch((error) => showError(errors, error));
    });

    const optIn = h("button", { type: "button", class: "primary", id: "start-optin" }, "Opt in with a live selfie");
    run(optIn, async () => {
      const transaction = await api(E.initiateIDV,
        { body: { workflow: workflow.biometricOptIn, consent: requireConsent(), reason: "Biometric opt-in" }, auth: "session" });
      await runSelfie({ transactionID: transaction.idv_audit_transaction_id, workflow: workflow.biometricOptIn, reason: transaction.reason });
    });

    const documentInput = h("input", { type: "file", id: "kyc-document", accept: "image/jpeg,image/png", capture: "environment" });
    const kyc = h("button", { type: "button", class: "secondary", id: "start-kyc" }, "Verify my identity");
    run(kyc, async () => {
      const file = documentInput.files?.[0];
      if (!file) throw new Error("Choose or take a photo of your identity document first.");
      const documentImage = await blobBase64(file);
      const transaction = await api(E.initiateIDV,
        { body: { workflow: workflow.kyc, consent: requireConsent(), reason: "Identity verification" }, auth: "session" });
      await runSelfie({ transactionID: transaction.idv_audit_transaction_id, workflow: workflow.kyc, reason: transaction.reason, documentImage });
    });

    const optOut = h("button", { type: "button", class: "danger", id: "optout" }, "Opt out: delete my template");
    run(optOut, async () => {
      const choice = await showDialog({
        id: "optout-confirm", title: "Delete your biometric template?",
        body: [h("p", {}, "Biometric authentication stops working until you opt in again.")],
        actions: [{ label: "Cancel", value: "cancel" }, { label: "Delete", value: "delete", primary: true }],
      });
      if (choice !== "delete") return;
      let status;
      try {
        status = await api(E.optOut, { auth: "session" });
      } catch (error) {
        // Deleting the template needs the proof replacing it needs: a fresh match in this session.
        if (error?.code !== "template_change_needs_proof") throw error;
        await showDialog({ id: "optout-result", title: "Verify your face first",
          body: [h("p", {}, "Deleting your template needs a fresh biometric authentication on this device: "
            + "run Biometric authentication, then opt out again.")] });
        return;
      }
      await showDialog({ id: "optout-result", title: status.status_code === code.success ? "Template deleted" : "No template to delete",
        body: [h("p", {}, `${status.status_message} (Code: ${status.status_code})`)] });
    });

    view.append(current, errors, consentBox,
      h("section", { class: "card stack" }, h("h2", {}, "Opt in"),
        h("p", {}, "A live selfie creates your template. Replacing an existing one needs a fresh biometric authentication first."), optIn),
      h("section", { class: "card stack" }, h("h2", {}, "Identity verification (KYC)"),
        h("p", {}, "Your identity document's portrait is compared with a live selfie, which becomes your template."),
        h("div", { class: "field" }, h("label", { for: "kyc-document" }, "Identity document (photo of the page with your portrait)"), documentInput), kyc),
      h("section", { class: "card stack" }, h("h2", {}, "Opt out"), optOut));
    await refresh();
  },
});
