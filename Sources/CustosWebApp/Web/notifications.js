// The notifications screen: the pending and answered notifications (refreshed every 5 s while
// shown), the action modal (number matching, one button per action), the step-up each action's
// level asks for (the password or a passkey, this device's signature over the notification's
// canonical content, a live selfie), and the result alert that ends every answer. Also `canonicalJSON`, the rule
// the device signature is computed over.
import {
  api, E, ApiError, state, h, banner, showError, showDialog, formDialog, screen, endSession, formatTime, base64url, fromBase64url, utf8,
  lockedNotice,
} from "./core.js";
import { devices, signRaw } from "./device.js";
import { runSelfie } from "./selfie.js";
import { authLevel, challengeMode, status as code, workflow } from "./contract.js";

const REFRESH_MS = 5000;
/** More answers than this in one flow means something is wrong: stop and say so. */
const MAX_ROUNDS = 20;
/** What each auth level asks of the user. */
const LEVEL_ASKS = { 0: "none", 1: "password", 2: "an app-defined check", 3: "this device's signature", 4: "a live selfie" };

// MARK: canonical JSON

/**
 * Canonical JSON as the server signs and verifies it: object keys sorted at every level, no
 * whitespace, null and absent members left out, `/` not escaped (JSON.stringify does not).
 */
