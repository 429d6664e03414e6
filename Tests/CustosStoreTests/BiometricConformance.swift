import CustosCore
import Foundation
import Testing

@testable import CustosStore

/// IDV transactions, sealed templates and the template key registry, on both databases.
extension ConformanceCheck {
    static func sealed(_ userID: String, key: String = "tk_1", bytes: String = "sealed") -> SealedTemplate {
        SealedTemplate(userID: userID, keyID: key, ciphertext: Data(bytes.utf8), modelID: "model", quality: 0.75,
                       workflow: .biometricOptIn, consentVersion: "v1", consentAt: testNow, createdAt: testNow, updatedAt: testNow)
    }

    static func idvTransactionLifecycle(_ store: any ConformingStore, _: any StoreNodes) throws {
        try store.createUser(user("alice"))
        var transaction = IDVTransaction(id: "t1", userID: "alice", workflow: .serverBiometricAuthentication, reason: "Pay",
                                         state: .awaitingConfirmation, consentVersion: nil, createdAt: testNow,
                                         expiresAt: testNow.addingTimeInterval(600))
        try store.createTransaction(transaction)
        #expect(try store.transaction(id: "t1") == transaction)
        transaction.state = .challenged
        transaction.challenge = LivenessChallenge(actions: [.blink, .turnLeft], minimumDuration: 0.5, maximumDuration: 20)
        transaction.challengeIssuedAt = testNow.addingTimeInterval(1)
        #expect(try store.updateTransaction(transaction, expected: .awaitingConfirmation))
        // A second mover loses: the state is no longer the expected one.
        #expect(try !store.updateTransaction(transaction, expected: .awaitingConfirmation))
        transaction.state = .completed
        transaction.completedAt = testNow.addingTimeInterval(2)
        transaction.result = IDVResult(status: .success, decision: .notMatched, distance: 0.71, threshold: 0.6, attempts: 1, attemptsLeft: 4)
        #expect(try store.updateTransaction(transaction, expected: .challenged))
        #expect(try store.transaction(id: "t1") == transaction)
        #expect(try store.transaction(id: "nope") == nil)
        // Deleting the user deletes its transactions.
        #expect(try store.deleteUser(id: "alice"))
        #expect(try store.transaction(id: "t1") == nil)
    }

    static func templateSaveReplaceDelete(_ store: any ConformingStore, _: any StoreNodes) throws {
        try store.createUser(user("alice"))
        try store.createUser(user("bob"))
        #expect(try store.template(userID: "alice") == nil)
        try store.saveTemplate(sealed("alice"))
        #expect(try store.template(userID: "alice") == sealed("alice"))
        var replaced = sealed("alice", key: "tk_2", bytes: "other")
        replaced.updatedAt = testNow.addingTimeInterval(5)
        try store.saveTemplate(replaced)
        #expect(try store.template(userID: "alice") == replaced)
        // A replacement keeps the first creation time.
        var later = sealed("alice", key: "tk_3", bytes: "third")
        later.createdAt = testNow.addingTimeInterval(60)
        try store.saveTemplate(later)
        #expect(try store.template(userID: "alice")?.createdAt == testNow)
        #expect(try store.template(userID: "alice")?.keyID == "tk_3")
        #expect(try store.deleteTemplate(userID: "alice"))
        #expect(try !store.deleteTemplate(userID: "alice"))
        // A template needs its user; deleting the user deletes it.
        #expect(throws: StoreError.self) { try store.saveTemplate(sealed("ghost")) }
        try store.saveTemplate(sealed("bob"))
        #expect(try store.deleteUser(id: "bob"))
        #expect(try store.template(userID: "bob") == nil)
    }

