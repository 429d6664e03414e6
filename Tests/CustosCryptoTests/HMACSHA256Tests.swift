import Foundation
import Testing
@testable import CustosCrypto

/// RFC 4231 section 4 test cases (HMAC-SHA-256 column).
@Suite("HMAC-SHA-256 (RFC 4231)")
struct HMACSHA256Tests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let number: Int
        let key: [UInt8]
        let data: [UInt8]
        let mac: String
        var testDescription: String { "test case \(number)" }
    }

    static let largeKey = [UInt8](repeating: 0xAA, count: 131)

    static let vectors: [Vector] = [
        Vector(number: 1, key: [UInt8](repeating: 0x0B, count: 20), data: utf8("Hi There"),
               mac: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        Vector(number: 2, key: utf8("Jefe"), data: utf8("what do ya want for nothing?"),
               mac: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        Vector(number: 3, key: [UInt8](repeating: 0xAA, count: 20), data: [UInt8](repeating: 0xDD, count: 50),
               mac: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        Vector(number: 4, key: Array(1...25), data: [UInt8](repeating: 0xCD, count: 50),
               mac: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        Vector(number: 6, key: largeKey, data: utf8("Test Using Larger Than Block-Size Key - Hash Key First"),
               mac: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        Vector(number: 7, key: largeKey,
               data: utf8("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm."),
               mac: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]

    @Test(arguments: vectors)
    func rfc4231(_ vector: Vector) {
        let mac = HMACSHA256.authenticate(key: vector.key, message: vector.data)
        #expect(hexString(mac) == vector.mac)
        #expect(HMACSHA256.isValid(hex(vector.mac), key: vector.key, message: vector.data))
    }

    @Test("test case 5: output truncated to 128 bits")
    func truncation() {
        let mac = HMACSHA256.authenticate(key: [UInt8](repeating: 0x0C, count: 20), message: utf8("Test With Truncation"))
        #expect(hexString(Array(mac.prefix(16))) == "a3b6167473100ee06e0c796c2955552b")
    }

    @Test("wrong code is rejected; empty key and message work")
    func rejectsWrongCode() {
        var mac = HMACSHA256.authenticate(key: utf8("k"), message: utf8("m"))
        mac[0] ^= 1
        #expect(!HMACSHA256.isValid(mac, key: utf8("k"), message: utf8("m")))
        #expect(HMACSHA256.authenticate(key: [], message: []).count == 32)
        #expect(HMACSHA256.authenticate(key: Data("Jefe".utf8), message: Data("what do ya want for nothing?".utf8))
            == Data(hex("5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")))
    }
}
