import CustosAPI
import Foundation

/// A passkey answering a level-1 step-up in place of the password: the browser's own
/// verification (WebAuthn with user verification), as a native app answers with its local
/// authentication. The challenge is the SHA-256 of the notification's signing content for the
/// chosen action, so an assertion answers that action of that notification and nothing else.
extension PasskeyService {
    /// What the user's client needs to answer `content` with a passkey; nil when the user has none.
    public func stepUpOffer(userID: String, content: Data) throws -> PasskeyStepUp? {
        let passkeys = try store.devices(userID: userID).filter { !$0.isRevoked && $0.boundBy == .passkey }
        guard !passkeys.isEmpty else { return nil }
        return PasskeyStepUp(challenge: digester.digest(bytes: content).base64URLEncodedString, rpID: policy.rpID,
                             credentialIDs: passkeys.map(\.id))
    }

    /// Whether `assertion` is by one of `userID`'s passkeys (not revoked), over `content`, with
    /// the user verified, and its counter moved on.
    public func verifyStepUp(_ assertion: WebAuthnAssertion, userID: String, content: Data) throws -> Bool {
        try InputRules.checkToken(assertion.credentialID, field: "credential_id")
        guard let device = try store.device(id: assertion.credentialID), device.userID == userID, !device.isRevoked,
              device.boundBy == .passkey else { return false }
        return try proves(assertion, device: device, challenge: digester.digest(bytes: content))
    }
}
