import Foundation
import Testing
@testable import CustosCrypto

/// Files produced by the `openssl` command-line tool (a throwaway test key):
/// `openssl ecparam -name prime256v1 -genkey -noout` and `openssl ec -pubout`.
@Suite("OpenSSL CLI interop")
struct OpenSSLInteropTests {
    static let sec1PEM = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIAsoNQQqrFP/A0ZJ/SrO7B2/n+f2DQFo6xNAofF9WRKVoAoGCCqGSM49
        AwEHoUQDQgAEaH2DvAlmwqe1B1N/kxpOXeSiOo7Cr60tDahTBC8cpHztMfoJl8wV
        1BrxMXC5Mo6sK8FncmhVmk5t9rqDT/QKgg==
        -----END EC PRIVATE KEY-----

        """
    static let publicPEM = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEaH2DvAlmwqe1B1N/kxpOXeSiOo7C
        r60tDahTBC8cpHztMfoJl8wV1BrxMXC5Mo6sK8FncmhVmk5t9rqDT/QKgg==
        -----END PUBLIC KEY-----

        """
    static let publicPoint = """
        04687d83bc0966c2a7b507537f931a4e5de4a23a8ec2afad2d0da853042f1ca47ced31fa0997cc15d41af13170b9328eac2bc1677268559a4e6df6ba834ff40a82
        """

    @Test("SEC1 private key PEM imports with the right public key")
    func sec1Import() throws {
        let key = try P256.PrivateKey(pemRepresentation: Self.sec1PEM)
        #expect(key.publicKey.x963Representation == hex(Self.publicPoint))
        #expect(key.publicKey.pemRepresentation == Self.publicPEM)
    }

    @Test("public key PEM from the CLI imports")
    func publicImport() throws {
        let key = try P256.PublicKey(pemRepresentation: Self.publicPEM)
        #expect(key.x963Representation == hex(Self.publicPoint))
    }
}

@Suite("Concurrent use")
struct ConcurrencyTests {
    @Test("one key signs and verifies from many tasks at once")
    func sharedKey() async throws {
        let key = try P256.PrivateKey.generate()
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<16 {
                group.addTask {
                    let message = Array("message \(index)".utf8)
                    var ok = true
                    for _ in 0..<20 {
                        let signature = try key.sign(message)
                        ok = ok && key.publicKey.verify(signature: signature, message: message)
                    }
                    return ok
                }
            }
            var all: [Bool] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 16 && results.allSatisfy { $0 })
    }
}
