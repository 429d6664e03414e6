// The app's entry: activation, sign-in with this browser's device key, the password change a
// 110 answer asks for, the dashboard, sign-out. Importing the other screens registers them.
import { api, E, state, h, field, banner, showError, busy, screen, navigate, show, endSession, takeSessionNotice, formatTime, utf8, base64url } from "./core.js";
import { devices, newKeyPair, signRaw } from "./device.js";
import { status as code } from "./contract.js";
import "./biometric.js";
import "./documentscan.js";
import "./notifications.js";
import { signInWithPasskey } from "./passkeys.js";
import "./devices.js";
import "./admin.js";

function browserName() {
  const platform = navigator.userAgentData?.platform || navigator.platform || "this computer";
  return `Web browser on ${platform}`.slice(0, 100);
}

/** Stores the session of a 100 answer and opens the dashboard. */
function startSession(result) {
  state.session = {
    token: result.session.token, userID: result.user_id, deviceID: result.device_id ?? result.session.device_id,
    expiresAt: result.session.expires_at,
  };
  navigate("dashboard");
}

/** Says what a non-100 credential outcome means. */
function outcomeMessage(result) {
  switch (result.status_code) {
    case 401: return `Sign-in refused: ${result.status_message}. Attempts left: ${result.attempts_left}.`;
    case 153: return `Too many failed attempts: the account is locked (${result.status_message}).`;
    default: return `${result.status_message} (${result.status_code})`;
  }
}

screen("activate", {
  title: "Activate this browser",
  render(view) {
    const errors = h("div", { id: "activate-error" });
    const form = h("form", { id: "activate-form", class: "card stack", novalidate: true },
      h("p", {}, "Bind this browser to your account with the activation code you were given. The browser keeps a key that cannot be copied out of it; it signs you in from then on."),
      field({ id: "activate-user", label: "User id", autocomplete: "username", required: true, autocapitalize: "none" }),
      field({ id: "activate-code", label: "Activation code", autocomplete: "one-time-code", required: true, autocapitalize: "characters" }),
      field({ id: "activate-password", label: "New password", type: "password", autocomplete: "new-password", required: true, minlength: "8", hint: "At least 8 characters." }),
      field({ id: "activate-password2", label: "New password again", type: "password", autocomplete: "new-password", required: true }),
      field({ id: "activate-device", label: "Name of this device", value: browserName(), maxlength: "100" }),
      errors,
      h("button", { type: "submit", class: "primary", id: "activate-submit" }, "Activate"));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const value = (id) => form.querySelector(`#${id}`).value;
      const userID = value("activate-user").trim();
      if (!userID || !value("activate-code").trim()) return showError(errors, new Error("Enter your user id and activation code."));
      if (value("activate-password") !== value("activate-password2")) return showError(errors, new Error("The two passwords differ."));
      const button = form.querySelector("#activate-submit");
      button.disabled = true;
      button.textContent = "Activating…";
      try {
        const keys = await newKeyPair();
        const result = await api(E.activate, { body: {
          user_id: userID, activation_code: value("activate-code").trim(), password: value("activate-password"),
          device_name: value("activate-device").trim() || browserName(), device_public_key: keys.publicJWK,
        } });
        if (result.status_code !== 100) throw new Error(outcomeMessage(result));
        await devices.put({ userID, deviceID: result.device_id, name: value("activate-device"), ...keys, passkeys: [] });
        startSession(result);
      } catch (error) {
        showError(errors, error);
      } finally {
        button.disabled = false;
        button.textContent = "Activate";
      }
    });
    view.append(form);
  },
});

screen("login", {
  title: "Sign in",
  async render(view) {
    const notice = takeSessionNotice();
    if (notice) view.append(banner("info", notice, { id: "login-notice" }));
    const bound = await devices.all();
    view.append(bound.length > 0 ? deviceLoginForm(bound)
      : h("div", { class: "card stack", id: "newcomer" },
        h("p", {}, "Custos approves what you do with the services you use: sign-ins, payments, changes to your account. " +
          "This browser becomes one of your devices; it can then approve requests with your password, its own key, or a live selfie " +
          "checked against the face template you choose to store here."),
        h("p", {}, "To start, you need the activation code that the service using Custos gave you (by letter, e-mail or at its desk). " +
          "This browser is not bound to any account yet."),
        h("p", {}, h("a", { href: "#/activate", class: "button primary", id: "go-activate" }, "Activate with a code"))));
    view.append(passkeyLoginForm(),
      h("p", { class: "muted" }, "Another account? ", h("a", { href: "#/activate" }, "Activate it in this browser"), "."));
  },
});

/** Sign-in with this browser's device key (one per account activated here). */
function deviceLoginForm(bound) {
  const errors = h("div", { id: "login-error" });
  const select = h("select", { id: "login-user", name: "login-user" },
    bound.map((record) => h("option", { value: record.userID }, `${record.userID} (${record.name ?? record.deviceID})`)));
  const form = h("form", { id: "login-form", class: "card stack" },
    h("div", { class: "field" }, h("label", { for: "login-user" }, "Account"), select),
    field({ id: "login-password", label: "Password", type: "password", autocomplete: "current-password",
      hint: "Asked when the server's policy wants it (by default, at every sign-in); this browser's key signs you in." }),
    errors,
    h("button", { type: "submit", class: "primary", id: "login-submit" }, "Sign in"));
  submitting(form, "#login-submit", errors, () => signIn(select.value, form.querySelector("#login-password").value, errors));
  return form;
}

