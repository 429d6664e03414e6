import CustosCore
import Foundation
import Testing
@testable import CustosCrypto
import CustosCryptoServices

/// During a master key rotation everything is sealed under the primary key and opened under
/// it or, failing authentication, under the previous one.
@Suite("MasterKeys")
struct MasterKeysTests {
    let old = MasterKey.generate()
    let new = MasterKey.generate()

    @Test("the template cipher seals under the primary and opens under either key")
    func templateCipher() throws {
        let both = MasterKeyTemplateCipher(masterKeys: MasterKeys(primary: new, previous: old))
        let owner = Data("alice".utf8)
        let before = try MasterKeyTemplateCipher(masterKey: old).seal(Data("template".utf8), keyID: "tk_1", associatedData: owner)
        #expect(try both.open(before, keyID: "tk_1", associatedData: owner) == Data("template".utf8))
        let after = try both.seal(Data("template".utf8), keyID: "tk_1", associatedData: owner)
        #expect(try MasterKeyTemplateCipher(masterKey: new).open(after, keyID: "tk_1", associatedData: owner) == Data("template".utf8))
        #expect(throws: CryptoError.authenticationFailed) { try MasterKeyTemplateCipher(masterKey: old).open(after, keyID: "tk_1", associatedData: owner) }
        // The fallback does not loosen the binding to the user or the template key.
        #expect(throws: CryptoError.authenticationFailed) { try both.open(before, keyID: "tk_1", associatedData: Data("bob".utf8)) }
        #expect(throws: CryptoError.authenticationFailed) { try both.open(before, keyID: "tk_2", associatedData: owner) }
        let stranger = MasterKeyTemplateCipher(masterKeys: MasterKeys(primary: MasterKey.generate(), previous: MasterKey.generate()))
        #expect(throws: CryptoError.authenticationFailed) { try stranger.open(before, keyID: "tk_1", associatedData: owner) }
    }

    @Test("descriptions show the key ids only")
    func masked() {
        let keys = MasterKeys(primary: new, previous: old)
        #expect(keys.description == "MasterKeys(primary: \(new.keyID), previous: \(old.keyID))")
        #expect(!String(describing: keys).contains(new.exportBase64()))
    }
}
