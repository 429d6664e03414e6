@testable import CustosCore
import CustosFakes
import Foundation
import Testing

/// Templates at rest: sealed to their user under the active key, re-sealed when it rotates.
@Suite struct TemplateVaultTests {
    let store = MemoryStore()
    let clock = ManualClock()
    let vault: TemplateVault

    init() {
        vault = TemplateVault(store: store, cipher: FakeTemplateCipher(), random: SeededRandom())
    }

    func template(_ person: String) throws -> BiometricTemplate {
        let descriptor = try ScriptedFaces.descriptor(of: person)
        return BiometricTemplate(descriptors: [descriptor], mean: descriptor, quality: 0.9)
    }

    func saved(_ userID: String) throws -> SealedTemplate {
        try store.createUser(User(id: userID, status: .active, createdAt: clock.now()))
        let sealed = try vault.seal(try template(userID), userID: userID, workflow: .biometricOptIn, consentVersion: "v1",
                                    consentAt: clock.now(), now: clock.now())
        try store.saveTemplate(sealed)
        return sealed
    }

    @Test func aSealedTemplateOpensForItsUserOnly() throws {
        let sealed = try saved("alice")
        #expect(try vault.open(sealed) == template("alice"))
        #expect(try store.activeTemplateKeyID() == sealed.keyID)
        var moved = sealed
        moved.userID = "bob"
        #expect(throws: StoreError.failure("sealed for another key or owner")) { try vault.open(moved) }
    }

    @Test func rotationResealsEveryTemplateAndPrunesTheOldKey() throws {
        let old = try saved("alice")
        _ = try saved("bob")
        let audit = AuditTrail(store: store, digester: FakeDigester(), clock: clock)
        let report = try vault.rotateKeys(audit: audit, now: clock.now(), batchSize: 1)
        #expect(report.resealed == 2)
        #expect(report.prunedKeys == 1)
        #expect(report.newKeyID != old.keyID)
        for user in ["alice", "bob"] {
            let sealed = try #require(try store.template(userID: user))
            #expect(sealed.keyID == report.newKeyID)
            #expect(try vault.open(sealed) == template(user))
        }
        #expect(try audit.list(userID: nil, transactionID: nil).map(\.auditKind) == [.keyRotation])
    }
}
