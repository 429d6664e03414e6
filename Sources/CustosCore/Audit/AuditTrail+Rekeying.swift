import Foundation

/// Moving the chain to a new key, for a master-key rotation.
extension AuditTrail {
    /// Re-keys the whole chain under `digester`: in one store transaction that holds the chain
    /// lock (appends on every node wait for it), checks every event as `verify()` does — its
    /// hash may be `digester`'s (appended by a node already sealing with the new master key)
    /// or `previousDigester`'s — and rewrites every link and hash under `digester`. Nothing is
    /// changed when any event breaks the chain: `AuditError.brokenChain` names the first, and
    /// an unreadable row is `AuditError.unreadableEvent`. A chain already under `digester`
    /// comes out the same (0 events changed). Returns how many events changed.
    public func rekey() throws -> Int {
        var lastStored: AuditEvent?
        var lastRewritten: AuditEvent?
        return try store.rewriteAuditChain(pageSize: Self.verifyPageSize) { event in
            if let broken = chainBreak(at: event, after: lastStored) { throw AuditError.brokenChain(broken) }
            var rewritten = event
            rewritten.previousHash = lastRewritten?.hash ?? AuditEvent.genesisHash
            rewritten.hash = hash(of: rewritten)
            lastStored = event
            lastRewritten = rewritten
            return rewritten
        }
    }
}
