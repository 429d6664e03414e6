import Foundation

/// One entry of the append-only audit trail. Each event carries the hash of the one before
/// it, so altering, removing or reordering a stored event breaks the chain at that event
/// (see `AuditTrail.verify()` and `AuditCanonicalForm` for what the hash covers).
///
/// Events hold identifiers and short plain facts only: never a descriptor, an image, a frame,
/// a token, a password or any other secret.
public struct AuditEvent: Sendable, Equatable, Codable {
    /// The position in the chain: 1, 2, 3, … without gaps, assigned when the event is appended.
    public var sequence: Int64
    /// When it happened, to the millisecond.
    public var occurredAt: Date
    /// An `AuditKind` raw value (kept as text so events of kinds added later still read back).
    public var kind: String
    /// The user concerned, if any. The audit keeps it after the user is deleted.
    public var userID: String?
    /// The IDV or step-up transaction concerned, if any.
    public var transactionID: String?
    /// Short plain facts about the event (`"workflow": "8"`, `"result": "MATCHED"`).
    public var details: [String: String]
    /// The `hash` of the event before this one; `AuditEvent.genesisHash` for the first.
    public var previousHash: Data
    /// SHA-256 of `AuditCanonicalForm.bytes(of:)` of this event.
    public var hash: Data

    /// The `previousHash` of the first event: 32 zero bytes.
    public static let genesisHash = Data(repeating: 0, count: 32)

    public init(sequence: Int64, occurredAt: Date, kind: String, userID: String?, transactionID: String?,
                details: [String: String], previousHash: Data, hash: Data) {
        self.sequence = sequence
        self.occurredAt = occurredAt
        self.kind = kind
        self.userID = userID
        self.transactionID = transactionID
        self.details = details
        self.previousHash = previousHash
        self.hash = hash
    }

    /// The kind as an `AuditKind`; nil for a kind this program does not know.
    public var auditKind: AuditKind? { AuditKind(rawValue: kind) }
}
