import CustosCore
import Testing
@testable import CustosCrypto
import CustosCryptoServices

@Suite("Argon2id")
struct Argon2idTests {
    @Test("RFC 9106 section 5.3 test vector")
    func rfc9106() throws {
        let tag = try Argon2id.deriveRaw(
            password: [UInt8](repeating: 0x01, count: 32),
            salt: [UInt8](repeating: 0x02, count: 16),
            secret: [UInt8](repeating: 0x03, count: 8),
            associatedData: [UInt8](repeating: 0x04, count: 12),
            cost: Argon2id.Cost(iterations: 3, memoryKiB: 32, parallelism: 4),
            outputByteCount: 32)
        #expect(hexString(tag) == "0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659")
    }

    @Test("hash then verify; wrong password is false")
    func roundTrip() throws {
        let hasher: any PasswordHasher = Argon2id(cost: .testing)
        let encoded = try hasher.hash("correct horse battery staple")
        #expect(encoded.hasPrefix("$argon2id$v=19$m=64,t=1,p=1$"))
        #expect(try hasher.verify("correct horse battery staple", encoded: encoded))
        #expect(try !hasher.verify("correct horse battery stapler", encoded: encoded))
        #expect(try !hasher.verify("", encoded: encoded))
    }

    @Test("fresh salt per hash; unicode and empty passwords")
    func saltsAndInputs() throws {
        let hasher = Argon2id(cost: .testing)
        #expect(try hasher.hash("same") != hasher.hash("same"))
        let unicode = try hasher.hash("pässwörd 🔑")
        #expect(try hasher.verify("pässwörd 🔑", encoded: unicode))
        let empty = try hasher.hash("")
        #expect(try hasher.verify("", encoded: empty))
    }

    @Test("malformed encoded hashes throw", arguments: [
        "",
        "garbage",
        "$argon2i$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo",
        "$argon2id$v=19$m=64,t=1,p=1$!!!$!!!",
        "$argon2id$v=19$m=64,t=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaA",
    ])
    func malformed(_ encoded: String) {
        #expect(throws: CryptoError.malformedPasswordHash) {
            try Argon2id(cost: .testing).verify("password", encoded: encoded)
        }
    }

    @Test("cost parsing and needsRehash")
    func rehash() throws {
        let cheap = Argon2id(cost: .testing)
        let encoded = try cheap.hash("pw")
        #expect(try Argon2id.cost(of: encoded) == .testing)
        #expect(try !cheap.needsRehash(encoded))
        #expect(try Argon2id(cost: .default).needsRehash(encoded))
    }

    @Test("invalid cost is rejected")
    func invalidCost() {
        for cost in [
            Argon2id.Cost(iterations: 0, memoryKiB: 64, parallelism: 1),
            Argon2id.Cost(iterations: 1, memoryKiB: 7, parallelism: 1),
            Argon2id.Cost(iterations: 1, memoryKiB: 64, parallelism: 0),
        ] {
            #expect(throws: CryptoError.self) { try Argon2id(cost: cost).hash("pw") }
        }
    }

    @Test("default cost is t=3, m=64 MiB, p=1")
    func defaults() {
        #expect(Argon2id.Cost.default == Argon2id.Cost(iterations: 3, memoryKiB: 65_536, parallelism: 1))
        #expect(Argon2id().cost == .default)
    }
}
