import Foundation

/// A CIBA authentication request: the notification it became, and the client's polling.
public struct CIBARequest: Equatable, Sendable {
    /// SHA-256 (hex) of the `auth_req_id`; the id itself is not stored.
    public var digest: String
    public var notificationID: String
    public var clientID: String
    public var scope: String
    /// Seconds the client must leave between polls (raised by 5 at each `slow_down`).
    public var interval: Int
    public var lastPolledAt: Date?
    public var tokensIssued: Bool
    public var createdAt: Date
    /// When the tokens issued for it were revoked (RFC 7009, or a revocation of the user).
    public var revokedAt: Date?

    public init(digest: String, notificationID: String, clientID: String, scope: String, interval: Int, lastPolledAt: Date? = nil,
                tokensIssued: Bool = false, createdAt: Date, revokedAt: Date? = nil) {
        self.digest = digest
        self.notificationID = notificationID
        self.clientID = clientID
        self.scope = scope
        self.interval = interval
        self.lastPolledAt = lastPolledAt
        self.tokensIssued = tokensIssued
        self.createdAt = createdAt
        self.revokedAt = revokedAt
    }

    /// The `sid` of the access token issued for it: what revocation and userinfo look it up by.
    public var tokenSessionID: String { Self.sessionPrefix + digest }
    public static let sessionPrefix = "cb_"
}

/// How a CIBA client gets its tokens.
public struct CIBAClient: Equatable, Sendable {
    public enum Mode: String, Sendable { case poll, ping }
    public var clientID: String
    public var mode: Mode
    public var notificationEndpoint: String?

    public init(clientID: String, mode: Mode, notificationEndpoint: String?) {
        self.clientID = clientID
        self.mode = mode
        self.notificationEndpoint = notificationEndpoint
    }
}

public protocol CIBAStore: Sendable {
    func createCIBARequest(_ request: CIBARequest) throws
    func cibaRequest(digest: String) throws -> CIBARequest?
    /// Records a poll at `now` unless the last one was less than the interval ago; then raises
    /// the interval by 5 s and returns false (`slow_down`). Atomic.
    func recordCIBAPoll(digest: String, now: Date) throws -> Bool
    /// Marks the tokens issued; false when they already were (of concurrent polls, one gets them).
    func markCIBATokensIssued(digest: String) throws -> Bool
    /// Revokes the tokens issued for the request; false when unknown or already revoked.
    @discardableResult
    func revokeCIBATokens(digest: String, at: Date) throws -> Bool
    func saveCIBAClient(_ client: CIBAClient, at: Date) throws
    func cibaClient(id: String) throws -> CIBAClient?
}
