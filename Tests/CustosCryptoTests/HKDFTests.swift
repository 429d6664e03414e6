import Testing
@testable import CustosCrypto

/// RFC 5869 appendix A, test cases 1-3 (SHA-256).
@Suite("HKDF-SHA-256 (RFC 5869)")
struct HKDFTests {
    @Test("test case 1: basic")
    func case1() throws {
        let ikm = [UInt8](repeating: 0x0B, count: 22)
        let salt = hex("000102030405060708090a0b0c")
        let info = hex("f0f1f2f3f4f5f6f7f8f9")
        let prk = HKDF.extract(salt: salt, inputKeyMaterial: ikm)
        #expect(hexString(prk) == "077709362c2e32df0ddc3f0dc47bba6390b6c73bb50f9c3122ec844ad7c2b3e5")
        let okm = try HKDF.deriveKey(inputKeyMaterial: ikm, salt: salt, info: info, outputByteCount: 42)
        #expect(hexString(okm) == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    @Test("test case 2: long inputs and outputs")
    func case2() throws {
        let okm = try HKDF.deriveKey(
            inputKeyMaterial: Array(0x00...0x4F),
            salt: Array(0x60...0xAF),
            info: Array(0xB0...0xFF),
            outputByteCount: 82)
        #expect(hexString(okm) == "b11e398dc80327a1c8e7f78c596a49344f012eda2d4efad8a050cc4c19afa97c59045a99cac7827271cb41c65e590e09da3275600c2f09b8367793a9aca3db71cc30c58179ec3e87c14c01d5c1f3434f1d87")
    }

    @Test("test case 3: empty salt and info")
    func case3() throws {
        let okm = try HKDF.deriveKey(inputKeyMaterial: [UInt8](repeating: 0x0B, count: 22), outputByteCount: 42)
        #expect(hexString(okm) == "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d9d201395faa4b61a96c8")
    }

    @Test("output length bounds", arguments: [0, -1, 255 * 32 + 1])
    func rejectsBadLength(_ length: Int) {
        #expect(throws: CryptoError.invalidOutputLength(length)) {
            try HKDF.deriveKey(inputKeyMaterial: [1], outputByteCount: length)
        }
    }

    @Test("maximum output length is allowed")
    func maximumLength() throws {
        #expect(try HKDF.deriveKey(inputKeyMaterial: [1], outputByteCount: 255 * 32).count == 8160)
    }
}
