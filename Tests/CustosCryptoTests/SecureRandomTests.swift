import CustosCore
import Testing
@testable import CustosCrypto
import CustosCryptoServices

@Suite("SecureRandom")
struct SecureRandomTests {
    @Test func bytes() {
        let random: any RandomSource = SecureRandom()
        #expect(random.bytes(count: 0).isEmpty)
        #expect(random.bytes(count: 1000).count == 1000)
        #expect(random.bytes(count: 32) != random.bytes(count: 32))
    }

    @Test("base64url tokens")
    func tokens() throws {
        let token = SecureRandom().base64URLToken()
        #expect(token.count == 43)
        #expect(try Base64URL.decode(token).count == 32)
        #expect(SecureRandom().base64URLToken(byteCount: 16).count == 22)
        #expect(SecureRandom().base64URLToken() != token)
    }
}
