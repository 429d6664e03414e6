import Foundation

/// A fresh one-time activation code; the code itself is shown once and stored as a digest.
public struct ActivationCode: Equatable, Sendable {
    public var userID: String
    public var code: String
    public var expiresAt: Date
}

extension IdentityService {
    /// Creates a user waiting for activation and its first activation code; `createdBy` is the
    /// API key that asked (the relying party that reads the user's verifications).
    public func createUser(id: String, createdBy: String? = nil) throws -> (User, ActivationCode) {
        try InputRules.checkUserID(id)
        let now = clock.now()
        let user = User(id: id, status: .pendingActivation, createdAt: now, createdBy: createdBy)
        return try store.atomically {
            do {
                try store.createUser(user)
            } catch StoreError.duplicate {
                throw IdentityError.userExists
            }
            try audit?.record(.userCreated, userID: id, details: [AuditActor.detail: createdBy ?? AuditActor.local])
            return (user, try issueCode(for: id, now: now))
        }
    }

    /// Voids outstanding codes and issues a new one, for a user not activated yet (the code was
    /// lost, expired or its attempts ran out). An active user is refused: a new activation would
    /// replace the password and bind a device behind the user's back (`resetUser` starts over,
    /// a registration code binds another device).
    public func issueActivationCode(userID: String, actor: String) throws -> ActivationCode {
        let user = try requireUser(userID)
        guard user.status != .disabled else { throw IdentityError.userNotActive }
        guard user.status == .pendingActivation else { throw IdentityError.userAlreadyActive }
        return try store.atomically {
            let code = try issueCode(for: userID, now: clock.now())
            try audit?.record(.activationCodeIssued, userID: userID, details: [AuditActor.detail: actor])
            return code
        }
    }

    /// Starts the user over: every device unbound, every session and OIDC grant ended, the
    /// password and any lock gone, attempts full; the user waits for activation with the new
    /// code this returns. The biometric template stays (it is the user's face, not a
    /// credential an attacker holds). Audited with the actor, in the same transaction.
    public func resetUser(id: String, actor: String) throws -> ActivationCode {
        let user = try requireUser(id)
        guard user.status != .disabled else { throw IdentityError.userNotActive }
        let now = clock.now()
        return try store.atomically {
            // The counters before the user row, in the order a verdict's failure takes them.
            try resetAllAttempts(id)
            guard try store.changeUser(id: id, .reset(at: now)) else { throw IdentityError.userNotActive }
            var unbound = 0
            for device in try store.devices(userID: id) where !device.isRevoked {
                guard try store.revokeDevice(id: device.id, at: now) else { continue }
                unbound += 1
                try audit?.record(.deviceRevoked, userID: id, details: [AuditActor.detail: actor, "device_id": device.id, "reason": "reset"])
            }
            try endCredentials(id, reason: "the user was reset: every device unbound", initiatingEntity: "admin", now: now)
            let code = try issueCode(for: id, now: now)
            try audit?.record(.userReset, userID: id, details: [AuditActor.detail: actor, "devices_unbound": String(unbound)])
            return code
        }
    }

    private func issueCode(for userID: String, now: Date) throws -> ActivationCode {
        try store.revokeAll(purpose: Purpose.activation, subject: userID)
        try store.reset(Self.activationCounter(userID))
        let code = Self.activationCodeText(random)
        let expiresAt = now.addingTimeInterval(policy.activationCodeLifetime)
        try store.issue(SingleUseToken(purpose: Purpose.activation, digest: activationDigest(userID: userID, code: code),
                                       subject: userID, expiresAt: expiresAt))
        return ActivationCode(userID: userID, code: code, expiresAt: expiresAt)
    }

    /// Every per-user count of wrong activation codes starts with it: housekeeping sweeps those
    /// that stopped counting an activation code's lifetime ago (an unknown user id's too).
    public static let activationCounterPrefix = "activation:"

    static func activationCounter(_ userID: String) -> String { activationCounterPrefix + userID }

    /// The user's wrong codes from one client address: a throttle counter, so housekeeping sweeps
    /// it once its window passed (an unknown user id's too), and ending in `:<user id>`, so it
    /// goes with the user.
    static func activationSourceCounter(_ userID: String, client: String?) -> String {
        LoginThrottle.keyPrefix + "activation:" + (client ?? "-") + "|:" + userID
    }

    /// The digest binds the code to the user: a code works only for its own user.
    func activationDigest(userID: String, code: String) -> Data {
        digester.digest(userID + "\n" + code.uppercased().replacingOccurrences(of: "-", with: ""))
    }

    /// 12 characters of Crockford base32 (60 bits) in groups of four: `7K2M-9QXD-A4TB`.
    static func activationCodeText(_ random: any RandomSource) -> String {
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
        let characters = random.bytes(count: 12).map { alphabet[Int($0 & 31)] }
        return stride(from: 0, to: 12, by: 4).map { String(characters[$0..<$0 + 4]) }.joined(separator: "-")
    }

    public func user(id: String) throws -> User { try requireUser(id) }

    /// The users `key` manages (see `user(id:managedBy:)`), by id.
    public func users(after: String?, limit: Int, managedBy key: APIKey) throws -> [User] {
        if let after { try InputRules.checkUserID(after, field: "after") }
        guard (1...500).contains(limit) else { throw IdentityError.invalidInput(field: "limit", reason: "must be 1-500") }
        return try store.users(after: after, limit: limit, createdBy: key.scope == .admin ? nil : key.id)
    }