export function canonicalJSON(value) {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJSON).join(",")}]`;
  if (typeof value === "object") {
    const keys = Object.keys(value).filter((key) => value[key] !== null && value[key] !== undefined).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJSON(value[key])}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** What a level 3 answer signs: the notification as shown, the action and the number sent. */
function signingContent(notification, body) {
  return {
    notification_uuid: notification.notification_uuid,
    action: body.action,
    subject: notification.subject,
    message: notification.message,
    authorization_details: notification.authorization_details,
    number: body.number,
  };
}

// MARK: the screen

/** The shown screen's parts; null when another screen is shown. */
let page = null;
let timer = null;
/** Closes the open action modal (on leaving the screen). */
let closeModal = null;

screen("notifications", { title: "Notifications", session: true, render, leave });

async function render(view) {
  stopTimer();
  const message = h("div", { id: "notifications-message" });
  const updated = h("span", { id: "notifications-updated", class: "muted" });
  const refreshButton = h("button", { type: "button", id: "notifications-refresh", class: "secondary",
    onclick: () => refresh({ announce: true }) }, "Refresh");
  const pending = h("div", { id: "notifications-pending", class: "stack", "aria-labelledby": "notifications-pending-title" });
  const history = h("div", { id: "notifications-history", class: "stack", "aria-labelledby": "notifications-history-title" });
  view.append(
    h("div", { class: "row" }, refreshButton, updated),
    message,
    h("section", {}, h("h2", { id: "notifications-pending-title" }, "Pending"), pending),
    h("section", {}, h("h2", { id: "notifications-history-title" }, "History"), history));
  const current = { message, updated, pending, history, refreshButton, shown: { pending: null, history: null }, loading: null, lastError: null };
  page = current;
  await refresh();
  if (page !== current) return; // left while loading
  timer = setInterval(() => { if (!document.hidden) refresh(); }, REFRESH_MS);
}

function leave() {
  stopTimer();
  page = null;
  closeModal?.(null);
}

function stopTimer() {
  if (timer !== null) clearInterval(timer);
  timer = null;
}

/**
 * Reloads both lists. `announce`: the user asked (a status banner, errors focused); the timer's
 * refreshes stay quiet. A refresh already running is waited for, then done again.
 */
async function refresh({ announce = false } = {}) {
  const current = page;
  if (!current || !state.session) return;
  while (current.loading) await current.loading;
  if (page !== current || !state.session) return;
  current.loading = load(current, announce).finally(() => { current.loading = null; });
  await current.loading;
}

async function load(current, announce) {
  current.pending.setAttribute("aria-busy", "true");
  current.history.setAttribute("aria-busy", "true");
  try {
    const [pending, history] = await Promise.all([
      api(E.notifications, { auth: "session" }),
      api(E.notificationHistory, { auth: "session" }),
    ]);
    if (page !== current) return;
    renderList(current, "pending", pending.notifications ?? []);
    renderList(current, "history", history.notifications ?? []);
    current.updated.textContent = `Updated ${new Date().toLocaleTimeString()}`;
    if (announce) {
      const counts = `${pending.notifications?.length ?? 0} pending, ${history.notifications?.length ?? 0} in history.`;
      current.message.replaceChildren(banner("info", counts));
    } else if (current.lastError) {
      current.message.replaceChildren();
    }
    current.lastError = null;
  } catch (error) {
    if (page !== current) return;
    reportLoadError(current, error, announce);
  } finally {
    current.pending.removeAttribute("aria-busy");
    current.history.removeAttribute("aria-busy");
  }
}

/** A failed load: focused when the user asked; otherwise shown once, not repeated every 5 s. */
function reportLoadError(current, error, announce) {
  const text = errorText(error);
  if (announce) showError(current.message, error);
  else if (current.lastError !== text) current.message.replaceChildren(banner("error", text));
  current.lastError = text;
}

function errorText(error) {
  return error instanceof ApiError ? `${error.message} (${error.code})` : String(error?.message ?? error);
}

/** Redraws a list when its content changed, keeping the focus on the same notification's button. */
function renderList(current, which, notifications) {
  const json = JSON.stringify(notifications);
  if (current.shown[which] === json) return;
  current.shown[which] = json;
  const container = current[which];
  const focused = document.activeElement?.closest?.("[data-notification]");
  const focusedID = container.contains(focused) ? focused.getAttribute("data-notification") : null;
  if (notifications.length === 0) {
    container.replaceChildren(h("p", { class: "muted empty" }, which === "pending" ? "No pending notifications" : "No history yet"));
  } else {
    container.replaceChildren(...notifications.map((n) => (which === "pending" ? pendingCard(n) : historyCard(n))));
  }
  if (focusedID) {
    const again = [...container.querySelectorAll("[data-notification]")].find((card) => card.getAttribute("data-notification") === focusedID);
    (again?.querySelector("button") ?? current.refreshButton).focus();
  }
}

// MARK: cards

/** A notification as a card: subject, message, payment details, then `terms` and `actions`. */
function card(n, terms, actions = null) {
  const titleID = `notification-${n.notification_uuid}-subject`;
  return h("article", { class: "card notification", "data-notification": n.notification_uuid, "aria-labelledby": titleID },
    h("h3", { id: titleID }, n.subject),
    h("p", { class: "message" }, multiline(n.message)),
    detailsList(n.authorization_details),
    h("dl", { class: "details" }, terms),
    actions ? h("div", { class: "row" }, actions(titleID)) : null);
}

function pendingCard(n) {
  return card(n, [
    term("Received", formatTime(n.created_at), "created_at"),
    term("Expires", formatTime(n.expires_at), "expires_at"),
    term("Status", statusBadge(n.status), "status"),
  ], (titleID) => h("button", { type: "button", class: "primary open-notification", "aria-describedby": titleID,
    onclick: () => review(n) }, "Review"));
}

function historyCard(n) {
  return card(n, [
    term("Status", statusBadge(n.status), "status"),
    n.chosen_action ? term("Action", actionName(n, n.chosen_action), "chosen_action") : null,
    n.achieved_level !== undefined && n.achieved_level !== null ? term("Level proven", levelText(n.achieved_level), "achieved_level") : null,
    n.answered_at ? term("Answered", formatTime(n.answered_at), "answered_at") : null,
    n.status === "expired" ? term("Expired", formatTime(n.expires_at), "expires_at") : null,
  ]);
}

/** The transaction details (type, amount + currency, payee, reference), or nothing. */
function detailsList(details, id) {
  if (!details) return null;
  return h("dl", { class: "details authorization-details", id },
    term("Type", details.type, "type"),
    details.amount ? term("Amount", [details.amount, details.currency].filter(Boolean).join(" "), "amount") : null,
    details.payee ? term("Payee", details.payee, "payee") : null,
    details.reference ? term("Reference", details.reference, "reference") : null);
}

function term(label, value, field) {
  return [h("dt", {}, label), h("dd", { "data-field": field }, value)];
}

function statusBadge(status) {
  return h("span", { class: `badge ${status}`, "data-status": status }, status);
}

/** Text with its line breaks kept, without parsing anything as HTML. */
function multiline(text) {
  return String(text ?? "").split("\n").flatMap((line, index) => (index === 0 ? [line] : [h("br"), line]));
}

function levelText(level) {
  return `${level} (${LEVEL_ASKS[level] ?? "unknown"})`;
}

function actionName(n, action) {
  const found = n.actions?.find((a) => a.action === action);
  return found ? `${found.label} (${action})` : action;
}

// MARK: the action modal

/** True while one notification is being answered: a second Review waits for it to end. */
let answering = false;

/** Review → the modal → the answer and its step-ups → the result alert → the lists again. */
async function review(notification) {
  if (answering) return;
  answering = true;
  try {
    let choice = await actionModal(notification);
    while (choice) {
      const next = await showEnding(await answer(flowFor(notification, choice)));
      // After the seed's 131 the action modal is kept open; or the same action with the password.
      choice = next === "password" ? { ...choice, passwordOnly: true } : next === "retry" ? await actionModal(notification) : null;
    }
  } finally {
    answering = false;
  }
}

function flowFor(notification, { action, number, passwordOnly = false }) {
  const body = number === undefined ? { action } : { action, number };
  return { notification, chosen: notification.actions.find((a) => a.action === action), body, attemptsLeft: undefined, selfie: null,
    passwordOnly, usedPasskey: false };
}

/**
 * The notification in full, the number entry (when matching), one button per action and
 * Cancel. Resolves with {action, number?}, or null when cancelled.
 */
function actionModal(n) {
  return new Promise((resolve) => {
    let picked;
    const dialog = h("dialog", { id: "notification-modal", class: "modal", "aria-labelledby": "notification-modal-title",
      "data-notification": n.notification_uuid });
    const finish = (value) => {
      if (closeModal !== finish) return;
      closeModal = null;
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    const matching = n.number_matching === true;
    const actionButtons = n.actions.map((a, index) => actionButton(a, index, matching, () => finish({ action: a.action, number: picked })));
    const entry = matching ? numberEntry(n, (number) => {
      picked = number;
      for (const button of actionButtons) button.disabled = number === undefined;
    }) : null;
    dialog.append(
      h("h2", { id: "notification-modal-title" }, n.subject),
      h("div", { class: "dialog-body" },
        h("p", { class: "message" }, multiline(n.message)),
        detailsList(n.authorization_details, "notification-modal-details"),
        h("dl", { class: "details" }, term("Expires", formatTime(n.expires_at), "expires_at")),
        entry,
        h("ul", { class: "stack notification-actions", "aria-label": "Actions" },
          n.actions.map((a, index) => h("li", {}, actionButtons[index], " ", h("small", { class: "muted", id: noteID(index) }, `Asks for: ${LEVEL_ASKS[a.auth_level] ?? `level ${a.auth_level}`}`))))),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "secondary", id: "notification-modal-cancel", "data-value": "cancel", onclick: () => finish(null) }, "Cancel")));
    dialog.addEventListener("cancel", (event) => { event.preventDefault(); finish(null); });
    closeModal?.(null);
    closeModal = finish;
    document.body.append(dialog);
    dialog.showModal();
    (dialog.querySelector("#notification-number") ?? actionButtons[0])?.focus();
  });
}

const noteID = (index) => `notification-action-note-${index}`;

function actionButton(action, index, disabled, onclick) {
  return h("button", {
    type: "button", class: `notification-action ${index === 0 ? "primary" : "secondary"}`, "data-action": action.action,
    "data-level": action.auth_level, disabled,
    "aria-describedby": disabled ? `${noteID(index)} notification-number-hint` : noteID(index), onclick,
  }, action.label);
}

/**
 * Number matching: the user types the two-digit number the sender shows on its own screen (the
 * relying party, or the new device asking to join); a whole number from 10 to 99 enables the
 * actions. Nothing here shows or hints at the number.
 */
function numberEntry(n, onEntry) {
  const hint = h("p", { id: "notification-number-hint", class: "muted" }, "Type the number to choose an action.");
  const input = h("input", {
    id: "notification-number", type: "text", inputmode: "numeric", autocomplete: "off", maxlength: "2", pattern: "[0-9]{2}",
    "aria-describedby": "notification-number-hint",
    oninput: () => {
      const value = input.value.trim();
      const valid = /^[1-9][0-9]$/.test(value);
      hint.textContent = valid ? "Now choose an action." : "Type the number to choose an action.";
      onEntry(valid ? Number(value) : undefined);
    },
  });
  return h("div", { class: "number-matching" },
    h("label", { for: "notification-number", id: "notification-number-prompt" }, `Type the number shown by the sender of “${n.subject}”`),
    input,
    hint);
}

// MARK: answering

/**
 * Answers with the action (and number), then proves each step-up the server asks for until the
 * answer ends. Resolves with the ending to show; never throws.
 */
async function answer(flow) {
  try {
    let result = await post(flow, flow.body);
    for (let round = 0; round < MAX_ROUNDS && needsProof(result); round++) {
      const proof = await prove(flow, result);
      if (proof.ending) return proof.ending;
      result = await post(flow, { ...flow.body, ...proof });
    }
    return resultEnding(flow, result);
  } catch (error) {
    return errorEnding(flow, error);
  }
}

function post(flow, body) {
  const uuid = encodeURIComponent(flow.notification.notification_uuid);
  return api(E.updateNotification, { params: [uuid], body, auth: "session" });
}

const needsProof = (result) => Boolean(result.step_up) && (result.status_code === code.stepUpRequired || result.status_code === code.credentialsRejected);

/** The proof the step-up asks for: {password} | {assertion} | {signature} | {idv_audit_transaction_id} | {ending}. */
async function prove(flow, result) {
  const stepUp = result.step_up;
  if (result.attempts_left !== undefined) flow.attemptsLeft = result.attempts_left;
  if (stepUp.challenge_mode === challengeMode.password || stepUp.auth_level === authLevel.password) {
    if (!stepUp.passkey || flow.passwordOnly || !window.PublicKeyCredential) return askPassword(flow, result);
    // An assertion the server refused stays refused: the authenticator cannot make it better.
    return flow.usedPasskey ? { ending: resultEnding(flow, result) } : askPasskey(flow, stepUp.passkey);
  }
  // A wrong signature stays wrong: signing the same content again cannot help.
  if (stepUp.auth_level === authLevel.deviceSignature) return result.status_code === code.credentialsRejected ? { ending: resultEnding(flow, result) } : signWithDevice(flow);
  if (stepUp.auth_level === authLevel.serverBiometric) return takeSelfie(flow, stepUp);
  return { ending: ending(flow, "Not answered", "error", `This app cannot prove auth level ${stepUp.auth_level}.`) };
}

/** Level 1 (challenge mode 3): the password, again after a wrong one with the attempts left. */
async function askPassword(flow, result) {
  const attempts = result.attempts_left;
  const wrong = result.status_code === code.credentialsRejected;
  const values = await formDialog({
    id: "stepup-password-dialog",
    title: "Enter your password",
    intro: `${flow.chosen?.label ?? flow.body.action}: “${flow.notification.subject}”.` +
      (!wrong && attempts !== undefined ? ` Attempts left: ${attempts}.` : ""),
    error: wrong ? (attempts !== undefined ? `Wrong password. Attempts left: ${attempts}` : "Wrong password.") : undefined,
    fields: [{ id: "stepup-password", label: "Password", type: "password", autocomplete: "current-password", required: true }],
    submitLabel: "Confirm",
  });
  if (!values) return { ending: cancelledEnding(flow) };
  return { password: values["stepup-password"] };
}

/**
 * Level 1 by the browser's own verification (the seed's LDA): one of the user's passkeys, with
 * user verification, over the challenge the server derived from this action of this
 * notification. Cancelling it is the seed's 131.
 */
async function askPasskey(flow, offer) {
  let credential;
  try {
    credential = await navigator.credentials.get({ publicKey: {
      challenge: fromBase64url(offer.challenge), rpId: offer.rp_id, userVerification: offer.user_verification, timeout: 120000,
      allowCredentials: offer.credential_ids.map((id) => ({ type: "public-key", id: fromBase64url(id.replace(/^pk_/, "")) })),
    } });
  } catch (error) {
    if (error?.name === "NotAllowedError" || error?.name === "AbortError") return { ending: ldaCancelledEnding(flow) };
    throw error;
  }
  if (!credential) return { ending: ldaCancelledEnding(flow) };
  flow.usedPasskey = true;
  return { assertion: {
    credential_id: "pk_" + base64url(credential.rawId),
    authenticator_data: base64url(credential.response.authenticatorData),
    client_data_json: base64url(credential.response.clientDataJSON),
    signature: base64url(credential.response.signature),
  } };
}

/** Level 3: this browser's device key signs the notification's canonical content, once approved. */
async function signWithDevice(flow) {
  const userID = state.session.userID;
  const record = await devices.get(userID);
  if (!record) return { ending: ending(flow, "No device key", "error", `This browser holds no device key for ${userID}.`) };
  const choice = await showDialog({
    id: "stepup-device-dialog",
    title: "Approve with this device's key?",
    body: [
      h("p", {}, `Your device key signs exactly this request: ${flow.chosen?.label ?? flow.body.action}, “${flow.notification.subject}”.`),
      detailsList(flow.notification.authorization_details),
      flow.body.number !== undefined ? h("p", {}, `Number picked: ${flow.body.number}`) : null,
    ],
    actions: [{ label: "Cancel", value: "cancel" }, { label: "Approve", value: "approve", primary: true }],
    dismissValue: "cancel",
  });
  if (choice !== "approve") return { ending: cancelledEnding(flow) };
  const canonical = canonicalJSON(signingContent(flow.notification, flow.body));
  return { signature: base64url(await signRaw(record.privateKey, utf8(canonical))) };
}

/** Level 4 (IDV workflow 9): the live selfie on the transaction the step-up started. */
async function takeSelfie(flow, stepUp) {
  const transactionID = stepUp.idv_audit_transaction_id;
  if (!transactionID) return { ending: ending(flow, "Not answered", "error", "The server asked for a selfie without its transaction.") };
  try {
    flow.selfie = await runSelfie({ transactionID, workflow: workflow.stepUpBiometric, reason: flow.notification.subject });
  } catch (error) {
    return { ending: ending(flow, "Selfie not completed", "error", `${errorText(error)} The notification is still pending.`) };
  }
  if (flow.selfie?.status_code === code.attemptsExhausted) return { ending: lockedEnding(flow, flow.selfie.status_message, flow.selfie.locked_until) };
  return { idv_audit_transaction_id: transactionID };
}

// MARK: endings

/** An ending: the alert's title, banner kind and message, and what it shows besides. */
function ending(flow, title, kind, message, extra = {}) {
  return { flow, title, kind, message, ...extra };
}

function cancelledEnding(flow) {
  return ending(flow, "Cancelled", "info", "Nothing was approved: the notification is still pending.",
    { attemptsLeft: flow.attemptsLeft });
}

/** The seed's 131 at level 1: "Keep action modal open to allow user to retry" (or use the password). */
function ldaCancelledEnding(flow) {
  return ending(flow, "Authentication Cancelled", "info", "Local device authentication was cancelled. Please try again.",
    { code: 131, statusMessage: "Local authentication cancelled", attemptsLeft: flow.attemptsLeft, retry: true });
}

/** 110 ends the session (as the seed's SDK logs off); signing in again leads to the password change. */
const EXPIRED_NOTICE = "Your password has expired and your session has ended: sign in again to set a new one, then answer.";

function lockedEnding(flow, statusMessage, lockedUntil) {
  const notice = lockedNotice(lockedUntil);
  return ending(flow, "Account locked", "error", `${statusMessage ? `${statusMessage} ` : ""}${notice}`,
    { code: 153, statusMessage, attemptsLeft: 0, after: () => endSession(notice) });
}

/** The server's last answer (HTTP 200) as an ending. */
function resultEnding(flow, result) {
  const extra = { code: result.status_code, statusMessage: result.status_message, attemptsLeft: result.attempts_left };
  switch (result.status_code) {
    case code.successAlternate:
    case code.success: {
      const level = result.notification?.achieved_level ?? flow.chosen?.auth_level;
      return ending(flow, approvedTitle(flow.body.action), "ok", result.status_message || "The notification is answered.",
        { ...extra, attemptsLeft: undefined, level });
    }
    case code.credentialsRejected:
      return ending(flow, "Not verified", "error", `${result.status_message} The notification is still pending.`, extra);
    case code.passwordExpired:
      return ending(flow, "Password expired", "error", `${EXPIRED_NOTICE} The notification is still pending.`,
        { ...extra, after: () => endSession(EXPIRED_NOTICE) });
    case code.attemptsExhausted:
      return lockedEnding(flow, result.status_message, result.locked_until);
    case code.noTemplate:
      return ending(flow, "No biometric template", "error", "You have no biometric template yet: opt in first (Biometric opt-in), then answer again.", extra);
    case code.userCancelledSelfie:
      return ending(flow, "Selfie cancelled", "info", "The selfie was cancelled: the notification is still pending.", extra);
    default:
      return ending(flow, "Not answered", "error", result.status_message || `The server answered ${result.status_code}.`, extra);
  }
}

function approvedTitle(action) {
  return /^(approve|accept|allow|confirm|yes)/i.test(action) ? "Approved" : "Done";
}

/** The API's error codes an answer can end with: the alert's title and message. */
const ERROR_ENDINGS = {
  number_mismatch: ["Refused", "Wrong number: this request was refused and closed."],
  notification_closed: ["Already closed", "This notification was already answered or closed."],
  notification_expired: ["Expired", "This notification has expired."],
  number_required: ["Number required", "Pick the number shown by the sender first."],
  notification_not_found: ["Not found", "This notification no longer exists."],
  device_not_bound: ["Device not bound", "This browser's device is not bound to your account (or was revoked)."],
  step_up_unfinished: ["Selfie not finished", "The selfie has no result yet: the notification is still pending."],
  invalid_session: ["Session ended", "Your session ended. Sign in again."],
};

/** An HTTP error (or a local failure) as an ending. */
function errorEnding(flow, error) {
  const code = error instanceof ApiError ? error.code : "error";
  const extra = { code, statusMessage: error instanceof ApiError ? error.message : undefined };
  const [title, message] = ERROR_ENDINGS[code] ?? ["Error", errorText(error)];
  return ending(flow, title, "error", message, extra);
}

/**
 * The result alert, then what comes after: the lists again, or the end of the session. An ending
 * that can be retried resolves with "retry" (the action modal again) or "password".
 */
async function showEnding(end) {
  const choice = await showDialog({
    id: "notification-result",
    title: end.title,
    body: [banner(end.kind, end.message, { id: "notification-result-message" }), endingDetails(end)],
    actions: end.retry
      ? [{ label: "Use the password instead", value: "password" }, { label: "Try again", value: "retry", primary: true }]
      : [{ label: "OK", value: "ok", primary: true }],
    dismissValue: end.retry ? "retry" : null,
  });
  if (end.retry) return choice;
  if (end.after) { end.after(); return null; }
  await refresh();
  if (page && (document.activeElement === document.body || !document.activeElement)) page.refreshButton.focus();
  return null;
}

function endingDetails({ flow, code, statusMessage, level, attemptsLeft }) {
  const display = flow.selfie?.biometric_result?.display_text;
  return h("dl", { class: "details", id: "notification-result-details" },
    term("Notification", flow.notification.subject, "subject"),
    term("Action", actionName(flow.notification, flow.body.action), "action"),
    flow.body.number !== undefined ? term("Number", String(flow.body.number), "number") : null,
    code !== undefined ? term("Status", statusMessage ? `${statusMessage} (${code})` : String(code), "status") : null,
    level !== undefined && level !== null ? term("Level proven", levelText(level), "level") : null,
    attemptsLeft !== undefined && attemptsLeft !== null ? term("Attempts left", String(attemptsLeft), "attempts_left") : null,
    display ? term("Biometric result", display, "biometric_result") : null);
}
