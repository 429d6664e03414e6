// The admin screen: a relying party's operator enters an API key (kept in this page's memory
// only, in state.adminKey) and then manages users and their devices, reads and verifies the
// audit chain, and sends a test step-up notification. Every call goes through api() with the
// key; a key the server rejects (401 invalid_api_key) sends the page back to the key form.
import { state, api, E, ApiError, h, field, banner, showError, showDialog, screen, formatTime } from "./core.js";
import { authLevel, authLevelNames, pathOf } from "./contract.js";

const USER_PAGE = 50;
const AUDIT_PAGE = 50;
const USER_ID_PATTERN = "[A-Za-z0-9._@+\\-]{1,128}"; // ^…$ is implied; "-" escaped for the v flag
/** The levels a test notification may ask for (app-defined is off unless the server enables it). */
const LEVELS = [authLevel.none, authLevel.password, authLevel.deviceSignature, authLevel.serverBiometric].map((level) => [level, authLevelNames[level]]);

/** The element the screen renders into, and the console's parts while it is shown. */
let root = null;
let ui = null;

screen("admin", { title: "Admin", render });

function render(view) {
  root = h("div", { id: "admin-root", class: "stack" });
  view.append(root);
  if (state.adminKey) renderConsole(); else renderKeyForm();
}

// MARK: API access

/** An API call with the admin key: `options` as `api` takes them. */
function call(endpoint, options = {}) {
  return api(endpoint, { ...options, auth: "admin" });
}

function isKeyRejected(error) {
  return error instanceof ApiError && error.status === 401 && error.code === "invalid_api_key";
}

/**
 * Runs one action of a section: clears the section's error area, guards `button` against a
 * second click while it runs, shows an error in `where`; a rejected key ends the console.
 */
async function act(where, button, work) {
  if (button?.getAttribute("aria-busy") === "true") return;
  button?.setAttribute("aria-busy", "true");
  where.replaceChildren();
  try {
    await work();
  } catch (error) {
    if (isKeyRejected(error)) forgetKey(error);
    else showError(where, error);
  } finally {
    button?.removeAttribute("aria-busy");
  }
}

/** Drops the key and shows the key form again, with the reason when there is one. */
function forgetKey(error) {
  state.adminKey = null;
  ui = null;
  if (!root?.isConnected) return;
  renderKeyForm();
  if (error) showError(document.getElementById("admin-error"), error);
  else document.getElementById("admin-key")?.focus();
}

// MARK: the key form

function renderKeyForm() {
  const errorArea = h("div", { id: "admin-error" });
  const submit = h("button", { type: "submit", id: "admin-key-submit", class: "primary" }, "Use this key");
  const form = h("form", { id: "admin-key-form", class: "stack" },
    field({
      id: "admin-key", label: "API key", type: "password", autocomplete: "off", required: true,
      spellcheck: "false", autocapitalize: "off",
      hint: "The key stays in this page's memory only: it is never stored, and it is forgotten when the page reloads.",
    }),
    h("div", { class: "row" }, submit));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    act(errorArea, submit, () => useKey(form.querySelector("#admin-key").value.trim()));
  });
  root.replaceChildren(h("section", { class: "card", "aria-labelledby": "admin-key-title" },
    h("h2", { id: "admin-key-title" }, "API key"), form, errorArea));
}

/** Takes the key for a trial call (one user); keeps it and opens the console when it works. */
async function useKey(key) {
  if (!key) throw new Error("Enter an API key.");
  state.adminKey = key;
  try {
    await call(E.users, { query: { limit: "1" } });
  } catch (error) {
    state.adminKey = null;
    throw error;
  }
  renderConsole();
  setStatus("API key accepted.");
  document.getElementById("admin-new-user")?.focus();
}

// MARK: the console

function renderConsole() {
  ui = {
    status: h("div", { id: "admin-status", class: "banner ok", role: "status", hidden: true }),
    userCount: 0, usersNext: null,
    devicesUser: null,
    auditUser: "", auditActor: "", auditNext: null,
    notification: null,
  };
  const forget = h("button", { type: "button", id: "admin-forget", class: "secondary", onclick: () => forgetKey() }, "Forget key");
  root.replaceChildren(
    h("div", { class: "row" }, h("p", { class: "muted" }, "Using the API key held in this page's memory."), forget),
    ui.status,
    usersSection(),
    devicesSection(),
    claimsSection(),
    auditSection(),
    documentsSection(),
    notifySection());
  refreshUsers();
}

