import Foundation

/// How a password change is authorised.
public enum PasswordChangeAuthorization: Sendable {
    /// A live session of the user.
    case session(Session)
    /// The single-use token a 110 (password expired) answer gave.
    case changeToken(String)
}

extension IdentityService {
    /// Changes the password after checking the old one (a wrong old password counts as a
    /// failed attempt).
    public func changePassword(userID: String, oldPassword: String, newPassword: String,
                               authorization: PasswordChangeAuthorization) throws -> AuthenticationOutcome {
        try InputRules.checkUserID(userID)
        try InputRules.checkPasswordLength(oldPassword, field: "old_password")
        try InputRules.checkPasswordLength(newPassword, field: "new_password")
        // Checked first, so a policy mistake does not burn a single-use change token.
        if let problem = policy.passwordProblem(newPassword, userID: userID) { throw IdentityError.passwordPolicy(problem) }
        guard newPassword != oldPassword else { throw IdentityError.passwordPolicy("it must differ from the old password") }
        let now = clock.now()
        switch authorization {
        case .session(let session):
            guard session.userID == userID else { throw IdentityError.invalidSession }
            // A device the password alone bound cannot replace the password it was bound with,
            // nor one on probation.
            try requireTrustedDevice(session)
        case .changeToken(let token):
            // (Only a confirmed device's login is given one: see `concludeLogin`.)
            try InputRules.checkToken(token, field: "password_change_token")
            guard let issued = try store.consume(purpose: Purpose.passwordChange, digest: digester.digest(token), now: now),
                  issued.subject == userID else { throw IdentityError.invalidSession }
        }

        guard let user = try store.user(id: userID), let hash = user.passwordHash else { throw IdentityError.invalidSession }
        if user.isLocked(at: now) { return AuthenticationOutcome(status: .attemptsExhausted, userID: userID, attemptsLeft: 0) }
        try clearExpiredLock(user, now: now)
        guard let used = try awaitAttempt(userID: userID, factor: .credentials) else {
            return AuthenticationOutcome(status: .attemptsExhausted, userID: userID, attemptsLeft: 0)
        }
        guard try hasher.verify(oldPassword, encoded: hash) else { return try concludeFailure(userID, user: user, used: used, now: now) }

        let newHash = try hasher.hash(newPassword)
        // Whoever else held a session or a token of this user (a stolen one) loses it with the old password.
        let keep: String? = if case .session(let session) = authorization { session.id } else { nil }
        try store.atomically {
            try store.changeUser(id: userID, .password(hash: newHash, at: now))
            try endCredentials(userID, keepingSession: keep, reason: "the password changed", initiatingEntity: "user", now: now)
            try unbindPasswordBoundDevices(userID, reason: "the password it was bound with changed", actor: keep.map { "session:" + $0 } ?? "user",
                                           now: now)
            try signals?.emit(.credentialChange(userID, credentialType: "password", changeType: "update", initiatingEntity: "user"), now: now)
        }
        try attempts.reset(userID)
        return AuthenticationOutcome(status: .success, userID: userID, attemptsLeft: Int(policy.maximumAttempts))
    }

    /// The live session for a bearer token: unexpired (absolute and idle), of an active,
    /// unlocked user. Refreshes its idle timer.
    public func authenticateSession(token: String) throws -> Session {
        guard token.hasPrefix("cs_"), token.utf8.count <= 128 else { throw IdentityError.invalidSession }
        let now = clock.now()
        guard let session = try store.session(tokenDigest: digester.digest(token)) else { throw IdentityError.invalidSession }
        guard session.expiresAt > now, now.timeIntervalSince(session.lastSeenAt) < policy.sessionIdleTimeout else {
            try store.deleteSession(id: session.id)
            throw IdentityError.invalidSession
        }
        guard let user = try store.user(id: session.userID), user.status == .active, !user.isLocked(at: now),
              let device = try store.device(id: session.deviceID), !device.isRevoked else {
            // (A session opened while its device was being revoked would otherwise outlive it.)
            throw IdentityError.invalidSession
        }
        try clearExpiredLock(user, now: now)
        // Refreshing costs a write; once a few seconds is plenty for an idle timeout in minutes.
        if now.timeIntervalSince(session.lastSeenAt) > 5 { try store.touchSession(id: session.id, at: now) }
        return session
    }

    /// Deletes sessions past their lifetime or idle timeout (housekeeping); returns how many.
    @discardableResult
    public func purgeExpiredSessions() throws -> Int {
        let now = clock.now()
        return try store.deleteExpiredSessions(now: now, idleSince: now.addingTimeInterval(-policy.sessionIdleTimeout))
    }

