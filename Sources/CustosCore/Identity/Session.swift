import Foundation

/// A signed-in device. The bearer token itself is never stored, only its SHA-256 digest.
public struct Session: Equatable, Sendable {
    /// Public id of the session (for listing and revoking); not the token.
    public var id: String
    public var tokenDigest: Data
    public var userID: String
    public var deviceID: String
    public var createdAt: Date
    public var lastSeenAt: Date
    /// Ends regardless of use.
    public var expiresAt: Date

    public init(id: String, tokenDigest: Data, userID: String, deviceID: String, createdAt: Date, lastSeenAt: Date, expiresAt: Date) {
        self.id = id
        self.tokenDigest = tokenDigest
        self.userID = userID
        self.deviceID = deviceID
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.expiresAt = expiresAt
    }
}