/** Announces an outcome in the console's status banner. */
function setStatus(text) {
  if (!ui) return;
  ui.status.textContent = text;
  ui.status.hidden = false;
}

function section(id, title, ...children) {
  return h("section", { id, class: "card stack", "aria-labelledby": `${id}-title` },
    h("h2", { id: `${id}-title`, tabindex: "-1" }, title), ...children);
}

/** A table in a keyboard-scrollable wrapper; rows go into `body`. */
function dataTable(id, labelledBy, headings) {
  const body = h("tbody");
  const table = h("table", { id, "aria-labelledby": labelledBy },
    h("thead", {}, h("tr", {}, headings.map((text) => h("th", { scope: "col" }, text)))), body);
  const wrap = h("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-labelledby": labelledBy }, table);
  return { wrap, table, body };
}

const code = (text) => h("code", {}, text);

// MARK: users

function usersSection() {
  ui.usersError = h("div", { id: "admin-users-error" });
  ui.activation = h("div", { id: "admin-activation" });
  const submit = h("button", { type: "submit", id: "admin-create-user", class: "primary" }, "Create user");
  const form = h("form", { id: "admin-create-user-form", class: "row" },
    field({
      id: "admin-new-user", label: "User id", required: true, pattern: USER_ID_PATTERN, maxlength: "128",
      autocomplete: "off", spellcheck: "false", autocapitalize: "off",
      hint: "Letters, digits and . _ @ + - (at most 128).",
    }),
    submit);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    act(ui.usersError, submit, () => createUser(form));
  });
  const users = dataTable("admin-user-table", "admin-users-title", ["User id", "Status", "Locked", "Created", "Actions"]);
  ui.userBody = users.body;
  ui.usersEmpty = h("p", { id: "admin-users-empty", class: "muted", hidden: true }, "No users yet.");
  ui.usersMore = h("button", { type: "button", id: "admin-users-more", class: "secondary", hidden: true,
    onclick: () => act(ui.usersError, ui.usersMore, () => loadUsers(true)) }, "More");
  return section("admin-users", "Users", form, ui.activation, ui.usersError, users.wrap, ui.usersEmpty, ui.usersMore);
}

async function createUser(form) {
  const userID = form.querySelector("#admin-new-user").value.trim();
  const created = await call(E.createUser, { body: { user_id: userID } });
  showActivation(created.activation, created.user.user_id);
  setStatus(`User ${created.user.user_id} created.`);
  form.reset();
  await loadUsers(false);
}

/** The one-time activation code, with whom it is for and when it expires. */
function showActivation(activation, userID) {
  const who = activation.user_id ?? userID;
  ui.activation.replaceChildren(banner("ok", [
    "Activation code for ", h("strong", {}, who), ": ",
    h("code", { id: "admin-activation-code" }, activation.activation_code),
    " — shown once; give it to the user.",
    activation.expires_at ? ` It expires ${formatTime(activation.expires_at)}.` : null,
  ]));
}

function refreshUsers() {
  return act(ui.usersError, null, () => loadUsers(false));
}

/** Loads the first page again (as many users as shown), or with `more` the next page. */
async function loadUsers(more) {
  const query = new URLSearchParams();
  query.set("limit", String(more ? USER_PAGE : Math.min(500, Math.max(USER_PAGE, ui.userCount))));
  if (more && ui.usersNext) query.set("after", ui.usersNext);
  const page = await call(E.users, { query });
  const rows = page.users.map(userRow);
  if (more) ui.userBody.append(...rows); else ui.userBody.replaceChildren(...rows);
  ui.userCount = (more ? ui.userCount : 0) + page.users.length;
  ui.usersNext = page.next_after ?? null;
  ui.usersMore.hidden = !ui.usersNext;
  ui.usersEmpty.hidden = ui.userCount > 0;
}

function lockText(user) {
  if (!user.locked) return "no";
  return user.locked_until ? `locked until ${formatTime(user.locked_until)}` : "locked";
}

