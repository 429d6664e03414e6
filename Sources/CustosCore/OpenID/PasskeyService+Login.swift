import Foundation

/// The challenge of a passkey sign-in to Custos itself.
public struct PasskeyLoginChallenge: Equatable, Sendable {
    public var challenge: Data
    public var rpID: String
    public var expiresAt: Date
}

/// Signing in to Custos itself with a passkey (or a bound device answering in WebAuthn's
/// form), without a user id: the challenge belongs to nobody until an assertion answers it;
/// the credential names the device, the device its user. What follows is the login's: the
/// user's state and attempts, the password where the policy asks for it, a session.
extension PasskeyService {
    public func beginLogin() throws -> PasskeyLoginChallenge {
        let now = clock.now()
        let challenge = Data(random.bytes(count: 32))
        let expiresAt = now.addingTimeInterval(policy.challengeLifetime)
        try store.issue(SingleUseToken(purpose: IdentityService.Purpose.passkeyLogin, digest: digester.digest(bytes: challenge),
                                       subject: "", expiresAt: expiresAt))
        return PasskeyLoginChallenge(challenge: challenge, rpID: policy.rpID, expiresAt: expiresAt)
    }

    /// One answer per challenge: it is spent whatever the outcome. A proof that fails counts
    /// against the credential's device id from the client's address, as a failed login does.
    public func login(_ assertion: WebAuthnAssertion, password: String?, client: String? = nil) throws -> AuthenticationOutcome {
        try InputRules.checkToken(assertion.credentialID, field: "credential_id")
        if let password { try InputRules.checkPasswordLength(password, field: "password") }
        let now = clock.now()
        guard let clientData = try? JSONDecoder().decode(CollectedClientData.self, from: assertion.clientDataJSON),
              let challenge = Data(base64URLEncoded: clientData.challenge),
              try store.consume(purpose: IdentityService.Purpose.passkeyLogin, digest: digester.digest(bytes: challenge), now: now) != nil else {
            throw IdentityError.invalidNonce
        }
        let device = try store.device(id: assertion.credentialID).flatMap { $0.isRevoked ? nil : $0 }
        guard let device, try proves(assertion, device: device, challenge: challenge) else {
            // No user id in the answer: a credential id alone must not tell whose it is.
            return try identity.rejectDevice(assertion.credentialID, userID: "", client: client, now: now)
        }
        return try identity.concludeLogin(userID: device.userID, device: device, password: password, now: now)
    }

    /// The assertion is the device's, over this challenge, with the user verified, and its
    /// counter moved on (checked and advanced in one step).
    func proves(_ assertion: WebAuthnAssertion, device: Device, challenge: Data) throws -> Bool {
        do {
            let count = try webAuthn.verify(assertion, challengeDigest: digester.digest(bytes: challenge),
                                            key: try identity.keys.parse(jwkJSON: device.publicKeyJWK),
                                            storedSignCount: device.signCount, requireUserVerification: true)
            return try store.advanceSignCount(deviceID: device.id, to: count)
        } catch is WebAuthnFailure {
            return false
        }
    }
}
