import CustosAPI
import Foundation

extension UserStore {
    /// Every user, ordered by id, after `afterID` (exclusive), at most `limit`.
    public func users(after afterID: String?, limit: Int) throws -> [User] {
        try users(after: afterID, limit: limit, createdBy: nil)
    }
}

/// Users. Ids are chosen by the relying party and unique.
public protocol UserStore: Sendable {
    /// Throws `StoreError.duplicate` when the id exists.
    func createUser(_ user: User) throws
    func user(id: String) throws -> User?
    /// Users ordered by id, after `afterID` (exclusive), at most `limit`; only those the API
    /// key `createdBy` created, when it is given.
    func users(after afterID: String?, limit: Int, createdBy: String?) throws -> [User]
    /// Replaces every field of the stored user with the same id; returns false when there is
    /// none. For set-up and tools: services use `changeUser`, which cannot lose a concurrent write.
    @discardableResult
    func updateUser(_ user: User) throws -> Bool
    /// Applies `change`; returns false when there is no such user or the change does not apply
    /// (`activate` of a disabled user, `enable` of one that is not disabled).
    @discardableResult
    func changeUser(id: String, _ change: UserChange) throws -> Bool
    /// The standard claims last set for the user; nil when none were, or there is no such user.
    func userClaims(id: String) throws -> UserClaims?
    /// Replaces the user's claims (nil: none); false when there is no such user.
    @discardableResult
    func setUserClaims(_ claims: UserClaims?, id: String) throws -> Bool
    /// Deletes the user and, in the same transaction, its devices, sessions, single-use
    /// tokens (any purpose, subject = user id), counters whose key ends in `:<user id>`, and
    /// its biometric template and IDV transactions (by cascade).
    /// Returns false when there was no such user.
    @discardableResult
    func deleteUser(id: String) throws -> Bool
}

/// Devices bound to users.
public protocol DeviceStore: Sendable {
    /// Throws `StoreError.duplicate` when the id or the key thumbprint exists.
    func addDevice(_ device: Device) throws
    func device(id: String) throws -> Device?
    /// The user's devices, revoked ones included, oldest first.
    func devices(userID: String) throws -> [Device]
    /// Marks the device revoked and deletes its sessions; returns false when it does not
    /// exist or was already revoked.
    @discardableResult
    func revokeDevice(id: String, at: Date) throws -> Bool
    /// Records a login: sets `lastUsedAt`, and `passwordVerifiedAt` too when the password was
    /// part of it.
    func touchDevice(id: String, at: Date, passwordVerified: Bool) throws
    /// Records that a device bound by the password alone was confirmed by `binding`, on
    /// probation until `probationUntil` (nil: none); false when it is not such a device (any
    /// more), or revoked.
    @discardableResult
    func confirmDevice(id: String, by binding: DeviceBinding, probationUntil: Date?) throws -> Bool
}

/// Sessions, found by the digest of their bearer token.
public protocol SessionStore: Sendable {
    func createSession(_ session: Session) throws
    /// The session with this token digest, if it exists (expiry is the caller's decision).
    func session(tokenDigest: Data) throws -> Session?
    /// The user's sessions, newest first.
    func sessions(userID: String) throws -> [Session]
    func touchSession(id: String, at: Date) throws
    @discardableResult
    func deleteSession(id: String) throws -> Bool
    /// Deletes every session of the user; returns how many.
    @discardableResult
    func deleteSessions(userID: String) throws -> Int
    /// Deletes sessions past their lifetime (`expiresAt <= now`) or idle since before
    /// `idleSince`; returns how many.
    @discardableResult
    func deleteExpiredSessions(now: Date, idleSince: Date) throws -> Int
}

/// API keys of relying parties and administrators.
public protocol APIKeyStore: Sendable {
    /// Throws `StoreError.duplicate` when the id or digest exists.
    func createAPIKey(_ key: APIKey) throws
    func apiKey(digest: Data) throws -> APIKey?
    /// Every key, revoked ones included, oldest first.
    func apiKeys() throws -> [APIKey]
    /// Returns false when there is no such key or it was already revoked.
    @discardableResult
    func revokeAPIKey(id: String, at: Date) throws -> Bool
}

/// Everything identity needs from the database.
public typealias IdentityStore = UserStore & DeviceStore & SessionStore & APIKeyStore
