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

/// `POST /v1/admin/audit/verify`: the keyed hash chain recomputed from the first event.
public struct AuditVerificationInfo: Codable, Equatable, Sendable {
    public var intact: Bool
    /// Events found right (all of them when intact, those before the break otherwise).
    public var checked: Int
    /// The last event found right (0 when none).
    public var lastSequence: Int64
    /// Its hash, hex: kept elsewhere, it shows later whether the chain was cut short or rewritten.
    public var headHash: String?
    public var firstBreak: AuditBreakInfo?

    enum CodingKeys: String, CodingKey {
        case intact, checked
        case lastSequence = "last_sequence"
        case headHash = "head_hash"
        case firstBreak = "first_break"
    }

    public init(intact: Bool, checked: Int, lastSequence: Int64, headHash: String?, firstBreak: AuditBreakInfo?) {
        self.intact = intact
        self.checked = checked
        self.lastSequence = lastSequence
        self.headHash = headHash
        self.firstBreak = firstBreak
    }
}

/// The first event where the chain does not hold, and why.
public struct AuditBreakInfo: Codable, Equatable, Sendable {
    public var sequence: Int64
    public var reason: String

    public init(sequence: Int64, reason: String) {
        self.sequence = sequence
        self.reason = reason
    }
}
