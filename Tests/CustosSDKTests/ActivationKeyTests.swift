import CustosAPI
@testable import CustosSDK
import Foundation
import Testing

/// Re-activating a device must not lose its working key unless the server took the new one.
@Suite struct ActivationKeyTests {
    func keysDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("custos-sdk-activation-\(UUID().uuidString)")
    }

    /// The key files in the directory (no staged key may be left behind).
    /// The key files (the binding's file lies beside them).
    func keyFiles(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".pem") }
    }

    func activate(_ client: CustosClient) async throws -> AuthenticationResult {
        try await client.activate(userID: "alice", activationCode: "WRONG-CODE", password: "a good long password", deviceName: "laptop")
    }

    @Test func aRejectedActivationLeavesTheOldKeyUsable() async throws {
        let envelope = ErrorEnvelope(code: "invalid_activation_code", message: "The activation code is wrong or expired.")
        let stub = try StubHTTPServer(status: 401, body: try WireJSON.encoder().encode(envelope))
        defer { stub.stop() }
        let directory = keysDirectory()
        let store = FileDeviceKeyStore(directory: directory)
        let account = stub.url.absoluteString + "|alice"
        let old = try store.createKey(for: account)

        let client = try CustosClient(configuration: .init(serverURL: stub.url, timeout: 10, keyStore: store))
        await #expect(throws: CustosError.server(status: 401, code: "invalid_activation_code", message: "")) {
            _ = try await activate(client)
        }
        #expect(stub.requestLines == ["POST /v1/activate HTTP/1.1"])
        let kept = try #require(try store.key(for: account))
        #expect(kept.publicKey == old.publicKey)
        #expect(try P256DeviceKeyVerifierForTests(old.publicKey).verify(try kept.sign(Data("nonce".utf8)), "nonce"))
        #expect(try keyFiles(directory).count == 1)
    }

    @Test func anUnreachableServerLeavesTheOldKeyUsable() async throws {
        let server = URL(string: "http://127.0.0.1:1")!
        let directory = keysDirectory()
        let store = FileDeviceKeyStore(directory: directory)
        let old = try store.createKey(for: server.absoluteString + "|alice")
        let client = try CustosClient(configuration: .init(serverURL: server, timeout: 5, keyStore: store))
        await #expect(throws: CustosError.transportFailed) { _ = try await activate(client) }
        #expect(try store.key(for: server.absoluteString + "|alice")?.publicKey == old.publicKey)
        #expect(try keyFiles(directory).count == 1)
    }

    @Test func anAcceptedActivationReplacesTheKey() async throws {
        let accepted = AuthenticationResult(statusCode: 100, statusMessage: "Success", userID: "alice", attemptsLeft: 5, deviceID: "d1")
        let stub = try StubHTTPServer(status: 201, body: try WireJSON.encoder().encode(accepted))
        defer { stub.stop() }
        let directory = keysDirectory()
        let store = FileDeviceKeyStore(directory: directory)
        let account = stub.url.absoluteString + "|alice"
        let old = try store.createKey(for: account)

        let client = try CustosClient(configuration: .init(serverURL: stub.url, timeout: 10, keyStore: store))
        let result = try await activate(client)
        #expect(result.deviceID == "d1")
        #expect(client.session.deviceID == "d1")
        let replaced = try #require(try store.key(for: account))
        #expect(replaced.publicKey != old.publicKey)
        #expect(try keyFiles(directory).count == 1)
    }
}
