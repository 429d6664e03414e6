import CustosCore
import Foundation
import Testing

@testable import CustosStore

/// What a master key rotation walks and replaces, and the key id the data records, on both
/// databases.
extension ConformanceCheck {
    static func sealedRecordsPageAndReplace(_ store: any ConformingStore, _: any StoreNodes) throws {
        for name in ["alice", "bob", "carol"] {
            try store.createUser(user(name))
            try store.saveTemplate(sealed(name, bytes: "t-" + name))
        }
        try store.saveFrameMemory(SealedFrameMemory(id: "m1", userID: "bob", keyID: "tk_2", ciphertext: Data("m-1".utf8),
                                                    createdAt: testNow, expiresAt: testNow.addingTimeInterval(-1)))
        try store.createTransaction(IDVTransaction(id: "t1", userID: "carol", workflow: .additionalDocumentScan, reason: "r",
                                                   state: .completed, consentVersion: nil, createdAt: testNow,
                                                   expiresAt: testNow.addingTimeInterval(600)))
        try store.saveDocument(SealedDocument(id: "t1.front", transactionID: "t1", userID: "carol", side: .front, keyID: "tk_3",
                                              ciphertext: Data("d-1".utf8), createdAt: testNow, expiresAt: testNow.addingTimeInterval(-1)))
        try store.addSigningKey(StoredSigningKey(kid: "sk_1", sealedPrivateKey: Data("s-1".utf8), publicJWK: "{}",
                                                 createdAt: testNow, activatesAt: testNow), retireOthersAt: testNow)
        try store.addSigningKey(StoredSigningKey(kid: "sk_2", sealedPrivateKey: Data("s-2".utf8), publicJWK: "{}",
                                                 createdAt: testNow, activatesAt: testNow), retireOthersAt: testNow)

        // Keyset pages in id order, with the owner and template key where the row has them.
        let first = try store.sealedRecords(.template, afterID: nil, limit: 2)
        #expect(first == [SealedRecord(kind: .template, id: "alice", userID: "alice", keyID: "tk_1", ciphertext: Data("t-alice".utf8)),
                          SealedRecord(kind: .template, id: "bob", userID: "bob", keyID: "tk_1", ciphertext: Data("t-bob".utf8))])
        #expect(try store.sealedRecords(.template, afterID: "bob", limit: 2).map(\.id) == ["carol"])
        #expect(try store.sealedRecords(.template, afterID: "carol", limit: 2).isEmpty)
        // Expired memories and document images and retired keys are walked too.
        #expect(try store.sealedRecords(.frameMemory, afterID: nil, limit: 10)
            == [SealedRecord(kind: .frameMemory, id: "m1", userID: "bob", keyID: "tk_2", ciphertext: Data("m-1".utf8))])
        #expect(try store.sealedRecords(.document, afterID: nil, limit: 10)
            == [SealedRecord(kind: .document, id: "t1.front", userID: "carol", keyID: "tk_3", ciphertext: Data("d-1".utf8))])
        #expect(try store.sealedRecords(.signingKey, afterID: nil, limit: 10)
            == [SealedRecord(kind: .signingKey, id: "sk_1", userID: nil, keyID: nil, ciphertext: Data("s-1".utf8)),
                SealedRecord(kind: .signingKey, id: "sk_2", userID: nil, keyID: nil, ciphertext: Data("s-2".utf8))])

        // Replaced only while it holds what was read; nothing else of the row changes.
        #expect(try store.replaceSealedRecord(.template, id: "bob", expected: Data("t-bob".utf8), with: Data("new".utf8)))
        #expect(try !store.replaceSealedRecord(.template, id: "bob", expected: Data("t-bob".utf8), with: Data("newer".utf8)))
        #expect(try !store.replaceSealedRecord(.template, id: "nobody", expected: Data("t-bob".utf8), with: Data("x".utf8)))
        var bob = sealed("bob")
        bob.ciphertext = Data("new".utf8)
        #expect(try store.template(userID: "bob") == bob)
        #expect(try store.replaceSealedRecord(.frameMemory, id: "m1", expected: Data("m-1".utf8), with: Data("m-new".utf8)))
        #expect(try store.sealedRecords(.frameMemory, afterID: nil, limit: 1).first?.ciphertext == Data("m-new".utf8))
        #expect(try store.replaceSealedRecord(.document, id: "t1.front", expected: Data("d-1".utf8), with: Data("d-new".utf8)))
        #expect(try store.document(transactionID: "t1", side: .front, now: testNow.addingTimeInterval(-2))?.ciphertext == Data("d-new".utf8))
        #expect(try store.replaceSealedRecord(.signingKey, id: "sk_2", expected: Data("s-2".utf8), with: Data("s-new".utf8)))
        #expect(try store.signingKeys(now: testNow.addingTimeInterval(-1)).map(\.sealedPrivateKey).contains(Data("s-new".utf8)))
    }

    static func metadataReplace(_ store: any ConformingStore, _: any StoreNodes) throws {
        #expect(try store.metadata("master_key_id", storingIfAbsent: "k1") == "k1")
        #expect(try store.metadata("master_key_id", storingIfAbsent: "k2") == "k1")
        #expect(try !store.replaceMetadata("master_key_id", expected: "k2", with: "k3"))
        #expect(try store.replaceMetadata("master_key_id", expected: "k1", with: "k2"))
        #expect(try store.metadata("master_key_id", storingIfAbsent: "k1") == "k2")
        #expect(try !store.replaceMetadata("absent", expected: "k1", with: "k2"))
    }
}
