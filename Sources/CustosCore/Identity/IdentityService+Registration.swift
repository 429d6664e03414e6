import Foundation

/// A one-time code that binds a new device to an active user outside any login (a
/// "registration link"), shown once.
public struct RegistrationCode: Equatable, Sendable {
    public var code: String
    public var expiresAt: Date
}

/// How a new device proves it may join the user's account.
public enum DeviceRegistrationProof: Sendable {
    /// The user's password: the fallback of a sign-in on a device that is not bound yet.
    case password(String)
    /// A registration code the relying party issued for the user.
    case registrationCode(String)
}

extension IdentityService {
    /// Issues a registration code for `userID` (active users only: a user not yet activated
    /// uses the activation code). Codes already issued stay valid until used or expired.
    public func issueRegistrationCode(userID: String) throws -> RegistrationCode {
        let user = try requireUser(userID)
        guard user.status == .active else { throw IdentityError.userNotActive }
        let code = "rc_" + Self.token(random, bytes: 32)
        let expiresAt = clock.now().addingTimeInterval(policy.registrationCodeLifetime)
        try store.issue(SingleUseToken(purpose: Purpose.deviceRegistration, digest: digester.digest(code), subject: userID, expiresAt: expiresAt))
        return RegistrationCode(code: code, expiresAt: expiresAt)
    }

    /// Binds a new device to an active user and opens a session, proved by the password (on
    /// the user's attempt counter, like a login; refused when `policy.passwordRegistration` is
    /// off) or by a registration code (single use).
    ///
    /// A wrong password answers as a login does — 401 with the attempts left, 153 when they
    /// run out — and an unknown or inactive user gets the same answer in the same time. An
    /// expired password still binds the device and answers 110 with a password change token.
    public func registerDevice(userID: String, proof: DeviceRegistrationProof, deviceName: String, deviceKey: DevicePublicKey) throws
        -> AuthenticationOutcome {
        try InputRules.checkUserID(userID)
        let name = try InputRules.checkName(deviceName, field: "device_name")
        let thumbprint = try keys.thumbprint(of: deviceKey)
        let now = clock.now()
        let user = try store.user(id: userID)
        let device = Device(id: newID(), userID: userID, name: name, publicKeyJWK: deviceKey.jwkJSON, keyThumbprint: thumbprint,
                            createdAt: now, lastUsedAt: now)
        var passwordExpired = false
        switch proof {
        case .registrationCode(let code):
            try InputRules.checkToken(code, field: "registration_code")
            guard let user, user.status == .active,
                  try store.peek(purpose: Purpose.deviceRegistration, digest: digester.digest(code), now: now)?.subject == userID else {
                throw IdentityError.invalidRegistrationCode
            }
        case .password(let password):
            guard policy.passwordRegistration else { throw IdentityError.passwordRegistrationOff }
            try InputRules.checkPasswordLength(password, field: "password")
            if let user {
                if user.isLocked(at: now) { return AuthenticationOutcome(status: .attemptsExhausted, userID: userID, attemptsLeft: 0) }
                try clearExpiredLock(user, now: now)
            }
            // As at login: the attempt is taken first, then one Argon2id verification, real or dummy.
            guard let used = try attempts.take(userID, now: now) else {
                return AuthenticationOutcome(status: .attemptsExhausted, userID: userID, attemptsLeft: 0)
            }
            let verified = try hasher.verify(password, encoded: user?.passwordHash ?? dummyPasswordHash)
            guard let user, user.status == .active, verified, user.passwordHash != nil else {
                return try concludeFailure(userID, user: user, used: used, now: now)
            }
            try attempts.reset(userID)
            passwordExpired = policy.passwordExpired(user, at: now)
        }
        let opened = try store.atomically { () -> (Session, String)? in
            if case .registrationCode(let code) = proof {
                guard try store.consume(purpose: Purpose.deviceRegistration, digest: digester.digest(code), now: now) != nil else {
                    throw IdentityError.invalidRegistrationCode
                }
            }
            do {
                try store.addDevice(device)
            } catch StoreError.duplicate {
                throw IdentityError.deviceKeyInUse
            }
            try audit?.record(.deviceRegistered, userID: userID, details: [
                "device_id": device.id, "proof": { if case .password = proof { "password" } else { "registration_code" } }(),
            ])
            // An expired password binds the device but opens no session: it must be changed first.
            return passwordExpired ? nil : try openSession(userID: userID, deviceID: device.id, now: now)
        }
        guard let (session, token) = opened else {
            return AuthenticationOutcome(status: .passwordExpired, userID: userID, attemptsLeft: Int(policy.maximumAttempts), device: device,
                                         passwordChangeToken: try issuePasswordChangeToken(userID, now: now))
        }
        return AuthenticationOutcome(status: .success, userID: userID, attemptsLeft: Int(policy.maximumAttempts), device: device,
                                     session: session, sessionToken: token)
    }
}
