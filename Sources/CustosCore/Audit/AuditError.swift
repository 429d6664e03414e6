import Foundation

/// Why the audit trail refused a call, or could not read an event back. `code` is stable;
/// `message` is for people and never carries a detail value.
public enum AuditError: DomainError, Equatable {
    /// A detail key is not 1–64 characters of `A-Z a-z 0-9 . _ -`.
    case invalidDetailKey(String)
    /// A detail value is longer than `AuditRules.maximumValueLength` characters or holds
    /// control characters.
    case invalidDetailValue(key: String, reason: String)
    /// More than `AuditRules.maximumDetailCount` details.
    case tooManyDetails(Int)
    /// A user or transaction id is empty, too long, or holds control characters.
    case invalidIdentifier(field: String)
    /// A page size outside 1…`AuditTrail.maximumListLimit`, or a negative sequence.
    case invalidPage(String)
    /// A stored event could not be read back (corrupted or altered by hand).
    case unreadableEvent(sequence: Int64, reason: String)
    /// The event offered for appending does not continue the chain (wrong sequence or
    /// previous hash); nothing was written.
    case chainConflict(String)
    /// The chain does not hold at this event (re-keying refused; nothing was changed).
    case brokenChain(AuditChainBreak)

    /// A page or an id the caller asked for is the caller's mistake; the rest are the server's
    /// own (what it was about to record, or what it read back).
    public var kind: ErrorKind {
        switch self {
        case .invalidIdentifier, .invalidPage: .invalidInput
        case .invalidDetailKey, .invalidDetailValue, .tooManyDetails, .unreadableEvent, .chainConflict, .brokenChain: .internal
        }
    }

    public var code: String {
        switch self {
        case .invalidDetailKey: "audit_invalid_detail_key"
        case .invalidDetailValue: "audit_invalid_detail_value"
        case .tooManyDetails: "audit_too_many_details"
        case .invalidIdentifier, .invalidPage: "invalid_field"
        case .unreadableEvent: "audit_unreadable_event"
        case .chainConflict: "audit_chain_conflict"
        case .brokenChain: "audit_chain_broken"
        }
    }

    public var message: String {
        switch self {
        case .invalidDetailKey: "An audit detail key must be 1-64 characters of A-Z a-z 0-9 . _ -."
        case .invalidDetailValue(let key, let reason): "Audit detail '\(key)' \(reason)."
        case .tooManyDetails(let count): "An audit event takes at most \(AuditRules.maximumDetailCount) details, not \(count)."
        case .invalidIdentifier(let field):
            "\(field == "user_id" ? "user" : "transaction") must be 1-\(AuditRules.maximumIdentifierLength) bytes without control characters."
        case .invalidPage(let reason): "Invalid audit page: \(reason)."
        case .unreadableEvent(let sequence, let reason): "Audit event \(sequence) cannot be read: \(reason)."
        case .chainConflict(let reason): "The audit event does not continue the chain: \(reason)."
        case .brokenChain(let broken): "The audit chain is broken at event \(broken.sequence): \(broken.reason)."
        }
    }
}

extension AuditError: CustomStringConvertible {
    public var description: String { message }
}
