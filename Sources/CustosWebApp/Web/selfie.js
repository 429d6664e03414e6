// The live selfie: the start confirmation (start, or close → 240), the camera preview, the
// liveness challenge's actions one at a time, frames captured at a steady rate with their
// capture times, the upload, and the result dialog. Opt-in (10), KYC (6), authentication (8)
// and the notification step-up (9) all run through `runSelfie`.
import { api, E, h, showDialog, navigate, blobBase64, endSession, lockedNotice, resendWhileBusy } from "./core.js";
import { status as code } from "./contract.js";

/** Frames per second captured at most (max_frames may lower it); a video frame is never sent twice. */
const CAPTURE_FPS = 12;
/** How long each asked action gets, ms. */
const ACTION_MS = 3000;

const WORKFLOW_TITLES = {
  6: "Identity verification",
  7: "Additional Document Scan",
  8: "Server Biometric Authentication",
  9: "Approve with a selfie",
  10: "Biometric opt-in",
};

/**
 * Runs a selfie workflow on an initiated transaction. Resolves with the IDVResult (240 when
 * the user closed the confirmation). `documentImage`: KYC's document portrait (base64).
 * The result dialog is shown unless `showResult` is false.
 */
export async function runSelfie({ transactionID, workflow, reason, documentImage, showResult = workflow !== 9 }) {
  const on = { params: [transactionID], auth: "session" };
  const choice = await showDialog({
    id: "selfie-confirm",
    title: WORKFLOW_TITLES[workflow] ?? "Selfie capture",
    body: [
      h("p", {}, reason ? `For: ${reason}` : "The server compares a live selfie with your biometric template."),
      h("p", {}, "Your camera opens and asks for a few movements, one at a time. Hold the device at eye level in good light."),
    ],
    actions: [
      { label: "Close", value: "close" },
      { label: "Start Selfie Capture", value: "start", primary: true },
    ],
    dismissValue: "close",
  });
  if (choice !== "start") {
    const result = await api(E.cancelIDV, on);
    if (showResult) await showResultDialog(result, workflow);
    return result;
  }
  let camera;
  try {
    camera = await openCamera();
  } catch (error) {
    await api(E.cancelIDV, on).catch(() => {});
    throw new Error(`The camera could not be opened (${error.name ?? error}). Allow camera access and try again.`);
  }
  let result;
  try {
    const challenge = await api(E.confirmIDV, on);
    const frames = await capture(camera, challenge);
    camera.setStatus("Checking…");
    const body = { nonce: challenge.nonce, frames };
    if (documentImage) body.document_image = documentImage;
    result = await resendWhileBusy(() => api(E.submitFrames, { ...on, body }), (seconds) => {
      camera.setStatus("The service is busy", `Checking again in ${seconds} s…`);
    });
  } finally {
    camera.close();
  }
  if (showResult) await showResultDialog(result, workflow);
  return result;
}

/** The camera in a modal: the mirrored preview, the instruction, the progress. */
async function openCamera() {
  const stream = await navigator.mediaDevices.getUserMedia({
    video: { facingMode: "user", width: { ideal: 640 }, height: { ideal: 480 } }, audio: false,
  });
  const video = h("video", { id: "selfie-video", autoplay: true, muted: true, playsinline: true, "aria-label": "Camera preview" });
  video.muted = true;
  video.srcObject = stream;
  const instruction = h("p", { id: "selfie-instruction", class: "instruction", role: "status", "aria-live": "assertive" }, "Starting the camera…");
  const step = h("p", { id: "selfie-step", class: "muted" });
  const progress = h("progress", { id: "selfie-progress", max: "100", value: "0", "aria-label": "Capture progress" });
  const dialog = h("dialog", { id: "selfie-capture", class: "modal camera", "aria-labelledby": "selfie-capture-title" },
    h("h2", { id: "selfie-capture-title" }, "Selfie capture"), h("div", { class: "preview" }, video), instruction, step, progress);
  // The capture cannot be left half-way by Escape: the challenge would stay open.
  dialog.addEventListener("cancel", (event) => event.preventDefault());
  document.body.append(dialog);
  dialog.showModal();
  await video.play().catch(() => {});
  await new Promise((resolve) => {
    if (video.readyState >= 2 && video.videoWidth > 0) resolve();
    else video.addEventListener("loadeddata", resolve, { once: true });
  });
  return {
    video,
    setStatus(text, detail = "") { instruction.textContent = text; step.textContent = detail; },
    setProgress(fraction) { progress.value = String(Math.round(Math.min(1, fraction) * 100)); },
    close() {
      for (const track of stream.getTracks()) track.stop();
      dialog.close();
      dialog.remove();
    },
  };
}

