// Passkeys: the signed-in user registers one (the password again, then the browser's WebAuthn
// API and its authenticator). It then signs the user in to Custos itself, without a user id, and
// to apps on the sign-in page of the OpenID authorization endpoint.
import { api, E, state, h, banner, showError, formDialog, screen, base64url, fromBase64url, utf8, formatTime } from "./core.js";
import { devices } from "./device.js";

screen("passkeys", {
  title: "Passkeys",
  session: true,
  async render(view) {
    const errors = h("div", { id: "passkey-error" });
    const list = h("div", { id: "passkey-list" });
    const name = h("input", { id: "passkey-name", value: "Passkey", maxlength: "100" });
    const add = h("button", { type: "button", class: "primary", id: "passkey-register" }, "Add a passkey");
    const refresh = async () => {
      const record = await devices.get(state.session.userID);
      const passkeys = record?.passkeys ?? [];
      list.replaceChildren(passkeys.length === 0
        ? h("p", { class: "muted" }, "No passkey registered from this browser yet.")
        : h("ul", { class: "stack" }, passkeys.map((p) =>
          h("li", { class: "passkey", "data-device": p.deviceID }, h("strong", {}, p.name), " ", h("span", { class: "muted" }, `added ${formatTime(p.createdAt)}`)))));
    };
    add.addEventListener("click", async () => {
      errors.replaceChildren();
      add.disabled = true;
      try {
        const device = await registerPasskey(name.value.trim() || "Passkey");
        errors.replaceChildren(banner("ok", `Passkey “${device.name}” added. Apps that sign you in with Custos now offer it.`, { id: "passkey-added" }));
      } catch (error) {
        showError(errors, error);
      } finally {
        add.disabled = false;
        await refresh();
      }
    });
    view.append(
      h("p", {}, "A passkey lives in an authenticator (this computer, a phone, a security key). It signs you in here (Sign in with a passkey, no account to pick) and to apps that use Custos. Adding one asks for your password again."),
      h("section", { class: "card stack" }, h("div", { class: "field" }, h("label", { for: "passkey-name" }, "Name"), name), add),
      errors, h("section", { class: "card" }, h("h2", {}, "Passkeys added here"), list));
    await refresh();
  },
});

async function registerPasskey(name) {
  if (!window.PublicKeyCredential) throw new Error("This browser has no WebAuthn support.");
  const answer = await formDialog({
    id: "passkey-password-dialog", title: "Confirm with your password", submitLabel: "Continue",
    fields: [{ id: "passkey-password", label: "Password", type: "password", autocomplete: "current-password", required: true }],
  });
  if (!answer) throw new Error("Cancelled.");
  const options = await api(E.beginPasskeyRegistration, { body: { password: answer["passkey-password"] }, auth: "session" });
  const credential = await navigator.credentials.create({
    publicKey: {
      challenge: fromBase64url(options.challenge),
      rp: { id: options.rp_id, name: "Custos" },
      user: { id: utf8(options.user_id), name: options.user_id, displayName: options.user_id },
      pubKeyCredParams: options.algorithms.map((alg) => ({ type: "public-key", alg })),
      authenticatorSelection: { userVerification: options.user_verification, residentKey: "preferred" },
      attestation: options.attestation,
      timeout: 120000,
    },
  });
  const device = await api(E.completePasskeyRegistration, { params: [options.registration_id], body: {
    attestation_object: base64url(credential.response.attestationObject),
    client_data_json: base64url(credential.response.clientDataJSON),
    name,
  }, auth: "session" });
  // The credential id is public (it names the passkey, it proves nothing): remembered so the
  // sign-in page can offer this passkey.
  const record = await devices.get(state.session.userID);
  if (record) {
    record.passkeys = [...(record.passkeys ?? []), { deviceID: device.device_id, credentialID: base64url(credential.rawId), name: device.name, createdAt: device.created_at }];
    await devices.put(record);
  }
  return device;
}

/**
 * Signs in to Custos with a passkey, without a user id: the authenticator offers the passkeys
 * it holds for this server. Resolves with the login's answer (AuthenticationResult).
 */
export async function signInWithPasskey(password) {
  if (!window.PublicKeyCredential) throw new Error("This browser has no WebAuthn support.");
  const challenge = await api(E.beginPasskeyLogin);
  const credential = await navigator.credentials.get({
    publicKey: {
      challenge: fromBase64url(challenge.challenge), rpId: challenge.rp_id,
      userVerification: challenge.user_verification, allowCredentials: [], timeout: 120000,
    },
  });
  const body = {
    credential_id: "pk_" + base64url(credential.rawId),
    authenticator_data: base64url(credential.response.authenticatorData),
    client_data_json: base64url(credential.response.clientDataJSON),
    signature: base64url(credential.response.signature),
  };
  if (password) body.password = password;
  return api(E.passkeyLogin, { body });
}