    static func templateKeyRotation(_ store: any ConformingStore, _: any StoreNodes) throws {
        for name in ["a", "b", "c"] { try store.createUser(user(name)) }
        #expect(try store.activeTemplateKeyID() == nil)
        try store.activateTemplateKey("tk_1", at: testNow)
        #expect(try store.activeTemplateKeyID() == "tk_1")
        for name in ["a", "b", "c"] { try store.saveTemplate(sealed(name)) }
        try store.activateTemplateKey("tk_2", at: testNow.addingTimeInterval(1))
        #expect(try store.activeTemplateKeyID() == "tk_2")
        #expect(try store.pruneTemplateKeys() == 0)  // tk_1 still seals templates
        let old = try store.templates(notSealedWith: "tk_2", limit: 2)
        #expect(old.map(\.userID) == ["a", "b"])
        var moved = old[0]
        moved.keyID = "tk_2"
        moved.ciphertext = Data("resealed".utf8)
        #expect(try store.resealTemplate(moved, expectedKeyID: "tk_1"))
        // Only if still sealed with the expected key.
        #expect(try !store.resealTemplate(moved, expectedKeyID: "tk_1"))
        #expect(try store.templates(notSealedWith: "tk_2", limit: 10).map(\.userID) == ["b", "c"])
        for name in ["b", "c"] { try store.saveTemplate(sealed(name, key: "tk_2")) }
        #expect(try store.pruneTemplateKeys() == 1)
        #expect(try store.activeTemplateKeyID() == "tk_2")
    }

    static func frameMemories(_ store: any ConformingStore, _: any StoreNodes) throws {
        for name in ["alice", "bob"] { try store.createUser(user(name)) }
        func memory(_ id: String, _ userID: String, age: TimeInterval, lifetime: TimeInterval = 3600) -> SealedFrameMemory {
            SealedFrameMemory(id: id, userID: userID, keyID: "tk_1", ciphertext: Data(id.utf8), createdAt: testNow.addingTimeInterval(-age),
                              expiresAt: testNow.addingTimeInterval(lifetime - age))
        }
        try store.saveFrameMemory(memory("m1", "alice", age: 30))
        try store.saveFrameMemory(memory("m2", "alice", age: 20))
        try store.saveFrameMemory(memory("m3", "alice", age: 10))
        try store.saveFrameMemory(memory("old", "alice", age: 7200))
        try store.saveFrameMemory(memory("b1", "bob", age: 5))
        // Newest first, unexpired only, limited, the user's own.
        #expect(try store.frameMemories(userID: "alice", now: testNow, limit: 10).map(\.id) == ["m3", "m2", "m1"])
        #expect(try store.frameMemories(userID: "alice", now: testNow, limit: 2).map(\.id) == ["m3", "m2"])
        #expect(try store.frameMemories(userID: "alice", now: testNow, limit: 1).first == memory("m3", "alice", age: 10))
        #expect(try store.purgeFrameMemories(now: testNow) == 1)
        #expect(throws: StoreError.self) { try store.saveFrameMemory(memory("ghost", "nobody", age: 1)) }
        #expect(try store.deleteUser(id: "alice"))
        #expect(try store.frameMemories(userID: "alice", now: testNow, limit: 10).isEmpty)
        #expect(try store.frameMemories(userID: "bob", now: testNow, limit: 10).count == 1)
    }

    static func openTransactionsAndGrants(_ store: any ConformingStore, _: any StoreNodes) throws {
        try store.createUser(user("alice"))
        for (id, state) in [("t1", IDVTransaction.State.completed), ("t2", .challenged), ("t3", .awaitingConfirmation), ("t4", .cancelled)] {
            try store.createTransaction(IDVTransaction(id: id, userID: "alice", workflow: .biometricOptIn, reason: "r", state: state,
                                                       consentVersion: "v1", createdAt: testNow.addingTimeInterval(Double(id.suffix(1))!),
                                                       expiresAt: testNow.addingTimeInterval(600), replacesTemplate: id == "t3"))
        }
        let open = try store.openTransactions(userID: "alice")
        #expect(open.map(\.id) == ["t2", "t3"])
        #expect(open.map(\.replacesTemplate) == [false, true])
        // One grant of a subject is consumed at a time, unexpired only.
        for (index, seconds) in [-5.0, 60, 120].enumerated() {
            try store.issue(SingleUseToken(purpose: "grant", digest: Data([UInt8(index)]), subject: "alice",
                                           expiresAt: testNow.addingTimeInterval(seconds)))
        }
        #expect(try store.consumeAny(purpose: "grant", subject: "alice", now: testNow)?.digest == Data([1]))
        #expect(try store.consumeAny(purpose: "grant", subject: "alice", now: testNow)?.digest == Data([2]))
        #expect(try store.consumeAny(purpose: "grant", subject: "alice", now: testNow) == nil)
        #expect(try store.consumeAny(purpose: "grant", subject: "bob", now: testNow) == nil)
        // Throttle counters go by prefix and age.
        _ = try store.increment("throttle:a", limit: 5, now: testNow.addingTimeInterval(-100))
        _ = try store.increment("throttle:b", limit: 5, now: testNow)
        _ = try store.increment("other", limit: 5, now: testNow.addingTimeInterval(-100))
        #expect(try store.purgeCounters(prefix: "throttle:", updatedBefore: testNow.addingTimeInterval(-50)) == 1)
        #expect(try store.value("throttle:b") == 1 && store.value("other") == 1)
    }
}

