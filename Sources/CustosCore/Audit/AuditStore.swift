import Foundation

/// Where the audit trail lives: an append-only chain of `AuditEvent`s. There is no way to
/// change or remove an event through this port.
///
/// Implementations throw `StoreError` for database failures, and
/// `AuditError.unreadableEvent` for a stored row that cannot be read back as an event (its
/// details are not a JSON object of strings, say), naming its sequence.
public protocol AuditStore: Sendable {
    /// Appends one event atomically with the chain: inside one database transaction it locks
    /// the chain against every other appender (other threads and other server processes on
    /// the same database), reads the chain's head (the last event's sequence and hash; nil for
    /// an empty trail), calls `make` with it and inserts what `make` returns. Returns the
    /// stored event.
    ///
    /// The returned event must continue the chain: sequence `head.sequence + 1` (1 for the
    /// first) and `previousHash == head.hash` (`AuditEvent.genesisHash` for the first);
    /// otherwise nothing is written and `AuditError.chainConflict` is thrown. An error thrown
    /// by `make` rolls back and is rethrown. `make` runs while the chain is locked: keep it
    /// short (compute a hash, read the clock), no I/O.
    func appendAuditEvent(_ make: (_ head: AuditChainHead?) throws -> AuditEvent) throws -> AuditEvent

    /// Rewrites the chain's links and hashes, for re-keying it: inside one database transaction
    /// that locks the chain as `appendAuditEvent` does, calls `rewrite` with every event in
    /// ascending sequence order (read `pageSize` at a time) and stores the `previousHash` and
    /// `hash` of what it returns where they differ; nothing else of an event changes. An error
    /// thrown by `rewrite` rolls everything back and is rethrown. Returns how many events
    /// changed.
    func rewriteAuditChain(pageSize: Int, _ rewrite: (AuditEvent) throws -> AuditEvent) throws -> Int

    /// Up to `limit` (> 0) events with a sequence above `afterSequence`, in ascending sequence
    /// order; only those of `userID`, of `transactionID` and with the `actor` detail `actor` when given.
    func auditEvents(afterSequence: Int64, limit: Int, userID: String?, transactionID: String?, actor: String?) throws -> [AuditEvent]
}

extension AuditStore {
    public func auditEvents(afterSequence: Int64, limit: Int, userID: String?, transactionID: String?) throws -> [AuditEvent] {
        try auditEvents(afterSequence: afterSequence, limit: limit, userID: userID, transactionID: transactionID, actor: nil)
    }
}

/// The end of the chain an appended event links to.
public struct AuditChainHead: Sendable, Equatable {
    /// The last event's sequence.
    public var sequence: Int64
    /// The last event's hash.
    public var hash: Data

    public init(sequence: Int64, hash: Data) {
        self.sequence = sequence
        self.hash = hash
    }
}

extension AuditEvent {
    /// Throws `AuditError.chainConflict` unless this event is the one after `head` (the
    /// chain's last event; nil for an empty chain): the next sequence, chained to its hash.
    /// Every store checks this under its chain lock before it appends.
    public func checkFollows(_ head: AuditChainHead?) throws {
        let next = (head?.sequence ?? 0).addingReportingOverflow(1)
        guard !next.overflow, sequence == next.partialValue else {
            throw AuditError.chainConflict("sequence \(sequence) does not follow \(head?.sequence ?? 0)")
        }
        guard previousHash == head?.hash ?? AuditEvent.genesisHash else {
            throw AuditError.chainConflict("the previous hash of event \(sequence) is not the head's hash")
        }
    }
}
