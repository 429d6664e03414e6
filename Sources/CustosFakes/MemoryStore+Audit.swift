import CustosCore
import Foundation

// MARK: - AuditStore

/// The chain is one list in the state: an append inside a block is rolled back with it, and
/// the writer serialises appenders as the SQL stores' chain lock does.
extension MemoryStore: AuditStore {
    public func appendAuditEvent(_ make: (_ head: AuditChainHead?) throws -> AuditEvent) throws -> AuditEvent {
        try write { state in
            let head = state.audit.last.map { AuditChainHead(sequence: $0.sequence, hash: $0.hash) }
            var event = try make(head)
            try event.checkFollows(head)
            event.occurredAt = storedDate(event.occurredAt)
            state.audit.append(event)
            return event
        }
    }

    /// Only the links and hashes change, as in the SQL stores.
    public func rewriteAuditChain(pageSize: Int, _ rewrite: (AuditEvent) throws -> AuditEvent) throws -> Int {
        try write { state in
            var changed = 0
            for index in state.audit.indices {
                let rewritten = try rewrite(state.audit[index])
                guard rewritten.previousHash != state.audit[index].previousHash || rewritten.hash != state.audit[index].hash else { continue }
                state.audit[index].previousHash = rewritten.previousHash
                state.audit[index].hash = rewritten.hash
                changed += 1
            }
            return changed
        }
    }

    public func auditEvents(afterSequence: Int64, limit: Int, userID: String?, transactionID: String?, actor: String?) throws -> [AuditEvent] {
        try read { state in
            guard limit > 0 else { return [] }
            let matching = state.audit.lazy.filter {
                $0.sequence > afterSequence && (userID == nil || $0.userID == userID) && (transactionID == nil || $0.transactionID == transactionID)
                    && (actor == nil || $0.details[AuditActor.detail] == actor)
            }
            return Array(matching.prefix(limit))
        }
    }
}

// MARK: - SigningKeyStore

extension MemoryStore: SigningKeyStore {
    public func signingKeys(now: Date) throws -> [StoredSigningKey] {
        try read { state in
            state.signingKeys.values.filter { $0.retiresAt.map { $0 > storedDate(now) } ?? true }
                .sorted { ($0.activatesAt, $0.createdAt, $0.kid) < ($1.activatesAt, $1.createdAt, $1.kid) }
        }
    }

    public func addSigningKey(_ key: StoredSigningKey, retireOthersAt: Date) throws {
        try write { state in
            guard state.signingKeys[key.kid] == nil else { throw StoreError.duplicate("signing key \(key.kid) exists") }
            let retire = storedDate(retireOthersAt)
            for (kid, other) in state.signingKeys where kid.prefix(3) == key.kid.prefix(3) && (other.retiresAt.map({ $0 > retire }) ?? true) {
                state.signingKeys[kid]?.retiresAt = retire
            }
            var key = key
            key.createdAt = storedDate(key.createdAt)
            key.activatesAt = storedDate(key.activatesAt)
            key.retiresAt = nil
            state.signingKeys[key.kid] = key
        }
    }
}

// MARK: - SealedRecordStore

extension MemoryStore: SealedRecordStore {
    public func sealedRecords(_ kind: SealedRecord.Kind, afterID: String?, limit: Int) throws -> [SealedRecord] {
        try read { state in
            let all: [SealedRecord] = switch kind {
            case .template:
                state.templates.values.map { SealedRecord(kind: kind, id: $0.userID, userID: $0.userID, keyID: $0.keyID, ciphertext: $0.ciphertext) }
            case .frameMemory:
                state.frameMemories.values.map { SealedRecord(kind: kind, id: $0.id, userID: $0.userID, keyID: $0.keyID, ciphertext: $0.ciphertext) }
            case .document:
                state.documents.values.map { SealedRecord(kind: kind, id: $0.id, userID: $0.userID, keyID: $0.keyID, ciphertext: $0.ciphertext) }
            case .signingKey:
                state.signingKeys.values.map { SealedRecord(kind: kind, id: $0.kid, userID: nil, keyID: nil, ciphertext: $0.sealedPrivateKey) }
            }
            let after = all.filter { afterID == nil || bytewise(afterID!, $0.id) }
            return Array(after.sorted { bytewise($0.id, $1.id) }.prefix(max(1, limit)))
        }
    }

    /// A compare-and-set on the sealed bytes themselves.
    public func replaceSealedRecord(_ kind: SealedRecord.Kind, id: String, expected: Data, with ciphertext: Data) throws -> Bool {
        try write { state in
            switch kind {
            case .template:
                guard state.templates[id]?.ciphertext == expected else { return false }
                state.templates[id]?.ciphertext = ciphertext
            case .frameMemory:
                guard state.frameMemories[id]?.ciphertext == expected else { return false }
                state.frameMemories[id]?.ciphertext = ciphertext
            case .document:
                guard state.documents[id]?.ciphertext == expected else { return false }
                state.documents[id]?.ciphertext = ciphertext
            case .signingKey:
                guard state.signingKeys[id]?.sealedPrivateKey == expected else { return false }
                state.signingKeys[id]?.sealedPrivateKey = ciphertext
            }
            return true
        }
    }
}
