import Foundation

/// One audit event as `custos admin audit list --json` prints it. Hashes are lower-case hex.
public struct AuditEventInfo: Codable, Equatable, Sendable {
    /// Position in the chain: 1, 2, 3, … without gaps.
    public var sequence: Int64
    public var occurredAt: Date
    /// What happened: `idv.verdict`, `biometric.enrolled`, `user.locked`, …
    public var kind: String
    public var userID: String?
    public var transactionID: String?
    /// Short plain facts; never secrets or biometric data.
    public var details: [String: String]
    /// The hash of the event before (64 zeros for the first).
    public var previousHash: String
    public var hash: String

    enum CodingKeys: String, CodingKey {
        case sequence, kind, details, hash
        case occurredAt = "occurred_at"
        case userID = "user_id"
        case transactionID = "transaction_id"
        case previousHash = "previous_hash"
    }

    public init(sequence: Int64, occurredAt: Date, kind: String, userID: String?, transactionID: String?,
                details: [String: String], previousHash: String, hash: String) {
        self.sequence = sequence
        self.occurredAt = occurredAt
        self.kind = kind
        self.userID = userID
        self.transactionID = transactionID
        self.details = details
        self.previousHash = previousHash
        self.hash = hash
    }
}

/// A page of audit events, oldest first; `next_after` is the sequence to continue after when
/// the page was full.
public struct AuditEventList: Codable, Equatable, Sendable {
    public var events: [AuditEventInfo]
    public var nextAfter: Int64?

    enum CodingKeys: String, CodingKey {
        case events
        case nextAfter = "next_after"
    }

    public init(events: [AuditEventInfo], nextAfter: Int64?) {
        self.events = events
        self.nextAfter = nextAfter
    }
}
