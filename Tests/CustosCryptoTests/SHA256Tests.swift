import Foundation
import Testing
@testable import CustosCrypto

@Suite("SHA-256")
struct SHA256Tests {
    @Test("FIPS 180-2 example: \"abc\"")
    func abc() {
        #expect(hexString(SHA256.hash(utf8("abc"))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("empty input")
    func empty() {
        #expect(hexString(SHA256.hash([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("Data overload matches the byte-array form")
    func dataOverload() {
        #expect(SHA256.hash(Data("abc".utf8)) == Data(SHA256.hash(utf8("abc"))))
        #expect(SHA256.hash(utf8: "abc") == SHA256.hash(utf8("abc")))
    }
}
