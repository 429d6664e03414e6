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

    static func idvTransactionLifecycle(_ store: SQLStore, _: StoreHarness) throws {
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

    static func templateSaveReplaceDelete(_ store: SQLStore, _: StoreHarness) throws {
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

    static func templateKeyRotation(_ store: SQLStore, _: StoreHarness) throws {
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
}
