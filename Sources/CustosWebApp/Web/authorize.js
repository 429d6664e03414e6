// The OpenID authorization endpoint's sign-in and consent page. The server checked the request
// before serving this page; the user signs in with this browser's device key or a passkey, which
// answers the bound-device sign-in challenge, and the browser goes back to the app with the code.
import { api, E, h, banner, showError } from "./core.js";
import { devices, deviceAssertion, passkeyAssertion } from "./device.js";

const SCOPES = {
  openid: "your user id",
  offline_access: "staying signed in (a refresh token)",
  profile: "your name and profile details",
  email: "your email address",
  phone: "your phone number",
  address: "your postal address",
};

const query = new URLSearchParams(location.search);
/** The device's refusals that are the request's answer (OIDC Core 3.1.2.6), not the page's. */
const RETURNED = new Set(["unmet_authentication_requirements", "login_required"]);
const clientName = document.body.dataset.clientName || query.get("client_id");
const issuer = document.body.dataset.issuer || location.origin;

/** The authorization request's parameters, as the device sign-in takes them. */
function authorizationRequest() {
  const request = {};
  for (const name of ["client_id", "redirect_uri", "response_type", "scope", "state", "nonce", "code_challenge", "code_challenge_method", "prompt",
    "acr_values", "login_hint", "id_token_hint", "response_mode"]) {
    if (query.has(name)) request[name] = query.get(name);
  }
  if (query.has("max_age")) request.max_age = Number(query.get("max_age"));
  if (query.has("encrypted")) request.encrypted = query.get("encrypted") === "true";
  return request;
}

/**
 * Back to the app with `fields`: in the redirect URI's query, or with response_mode=form_post
 * posted to it as a form (the page's policy lets forms reach that origin).
 */
function returnToClient(fields) {
  const answer = { ...fields, iss: issuer };
  if (query.has("state")) answer.state = query.get("state");
  if (query.get("response_mode") === "form_post") {
    const form = h("form", { method: "post", action: query.get("redirect_uri"), id: "authorize-form-post", hidden: true },
      Object.entries(answer).map(([name, value]) => h("input", { type: "hidden", name, value })));
    document.body.append(form);
    form.submit();
    return;
  }
  const target = new URL(query.get("redirect_uri"));
  for (const [name, value] of Object.entries(answer)) target.searchParams.set(name, value);
  location.assign(target.toString());
}

/** Back to the app with an error: access_denied when the user cancels. */
function cancel(error = "access_denied", description = "the user cancelled the sign-in") {
  returnToClient({ error, error_description: description });
}

async function signIn(button, errors, deviceID, assert) {
  errors.replaceChildren();
  for (const other of document.querySelectorAll("button")) other.disabled = true;
  button.textContent = "Signing in…";
  try {
    const challenge = await api(E.beginDeviceSignIn, { body: { device_id: deviceID, ...authorizationRequest() } });
    const assertion = await assert(challenge);
    const answer = await api(E.completeDeviceSignIn, { params: [challenge.authorization_id], body: assertion });
    errors.replaceChildren(banner("ok", `Signed in. Returning to ${clientName}…`, { id: "authorize-done" }));
    if (query.get("response_mode") === "form_post") returnToClient({ code: answer.code });
    else location.assign(answer.location);
  } catch (error) {
    // What no other choice here can change goes back to the app, as the server would send it.
    if (RETURNED.has(error?.code) && document.querySelectorAll("#authorize-choices button").length === 1) {
      cancel(error.code, error.message);
      return;
    }
    showError(errors, error);
    for (const other of document.querySelectorAll("button")) other.disabled = false;
    button.textContent = button.dataset.label;
  }
}

function choice(label, attributes, onclick) {
  const button = h("button", { type: "button", class: "primary wide", "data-label": label, ...attributes }, label);
  button.addEventListener("click", () => onclick(button));
  return button;
}

async function render() {
  const main = document.getElementById("view");
  const errors = h("div", { id: "authorize-error" });
  // What the server grants (scopes the client may not have are left out), not what was asked.
  const scopes = (document.body.dataset.scope ?? "").split(" ").filter(Boolean);
  main.append(
    h("h1", { id: "screen-title", tabindex: "-1" }, `Sign in to ${clientName}`),
    h("section", { class: "card", id: "consent" },
      h("p", {}, `${clientName} asks Custos to confirm who you are and to share:`),
      h("ul", {}, scopes.map((scope) => h("li", {}, SCOPES[scope] ?? scope)))));
  // The request names a user (login_hint, or an id_token_hint's subject, as the server read
  // it): only that user's accounts are offered.
  const hint = document.body.dataset.loginHint ?? "";
  const records = (await devices.all()).filter((record) => !hint || record.userID === hint);
  const buttons = [];
  for (const record of records) {
    buttons.push(choice(`Continue as ${record.userID} with this browser`, { class: "primary wide signin-device", "data-user": record.userID },
      (button) => signIn(button, errors, record.deviceID, (challenge) => deviceAssertion(challenge, record))));
    for (const passkey of record.passkeys ?? []) {
      buttons.push(choice(`Continue as ${record.userID} with passkey “${passkey.name}”`,
        { class: "secondary wide signin-passkey", "data-user": record.userID, "data-device": passkey.deviceID },
        (button) => signIn(button, errors, passkey.deviceID, (challenge) => passkeyAssertion(challenge, passkey.credentialID))));
    }
  }
  if (buttons.length === 0 && hint) {
    main.append(banner("info", ["This sign-in is for the account ", h("strong", {}, hint),
      ", which this browser is not bound to. Approve it in the app on that account's device, or cancel."], { id: "authorize-other-user" }));
  } else if (buttons.length === 0) {
    main.append(banner("info", "This browser is not bound to an account. Activate it in the Custos app, or approve the sign-in in the app on your bound device.", { id: "authorize-unbound" }),
      h("p", {}, h("a", { href: "/app/#/activate", target: "_blank", rel: "noopener" }, "Open the Custos app")));
  }
  main.append(h("div", { class: "stack", id: "authorize-choices" }, buttons), errors,
    h("button", { type: "button", class: "secondary wide", id: "authorize-cancel", onclick: () => cancel() }, "Cancel"));
  document.getElementById("screen-title").focus();
}

render().catch((error) => showError(document.getElementById("view"), error));