    /// The user as `key` may manage it: a relying party's key manages the users it created, an
    /// administrator's key every user. To any other key the user reads as not found, the
    /// answer for an id that does not exist: one relying party can neither see, reset, unbind,
    /// lock out nor bind a device to another's users (a reset and an activation would take one over).
    @discardableResult
    public func user(id: String, managedBy key: APIKey) throws -> User {
        let user = try requireUser(id)
        guard key.scope == .admin || user.createdBy == key.id else { throw IdentityError.userNotFound }
        return user
    }

    /// Disabling also ends the user's sessions and OIDC grants, for good.
    public func setDisabled(_ disabled: Bool, userID: String, actor: String) throws -> User {
        _ = try requireUser(userID)
        try store.atomically {
            if disabled {
                try store.changeUser(id: userID, .disable)
                try endCredentials(userID, reason: "the user was disabled", initiatingEntity: "admin", now: clock.now())
            } else {
                // Enabling a user that was not disabled changes nothing, and records nothing.
                guard try store.changeUser(id: userID, .enable) else { return }
            }
            try audit?.record(disabled ? .userDisabled : .userEnabled, userID: userID, details: [AuditActor.detail: actor])
        }
        return try requireUser(userID)
    }

    /// Lifts a lock and gives the attempts back; the lock history (for growing lock times)
    /// is kept.
    public func unlock(userID: String, actor: String) throws -> User {
        _ = try requireUser(userID)
        try store.atomically {
            // The counters before the user row, in the order a verdict's failure takes them.
            try resetAllAttempts(userID)
            try store.changeUser(id: userID, .unlock)
            try audit?.record(.userUnlocked, userID: userID, details: [AuditActor.detail: actor])
        }
        return try requireUser(userID)
    }

    /// Expires the user's password now (a suspected leak, a policy change): the next password
    /// check — a login or a level-1 step-up — answers 110 with a token that allows only the
    /// password change, as an aged password does. Sessions of confirmed devices stay (a step-up
    /// meeting the 110 ends its own); every device the password alone bound is unbound with its
    /// sessions and grants, since the proof it rests on is the one in doubt. A user pending
    /// activation or disabled is refused.
    public func expirePassword(userID: String, actor: String) throws -> User {
        _ = try requireUser(userID)
        let now = clock.now()
        try store.atomically {
            guard try store.changeUser(id: userID, .expirePassword) else { throw IdentityError.userNotActive }
            try audit?.record(.passwordExpired, userID: userID, details: [AuditActor.detail: actor])
            try unbindPasswordBoundDevices(userID, reason: "the password it was bound with expired", actor: actor, now: now)
        }
        return try requireUser(userID)
    }

    /// Unbinds every device of the user that the password alone bound (inside the caller's
    /// transaction): a binding that rests on the password ends when the password is changed or
    /// expired. Each one's sessions and grants end with it, audited with `actor` and `reason`,
    /// and the relying parties are told.
    func unbindPasswordBoundDevices(_ userID: String, reason: String, actor: String, now: Date) throws {
        for device in try store.devices(userID: userID) where device.boundBy == .password && !device.isRevoked {
            try revoke(device, actor: actor, reason: reason, now: now)
        }
    }

    /// Deletes the user with its devices, sessions, codes and counters.
    public func deleteUser(id: String, actor: String) throws {
        try InputRules.checkUserID(id)
        try store.atomically {
            // Told while the user (and who created it) is still there.
            try signals?.emit(.sessionRevoked(id, reason: "the user was deleted", initiatingEntity: "admin"), now: clock.now())
            guard try store.deleteUser(id: id) else { throw IdentityError.userNotFound }
            try audit?.record(.userDeleted, userID: id, details: [AuditActor.detail: actor])
        }
    }

    public func devices(userID: String) throws -> [Device] {
        _ = try requireUser(userID)
        return try store.devices(userID: userID)
    }

    /// Revokes a device; its sessions and the OIDC grants it made end at once. `reason`, when
    /// given, is audited and sent to the relying parties.
    public func revokeDevice(userID: String, deviceID: String, actor: String, reason: String? = nil) throws {
        try InputRules.checkToken(deviceID, field: "device_id")
        guard let device = try store.device(id: deviceID), device.userID == userID else { throw IdentityError.deviceNotFound }
        try revoke(device, actor: actor, reason: reason, now: clock.now())
    }

    /// `revokeDevice` for a device already read (inside or outside the caller's transaction).
    private func revoke(_ device: Device, actor: String, reason: String?, now: Date) throws {
        let (userID, deviceID) = (device.userID, device.id)
        try store.atomically {
            guard try store.revokeDevice(id: deviceID, at: now) else { return }
            try store.revokeGrants(userID: userID, deviceID: deviceID, at: now)
            var details = [AuditActor.detail: actor, "device_id": deviceID]
            details["reason"] = reason
            try audit?.record(.deviceRevoked, userID: userID, details: details)
            let entity = actor.hasPrefix("session:") || actor.hasPrefix("device:") ? "user" : actor == AuditActor.policy ? "policy" : "admin"
            try signals?.emit(.sessionRevoked(userID, reason: reason ?? "a device was unbound", initiatingEntity: entity, deviceID: deviceID),
                              now: now)
            try signals?.emit(.credentialChange(userID, credentialType: "app", changeType: "revoke", initiatingEntity: entity,
                                                extra: ["device_id": deviceID, "friendly_name": device.name]), now: now)
        }
    }
}
