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
    public func issueRegistrationCode(userID: String, actor: String) throws -> RegistrationCode {
        let user = try requireUser(userID)
        guard user.status == .active else { throw IdentityError.userNotActive }
        let code = "rc_" + Self.token(random, bytes: 32)
        let expiresAt = clock.now().addingTimeInterval(policy.registrationCodeLifetime)
        try store.atomically {
            try store.issue(SingleUseToken(purpose: Purpose.deviceRegistration, digest: digester.digest(code), subject: userID,
                                           expiresAt: expiresAt))
            try audit?.record(.registrationCodeIssued, userID: userID, details: [AuditActor.detail: actor])
        }
        return RegistrationCode(code: code, expiresAt: expiresAt)
    }

    /// Binds a new device to an active user and opens a session, proved by the password
    /// (refused when `policy.passwordRegistration` is off) or by a registration code (single use).
    ///
    /// No device proves who sends a password here, so a wrong one must not lock the user (anyone
    /// who knows the user id could): failures count per user and client address, and per client
    /// address (`LoginThrottle`, 429 when spent), never against the user's attempts. A wrong
    /// password, an unknown, inactive or locked user all answer 401 in the same time (one
    /// Argon2id verification each). An expired password still binds the device and answers 110
    /// with a password change token.
    public func registerDevice(userID: String, proof: DeviceRegistrationProof, deviceName: String, deviceKey: DevicePublicKey,
                               client: String? = nil) throws -> AuthenticationOutcome {
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
            let throttleKey = "registration:" + userID
            if let wait = try throttle.retryAfter(deviceID: throttleKey, client: client, now: now) {
                throw IdentityError.throttled(retryAfter: Int(wait.rounded(.up)))
            }
            // One Argon2id verification, real or dummy: the same time for every answer.
            let verified = try hasher.verify(password, encoded: user?.passwordHash ?? dummyPasswordHash)
            guard let user, user.status == .active, !user.isLocked(at: now), verified, user.passwordHash != nil else {
                let left = try throttle.recordFailure(deviceID: throttleKey, client: client, now: now)
                return AuthenticationOutcome(status: .credentialsRejected, userID: userID, attemptsLeft: left)
            }
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
