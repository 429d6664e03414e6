import CustosCore
import Foundation

// MARK: - IDVTransactionStore

extension MemoryStore: IDVTransactionStore {
    public func createTransaction(_ transaction: IDVTransaction) throws {
        try write { state in
            guard state.transactions[transaction.id] == nil else { throw StoreError.duplicate("an IDV transaction with this id exists") }
            try state.requireUser(transaction.userID)
            state.transactions[transaction.id] = transaction.stored
        }
    }

    public func transaction(id: String) throws -> IDVTransaction? {
        try read { $0.transactions[id] }
    }

    public func openTransactions(userID: String) throws -> [IDVTransaction] {
        try read { state in
            state.transactions.values.filter { $0.userID == userID && $0.isOpen }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        }
    }

    public func expiredOpenTransactions(now: Date, limit: Int) throws -> [IDVTransaction] {
        try read { state in
            let expired = state.transactions.values.filter { $0.isOpen && $0.expiresAt <= storedDate(now) }
            return Array(expired.sorted { ($0.expiresAt, $0.id) < ($1.expiresAt, $1.id) }.prefix(max(0, limit)))
        }
    }

    /// A compare-and-set on the state; the owner never changes.
    public func updateTransaction(_ transaction: IDVTransaction, expected: IDVTransaction.State) throws -> Bool {
        try write { state in
            guard let current = state.transactions[transaction.id], current.state == expected else { return false }
            var updated = transaction.stored
            updated.userID = current.userID
            state.transactions[transaction.id] = updated
            return true
        }
    }
}

// MARK: - TemplateStore

extension MemoryStore: TemplateStore {
    public func template(userID: String) throws -> SealedTemplate? {
        try read { $0.templates[userID] }
    }

    public func saveTemplate(_ template: SealedTemplate) throws {
        try write { state in
            try state.requireUser(template.userID)
            var saved = template.stored
            if let existing = state.templates[template.userID] { saved.createdAt = existing.createdAt }
            state.templates[template.userID] = saved
        }
    }

    @discardableResult
    public func deleteTemplate(userID: String) throws -> Bool {
        try write { $0.templates.removeValue(forKey: userID) != nil }
    }

    public func templates(notSealedWith keyID: String, limit: Int) throws -> [SealedTemplate] {
        try read { state in
            Array(state.templates.values.filter { $0.keyID != keyID }.sorted { bytewise($0.userID, $1.userID) }.prefix(max(0, limit)))
        }
    }

    public func resealTemplate(_ template: SealedTemplate, expectedKeyID: String) throws -> Bool {
        try write { state in
            guard state.templates[template.userID]?.keyID == expectedKeyID else { return false }
            state.templates[template.userID]?.keyID = template.keyID
            state.templates[template.userID]?.ciphertext = template.ciphertext
            return true
        }
    }

    public func activeTemplateKeyID() throws -> String? {
        try read { state in
            state.templateKeys.filter(\.value.active).max { ($0.value.createdAt, $1.key) < ($1.value.createdAt, $0.key) }?.key
        }
    }

    /// Registering a key id twice is a duplicate, as the SQL stores' primary key makes it.
    public func activateTemplateKey(_ keyID: String, at now: Date) throws {
        try write { state in
            guard state.templateKeys[keyID] == nil else { throw StoreError.duplicate("template key \(keyID) exists") }
            for id in state.templateKeys.keys { state.templateKeys[id]?.active = false }
            state.templateKeys[keyID] = MemoryState.TemplateKey(createdAt: storedDate(now), active: true)
        }
    }

    @discardableResult
    public func pruneTemplateKeys() throws -> Int {
        try write { state in
            let used = Set(state.templates.values.map(\.keyID))
            return state.templateKeys.removeAll { !$0.value.active && !used.contains($0.key) }
        }
    }
}

// MARK: - FrameMemoryStore

extension MemoryStore: FrameMemoryStore {
    public func saveFrameMemory(_ memory: SealedFrameMemory) throws {
        try write { state in
            guard state.frameMemories[memory.id] == nil else { throw StoreError.duplicate("a frame memory with this id exists") }
            try state.requireUser(memory.userID)
            var memory = memory
            memory.createdAt = storedDate(memory.createdAt)
            memory.expiresAt = storedDate(memory.expiresAt)
            state.frameMemories[memory.id] = memory
        }
    }

    /// Newest first, then by id.
    public func frameMemories(userID: String, now: Date, limit: Int) throws -> [SealedFrameMemory] {
        try read { state in
            let live = state.frameMemories.values.filter { $0.userID == userID && $0.expiresAt > storedDate(now) }
            return Array(live.sorted { $0.createdAt != $1.createdAt ? $0.createdAt > $1.createdAt : bytewise($0.id, $1.id) }
                .prefix(max(0, limit)))
        }
    }

    @discardableResult
    public func purgeFrameMemories(now: Date) throws -> Int {
        try write { state in state.frameMemories.removeAll { $0.value.expiresAt <= storedDate(now) } }
    }
}

// MARK: - DocumentStore

extension MemoryStore: DocumentStore {
    public func saveDocument(_ document: SealedDocument) throws {
        try write { state in
            guard state.documents[document.id] == nil,
                  !state.documents.values.contains(where: { $0.transactionID == document.transactionID && $0.side == document.side }) else {
                throw StoreError.duplicate("the transaction has an image of this side")
            }
            guard state.transactions[document.transactionID] != nil else { throw MemoryState.missing("transaction") }
            try state.requireUser(document.userID)
            var document = document
            document.createdAt = storedDate(document.createdAt)
            document.expiresAt = storedDate(document.expiresAt)
            state.documents[document.id] = document
        }
    }

    public func document(transactionID: String, side: DocumentSide, now: Date) throws -> SealedDocument? {
        try read { state in
            state.documents.values.first { $0.transactionID == transactionID && $0.side == side && $0.expiresAt > storedDate(now) }
        }
    }

    public func documentSides(transactionID: String, now: Date) throws -> [DocumentSide] {
        let kept = try read { state in
            Set(state.documents.values.filter { $0.transactionID == transactionID && $0.expiresAt > storedDate(now) }.map(\.side))
        }
        return DocumentSide.allCases.filter(kept.contains)
    }

    @discardableResult
    public func purgeDocuments(now: Date) throws -> Int {
        try write { state in state.documents.removeAll { $0.value.expiresAt <= storedDate(now) } }
    }
}

extension IDVTransaction {
    var isOpen: Bool { state == .awaitingConfirmation || state == .challenged }

    var stored: IDVTransaction {
        var transaction = self
        transaction.createdAt = storedDate(createdAt)
        transaction.expiresAt = storedDate(expiresAt)
        transaction.challengeIssuedAt = challengeIssuedAt.map(storedDate)
        transaction.completedAt = completedAt.map(storedDate)
        return transaction
    }
}

extension SealedTemplate {
    var stored: SealedTemplate {
        var template = self
        template.consentAt = storedDate(consentAt)
        template.createdAt = storedDate(createdAt)
        template.updatedAt = storedDate(updatedAt)
        return template
    }
}
