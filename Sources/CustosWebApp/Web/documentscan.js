// The Additional Document Scan screen (IDV workflow 7, challenge mode 10): the front of an
// identity document (and its back when it has one), taken with the camera or chosen from the
// device, the seed's start confirmation, the upload, and the result: MATCHED when the portrait
// matches the user's template, NOT_MATCHED otherwise (one attempt used), 600 without a template.
// The relying party reads the images back by API key (the Admin screen's document review).
import { api, E, h, showDialog, screen, blobBase64, busy, resendWhileBusy } from "./core.js";
import { workflow } from "./contract.js";
import { showResultDialog } from "./selfie.js";

const SIDES = [["front", "Front (the page with your portrait)", true], ["back", "Back (if your document has one)", false]];

screen("documentscan", {
  title: "Additional Document Scan",
  session: true,
  render(view) {
    const errors = h("div", { id: "document-error" });
    const inputs = Object.fromEntries(SIDES.map(([side]) => [side,
      h("input", { type: "file", id: `document-${side}`, accept: "image/jpeg,image/png", capture: "environment" })]));
    const previews = Object.fromEntries(SIDES.map(([side]) => [side, h("img", { id: `document-${side}-preview`, class: "document-preview", alt: "", hidden: true })]));
    for (const [side] of SIDES) {
      inputs[side].addEventListener("change", () => {
        const file = inputs[side].files?.[0];
        previews[side].hidden = !file;
        if (file) previews[side].src = URL.createObjectURL(file);
      });
    }
    const start = h("button", { type: "button", class: "primary", id: "start-document-scan" }, "Scan document");
    start.addEventListener("click", () => busy(start, errors, () => scan(inputs)));
    view.append(
      h("p", {}, "Add an identity document to your account: its portrait is compared with your biometric template on the server. " +
        "The service that asked for it can review the images."),
      h("section", { class: "card stack" },
        SIDES.map(([side, label]) => h("div", { class: "field" }, h("label", { for: `document-${side}` }, label), inputs[side], previews[side])),
        h("p", { class: "hint" }, "JPEG or PNG, in good light, the whole page in the picture."), errors, start));
  },
});

/** The workflow: start, the seed's confirmation (Close is 240), the upload, the result. */
async function scan(inputs) {
  const front = inputs.front.files?.[0];
  if (!front) throw new Error("Take or choose a photo of the document's front first.");
  const back = inputs.back.files?.[0];
  const transaction = await api(E.initiateIDV, { body: { workflow: workflow.additionalDocumentScan, reason: "Additional Document Scan" }, auth: "session" });
  if (transaction.result) return showResultDialog(transaction.result, workflow.additionalDocumentScan);
  const on = { params: [transaction.idv_audit_transaction_id], auth: "session" };
  const choice = await showDialog({
    id: "document-confirm", title: "Additional Document Scan",
    body: [h("p", {}, `For: ${transaction.reason}`), h("p", {}, "The document's images are sent to the server and kept for review.")],
    actions: [{ label: "Close", value: "close" }, { label: "Start Document Scan", value: "start", primary: true }],
    dismissValue: "close",
  });
  if (choice !== "start") return showResultDialog(await api(E.cancelIDV, on), workflow.additionalDocumentScan);
  const capture = await api(E.confirmIDV, on);
  for (const file of [front, back].filter(Boolean)) {
    if (file.size > capture.max_image_bytes) {
      await api(E.cancelIDV, on).catch(() => {});
      throw new Error(`${file.name} is larger than ${Math.floor(capture.max_image_bytes / 1048576)} MB: take a smaller photo.`);
    }
  }
  const body = { front_image: await blobBase64(front) };
  if (back) body.back_image = await blobBase64(back);
  return showResultDialog(await resendWhileBusy(() => api(E.submitDocument, { ...on, body })), workflow.additionalDocumentScan);
}
