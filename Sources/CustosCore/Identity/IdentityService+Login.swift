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
    /// Only a valid signature of a device bound to the user proves something about the user,
    /// so only then does a failure (wrong password, disabled user) count against the user's
    /// attempts. An unknown user, an unknown or revoked device and a bad signature count against
    /// the device id from this `client` address instead (`LoginThrottle`, 429 when spent):
    /// nobody can lock a user out without one of the user's devices. Without a valid signature
    /// every user — unknown, locked or not — gets the same answer in the same time.
    public func login(userID: String, deviceID: String, nonce: String, signature: String,
                      password: String?, client: String? = nil) throws -> AuthenticationOutcome {
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

        let device = try store.device(id: deviceID).flatMap { $0.userID == userID && !$0.isRevoked ? $0 : nil }
        // One key parsed and one signature checked whether or not the device is this user's: the
        // time does not tell which device ids are bound (a check against the dummy key counts for nothing).
        let key = try keys.parse(jwkJSON: device?.publicKeyJWK ?? Self.dummyDeviceJWK)
        let signatureValid = keys.verify(signature: Array(signatureBytes), message: Array(nonce.utf8), key: key) && device != nil
        guard let device, signatureValid else { return try rejectDevice(deviceID, userID: userID, client: client, now: now) }
        return try concludeLogin(userID: userID, device: device, password: password, now: now)
    }

    /// A device that did not prove itself (unknown, revoked, a bad signature): counted against its
    /// id from the client's address, never against the user; 429 once those attempts are spent.
    func rejectDevice(_ deviceID: String, userID: String, client: String?, now: Date) throws -> AuthenticationOutcome {
        if let wait = try throttle.retryAfter(deviceID: deviceID, client: client, now: now) {
            throw IdentityError.throttled(retryAfter: Int(wait.rounded(.up)))
        }
        let left = try throttle.recordFailure(deviceID: deviceID, client: client, now: now)
        return AuthenticationOutcome(status: .credentialsRejected, userID: userID, attemptsLeft: left)
    }

    /// The rest of a login once `device`, bound to `userID`, proved itself: the user's state, an
    /// attempt, the password where the policy asks for it, then a session (or 110).
    func concludeLogin(userID: String, device: Device, password: String?, now: Date) throws -> AuthenticationOutcome {
        let user = try store.user(id: userID)
        if let user {
            if user.isLocked(at: now) { return AuthenticationOutcome(status: .attemptsExhausted, userID: userID, attemptsLeft: 0) }
            try clearExpiredLock(user, now: now)
        }
        // The attempt is taken before the password is judged: parallel guesses cannot exceed the limit.
        guard let used = try awaitAttempt(userID: userID, factor: .credentials) else {
            return AuthenticationOutcome(status: .attemptsExhausted, userID: userID, attemptsLeft: 0)
        }
        let passwordRequired = policy.passwordRequired(for: device, at: now)
        var passwordValid = !passwordRequired
        if passwordRequired || password != nil {
            // Always one Argon2id verification, real or dummy: same time for every answer.
            let verified = try hasher.verify(password ?? "", encoded: user?.passwordHash ?? dummyPasswordHash)
            passwordValid = verified && password != nil && user?.passwordHash != nil
        }

        guard let user, user.status == .active, passwordValid else {
            return try concludeFailure(userID, user: user, used: used, now: now)
        }
        try attempts.reset(userID)
        try store.touchDevice(id: device.id, at: now, passwordVerified: password != nil)

        if policy.passwordExpired(user, at: now) {
            // A device the password alone bound gets no change token (the password is all it
            // proved, so a phished password must not be able to replace itself from it), nor one
            // on probation (it may not change the password yet).
            let token = device.boundBy.isConfirmed && !device.isOnProbation(at: now) ? try issuePasswordChangeToken(userID, now: now) : nil
            return AuthenticationOutcome(status: .passwordExpired, userID: userID, attemptsLeft: Int(policy.maximumAttempts),
                                         device: device, passwordChangeToken: token)
        }
        let (session, token) = try openSession(userID: userID, deviceID: device.id, now: now)
        return AuthenticationOutcome(status: .success, userID: userID, attemptsLeft: Int(policy.maximumAttempts), device: device,
                                     session: session, sessionToken: token)
    }

    func issuePasswordChangeToken(_ userID: String, now: Date) throws -> String {
        let token = "cp_" + Self.token(random, bytes: 32)
        try store.issue(SingleUseToken(purpose: Purpose.passwordChange, digest: digester.digest(token), subject: userID,
                                       expiresAt: now.addingTimeInterval(policy.passwordChangeTokenLifetime)))
        return token
    }
}
