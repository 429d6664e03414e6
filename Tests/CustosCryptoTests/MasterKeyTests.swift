import Foundation
import Testing
@testable import CustosCrypto
import CustosCryptoServices

@Suite("MasterKey")
struct MasterKeyTests {
    /// Bytes 0x00...0x1f.
    static let base64 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="

    /// Expected values computed independently with Python 3 (hmac/hashlib, RFC 5869 by hand):
    /// HKDF-SHA-256(ikm = 00..1f, salt = "custos/v1", info = purpose).
    @Test("derivation matches an independent HKDF computation")
    func knownAnswer() throws {
        let key = try MasterKey(base64: Self.base64)
        #expect(hexString(key.deriveKey(purpose: "session")) == "93e50658315b340efea023394895db238912d1350193ddb9cc469cf4b11d0214")
        #expect(key.keyID == "4adf3f11fca6d401")
    }

    @Test("deterministic and purpose-separated")
    func deterministic() throws {
        let a = try MasterKey(base64: Self.base64)
        let b = try MasterKey(bytes: Array(0...31))
        #expect(a.deriveKey(purpose: "totp-secrets") == b.deriveKey(purpose: "totp-secrets"))
        #expect(a.deriveKey(purpose: "totp-secrets") != a.deriveKey(purpose: "session-mac"))
        #expect(a.deriveKey(purpose: "x", length: 64).count == 64)
        #expect(Array(a.deriveKey(purpose: "x", length: 64).prefix(32)) == a.deriveKey(purpose: "x"))
        #expect(a.keyID == b.keyID)
        let other = MasterKey.generate()
        #expect(other.keyID != a.keyID)
        #expect(other.deriveKey(purpose: "totp-secrets") != a.deriveKey(purpose: "totp-secrets"))
    }

    @Test("accepted spellings: unpadded, base64url, surrounding whitespace")
    func spellings() throws {
        let key = MasterKey.generate()
        let exported = key.exportBase64()
        #expect(try MasterKey(base64: exported).keyID == key.keyID)
        #expect(try MasterKey(base64: exported + "\n").keyID == key.keyID)
        let unpadded = String(exported.prefix { $0 != "=" })
        #expect(try MasterKey(base64: unpadded).keyID == key.keyID)
        let urlSafe = unpadded.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        #expect(try MasterKey(base64: urlSafe).keyID == key.keyID)
    }

    @Test("bad input is rejected", arguments: [
        "",
        "not base64 at all!",
        "AAECAwQFBgcICQoLDA0ODw==",  // 16 bytes
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gIQ==",  // 34 bytes
    ])
    func rejects(_ text: String) {
        #expect(throws: CryptoError.self) { try MasterKey(base64: text) }
    }

    @Test("wrong byte length names the problem")
    func wrongLength() {
        #expect(throws: CryptoError.invalidMasterKey("expected 32 bytes, got 16")) {
            try MasterKey(bytes: [UInt8](repeating: 0, count: 16))
        }
    }

    @Test("descriptions never show the key")
    func masked() throws {
        let key = try MasterKey(base64: Self.base64)
        for text in [String(describing: key), String(reflecting: key), "\(key)"] {
            #expect(!text.contains("AAECAwQF"))
            #expect(text.contains(key.keyID))
        }
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("AAECAwQF"))
        #expect(!dumped.contains("bytes"))
    }
}