/// Document scan images: one per side of a transaction, unreadable once expired, purged by
/// housekeeping, gone with their user.
extension ConformanceCheck {
    static func documentImages(_ store: any ConformingStore, _: any StoreNodes) throws {
        for name in ["alice", "bob"] { try store.createUser(user(name)) }
        for (id, userID) in [("t1", "alice"), ("t2", "alice"), ("t3", "bob")] {
            try store.createTransaction(IDVTransaction(id: id, userID: userID, workflow: .additionalDocumentScan, reason: "r",
                                                       state: .completed, consentVersion: nil, createdAt: testNow,
                                                       expiresAt: testNow.addingTimeInterval(600)))
        }
        func document(_ id: String, _ transactionID: String, _ userID: String, _ side: DocumentSide,
                      lifetime: TimeInterval = 3600) -> SealedDocument {
            SealedDocument(id: id, transactionID: transactionID, userID: userID, side: side, keyID: "tk_1",
                           ciphertext: Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }) + Data(id.utf8),
                           createdAt: testNow, expiresAt: testNow.addingTimeInterval(lifetime))
        }
        try store.saveDocument(document("d2", "t1", "alice", .back))
        try store.saveDocument(document("d1", "t1", "alice", .front))
        try store.saveDocument(document("d3", "t2", "alice", .front, lifetime: 60))
        try store.saveDocument(document("d4", "t3", "bob", .front))
        // Large images come back byte for byte; sides front first.
        #expect(try store.document(transactionID: "t1", side: .front, now: testNow) == document("d1", "t1", "alice", .front))
        #expect(try store.document(transactionID: "t1", side: .back, now: testNow)?.id == "d2")
        #expect(try store.documentSides(transactionID: "t1", now: testNow) == [.front, .back])
        #expect(try store.document(transactionID: "t2", side: .back, now: testNow) == nil)
        #expect(try store.document(transactionID: "nope", side: .front, now: testNow) == nil)
        // One image per side of a transaction; each needs its user and transaction.
        expectStoreError(.duplicate) { try store.saveDocument(document("d5", "t1", "alice", .front)) }
        expectStoreError(.failure, "no such transaction") { try store.saveDocument(document("d6", "nope", "alice", .front)) }
        expectStoreError(.failure, "no such user") { try store.saveDocument(document("d7", "t2", "ghost", .back)) }
        // Unreadable once expired, then purged.
        let later = testNow.addingTimeInterval(60)
        #expect(try store.document(transactionID: "t2", side: .front, now: later) == nil)
        #expect(try store.documentSides(transactionID: "t2", now: later).isEmpty)
        #expect(try store.purgeDocuments(now: later) == 1)
        #expect(try store.purgeDocuments(now: later) == 0)
        // Deleting the user deletes its images, and only its own.
        #expect(try store.deleteUser(id: "alice"))
        #expect(try store.document(transactionID: "t1", side: .front, now: testNow) == nil)
        #expect(try store.documentSides(transactionID: "t3", now: testNow) == [.front])
    }
}
