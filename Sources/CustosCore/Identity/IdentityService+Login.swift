import CustosAPI
import Foundation

/// A login nonce for a device to sign.
public struct LoginNonce: Equatable, Sendable {
    public var nonce: String
    public var expiresAt: Date
    public var passwordRequired: Bool
}

extension IdentityService {
    /// Issues a single-use nonce bound to the user and device. Unknown users and devices get
    /// one too: the answer must not tell which users exist.
    public func loginChallenge(userID: String, deviceID: String) throws -> LoginNonce {
        try InputRules.checkUserID(userID)
        try InputRules.checkToken(deviceID, field: "device_id")
        let now = clock.now()
        let nonce = Self.token(random, bytes: 32)
        let expiresAt = now.addingTimeInterval(policy.loginNonceLifetime)
        // The subject is the user, so deleting the user deletes its nonces; the device rides along.
        try store.issue(SingleUseToken(purpose: Purpose.loginNonce, digest: digester.digest(nonce), subject: userID,
                                       payload: Data(deviceID.utf8), expiresAt: expiresAt))
        let device = try store.device(id: deviceID).flatMap { $0.userID == userID && !$0.isRevoked ? $0 : nil }
        return LoginNonce(nonce: nonce, expiresAt: expiresAt, passwordRequired: policy.passwordRequired(for: device, at: now))
    }

    /// Logs in with the device's signature over the nonce, plus the password where the policy
    /// asks for it.
    ///
    /// An unknown user, a disabled user, a revoked device, a bad signature and a wrong
    /// password all get the same answer (401 with attempts left) and cost the same time: the
    /// password is always verified, against a dummy hash when there is no user.
    public func login(userID: String, deviceID: String, nonce: String, signature: String,
                      password: String?) throws -> AuthenticationOutcome {
        try InputRules.checkUserID(userID)
        try InputRules.checkToken(deviceID, field: "device_id")
        try InputRules.checkToken(nonce, field: "nonce")
        if let password { try InputRules.checkPasswordLength(password, field: "password") }
        guard let signatureBytes = Data(base64URLEncoded: signature), signatureBytes.count == 64 else {
            throw IdentityError.invalidInput(field: "signature", reason: "must be a 64-byte ES256 signature (r||s) in base64url")
        }
        let now = clock.now()
        guard let issued = try store.consume(purpose: Purpose.loginNonce, digest: digester.digest(nonce), now: now),
              issued.subject == userID, issued.payload == Data(deviceID.utf8) else {
            throw IdentityError.invalidNonce
        }

        let user = try store.user(id: userID)
        if try isLocked(userID, user: user, now: now) {
            return AuthenticationOutcome(status: .attemptsExhausted, userID: userID, attemptsLeft: 0)
        }
        let device = try store.device(id: deviceID).flatMap { $0.userID == userID && !$0.isRevoked ? $0 : nil }
        let signatureValid = try device.map { device in
            keys.verify(signature: Array(signatureBytes), message: Array(nonce.utf8), key: try keys.parse(jwkJSON: device.publicKeyJWK))
        } ?? false

        let passwordRequired = policy.passwordRequired(for: device, at: now)
        var passwordValid = !passwordRequired
        if passwordRequired || password != nil {
            // Always one Argon2id verification, real or dummy: same time for every answer.
            let verified = try hasher.verify(password ?? "", encoded: user?.passwordHash ?? dummyPasswordHash)
            passwordValid = verified && password != nil && user?.passwordHash != nil
        }

        guard let user, let device, user.status == .active, signatureValid, passwordValid else {
            return try fail(userID, user: user, now: now)
        }
        try attempts.reset(userID)
        try store.touchDevice(id: device.id, at: now, passwordVerified: password != nil)

        if policy.passwordExpired(user, at: now) {
            return AuthenticationOutcome(status: .passwordExpired, userID: userID, attemptsLeft: Int(policy.maximumAttempts),
                                         device: device, passwordChangeToken: try issuePasswordChangeToken(userID, now: now))
        }
        let (session, token) = try openSession(userID: userID, deviceID: device.id, now: now)
        return AuthenticationOutcome(status: .success, userID: userID, attemptsLeft: Int(policy.maximumAttempts), device: device,
                                     session: session, sessionToken: token)
    }

    private func issuePasswordChangeToken(_ userID: String, now: Date) throws -> String {
        let token = "cp_" + Self.token(random, bytes: 32)
        try store.issue(SingleUseToken(purpose: Purpose.passwordChange, digest: digester.digest(token), subject: userID,
                                       expiresAt: now.addingTimeInterval(policy.passwordChangeTokenLifetime)))
        return token
    }
}
