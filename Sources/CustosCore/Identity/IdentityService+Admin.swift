import Foundation

/// A fresh one-time activation code; the code itself is shown once and stored as a digest.
public struct ActivationCode: Equatable, Sendable {
    public var userID: String
    public var code: String
    public var expiresAt: Date
}

extension IdentityService {
    /// Creates a user waiting for activation and its first activation code.
    public func createUser(id: String) throws -> (User, ActivationCode) {
        try InputRules.checkUserID(id)
        let now = clock.now()
        let user = User(id: id, status: .pendingActivation, createdAt: now)
        do {
            try store.createUser(user)
        } catch StoreError.duplicate {
            throw IdentityError.userExists
        }
        return (user, try issueCode(for: id, now: now))
    }

    /// Voids outstanding codes and issues a new one (to activate a new device, or after the
    /// code attempts ran out).
    public func issueActivationCode(userID: String) throws -> ActivationCode {
        let user = try requireUser(userID)
        guard user.status != .disabled else { throw IdentityError.userNotActive }
        return try issueCode(for: userID, now: clock.now())
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

    static func activationCounter(_ userID: String) -> String { "activation:" + userID }

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

    public func users(after: String?, limit: Int) throws -> [User] {
        if let after { try InputRules.checkUserID(after, field: "after") }
        guard (1...500).contains(limit) else { throw IdentityError.invalidInput(field: "limit", reason: "must be 1-500") }
        return try store.users(after: after, limit: limit)
    }

    /// Disabling also ends the user's sessions.
    public func setDisabled(_ disabled: Bool, userID: String) throws -> User {
        _ = try requireUser(userID)
        if disabled {
            try store.changeUser(id: userID, .disable)
            try store.deleteSessions(userID: userID)
        } else {
            try store.changeUser(id: userID, .enable)
        }
        return try requireUser(userID)
    }

    /// Lifts a lock and gives the attempts back; the lock history (for growing lock times)
    /// is kept.
    public func unlock(userID: String) throws -> User {
        _ = try requireUser(userID)
        try store.changeUser(id: userID, .unlock)
        try attempts.reset(userID)
        return try requireUser(userID)
    }

    /// Deletes the user with its devices, sessions, codes and counters.
    public func deleteUser(id: String) throws {
        try InputRules.checkUserID(id)
        try store.atomically {
            guard try store.deleteUser(id: id) else { throw IdentityError.userNotFound }
            try audit?.record(.userDeleted, userID: id)
        }
    }

    public func devices(userID: String) throws -> [Device] {
        _ = try requireUser(userID)
        return try store.devices(userID: userID)
    }

    /// Revokes a device; its sessions end at once.
    public func revokeDevice(userID: String, deviceID: String) throws {
        try InputRules.checkToken(deviceID, field: "device_id")
        guard let device = try store.device(id: deviceID), device.userID == userID else { throw IdentityError.deviceNotFound }
        try store.revokeDevice(id: deviceID, at: clock.now())
    }
}
