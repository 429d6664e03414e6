// Devices: what is bound to the signed-in user, and its sessions. The user sees each device's
// kind of key, how, when and from where it was bound, and its last use, and unbinds any of them
// with the password again (a stolen session alone unbinds nothing). A new device joins by the
// approval that arrives under Notifications, with the number it shows typed there.
import { api, E, state, h, banner, showError, formDialog, screen, formatTime, endSession } from "./core.js";

const BOUND_BY = {
  activation: "the activation code",
  registration_code: "a registration code",
  password: "the password alone (proves the password only)",
  device_approval: "approval on another of your devices",
  face_match: "the password, then a match of your face",
  passkey: "a passkey registration",
  unrecorded: "(bound before this was recorded)",
};

screen("devices", {
  title: "Devices",
  session: true,
  async render(view) {
    const errors = h("div", { id: "devices-error" });
    const list = h("div", { id: "device-list" });
    const sessions = h("div", { id: "session-list" });
    view.append(
      h("p", {}, "Everything that can sign in as you. If you do not recognise one, unbind it, then change your password. ",
        "A new device joins by a request you approve under Notifications, typing the number it shows."),
      errors,
      h("section", { class: "card" }, h("h2", {}, "Bound devices"), list),
      h("section", { class: "card" }, h("h2", {}, "Sessions"), sessions));
    const refresh = async () => {
      const [bound, open] = await Promise.all([
        api(E.myDevices, { auth: "session" }),
        api(E.sessions, { auth: "session" }),
      ]);
      list.replaceChildren(h("ul", { class: "stack" }, bound.devices.map((device) => deviceItem(device, errors, refresh))));
      sessions.replaceChildren(open.sessions.length === 0 ? h("p", { class: "muted" }, "No session.")
        : h("ul", { class: "stack" }, open.sessions.map((session) => h("li", { class: "session", "data-session": session.session_id },
          h("strong", {}, session.device_id === state.session.deviceID ? "This browser" : `Device ${session.device_id}`), " ",
          h("span", { class: "muted" }, `since ${formatTime(session.created_at)}, ends ${formatTime(session.expires_at)}`)))));
    };
    await refresh();
  },
});

function deviceItem(device, errors, refresh) {
  const here = device.device_id === state.session.deviceID;
  const details = h("dl", { class: "details" },
    h("dt", {}, "Key"), h("dd", {}, device.key_kind === "passkey" ? "a passkey" : "a device key"),
    h("dt", {}, "Bound"), h("dd", { class: "bound-by" }, `${formatTime(device.created_at)} by ${BOUND_BY[device.bound_by] ?? device.bound_by ?? "?"}`
      + (device.bound_from ? ` from ${device.bound_from}` : "")),
    device.probation_until && !device.revoked_at && new Date(device.probation_until) > new Date()
      ? [h("dt", {}, "On probation"), h("dd", { class: "probation" },
        `until ${formatTime(device.probation_until)}: it cannot change the password, unbind or approve devices or change the face template yet`)]
      : null,
    h("dt", {}, "Last used"), h("dd", {}, device.last_used_at ? formatTime(device.last_used_at) : "never"),
    device.revoked_at ? [h("dt", {}, "Unbound"), h("dd", {}, formatTime(device.revoked_at))] : null);
  const unbind = device.revoked_at ? null : h("button", {
    type: "button", class: "secondary device-revoke", "data-device": device.device_id,
    onclick: () => revoke(device, here, errors, refresh),
  }, here ? "Unbind this browser" : "Unbind");
  return h("li", { class: "device card", "data-device": device.device_id, "data-bound-by": device.bound_by ?? "" },
    h("strong", {}, device.name), here ? h("span", { class: "muted" }, " (this browser)") : null, details, unbind);
}

async function revoke(device, here, errors, refresh) {
  errors.replaceChildren();
  const answer = await formDialog({
    id: "device-revoke-dialog", title: `Unbind “${device.name}”?`, submitLabel: "Unbind",
    intro: "It can no longer sign in; its sessions and the sign-ins to apps it made end now.",
    fields: [{ id: "device-revoke-password", label: "Password", type: "password", autocomplete: "current-password", required: true }],
  });
  if (!answer) return;
  try {
    const result = await api(E.revokeMyDevice, { params: [device.device_id], body: { password: answer["device-revoke-password"] }, auth: "session" });
    if (result.status_code !== 100) throw new Error(`Not unbound: ${result.status_message} Attempts left: ${result.attempts_left}.`);
    if (here) return endSession("This browser was unbound.");
    errors.replaceChildren(banner("ok", `“${device.name}” is unbound.`, { id: "device-revoked" }));
    await refresh();
  } catch (error) {
    showError(errors, error);
  }
}