/** Sign-in with a passkey: no account to pick, the authenticator offers its passkeys for this server. */
function passkeyLoginForm() {
  const errors = h("div", { id: "passkey-login-error" });
  const form = h("form", { id: "passkey-login-form", class: "card stack" },
    h("h2", {}, "Sign in with a passkey"),
    field({ id: "passkey-login-password", label: "Password", type: "password", autocomplete: "current-password",
      hint: "Asked when the server's policy wants it (by default, at every sign-in)." }),
    errors,
    h("button", { type: "submit", class: "secondary", id: "login-passkey" }, "Sign in with a passkey"));
  submitting(form, "#login-passkey", errors, async () => {
    const result = await signInWithPasskey(form.querySelector("#passkey-login-password").value);
    if (result.status_code === code.success) return startSession(result);
    throw new Error(outcomeMessage(result));
  });
  return form;
}

/** Runs `work` on submit with the button disabled, showing its error. */
function submitting(form, buttonSelector, errors, work) {
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    busy(form.querySelector(buttonSelector), errors, work);
  });
}

async function signIn(userID, password, errors) {
  const record = await devices.get(userID);
  const challenge = await api(E.loginChallenge, { body: { user_id: userID, device_id: record.deviceID } });
  if (challenge.password_required && !password) {
    throw new Error("Enter your password: the server asks for it at this sign-in.");
  }
  const signature = base64url(await signRaw(record.privateKey, utf8(challenge.nonce)));
  const body = { user_id: userID, device_id: record.deviceID, nonce: challenge.nonce, signature };
  if (password) body.password = password;
  const result = await api(E.login, { body });
  if (result.status_code === code.success) return startSession(result);
  if (result.status_code === code.passwordExpired) return changeExpiredPassword(userID, password, result.password_change_token, errors);
  throw new Error(outcomeMessage(result));
}

/** 110: the password expired; the single-use token lets the user set a new one, then sign in. */
function changeExpiredPassword(userID, oldPassword, token, errors) {
  const form = h("form", { id: "password-change-form", class: "stack" },
    banner("info", "Your password has expired. Choose a new one."),
    field({ id: "change-new", label: "New password", type: "password", autocomplete: "new-password", required: true }),
    h("button", { type: "submit", class: "primary", id: "change-submit" }, "Change password"));
  errors.replaceChildren(form);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const newPassword = form.querySelector("#change-new").value;
    try {
      const result = await api(E.changePassword, { body: {
        user_id: userID, old_password: oldPassword, new_password: newPassword, password_change_token: token,
      } });
      if (result.status_code !== 100) throw new Error(outcomeMessage(result));
      await signIn(userID, newPassword, errors);
    } catch (error) {
      showError(errors, error);
    }
  });
}

screen("dashboard", {
  title: "Dashboard",
  session: true,
  async render(view) {
    const session = state.session;
    // Without a template the biometric screens can do nothing yet: opt-in comes first.
    const status = await api(E.templateStatus, { auth: "session" }).catch(() => null);
    const noTemplate = status?.status_code === code.noTemplate;
    const optIn = tile("optin", "Biometric opt-in / opt-out", "Store your face template on the server, verify your identity, or delete it.");
    const tiles = [
      tile("biometric", "🔐 Biometric Authentication", "Check your face template and authenticate with a live selfie."),
      tile("notifications", "Notifications", "Approve or reject requests from the services you use."),
      optIn,
      tile("documentscan", "Additional Document Scan", "Add an identity document: its portrait is matched against your template."),
      tile("passkeys", "Passkeys", "Add a passkey: sign in with it here and in apps that use Custos."),
      tile("devices", "Devices", "See what is bound to your account, from where, and unbind what you do not recognise."),
    ];
    if (noTemplate) tiles.unshift(tiles.splice(tiles.indexOf(optIn), 1)[0]);
    view.append(
      h("section", { class: "card", id: "dashboard-session" },
        h("h2", {}, `Welcome, ${session.userID}`),
        h("dl", { class: "details" },
          h("dt", {}, "Device"), h("dd", {}, session.deviceID),
          h("dt", {}, "Session ends"), h("dd", {}, formatTime(session.expiresAt)))),
      noTemplate ? banner("info", "Start here: store your face template with a live selfie (biometric opt-in). " +
        "Biometric authentication and approvals that ask for a selfie need it.", { id: "dashboard-optin-first" }) : null,
      h("nav", { class: "tiles", "aria-label": "Features" }, tiles));
  },
});

function tile(name, title, text) {
  return h("a", { class: "tile card", href: `#/${name}`, id: `tile-${name}` }, h("strong", {}, title), h("span", { class: "muted" }, text));
}

screen("signout", {
  title: "Sign out",
  session: true,
  async render() {
    await api(E.logout, { auth: "session" }).catch(() => {});
    endSession("You are signed out.");
  },
});

window.addEventListener("hashchange", show);
show();
