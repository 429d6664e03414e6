// The web app's shared parts: the API client, the in-memory session, DOM building,
// dialogs, and the screen registry. Every other module imports from here.
import { endpoints, pathOf } from "./contract.js";

/** The API's endpoints by name, as the server routes them. */
export const E = endpoints;

/** The signed-in session and the admin key: in memory only, gone when the page closes. */
export const state = {
  session: null, // {token, userID, deviceID, expiresAt}
  adminKey: null,
};

/** An error answer of the API ({"error":{"code","message"}}) or of the network. */
export class ApiError extends Error {
  constructor(status, code, message, body, retryAfter = null) {
    super(message);
    this.status = status;
    this.code = code;
    this.body = body;
    /** Seconds the server asked to wait (Retry-After of a 503 server_busy or a 429), or null. */
    this.retryAfter = retryAfter;
  }
}

/**
 * Calls `endpoint`, an entry of contract.js's table (`E.activate`, written by the server from
 * its own endpoint table): `params` fill its `{…}` segments in order, `query` (an object or
 * URLSearchParams) follows `?`. `auth`: "session" sends the session token, "admin" the API
 * key, none sends nothing. JSON bodies only; answers are parsed JSON (null for 204).
 */
export async function api(endpoint, { params = [], query = null, body, auth = null } = {}) {
  const method = endpoint.method;
  let path = pathOf(endpoint, params);
  const search = query ? new URLSearchParams(query).toString() : "";
  if (search) path += `?${search}`;
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (auth === "session") {
    if (!state.session) throw new ApiError(401, "invalid_session", "Sign in first.");
    headers.Authorization = `Bearer ${state.session.token}`;
  } else if (auth === "admin") {
    if (!state.adminKey) throw new ApiError(401, "invalid_api_key", "Enter an API key first.");
    headers.Authorization = `Bearer ${state.adminKey}`;
  }
  let response;
  try {
    response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit", cache: "no-store", redirect: "error",
    });
  } catch (error) {
    throw new ApiError(0, "network_error", "The server could not be reached.");
  }
  if (response.status === 204) return null;
  let answer = null;
  try { answer = await response.json(); } catch { answer = null; }
  if (!response.ok) {
    // The API's envelope {"error":{"code","message"}}, or OAuth's {"error","error_description"}.
    const detail = typeof answer?.error === "string" ? { code: answer.error, message: answer.error_description } : answer && answer.error;
    if (response.status === 401 && auth === "session" && detail && detail.code === "invalid_session") {
      endSession("Your session ended. Sign in again.");
    }
    const retryAfter = Number(response.headers.get("Retry-After") ?? "");
    const wait = Number.isInteger(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 300) : null;
    // A busy server refuses at once: say so in plain words instead of leaving the user waiting.
    const message = response.status === 503 && detail?.code === "server_busy"
      ? `The service is busy right now. Try again in ${wait ?? "a few"} seconds.`
      : detail?.message ?? `The server answered ${response.status}.`;
    throw new ApiError(response.status, detail?.code ?? "http_" + response.status, message, answer, wait);
  }
  return answer;
}

/**
 * Sends an upload again, the very same body, while the server answers 503 server_busy: after
 * the wait it asks for (30 s at most), three times at most; then its error. A refused upload
 * spent nothing (not the challenge's nonce, not an attempt), while starting over would cost an
 * attempt for a challenge already shown. `waiting(seconds)` is told before each wait.
 */
export async function resendWhileBusy(upload, waiting = () => {}) {
  for (let resent = 0; ; resent++) {
    try {
      return await upload();
    } catch (error) {
      if (!(error instanceof ApiError) || error.code !== "server_busy" || resent >= 3) throw error;
      const seconds = Math.min(30, Math.max(1, error.retryAfter ?? 2));
      waiting(seconds);
      await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    }
  }
}

// MARK: bytes