function userRow(user) {
  const id = user.user_id;
  const headerID = `admin-user-row-${id}`;
  const button = (className, label, work, where = ui.usersError) => h("button", {
    type: "button", class: className, "aria-describedby": headerID,
    onclick: (event) => act(where, event.currentTarget, work),
  }, label);
  const disabled = user.status === "disabled";
  return h("tr", { "data-user": id },
    h("th", { scope: "row", id: headerID }, id),
    h("td", {}, user.status),
    h("td", {}, lockText(user)),
    h("td", {}, formatTime(user.created_at)),
    h("td", {}, h("div", { class: "row" },
      user.locked ? button("unlock secondary", "Unlock", () => userAction(id, "unlock", `User ${id} unlocked.`)) : null,
      disabled
        ? button("enable secondary", "Enable", () => userAction(id, "enable", `User ${id} enabled.`))
        : button("disable danger", "Disable", () => userAction(id, "disable", `User ${id} disabled.`)),
      button("new-code secondary", "New activation code", () => newActivationCode(id)),
      button("devices secondary", "Devices", () => showDevices(id), ui.devicesError),
      button("claims secondary", "Claims", () => showClaims(id), ui.claimsError))));
}

/** Unlocks, enables or disables the user, then shows the table again. */
async function userAction(userID, action, outcome) {
  await call({ unlock: E.unlockUser, enable: E.enableUser, disable: E.disableUser }[action], { params: [userID] });
  setStatus(outcome);
  await loadUsers(false);
  focusUserRow(userID);
}

async function newActivationCode(userID) {
  const activation = await call(E.issueActivationCode, { params: [userID] });
  showActivation(activation, userID);
  setStatus(`New activation code issued for ${userID}; earlier codes no longer work.`);
  await loadUsers(false);
  focusUserRow(userID);
}

/** Keeps keyboard focus on the user's row after the table was rebuilt. */
function focusUserRow(userID) {
  const row = [...ui.userBody.rows].find((tr) => tr.dataset.user === userID);
  row?.querySelector("button")?.focus();
}

// MARK: devices

function devicesSection() {
  ui.devicesError = h("div", { id: "admin-devices-error" });
  ui.devicesFor = h("p", { id: "admin-devices-for", class: "muted" }, "Choose “Devices” on a user to see their devices.");
  const devices = dataTable("admin-device-table", "admin-devices-title",
    ["Name", "Device id", "Key thumbprint", "Created", "Last used", "State", "Actions"]);
  ui.deviceBody = devices.body;
  ui.deviceWrap = devices.wrap;
  ui.deviceWrap.hidden = true;
  return section("admin-devices", "Devices", ui.devicesFor, ui.devicesError, devices.wrap);
}

async function showDevices(userID) {
  await loadDevices(userID);
  document.getElementById("admin-devices-title")?.focus();
}

async function loadDevices(userID) {
  ui.devicesError.replaceChildren();
  const list = await call(E.userDevices, { params: [userID] });
  ui.devicesUser = userID;
  ui.devicesFor.replaceChildren(list.devices.length
    ? `Devices of ${userID} (revoked ones included):`
    : `${userID} has no devices.`);
  ui.deviceBody.replaceChildren(...list.devices.map(deviceRow));
  ui.deviceWrap.hidden = list.devices.length === 0;
}

function deviceRow(device) {
  const headerID = `admin-device-row-${device.device_id}`;
  const revoke = device.revoked_at ? null : h("button", {
    type: "button", class: "revoke danger", "aria-describedby": headerID,
    onclick: (event) => act(ui.devicesError, event.currentTarget, () => revokeDevice(device)),
  }, "Revoke");
  return h("tr", { "data-device": device.device_id },
    h("th", { scope: "row", id: headerID }, device.name),
    h("td", {}, code(device.device_id)),
    h("td", {}, code(device.key_thumbprint)),
    h("td", {}, formatTime(device.created_at)),
    h("td", {}, device.last_used_at ? formatTime(device.last_used_at) : "never"),
    h("td", {}, device.revoked_at ? `revoked ${formatTime(device.revoked_at)}` : "active"),
    h("td", {}, revoke));
}

async function revokeDevice(device) {
  const choice = await showDialog({
    id: "admin-revoke-dialog",
    title: "Revoke device?",
    body: [h("p", {}, `Revoke “${device.name}” (${device.device_id}) of ${device.user_id}? `,
      "Its sessions end at once, and it cannot sign in again.")],
    actions: [{ label: "Cancel", value: "cancel" }, { label: "Revoke", value: "revoke", primary: true }],
    dismissValue: "cancel",
  });
  if (choice !== "revoke") return;
  await call(E.revokeDevice, { params: [device.user_id, device.device_id] });
  setStatus(`Device “${device.name}” of ${device.user_id} revoked.`);
  await loadDevices(device.user_id);
  ui.deviceWrap.focus();
}

// MARK: claims