/** The capture plan: a hold-still pause, then a slot per action, within the challenge's bounds. */
function plan(challenge) {
  const actions = challenge.actions.length;
  let duration = (challenge.pause_ms ?? 0) + actions * ACTION_MS;
  duration = Math.max(duration, challenge.min_duration_ms + 200);
  duration = Math.min(duration, challenge.max_duration_ms - 500);
  const frames = Math.max(challenge.min_frames, Math.min(challenge.max_frames, Math.floor((duration / 1000) * CAPTURE_FPS) + 1));
  return { duration, frames, interval: duration / (frames - 1) };
}

/**
 * Captures the planned frames as JPEG, one per new video frame at most, saying which action to
 * do now. Resolves with [{captured_at_ms, image}].
 */
async function capture(camera, challenge) {
  const { duration, frames: wanted, interval } = plan(challenge);
  const pause = challenge.pause_ms ?? 0;
  const slot = (duration - pause) / challenge.actions.length;
  const canvas = document.createElement("canvas");
  const scale = Math.min(1, 640 / camera.video.videoWidth);
  canvas.width = Math.round(camera.video.videoWidth * scale);
  canvas.height = Math.round(camera.video.videoHeight * scale);
  const context = canvas.getContext("2d");
  const shots = [];
  const start = performance.now();
  let lastShot = -Infinity;
  let lastFrame = -1;
  await new Promise((resolve, reject) => {
    const tick = (now, metadata) => {
      const elapsed = performance.now() - start;
      announce(camera, challenge, elapsed, pause, slot);
      camera.setProgress(elapsed / duration);
      const newFrame = metadata ? metadata.presentedFrames !== lastFrame : true;
      if (newFrame && elapsed - lastShot >= interval * 0.9) {
        lastShot = elapsed;
        if (metadata) lastFrame = metadata.presentedFrames;
        // The time the camera took the frame (or the browser presented it), not when it is drawn
        // here: a slow phone's stall must not stretch the timing the server checks.
        const frameTime = metadata?.captureTime ?? metadata?.presentationTime ?? now;
        context.drawImage(camera.video, 0, 0, canvas.width, canvas.height);
        const capturedAt = Math.round(performance.timeOrigin + frameTime);
        shots.push(new Promise((done, fail) => canvas.toBlob((blob) => (blob ? done({ capturedAt, blob }) : fail(new Error("The frame could not be encoded."))), "image/jpeg", 0.9)));
      }
      if (shots.length >= wanted || elapsed >= duration + interval) resolve();
      else schedule();
    };
    const schedule = () => {
      if (camera.video.requestVideoFrameCallback) camera.video.requestVideoFrameCallback(tick);
      else setTimeout(() => tick(performance.now(), null), interval / 2);
    };
    try { schedule(); } catch (error) { reject(error); }
    // A hidden tab delivers no video frames: end the capture anyway, the server judges what came.
    setTimeout(resolve, duration + 3000);
  });
  const taken = await Promise.all(shots);
  return Promise.all(taken.map(async ({ capturedAt, blob }) => ({ captured_at_ms: capturedAt, image: await blobBase64(blob) })));
}

function announce(camera, challenge, elapsed, pause, slot) {
  if (elapsed < pause) {
    camera.setStatus("Hold still", "Look at the camera");
    return;
  }
  const index = Math.min(challenge.actions.length - 1, Math.floor((elapsed - pause) / slot));
  const action = challenge.actions[index];
  camera.setStatus(action.instruction, `Action ${index + 1} of ${challenge.actions.length}`);
  camera.video.dataset.action = action.action;
}

