import Foundation
import Testing
@testable import CustosCrypto

@Suite("Base64url")
struct Base64URLTests {
    /// RFC 4648 section 10 test vectors, without padding.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"),
        ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
    ])
    func rfc4648(_ plain: String, _ encoded: String) throws {
        #expect(Base64URL.encode(utf8(plain)) == encoded)
        #expect(try Base64URL.decode(encoded) == utf8(plain))
    }

    @Test("URL-safe alphabet")
    func urlSafe() throws {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(try Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64URL.encode(Data([0xFB, 0xFF])) == "-_8")
    }

    @Test("strict decoding", arguments: ["Zg==", "+/8", "Zm9v Yg", "Z", "Zh", "Zm9=", "é"])
    func rejects(_ text: String) {
        #expect(throws: CryptoError.invalidBase64) { try Base64URL.decode(text) }
    }

    @Test("round trip of all byte values")
    func roundTrip() throws {
        for length in 0...66 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            #expect(try Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        let all = Array(0...255).map(UInt8.init)
        #expect(try Base64URL.decode(Base64URL.encode(all)) == all)
    }
}
