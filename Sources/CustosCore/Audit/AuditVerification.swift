import Foundation

/// What `AuditTrail.verify()` found: how far the chain holds, and where it first breaks.
public struct AuditVerification: Sendable, Equatable {
    /// Events whose hash and link were recomputed and found right (all of them when intact,
    /// those before the break otherwise).
    public var checked: Int
    /// The sequence of the last event found right (0 when none).
    public var lastSequence: Int64
    /// The hash of the last event found right: record it elsewhere to detect later that the
    /// chain was cut short or rewritten from some point on, which the chain alone cannot show.
    public var headHash: Data?
    /// The first broken event; nil when the whole chain holds.
    public var firstBreak: AuditChainBreak?

    public init(checked: Int, lastSequence: Int64, headHash: Data?, firstBreak: AuditChainBreak?) {
        self.checked = checked
        self.lastSequence = lastSequence
        self.headHash = headHash
        self.firstBreak = firstBreak
    }

    /// Whether every event was found right.
    public var isIntact: Bool { firstBreak == nil }
}

/// The first event at which the chain does not hold.
public struct AuditChainBreak: Sendable, Equatable {
    /// The sequence of the broken (or missing) event.
    public var sequence: Int64
    public var reason: Reason

    public init(sequence: Int64, reason: Reason) {
        self.sequence = sequence
        self.reason = reason
    }

    /// Why the event breaks the chain.
    public enum Reason: Sendable, Equatable, CustomStringConvertible {
        /// The stored hash is not the hash of the stored fields: the event was altered.
        case hashMismatch
        /// Its `previousHash` is not the hash of the event before it: an event before it was
        /// replaced, or this one was re-linked.
        case brokenLink
        /// No event has this sequence, but later ones exist: a gap (an event was removed).
        case missing
        /// An event came back out of sequence order.
        case outOfOrder
        /// The stored row cannot be read back as an event.
        case unreadable(String)

        public var description: String {
            switch self {
            case .hashMismatch: "hash mismatch (the event was altered)"
            case .brokenLink: "broken link (previous hash is not the hash of the event before)"
            case .missing: "missing event (gap in the sequence)"
            case .outOfOrder: "out of order"
            case .unreadable(let reason): "unreadable (\(reason))"
            }
        }
    }
}
