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

    /// The counts of password registrations per user id, all addresses together: a proof or an
    /// unlock resets one; housekeeping sweeps those a day without a try (the ids that name no
    /// user among them).
    public static let passwordRegistrationCounterPrefix = "password_registration:"

    static func passwordRegistrationKey(_ userID: String) -> String { passwordRegistrationCounterPrefix + userID }

    /// The password registrations of the user being judged right now (user ids hold no `:`,
    /// so no user's count shares this key; the same prefix, so the same sweep).
    static func passwordRegistrationInFlightKey(_ userID: String) -> String {
        passwordRegistrationCounterPrefix + "in_flight:" + userID
    }

    /// Binds a new device to an active user and opens a session, proved by the password
    /// (refused unless `policy.passwordRegistration` is on) or by a registration code (single
    /// use). A registration code presented with the key of a device this user bound by the
    /// password alone confirms that device instead.
    ///
    /// No device proves who sends a password here, so a wrong one must not lock the user (anyone
    /// who knows the user id could): failures count per user and client address, and per client
    /// address (`LoginThrottle`, 429 when spent), never against the user's attempts; past
    /// `policy.passwordRegistrationFailures` for the user from all addresses together, password
    /// registration closes for that user only (the bound devices go on). A wrong password, an
    /// unknown, inactive or locked user all answer 401 in the same time (one Argon2id
    /// verification each). An expired password binds nothing and answers 110 without a change
    /// token: the password alone cannot replace itself (a phished expired password would lock
    /// the user out); the user changes it from a bound device.
    public func registerDevice(userID: String, proof: DeviceRegistrationProof, deviceName: String, deviceKey: DevicePublicKey,
                               client: String? = nil) throws -> AuthenticationOutcome {
        try InputRules.checkUserID(userID)
        let name = try InputRules.checkName(deviceName, field: "device_name")
        let thumbprint = try keys.thumbprint(of: deviceKey)
        let now = clock.now()
        let user = try store.user(id: userID)
        let binding: DeviceBinding
        switch proof {
        case .registrationCode(let code):
            try InputRules.checkToken(code, field: "registration_code")
            guard let user, user.status == .active,
                  try store.peek(purpose: Purpose.deviceRegistration, digest: digester.digest(code), now: now)?.subject == userID else {
                throw IdentityError.invalidRegistrationCode
            }
            binding = .registrationCode
        case .password(let password):
            guard policy.passwordRegistration else { throw IdentityError.passwordRegistrationOff }
            try InputRules.checkPasswordLength(password, field: "password")
            let throttleKey = "registration:" + userID
            if let wait = try throttle.retryAfter(deviceID: throttleKey, client: client, now: now) {
                throw IdentityError.throttled(retryAfter: Int(wait.rounded(.up)))
            }
            let userKey = Self.passwordRegistrationKey(userID)
            // The try is counted before the password is judged, for an unknown user id too: a
            // burst of parallel guesses cannot pass the limit, and a closed registration says
            // nothing of whether the user exists. A right password gives its count back.
            let counted = try awaitPasswordRegistrationTry(userID)
            defer { if counted != nil { try? store.decrement(Self.passwordRegistrationInFlightKey(userID)) } }
            // One Argon2id verification, real or dummy: the same time for every answer.
            let verified = try hasher.verify(password, encoded: user?.passwordHash ?? dummyPasswordHash)
            guard counted != nil else { throw IdentityError.passwordRegistrationClosed }
            guard let user, user.status == .active, !user.isLocked(at: now), verified, user.passwordHash != nil else {
                let left = try throttle.recordFailure(deviceID: throttleKey, client: client, now: now)
                return AuthenticationOutcome(status: .credentialsRejected, userID: userID, attemptsLeft: left)
            }
            try store.decrement(userKey)
            if policy.passwordExpired(user, at: now) {
                return AuthenticationOutcome(status: .passwordExpired, userID: userID, attemptsLeft: Int(policy.maximumAttempts))
            }
            binding = .password
        }
        // Neither proof is another bound device's approval: the device starts on probation.
        let device = Device(id: newID(), userID: userID, name: name, publicKeyJWK: deviceKey.jwkJSON, keyThumbprint: thumbprint,
                            createdAt: now, lastUsedAt: now, boundBy: binding, boundFrom: client,
                            probationUntil: probationEnd(binding, now: now))
        let bound: Device, session: Session, token: String
        do {
            (bound, session, token) = try bindAndOpen(device, proof: proof, binding: binding, judgedHash: user?.passwordHash, now: now)
        } catch is PasswordChangedMeanwhile {
            return AuthenticationOutcome(status: .credentialsRejected, userID: userID, attemptsLeft: 0)
        }
        return AuthenticationOutcome(status: .success, userID: userID, attemptsLeft: Int(policy.maximumAttempts), device: bound,
                                     session: session, sessionToken: token)
    }

    /// Spends a registration code `provesKnowledge` accepted; `approvalProofRejected` when
    /// another request spent it first.
    func spendRegistrationCode(_ code: String, userID: String, now: Date) throws {
        guard try store.consume(purpose: Purpose.deviceRegistration, digest: digester.digest(code), now: now)?.subject == userID else {
            throw IdentityError.approvalProofRejected
        }
    }

    /// A password judged valid was replaced before the device it proves was bound.
    private struct PasswordChangedMeanwhile: Error {}

    /// Binds `device` by `proof` and opens its session, in one transaction: a registration code
    /// is spent there; a password must still be the one judged (`judgedHash`).
    private func bindAndOpen(_ device: Device, proof: DeviceRegistrationProof, binding: DeviceBinding, judgedHash: String?,
                             now: Date) throws -> (Device, Session, String) {
        let userID = device.userID
        return try store.atomically { () -> (Device, Session, String) in
            switch proof {
            case .registrationCode(let code):
                guard try store.consume(purpose: Purpose.deviceRegistration, digest: digester.digest(code), now: now) != nil else {
                    throw IdentityError.invalidRegistrationCode
                }
                try store.reset(Self.passwordRegistrationKey(userID))
            case .password:
                // The password judged above must still be the user's: a change that landed while it
                // was judged unbinds what rests on the old one, and this binding would escape it.
                guard try store.user(id: userID)?.passwordHash == judgedHash else { throw PasswordChangedMeanwhile() }
            }
            let bound = try bind(device, confirming: binding.isConfirmed, now: now)
            let (session, token) = try openSession(userID: userID, deviceID: bound.id, now: now)
            return (bound, session, token)
        }
    }

    /// Checks that a device approval's requester knows the user (`DeviceApprovalService.request`):
    /// the password, judged as a password registration's (counted per user from every address
    /// before it is judged, a right one giving its count back; one Argon2id verification, real
    /// or dummy), or a registration code of this user (spent by `spendRegistrationCode` once the
    /// request is accepted, so a refused request burns none). Returns the user; any
    /// failure, an unknown user id included, is `approvalProofRejected` in the same time, or
    /// `passwordRegistrationClosed` once the password way is closed for the id.
    func provesKnowledge(of userID: String, _ proof: DeviceRegistrationProof, now: Date) throws -> User {
        let user = try store.user(id: userID)
        switch proof {
        case .registrationCode(let code):
            try InputRules.checkToken(code, field: "registration_code")
            guard let user, user.status == .active,
                  try store.peek(purpose: Purpose.deviceRegistration, digest: digester.digest(code), now: now)?.subject == userID else {
                throw IdentityError.approvalProofRejected
            }
            return user
        case .password(let password):
            try InputRules.checkPasswordLength(password, field: "password")
            let counted = try awaitPasswordRegistrationTry(userID)
            defer { if counted != nil { try? store.decrement(Self.passwordRegistrationInFlightKey(userID)) } }
            let verified = try hasher.verify(password, encoded: user?.passwordHash ?? dummyPasswordHash)
            guard counted != nil else { throw IdentityError.passwordRegistrationClosed }
            guard let user, verified, user.passwordHash != nil else { throw IdentityError.approvalProofRejected }
            try store.decrement(Self.passwordRegistrationKey(userID))
            return user
        }
    }

    /// Counts a password registration of `userID` before it is judged; nil when registration is
    /// closed for the user: the count is full and no try of the user is being judged. When the
    /// count is full but tries are in flight, it waits for them, as `awaitAttempt` does for
    /// logins: a right password among them gives its count back, and the count is the user's
    /// last word only once none is left in flight. So a right password is refused as closed
    /// only when registration really is closed, and 429 (`attemptsInFlight`) when the tries in
    /// flight did not end within `policy.attemptWait`. The caller takes the in-flight mark off
    /// once its try is judged.
    ///
    /// A try marks itself only when it may find room, so a flood of guesses at a full count
    /// marks nothing: it finds none in flight and is answered closed at once, holding no worker.
    func awaitPasswordRegistrationTry(_ userID: String) throws -> Int64? {
        let counted = Self.passwordRegistrationKey(userID)
        let inFlight = Self.passwordRegistrationInFlightKey(userID)
        let limit = policy.passwordRegistrationFailures
        var quiet = 0
        return try untilDecided {
            if try store.value(counted) < limit {
                // Marked in flight before it takes a count, so that whoever finds the count full
                // sees every try that holds one.
                _ = try store.increment(inFlight, limit: .max, now: clock.now())
                if let used = try store.increment(counted, limit: limit, now: clock.now()) { return .decided(used) }
                try store.decrement(inFlight)
            }
            guard try store.value(inFlight) == 0 || registrationMarksAreStale(inFlight, counted: counted) else {
                quiet = 0
                return .wait
            }
            // None in flight: full twice in a row (a try that ended in between may have given
            // its count back), it is closed.
            quiet += 1
            return quiet == 2 ? .decided(nil) : .again
        }
    }

    /// Whether the in-flight marks were left by a process that died mid-try (then they are
    /// cleared): every try holding a count took it when it began, so when the count last went
    /// up longer than `policy.attemptWait` ago, no try that holds one is still being judged.
    private func registrationMarksAreStale(_ inFlight: String, counted: String) throws -> Bool {
        guard let last = try store.lastIncrement(counted), clock.now().timeIntervalSince(last) > policy.attemptWait else { return false }
        try store.reset(inFlight)
        return true
    }

    /// A MATCHED server biometric authentication (workflow 8) sent from the session of a device
    /// bound by the password alone confirms that device (`DeviceBinding.faceMatch`): the live face
    /// matched the template the user enrolled from a confirmed device. Inside the verdict's
    /// transaction; a device confirmed already, revoked or another user's stays as it is.
    /// Returns whether it confirmed the device.
    /// The device starts a probation (`policy.probation`): one bypassed liveness check must not
    /// hand over the account; the relying parties are told (CAEP `credential-change`).
    func confirmByFaceMatch(deviceID: String, userID: String, transactionID: String) throws -> Bool {
        let now = clock.now()
        let probationUntil = probationEnd(.faceMatch, now: now)
        guard var device = try store.device(id: deviceID), device.userID == userID, device.boundBy == .password,
              try store.confirmDevice(id: deviceID, by: .faceMatch, probationUntil: probationUntil) else { return false }
        try audit?.record(.deviceConfirmed, userID: userID, transactionID: transactionID, details: [
            "device_id": deviceID, "proof": DeviceBinding.faceMatch.rawValue, "probation_until": probationUntil.map(Self.auditTime) ?? "-",
        ])
        device.boundBy = .faceMatch
        device.probationUntil = probationUntil
        try signalBinding(device, now: now)
        return true
    }

    static func auditTime(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    /// When the probation of a device bound or confirmed by `binding` now ends; nil for a
    /// binding that starts none (`DeviceBinding.startsProbation`).
    func probationEnd(_ binding: DeviceBinding, now: Date) -> Date? {
        binding.startsProbation ? now.addingTimeInterval(policy.probation) : nil
    }

    /// Tells the relying parties a device was bound (CAEP `credential-change`, `create`): which,
    /// by what proof, from which address.
    func signalBinding(_ device: Device, now: Date) throws {
        var extra = ["device_id": device.id, "friendly_name": device.name, "binding": device.boundBy.rawValue]
        if let from = device.boundFrom { extra["client_address"] = from }
        try signals?.emit(.credentialChange(device.userID, credentialType: device.boundBy == .passkey ? "fido2-platform" : "app",
                                            changeType: "create", initiatingEntity: "user", extra: extra), now: now)
    }

    /// The audit details that name a device's probation: when it starts and ends.
    private func probation(_ device: Device, from now: Date) -> [String: String] {
        guard let until = device.probationUntil else { return [:] }
        return ["probation_from": Self.auditTime(now), "probation_until": Self.auditTime(until)]
    }

    /// Adds `device` with its audit event (inside the caller's transaction); a key already
    /// bound is refused, unless `confirming` and it is this user's device bound by the password
    /// alone, which the proof now confirms (the device is returned as stored).
    func bind(_ device: Device, confirming: Bool, details extra: [String: String] = [:], now: Date) throws -> Device {
        do {
            try store.addDevice(device)
        } catch StoreError.duplicate {
            guard confirming,
                  let existing = try store.devices(userID: device.userID).first(where: { $0.keyThumbprint == device.keyThumbprint }),
                  existing.boundBy == .password, !existing.isRevoked,
                  try store.confirmDevice(id: existing.id, by: device.boundBy, probationUntil: device.probationUntil) else {
                throw IdentityError.deviceKeyInUse
            }
            try audit?.record(.deviceConfirmed, userID: device.userID, details: [
                "device_id": existing.id, "proof": device.boundBy.rawValue, "client": device.boundFrom ?? "-",
            ].merging(probation(device, from: now)) { first, _ in first }.merging(extra) { first, _ in first })
            var confirmed = existing
            confirmed.boundBy = device.boundBy
            confirmed.probationUntil = device.probationUntil
            return confirmed
        }
        try audit?.record(.deviceRegistered, userID: device.userID, details: [
            "device_id": device.id, "proof": device.boundBy.rawValue, "client": device.boundFrom ?? "-",
        ].merging(probation(device, from: now)) { first, _ in first }.merging(extra) { first, _ in first })
        try signalBinding(device, now: now)
        return device
    }
}
