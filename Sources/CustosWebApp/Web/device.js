// This browser as a bound device: a P-256 key made by WebCrypto, its private half
// non-extractable, kept in IndexedDB (scripts can use it to sign, never read it). One key per
// user per browser, like the SDK's device key on a phone.
import { base64url, fromBase64url, utf8 } from "./core.js";

const DB = "custos";
const STORE = "devices";

function open() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: "userID" });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function transact(mode, work) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction(STORE, mode);
      const request = work(tx.objectStore(STORE));
      tx.oncomplete = () => resolve(request?.result);
      tx.onerror = () => reject(tx.error);
      tx.onabort = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

/** The device records of this browser: [{userID, deviceID, name, privateKey, publicJWK, passkeys}]. */
export const devices = {
  all: () => transact("readonly", (s) => s.getAll()),
  get: (userID) => transact("readonly", (s) => s.get(userID)),
  put: (record) => transact("readwrite", (s) => s.put(record)),
  remove: (userID) => transact("readwrite", (s) => s.delete(userID)),
};

/** A new key pair; the private key cannot be exported, the public one is sent as a JWK. */
export async function newKeyPair() {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
  const jwk = await crypto.subtle.exportKey("jwk", pair.publicKey);
  return { privateKey: pair.privateKey, publicJWK: { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y } };
}

/** ES256 over `bytes`: raw r||s (64 bytes), as login and the notification signature want it. */
export async function signRaw(privateKey, bytes) {
  return new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, privateKey, bytes));
}

/** raw r||s to ASN.1 DER (WebAuthn's signature format). */
export function derSignature(raw) {
  const integer = (bytes) => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start++;
    let body = bytes.slice(start);
    if (body[0] & 0x80) body = Uint8Array.of(0, ...body);
    return Uint8Array.of(0x02, body.length, ...body);
  };
  const r = integer(raw.slice(0, 32));
  const s = integer(raw.slice(32));
  return Uint8Array.of(0x30, r.length + s.length, ...r, ...s);
}

export async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/**
 * The WebAuthn assertion this device answers a sign-in challenge with (the SDK builds the same):
 * authenticator data (rpId hash, user present, counter 0) and client data, signed. No user-verified
 * bit: this page runs no local verification of its own (the server would not claim it anyway).
 */
export async function deviceAssertion(challenge, record) {
  const authenticatorData = new Uint8Array(37);
  authenticatorData.set(await sha256(utf8(challenge.rp_id)), 0);
  authenticatorData[32] = 0x01;
  const clientDataJSON = utf8(JSON.stringify({ challenge: challenge.challenge, crossOrigin: false, origin: challenge.origin, type: "webauthn.get" }));
  const signed = new Uint8Array([...authenticatorData, ...(await sha256(clientDataJSON))]);
  const raw = await signRaw(record.privateKey, signed);
  return {
    credential_id: record.deviceID,
    authenticator_data: base64url(authenticatorData),
    client_data_json: base64url(clientDataJSON),
    signature: base64url(derSignature(raw)),
  };
}

/** A passkey's assertion through the browser's WebAuthn API (the authenticator asks the user). */
export async function passkeyAssertion(challenge, credentialID) {
  const credential = await navigator.credentials.get({
    publicKey: {
      challenge: fromBase64url(challenge.challenge),
      rpId: challenge.rp_id,
      allowCredentials: [{ type: "public-key", id: fromBase64url(credentialID) }],
      userVerification: "required",
      timeout: 120000,
    },
  });
  const response = credential.response;
  return {
    credential_id: "pk_" + base64url(credential.rawId),
    authenticator_data: base64url(response.authenticatorData),
    client_data_json: base64url(response.clientDataJSON),
    signature: base64url(response.signature),
  };
}