export function base64url(bytes) {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let text = "";
  for (const byte of view) text += String.fromCharCode(byte);
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

export function fromBase64url(text) {
  const padded = text.replaceAll("-", "+").replaceAll("_", "/") + "===".slice((text.length + 3) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

/** Standard base64 (the IDV uploads' encoding) of a Blob. */
export async function blobBase64(blob) {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}

export const utf8 = (text) => new TextEncoder().encode(text);

// MARK: DOM

/** Builds an element: h("button", {class: "primary", onclick: f}, "Label"). Text is never parsed as HTML. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (name === "class") element.className = value;
    else if (value === true) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
}

/** A labelled input: {id, label, type, autocomplete, required, ...}. */
export function field({ id, label, hint, ...input }) {
  return h("div", { class: "field" },
    h("label", { for: id }, label),
    h("input", { id, name: id, ...input, "aria-describedby": hint ? `${id}-hint` : null }),
    hint ? h("p", { class: "hint", id: `${id}-hint` }, hint) : null);
}

/** A status banner: kind "ok", "error" or "info". role=alert for errors so screen readers say it. */
export function banner(kind, text, extra = {}) {
  return h("div", { class: `banner ${kind}`, role: kind === "error" ? "alert" : "status", ...extra }, text);
}

/** Shows an error where the form is; moves focus to it. */
export function showError(where, error) {
  const message = error instanceof ApiError ? `${error.message} (${error.code})` : String(error?.message ?? error);
  const node = banner("error", message, { tabindex: "-1", "data-error-code": error?.code ?? "" });
  where.replaceChildren(node);
  node.focus();
}

/** Runs `work` with `button` disabled and `errors` cleared; shows what it threw there. */
export async function busy(button, errors, work) {
  errors.replaceChildren();
  button.disabled = true;
  try {
    await work();
  } catch (error) {
    showError(errors, error);
  } finally {
    button.disabled = false;
  }
}

/**
 * Opens a native modal <dialog> (focus stays inside; Escape gives `dismissValue`) titled
 * `title`, holding what `build(settle)` returns; `settle(value)` closes it and resolves.
 */
function openModal(id, title, build, dismissValue) {
  return new Promise((resolve) => {
    const titleID = `${id ?? "dialog"}-title`;
    const dialog = h("dialog", { id, class: "modal", "aria-labelledby": titleID });
    let settled = false;
    const settle = (value) => {
      if (settled) return;
      settled = true;
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    append(dialog, [h("h2", { id: titleID }, title), build(settle)]);
    dialog.addEventListener("cancel", (event) => { event.preventDefault(); settle(dismissValue); });
    document.body.append(dialog);
    dialog.showModal();
    (dialog.querySelector("input") ?? dialog.querySelector("button.primary") ?? dialog.querySelector("button"))?.focus();
  });
}

/** A dialog with `body` and a button per action: resolves with the chosen action's value. */
export function showDialog({ id, title, body = [], actions = [{ label: "OK", value: "ok", primary: true }], dismissValue = null }) {
  return openModal(id, title, (settle) => [
    h("div", { class: "dialog-body" }, body),
    h("div", { class: "actions" }, actions.map((action) =>
      h("button", { type: "button", class: action.primary ? "primary" : "secondary", "data-value": action.value,
        onclick: () => settle(action.value) }, action.label))),
  ], dismissValue);
}

/** A dialog whose body is a form: resolves with the form's values, or null when cancelled. */
export function formDialog({ id, title, intro, fields, submitLabel = "Continue", error }) {
  return openModal(id, title, (settle) => {
    const form = h("form", { method: "dialog", class: "dialog-form" },
      intro ? h("p", {}, intro) : null,
      error ? banner("error", error) : null,
      fields.map(field),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "secondary", "data-value": "cancel", onclick: () => settle(null) }, "Cancel"),
        h("button", { type: "submit", class: "primary" }, submitLabel)));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      settle(Object.fromEntries(fields.map((f) => [f.id, form.querySelector(`#${f.id}`).value])));
    });
    return form;
  }, null);
}

// MARK: screens

const screens = new Map();

/**
 * Registers a screen: `render(view)` fills the <main> element (it may be async);
 * `session: true` screens send a signed-out user to sign-in first; `leave()` runs on the way out.
 */
export function screen(name, definition) {
  screens.set(name, definition);
}

let current = null;

export function navigate(name) {
  if (location.hash === `#/${name}`) show(); else location.hash = `#/${name}`;
}

export async function show() {
  const name = location.hash.replace(/^#\/?/, "") || (state.session ? "dashboard" : "login");
  let definition = screens.get(name);
  if (!definition) { navigate(state.session ? "dashboard" : "login"); return; }
  if (definition.session && !state.session) { navigate("login"); return; }
  if (current?.leave) current.leave();
  current = definition;
  const view = document.getElementById("view");
  view.replaceChildren();
  document.title = `${definition.title} – Custos`;
  renderMenu(name);
  const heading = h("h1", { tabindex: "-1", id: "screen-title" }, definition.title);
  view.append(heading);
  heading.focus();
  try {
    await definition.render(view);
  } catch (error) {
    const where = h("div");
    view.append(where);
    showError(where, error);
  }
}

function renderMenu(active) {
  const nav = document.getElementById("menu");
  const items = state.session
    ? [["dashboard", "Dashboard"], ["biometric", "🔐 Biometric Authentication"], ["notifications", "Notifications"],
       ["optin", "Biometric opt-in / opt-out"], ["documentscan", "Document scan"], ["passkeys", "Passkeys"], ["devices", "Devices"], ["signout", "Sign out"]]
    : [["login", "Sign in"], ["activate", "Activate"]];
  // The console is for the operator: listed once an admin key was entered (#/admin opens it).
  if (state.adminKey || active === "admin") items.push(["admin", "Admin"]);
  nav.replaceChildren(h("ul", {}, items.map(([name, label]) =>
    h("li", {}, h("a", { href: `#/${name}`, id: `menu-${name}`, "aria-current": name === active ? "page" : null }, label)))));
  const who = document.getElementById("who");
  who.textContent = state.session ? `Signed in as ${state.session.userID}` : "Not signed in";
}

/** What a locked user is told: the lock is the server's (every failed factor counts), it ends by itself, and who can lift it sooner. */
const LOCKED_NOTICE = "Too many failed attempts: your account is locked, and your session has ended. " +
  "The lock lifts by itself after a while (longer after each lock); the service that runs this server can lift it sooner.";

/**
 * The notice with the lock's end in numbers, where the answer says it (`locked_until`): "until
 * 14:05 (in 5 minutes)".
 */
export function lockedNotice(lockedUntil) {
  const until = lockedUntil ? new Date(lockedUntil) : null;
  if (!until || Number.isNaN(until.getTime())) return LOCKED_NOTICE;
  const minutes = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 60000));
  const span = minutes < 120 ? `${minutes} minute${minutes === 1 ? "" : "s"}` : `${Math.round(minutes / 60)} hours`;
  return `Too many failed attempts: your account is locked until ${until.toLocaleString()} (in ${span}), and your session has ended. ` +
    "The lock lifts by itself then (each further lock lasts twice as long); the service that runs this server can lift it sooner.";
}

/** Forgets the session (the server's side is ended by the caller, when it can be). */
export function endSession(notice) {
  state.session = null;
  sessionNotice = notice ?? null;
  navigate("login");
}

let sessionNotice = null;
/** A notice for the sign-in screen (why the session ended), read once. */
export function takeSessionNotice() {
  const notice = sessionNotice;
  sessionNotice = null;
  return notice;
}

export function formatTime(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}
