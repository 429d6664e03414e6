import Foundation

/// The hash-chained, append-only audit trail: every IDV transaction, verdict, enrollment,
/// opt-out, key rotation and lockout is recorded as an `AuditEvent` that carries the hash of
/// the one before it, so `verify()` finds the first event that was altered, removed or
/// re-linked.
///
/// Events hold identifiers and short plain facts only. Never record a descriptor, image,
/// frame, token, code, password or key material, in `details` or anywhere else: the trail is
/// kept for years, listed by operators and printed by the CLI.
///
/// Thread-safe; appends are serialized by the store (across server processes too).
public final class AuditTrail: Sendable {
    let store: any AuditStore
    let digester: any SecretDigester
    let previousDigester: (any SecretDigester)?
    let clock: any Clock

    /// The largest page `list` returns.
    public static let maximumListLimit = 1000
    /// The page size `verify()` reads the chain in.
    static let verifyPageSize = 500

    /// `digester.digest(bytes:)` makes each event's hash: a keyed one (HMAC under a key derived
    /// from the master key) in the server, so a chain rewritten without the key does not verify.
    /// `previousDigester` (the previous master key's, during a master-key rotation) is accepted
    /// for events already in the chain; new events are always hashed with `digester`.
    public init(store: any AuditStore, digester: any SecretDigester, previousDigester: (any SecretDigester)? = nil, clock: any Clock) {
        self.store = store
        self.digester = digester
        self.previousDigester = previousDigester
        self.clock = clock
    }

    /// Appends an event of `kind` at the clock's now (to the millisecond) and returns it as stored.
    ///
    /// `details` are short plain facts (`"workflow": "8"`, `"result": "NOT_MATCHED"`,
    /// `"attempts_left": "2"`): keys of `A-Z a-z 0-9 . _ -` (at most 64), values of at most
    /// 512 characters without control characters, at most 32 entries. Never put a secret or
    /// biometric data there. Throws `AuditError` for details or ids that break these rules
    /// (nothing is written), `StoreError` when the database fails.
    @discardableResult
    public func record(_ kind: AuditKind, userID: String?, transactionID: String? = nil, details: [String: String] = [:]) throws -> AuditEvent {
        try AuditRules.check(userID: userID, transactionID: transactionID, details: details)
        return try store.appendAuditEvent { head in
            let sequence = (head?.sequence ?? 0).addingReportingOverflow(1)
            guard !sequence.overflow else { throw AuditError.chainConflict("the sequence is exhausted") }
            var event = AuditEvent(
                sequence: sequence.partialValue, occurredAt: StoredTime.rounded(clock.now()),
                kind: kind.rawValue, userID: userID, transactionID: transactionID, details: details,
                previousHash: head?.hash ?? AuditEvent.genesisHash, hash: Data()
            )
            event.hash = hash(of: event)
            return event
        }
    }

    /// The hash `event` should carry: the digester's (keyed) hash of `AuditCanonicalForm.bytes(of:)`.
    public func hash(of event: AuditEvent) -> Data {
        digester.digest(bytes: AuditCanonicalForm.bytes(of: event))
    }

    /// Why `event`, read after `last`, breaks the chain; nil when it continues it. Its hash may
    /// be `digester`'s or `previousDigester`'s.
    func chainBreak(at event: AuditEvent, after last: AuditEvent?) -> AuditChainBreak? {
        let expected = (last?.sequence ?? 0) + 1
        if event.sequence != expected {
            return AuditChainBreak(sequence: expected, reason: event.sequence > expected ? .missing : .outOfOrder)
        }
        if event.previousHash != (last?.hash ?? AuditEvent.genesisHash) {
            return AuditChainBreak(sequence: event.sequence, reason: .brokenLink)
        }
        let canonical = AuditCanonicalForm.bytes(of: event)
        if event.hash != digester.digest(bytes: canonical), previousDigester.map({ event.hash != $0.digest(bytes: canonical) }) ?? true {
            return AuditChainBreak(sequence: event.sequence, reason: .hashMismatch)
        }
        return nil
    }

    /// Walks the whole chain from the first event, a page at a time, recomputing every hash and
    /// link, and stops at the first event that breaks it: a sequence gap (`missing`), a
    /// `previousHash` that is not the hash of the event before (`brokenLink`), a stored hash
    /// that is not the hash of the stored fields under the digester or the previous one
    /// (`hashMismatch`), or a row that cannot be read
    /// back (`unreadable`). Throws only when the database fails.
    ///
    /// The chain alone cannot show events cut off at the end, or the whole chain rewritten
    /// from some point on; compare `headHash` with a copy kept elsewhere for that.
    ///
    /// `after`: an event found right by an earlier verify, whose hash was kept elsewhere and
    /// compared by the caller (`custos admin audit verify --expect-head`): only the events after
    /// it are read and recomputed, so verifying again costs what was added since, not the
    /// whole history. The events up to it are taken as verified then.
    public func verify(after head: AuditEvent? = nil) throws -> AuditVerification {
        var checked = 0
        var last = head
        var pageSize = Self.verifyPageSize
        func result(_ broken: AuditChainBreak?) -> AuditVerification {
            AuditVerification(checked: checked, lastSequence: last?.sequence ?? 0, headHash: last?.hash, firstBreak: broken)
        }
        while true {
            let expected = (last?.sequence ?? 0) + 1
            let page: [AuditEvent]
            do {
                page = try store.auditEvents(afterSequence: last?.sequence ?? 0, limit: pageSize, userID: nil, transactionID: nil)
            } catch AuditError.unreadableEvent(let sequence, let reason) {
                // Re-read one event at a time so every event before the unreadable one is checked.
                if pageSize > 1 {
                    pageSize = 1
                    continue
                }
                return result(AuditChainBreak(sequence: expected, reason: sequence == expected ? .unreadable(reason) : .missing))
            }
            guard !page.isEmpty else { return result(nil) }
            for event in page {
                if let broken = chainBreak(at: event, after: last) { return result(broken) }
                checked += 1
                last = event
            }
        }
    }

    /// Up to `limit` (1…`maximumListLimit`) events after `afterSequence`, oldest first; only
    /// those of `userID` and of `transactionID` when given. Page on with the last sequence.
    public func list(userID: String?, transactionID: String?, actor: String? = nil, afterSequence: Int64 = 0,
                     limit: Int = 100) throws -> [AuditEvent] {
        guard (1...Self.maximumListLimit).contains(limit) else {
            throw AuditError.invalidPage("the limit must be 1-\(Self.maximumListLimit)")
        }
        guard afterSequence >= 0 else { throw AuditError.invalidPage("the sequence to start after must not be negative") }
        try AuditRules.checkIdentifier(userID, field: "user_id")
        try AuditRules.checkIdentifier(transactionID, field: "transaction_id")
        try AuditRules.checkIdentifier(actor, field: "actor")
        return try store.auditEvents(afterSequence: afterSequence, limit: limit, userID: userID, transactionID: transactionID, actor: actor)
    }
}