/** The claims the form edits; the others a user has are kept as they are. */
const CLAIM_FIELDS = [
  ["name", "Full name", "text"], ["given_name", "Given name", "text"], ["family_name", "Family name", "text"],
  ["email", "Email", "text"], ["email_verified", "Email verified (by you)", "checkbox"],
  ["phone_number", "Phone number (E.164, such as +33612345678)", "tel"], ["phone_number_verified", "Phone number verified (by you)", "checkbox"],
  ["locale", "Locale (such as fr-CA)", "text"],
];

function claimsSection() {
  ui.claimsError = h("div", { id: "admin-claims-error" });
  ui.claimsFor = h("p", { id: "admin-claims-for", class: "muted" },
    "Choose “Claims” on a user to edit what OpenID clients read of them (by the scopes profile, email, phone).");
  ui.claimsForm = h("form", { id: "admin-claims-form", class: "stack", hidden: true });
  return section("admin-claims", "Claims", ui.claimsFor, ui.claimsError, ui.claimsForm);
}

async function showClaims(userID) {
  const claims = await call(E.userClaims, { params: [userID] });
  const inputs = CLAIM_FIELDS.map(([name, label, type]) => type === "checkbox"
    ? h("label", { class: "row" }, h("input", { type: "checkbox", id: `admin-claim-${name}`, checked: claims[name] === true }), label)
    : field({ id: `admin-claim-${name}`, label, type, value: claims[name] ?? "", autocomplete: "off", spellcheck: "false" }));
  const save = h("button", { type: "submit", id: "admin-claims-save", class: "primary" }, "Save claims");
  ui.claimsForm.replaceChildren(...inputs, save);
  ui.claimsForm.onsubmit = (event) => {
    event.preventDefault();
    act(ui.claimsError, save, () => saveClaims(userID, claims));
  };
  ui.claimsFor.replaceChildren(`Claims of ${userID}`, claims.updated_at ? ` (changed ${formatTime(claims.updated_at * 1000)})` : "", ":");
  ui.claimsForm.hidden = false;
  document.getElementById("admin-claims-title")?.focus();
}

/** PUT replaces the whole set: the claims the form does not show go back as they were. */
async function saveClaims(userID, before) {
  const claims = { ...before };
  delete claims.updated_at;
  for (const [name, , type] of CLAIM_FIELDS) {
    const input = document.getElementById(`admin-claim-${name}`);
    delete claims[name];
    if (type === "checkbox") {
      // Checked states it; unchecked states "not verified" only where that was stated before.
      if (input.checked) claims[name] = true;
      else if (before[name] !== undefined) claims[name] = false;
    } else if (input.value.trim() !== "") {
      claims[name] = input.value.trim();
    }
  }
  // A verified flag states nothing without its value: it goes when the value does.
  for (const flag of ["email_verified", "phone_number_verified"]) {
    if (claims[flag.replace("_verified", "")] === undefined) delete claims[flag];
  }
  const saved = await call(E.setUserClaims, { params: [userID], body: claims });
  setStatus(`Claims of ${userID} saved.`);
  await showClaims(userID);
  return saved;
}

// MARK: audit

function auditSection() {
  ui.auditError = h("div", { id: "admin-audit-error" });
  ui.auditResult = h("div", { id: "admin-audit-result" });
  const load = h("button", { type: "submit", id: "admin-audit-load", class: "primary" }, "Load events");
  const verify = h("button", { type: "button", id: "admin-audit-verify", class: "secondary",
    onclick: () => act(ui.auditError, verify, verifyAudit) }, "Verify chain");
  const form = h("form", { id: "admin-audit-form", class: "row" },
    field({ id: "admin-audit-user", label: "User id (optional)", autocomplete: "off", spellcheck: "false", autocapitalize: "off" }),
    field({ id: "admin-audit-actor", label: "Actor: API key id (optional)", autocomplete: "off", spellcheck: "false", autocapitalize: "off" }),
    load, verify);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    ui.auditUser = form.querySelector("#admin-audit-user").value.trim();
    ui.auditActor = form.querySelector("#admin-audit-actor").value.trim();
    act(ui.auditError, load, () => loadAudit(false));
  });
  const events = dataTable("admin-audit-table", "admin-audit-title", ["Sequence", "Time", "Kind", "User", "Transaction", "Details"]);
  ui.auditBody = events.body;
  ui.auditWrap = events.wrap;
  ui.auditWrap.hidden = true;
  ui.auditEmpty = h("p", { id: "admin-audit-empty", class: "muted", hidden: true }, "No events.");
  ui.auditMore = h("button", { type: "button", id: "admin-audit-more", class: "secondary", hidden: true,
    onclick: () => act(ui.auditError, ui.auditMore, () => loadAudit(true)) }, "More");
  return section("admin-audit", "Audit", form, ui.auditResult, ui.auditError, events.wrap, ui.auditEmpty, ui.auditMore);
}

