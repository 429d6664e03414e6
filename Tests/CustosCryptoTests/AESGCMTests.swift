import Foundation
import Testing
@testable import CustosCrypto
import CustosCryptoServices

/// McGrew & Viega, "The Galois/Counter Mode of Operation (GCM)", appendix B,
/// test cases 13-16 (AES-256, 96-bit IV).
@Suite("AES-256-GCM")
struct AESGCMTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let number: Int
        let key: String
        let plaintext: String
        let aad: String
        let iv: String
        let ciphertext: String
        let tag: String
        var testDescription: String { "GCM spec test case \(number)" }
    }

    static let key15 = "feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308"
    static let plaintext60 = """
        d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72\
        1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39
        """
    static let ciphertext60 = """
        522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa\
        8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662
        """

    static let vectors: [Vector] = [
        Vector(number: 13, key: String(repeating: "00", count: 32), plaintext: "", aad: "",
               iv: String(repeating: "00", count: 12), ciphertext: "", tag: "530f8afbc74536b9a963b4f1c4cb738b"),
        Vector(number: 14, key: String(repeating: "00", count: 32), plaintext: String(repeating: "00", count: 16), aad: "",
               iv: String(repeating: "00", count: 12), ciphertext: "cea7403d4d606b6e074ec5d3baf39d18",
               tag: "d0d1c8a799996bf0265b98b5d48ab919"),
        Vector(number: 15, key: key15, plaintext: plaintext60 + "1aafd255", aad: "",
               iv: "cafebabefacedbaddecaf888", ciphertext: ciphertext60 + "898015ad",
               tag: "b094dac5d93471bdec1a502270e3cc6c"),
        Vector(number: 16, key: key15, plaintext: plaintext60, aad: "feedfacedeadbeeffeedfacedeadbeefabaddad2",
               iv: "cafebabefacedbaddecaf888", ciphertext: ciphertext60,
               tag: "76fc6ece0f4e1768cddf8853bb2d551b"),
    ]

    @Test(arguments: vectors)
    func sealMatchesVector(_ v: Vector) throws {
        let box = try AESGCM.seal(plaintext: hex(v.plaintext), key: hex(v.key), nonce: hex(v.iv), aad: hex(v.aad))
        #expect(hexString(box.ciphertext) == v.ciphertext)
        #expect(hexString(box.tag) == v.tag)
        #expect(box.nonce == hex(v.iv))
    }

    @Test(arguments: vectors)
    func openMatchesVector(_ v: Vector) throws {
        let box = try AESGCM.SealedBox(nonce: hex(v.iv), ciphertext: hex(v.ciphertext), tag: hex(v.tag))
        #expect(try AESGCM.open(box, key: hex(v.key), aad: hex(v.aad)) == hex(v.plaintext))
    }

    @Test("any modification fails with authenticationFailed")
    func tamper() throws {
        let v = Self.vectors[3]
        let key = hex(v.key), aad = hex(v.aad)
        let box = try AESGCM.seal(plaintext: hex(v.plaintext), key: key, nonce: hex(v.iv), aad: aad)

        var ciphertext = box.ciphertext
        ciphertext[0] ^= 0x01
        var tag = box.tag
        tag[15] ^= 0x80
        var nonce = box.nonce
        nonce[11] ^= 0x01
        var otherKey = key
        otherKey[0] ^= 0x01

        let tampered: [(AESGCM.SealedBox, [UInt8], [UInt8])] = [
            (try AESGCM.SealedBox(nonce: box.nonce, ciphertext: ciphertext, tag: box.tag), key, aad),
            (try AESGCM.SealedBox(nonce: box.nonce, ciphertext: box.ciphertext, tag: tag), key, aad),
            (try AESGCM.SealedBox(nonce: nonce, ciphertext: box.ciphertext, tag: box.tag), key, aad),
            (box, key, aad + [0]),
            (box, key, []),
            (box, otherKey, aad),
        ]
        for (candidate, candidateKey, candidateAAD) in tampered {
            #expect(throws: CryptoError.authenticationFailed) {
                try AESGCM.open(candidate, key: candidateKey, aad: candidateAAD)
            }
        }
    }

    @Test("random nonce, combined form round trip")
    func combinedRoundTrip() throws {
        let key = SecureRandom().bytes(count: 32)
        let a = try AESGCM.seal(plaintext: utf8("secret"), key: key, aad: utf8("ctx"))
        let b = try AESGCM.seal(plaintext: utf8("secret"), key: key, aad: utf8("ctx"))
        #expect(a.nonce != b.nonce)
        #expect(a.combined.count == 12 + 6 + 16)
        let parsed = try AESGCM.SealedBox(combined: a.combined)
        #expect(parsed == a)
        #expect(try AESGCM.open(parsed, key: key, aad: utf8("ctx")) == utf8("secret"))

        let sealedData = try AESGCM.seal(plaintext: Data("hello".utf8), key: key)
        #expect(try AESGCM.open(combined: sealedData, key: key) == Data("hello".utf8))
    }

    @Test("bad sizes are rejected")
    func badSizes() {
        #expect(throws: CryptoError.invalidKeySize(31)) {
            try AESGCM.seal(plaintext: [], key: [UInt8](repeating: 0, count: 31))
        }
        #expect(throws: CryptoError.invalidNonceSize(8)) {
            try AESGCM.seal(plaintext: [], key: [UInt8](repeating: 0, count: 32), nonce: [UInt8](repeating: 0, count: 8))
        }
        #expect(throws: CryptoError.invalidCiphertext) {
            try AESGCM.SealedBox(combined: [UInt8](repeating: 0, count: 27))
        }
        #expect(throws: CryptoError.invalidTagSize(12)) {
            try AESGCM.SealedBox(nonce: [UInt8](repeating: 0, count: 12), ciphertext: [], tag: [UInt8](repeating: 0, count: 12))
        }
    }
}