/**
 * What to do next, in plain words: by the server's liveness reason where it gives one (a
 * development server does), else by the result alone, which every server gives.
 */
const ADVICE_BY_REASON = {
  no_face: "We could not see your face: hold the device at eye level and keep your whole face in the frame.",
  multiple_faces: "We saw more than one face: take the selfie alone.",
  face_too_small: "Your face was too far away: hold the device closer, at eye level.",
  identity_changed: "The face changed during the capture: keep the same person in front of the camera throughout.",
  action_missing: "We could not see the movement we asked for — face the light and do each one (a blink, a turn) when asked.",
  flat_surface: "That looked like a photo or a screen, not a live face: use your own face, in front of the camera.",
  timing: "The capture's timing was off: keep the app open and in front until it finishes.",
  replay: "These frames were sent before: take a new selfie.",
  sequence_reversed: "The frames came in the wrong order: take a new selfie.",
};
const ADVICE_BY_RESULT = {
  LIVENESS_FAILED: "We could not confirm a live face — face the light, keep your face in the frame, and do each movement when asked.",
  NOT_MATCHED: "The selfie did not match your face template. Take it yourself, in good light, without sunglasses or a mask.",
};

export function adviceFor(result) {
  const reason = result.biometric_result?.liveness_reason;
  return ADVICE_BY_REASON[reason] ?? ADVICE_BY_RESULT[result.biometric_result?.display_text] ?? null;
}

/**
 * The result alert of the seed's screens: result, use case, transaction id, attempts left; the
 * seed's cancel alert for 240. After 153 the session is over: the alert, then sign-in.
 */
export async function showResultDialog(result, workflow) {
  if (result.status_code === code.userCancelledSelfie) {
    await showDialog({ id: "selfie-result", title: "Authentication Error",
      body: [h("dl", { class: "details", id: "selfie-result-details" },
        h("dt", {}, "Reason"), h("dd", { "data-field": "Reason" }, "User Cancelled"),
        h("dt", {}, "Error Code"), h("dd", { "data-field": "Error Code" }, "240"))],
      actions: [{ label: "OK", value: "ok", primary: true }] });
    return;
  }
  const display = result.biometric_result?.display_text;
  const success = result.status_code === code.success && (display === "MATCHED" || display === "ENROLLED");
  const info = result.idv_audit_info ?? {};
  let title;
  if (result.status_code === code.attemptsExhausted) title = "❌ Account locked";
  else if (result.status_code === code.noTemplate) title = "⚠️ No biometric template";
  else if (success) title = { 10: "✅ Biometric opt-in complete", 6: "✅ Identity verified", 7: "✅ Document matched" }[workflow] ?? "✅ Authentication Success";
  else title = { 10: "❌ Biometric opt-in failed", 7: "❌ Document not matched" }[workflow] ?? "❌ Authentication Failed";
  const lines = [
    ["Biometric Result", display ?? `${result.status_message} (${result.status_code})`],
    ["Use Case", info.orchestration_use_case ?? "N/A"],
    ["Transaction ID", info.idv_audit_transaction_id ?? "N/A"],
    ["Attempts Left", String(result.attempts_left ?? 0)],
  ];
  if (result.biometric_result?.liveness_reason) lines.push(["Liveness", result.biometric_result.liveness_reason]);
  const body = h("dl", { class: "details", id: "selfie-result-details" }, lines.map(([k, v]) => [h("dt", {}, k), h("dd", { "data-field": k }, v)]));
  const locked = result.status_code === code.attemptsExhausted;
  const notice = lockedNotice(result.locked_until);
  const advice = success ? null : adviceFor(result);
  const choice = await showDialog({
    id: "selfie-result",
    title,
    body: [locked ? h("p", { id: "selfie-locked" }, notice) : null, advice ? h("p", { id: "selfie-advice" }, advice) : null, body],
    actions: success ? [{ label: "Back to Dashboard", value: "dashboard", primary: true }] : [{ label: "OK", value: "ok", primary: true }],
  });
  if (locked) endSession(notice);
  else if (choice === "dashboard") navigate("dashboard");
}