/** The first page of events for the filter, or with `more` the next one. */
async function loadAudit(more) {
  const query = new URLSearchParams({ limit: String(AUDIT_PAGE) });
  if (ui.auditUser) query.set("user", ui.auditUser);
  if (ui.auditActor) query.set("actor", ui.auditActor);
  if (more && ui.auditNext !== null) query.set("after", String(ui.auditNext));
  const page = await call(E.auditEvents, { query });
  const rows = page.events.map(auditRow);
  if (more) ui.auditBody.append(...rows); else ui.auditBody.replaceChildren(...rows);
  ui.auditNext = page.next_after ?? null;
  ui.auditMore.hidden = ui.auditNext === null;
  const shown = ui.auditBody.rows.length;
  ui.auditWrap.hidden = shown === 0;
  ui.auditEmpty.hidden = shown > 0;
  if (!more) setStatus(`${page.events.length} audit event${page.events.length === 1 ? "" : "s"} loaded.`);
}

function auditRow(event) {
  const details = Object.entries(event.details ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return h("tr", { "data-sequence": event.sequence },
    h("th", { scope: "row", title: event.hash ? `hash ${event.hash}` : null }, String(event.sequence)),
    h("td", {}, formatTime(event.occurred_at)),
    h("td", {}, code(event.kind)),
    h("td", {}, event.user_id ?? ""),
    h("td", {}, event.transaction_id ? code(event.transaction_id) : ""),
    h("td", {}, details.length ? h("ul", {}, details.map(([key, value]) => h("li", {}, `${key}=${value}`))) : ""));
}

async function verifyAudit() {
  ui.auditResult.replaceChildren();
  const answer = await call(E.verifyAudit);
  ui.auditResult.replaceChildren(answer.intact ? intactBanner(answer) : brokenBanner(answer));
}

function intactBanner(answer) {
  const events = `${answer.checked} event${answer.checked === 1 ? "" : "s"}`;
  if (!answer.head_hash) return banner("ok", `Audit chain intact: ${events}.`);
  return banner("ok", [`Audit chain intact: ${events}; head ${answer.last_sequence}:`, code(answer.head_hash)]);
}

function brokenBanner(answer) {
  const fault = answer.first_break;
  const text = fault ? `Audit chain broken at event ${fault.sequence}: ${fault.reason}` : "Audit chain broken.";
  return banner("error", text);
}

// MARK: document review

/** A document scan's verdict and its images, by the transaction id the user's result showed. */
function documentsSection() {
  const errors = h("div", { id: "admin-document-error" });
  const result = h("div", { id: "admin-document-result", class: "stack wide" });
  const input = h("input", { id: "admin-document-transaction", autocomplete: "off", required: true, maxlength: "128" });
  const button = h("button", { type: "submit", class: "secondary", id: "admin-document-review" }, "Review");
  const form = h("form", { class: "row", id: "admin-document-form" },
    h("div", { class: "field" }, h("label", { for: "admin-document-transaction" }, "Transaction id (workflow 7)"), input), button);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    act(errors, button, () => reviewDocument(input.value.trim(), result));
  });
  return section("admin-documents", "Document review", form, errors, result);
}

async function reviewDocument(transactionID, where) {
  where.replaceChildren();
  const verdict = await call(E.verdict, { params: [transactionID] });
  const images = await Promise.all((verdict.documents ?? []).map(async (side) => {
    const response = await fetch(pathOf(E.documentImage, [transactionID, side]), {
      headers: { Authorization: `Bearer ${state.adminKey}` }, credentials: "omit", cache: "no-store", redirect: "error",
    });
    if (!response.ok) throw new ApiError(response.status, "document_unreadable", `The ${side} image could not be read (${response.status}).`);
    return h("figure", { class: "document-review" },
      h("img", { src: URL.createObjectURL(await response.blob()), alt: `The document's ${side}`, "data-side": side }), h("figcaption", {}, side));
  }));
  where.replaceChildren(
    h("dl", { class: "details", id: "admin-document-verdict" },
      [["User", verdict.user_id], ["Workflow", String(verdict.workflow)], ["Decision", verdict.decision ?? verdict.state],
       ["Purpose", verdict.purpose], ["Created", formatTime(verdict.created_at)]]
        .map(([k, v]) => [h("dt", {}, k), h("dd", { "data-field": k }, v ?? "")])),
    ...(images.length ? images : [h("p", { class: "muted" }, "No images are kept for this transaction (none were sent, or their retention ended).")]));
}