    public func logout(_ session: Session) throws {
        try store.deleteSession(id: session.id)
    }

    public func sessions(userID: String) throws -> [Session] {
        try store.sessions(userID: userID)
    }

    /// The signed-in user unbinds one of their devices (this one included), with the password
    /// again: a stolen session alone cannot unbind the user's real devices. A wrong password
    /// counts as a step-up's does (401 with the attempts left, 153 at the last). The device's
    /// sessions and OIDC grants end with it; audited with the session as the actor.
    public func revokeOwnDevice(session: Session, deviceID: String, password: String) throws -> AuthenticationOutcome {
        try InputRules.checkToken(deviceID, field: "device_id")
        guard let device = try store.device(id: deviceID), device.userID == session.userID, !device.isRevoked else {
            throw IdentityError.deviceNotFound
        }
        // A device the password alone bound unbinds only itself, never the user's real devices;
        // and it does so without the password, which would count against the user (a phished
        // password's device must not be able to spend the user's attempts this way).
        if deviceID != session.deviceID { try requireTrustedDevice(session) }
        if deviceID == session.deviceID, device.boundBy == .password {
            try revokeDevice(userID: session.userID, deviceID: deviceID, actor: "session:" + session.id)
            return AuthenticationOutcome(status: .success, userID: session.userID, attemptsLeft: try attemptsLeft(userID: session.userID, factor: .credentials),
                                         device: device)
        }
        let outcome = try verifyStepUpPassword(userID: session.userID, password: password)
        guard outcome.status == .success || outcome.status == .passwordExpired else { return outcome }
        try revokeDevice(userID: session.userID, deviceID: deviceID, actor: "session:" + session.id)
        return AuthenticationOutcome(status: .success, userID: session.userID, attemptsLeft: outcome.attemptsLeft, device: device)
    }

    /// Throws `deviceNotConfirmed` unless the session's device was bound by more than the
    /// password alone (see `DeviceBinding`): what only a bound device may do (answer for one,
    /// approve or unbind another, change the password, enrol or delete the face template).
    public func requireConfirmedDevice(_ session: Session) throws {
        guard let device = try store.device(id: session.deviceID), device.boundBy.isConfirmed else {
            throw IdentityError.deviceNotConfirmed
        }
    }

    /// Throws unless the session's device is confirmed (`requireConfirmedDevice`) and past its
    /// probation (`deviceOnProbation`): what would let one bypassed proof take the account over —
    /// changing the password, unbinding or approving devices, ending other sessions, changing
    /// the face template, adding a passkey.
    public func requireTrustedDevice(_ session: Session) throws {
        guard let device = try store.device(id: session.deviceID), device.boundBy.isConfirmed else {
            throw IdentityError.deviceNotConfirmed
        }
        if device.isOnProbation(at: clock.now()), let until = device.probationUntil { throw IdentityError.deviceOnProbation(until: until) }
    }

    /// Ends one of the user's sessions. From a session (`by`), a device the password alone
    /// bound may end only its own: it must not sign the user's real devices out.
    public func revokeSession(userID: String, sessionID: String, by caller: Session? = nil) throws {
        try InputRules.checkToken(sessionID, field: "session_id")
        guard let target = try store.sessions(userID: userID).first(where: { $0.id == sessionID }) else { throw IdentityError.sessionNotFound }
        if let caller, target.deviceID != caller.deviceID { try requireTrustedDevice(caller) }
        try store.deleteSession(id: sessionID)
    }

    /// The prefix of the per-session counts of refused template changes; housekeeping sweeps
    /// those older than a session's lifetime (their sessions have ended).
    public static let templateRefusalsPrefix = "template_refusals:"

    /// How many template changes without proof one session may ask for: the next ends it.
    public static let refusedTemplateChangesPerSession: Int64 = 5

    /// A change of the face template refused for want of proof counts against the session that
    /// asked (`template_refusals:<session>:<user>`); once `refusedTemplateChangesPerSession` are
    /// counted the session ends: a stolen session cannot keep probing for a moment to change it.
    public func countRefusedTemplateChange(sessionID: String, userID: String) throws {
        let key = Self.templateRefusalsPrefix + "\(sessionID):\(userID)"
        let counted = try store.increment(key, limit: Self.refusedTemplateChangesPerSession, now: clock.now())
        if counted == nil || counted == Self.refusedTemplateChangesPerSession {
            try store.deleteSession(id: sessionID)
        }
    }
}
