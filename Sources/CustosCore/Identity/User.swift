import Foundation

/// A person known to a relying party, identified by the id the relying party chose.
public struct User: Equatable, Sendable {
    public enum Status: String, Sendable, CaseIterable {
        /// Created; waiting for the first device to activate with the one-time code.
        case pendingActivation = "pending_activation"
        case active
        /// Refused everywhere until an administrator enables the user again.
        case disabled
    }

    public var id: String
    public var status: Status
    public var createdAt: Date
    /// Argon2id PHC string; nil before activation.
    public var passwordHash: String?
    public var passwordChangedAt: Date?
    /// The relying party expired the password: the next password check answers 110 (password
    /// expired) until the user sets a new one, whatever the password's age.
    public var passwordMustChange: Bool
    /// Locked (status 153) until this moment, after the attempts ran out.
    public var lockedUntil: Date?
    /// How many times the user has been locked; each lock lasts longer.
    public var lockoutCount: Int
    /// The id of the API key that created the user: the relying party that reads the user's
    /// identity verifications. Nil for a user created without a key (from the data directory).
    public var createdBy: String?

    public init(id: String, status: Status, createdAt: Date, passwordHash: String? = nil, passwordChangedAt: Date? = nil,
                lockedUntil: Date? = nil, lockoutCount: Int = 0, createdBy: String? = nil, passwordMustChange: Bool = false) {
        self.passwordMustChange = passwordMustChange
        self.id = id
        self.status = status
        self.createdAt = createdAt
        self.passwordHash = passwordHash
        self.passwordChangedAt = passwordChangedAt
        self.lockedUntil = lockedUntil
        self.lockoutCount = lockoutCount
        self.createdBy = createdBy
    }

    public func isLocked(at now: Date) -> Bool {
        guard let lockedUntil else { return false }
        return lockedUntil > now
    }
}