// MARK: test notification

function notifySection() {
  ui.notifyError = h("div", { id: "admin-notify-error" });
  ui.notifyResult = h("div", { id: "admin-notify-result" });
  const send = h("button", { type: "submit", id: "admin-notify-send", class: "primary" }, "Send notification");
  const form = h("form", { id: "admin-notify-form", class: "stack" },
    field({ id: "admin-notify-user", label: "User id", required: true, pattern: USER_ID_PATTERN, maxlength: "128",
      autocomplete: "off", spellcheck: "false", autocapitalize: "off" }),
    field({ id: "admin-notify-subject", label: "Subject", required: true, maxlength: "200", value: "Approve payment" }),
    field({ id: "admin-notify-message", label: "Message", required: true, maxlength: "2000", value: "Pay 25.00 EUR to Example Shop?" }),
    levelField(),
    h("div", { class: "row" },
      h("input", { type: "checkbox", id: "admin-notify-number", name: "admin-notify-number" }),
      h("label", { for: "admin-notify-number" }, "Number matching")),
    h("div", { class: "row" }, send));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    act(ui.notifyError, send, () => sendNotification(form));
  });
  return section("admin-notify", "Test notification",
    h("p", { class: "muted" }, "Sends a step-up notification with the actions Approve (at the level chosen) and Reject."),
    form, ui.notifyError, ui.notifyResult);
}

function levelField() {
  return h("div", { class: "field" },
    h("label", { for: "admin-notify-level" }, "Approve with"),
    h("select", { id: "admin-notify-level", name: "admin-notify-level" },
      LEVELS.map(([level, label]) => h("option", { value: String(level), selected: level === 1 }, `${level} – ${label}`))));
}

async function sendNotification(form) {
  const value = (id) => form.querySelector(`#${id}`).value;
  const level = Number(value("admin-notify-level"));
  const numberMatching = form.querySelector("#admin-notify-number").checked;
  ui.notifyResult.replaceChildren();
  const created = await call(E.createNotification, { body: {
    user_id: value("admin-notify-user").trim(),
    subject: value("admin-notify-subject"),
    message: value("admin-notify-message"),
    actions: [
      { label: "Approve", action: "approve", auth_level: level },
      { label: "Reject", action: "reject", auth_level: 0 },
    ],
    number_matching: numberMatching,
  } });
  ui.notification = created.notification_uuid;
  showNotification(created);
  setStatus(`Notification ${created.notification_uuid} sent.`);
}

function showNotification(created) {
  ui.notifyOutcome = h("div", { id: "admin-notify-outcome" });
  const check = h("button", { type: "button", id: "admin-notify-check", class: "secondary",
    onclick: () => act(ui.notifyError, check, () => checkNotification(created.notification_uuid)) }, "Check result");
  ui.notifyResult.replaceChildren(banner("ok", [
    h("p", {}, "Notification ", h("code", { id: "admin-notify-uuid" }, created.notification_uuid),
      ` sent; it expires ${formatTime(created.expires_at)}.`),
    created.number !== undefined && created.number !== null
      ? h("p", { id: "admin-notify-number-shown", class: "number-match" },
        "Show this number to the user: ", h("strong", { class: "number" }, String(created.number)))
      : null,
  ]), h("div", { class: "row" }, check), ui.notifyOutcome);
}

async function checkNotification(uuid) {
  const result = await call(E.notificationResult, { params: [uuid] });
  const kind = result.status === "answered" ? "ok" : result.status === "pending" ? "info" : "error";
  ui.notifyOutcome.replaceChildren(banner(kind, resultText(result), { id: "admin-notify-status" }));
}

function resultText(result) {
  const parts = [`Status: ${result.status}`];
  if (result.action) parts.push(`action: ${result.action}`);
  if (result.auth_level !== undefined && result.auth_level !== null) {
    parts.push(`level: ${result.auth_level} (${authLevelNames[result.auth_level] ?? "unknown"})`);
  }
  if (result.amr?.length) parts.push(`amr: ${result.amr.join(" ")}`);
  if (result.answered_at) parts.push(`answered ${formatTime(result.answered_at)}`);
  return parts.join("; ") + ".";
}
