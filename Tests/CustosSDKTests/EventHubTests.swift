import CustosAPI
@testable import CustosSDK
import Foundation
import Synchronization
import Testing

@Suite struct EventHubTests {
    final class Received: Sendable {
        let values = Mutex<[String]>([])
        func add(_ value: String) { values.withLock { $0.append(value) } }
        var all: [String] { values.withLock { $0 } }
    }

    static let event = CustosEvent<AuthenticationResult>("onUserLoggedIn")
    static func result(_ code: StatusCode) -> AuthenticationResult {
        AuthenticationResult(statusCode: code, statusMessage: "", userID: "u", attemptsLeft: 5)
    }

    /// Emits and waits until the hub's queue has delivered.
    static func emit(_ hub: EventHub, _ code: StatusCode) {
        hub.emit(event, result(code))
        hub.queue.sync {}
    }

    @Test func handlersRunOnTheConfiguredQueue() {
        let queue = DispatchQueue(label: "test.events")
        let key = DispatchSpecificKey<Bool>()
        queue.setSpecific(key: key, value: true)
        let hub = EventHub(queue: queue)
        let onQueue = Mutex(false)
        let token = hub.on(Self.event) { _ in onQueue.withLock { $0 = DispatchQueue.getSpecific(key: key) == true } }
        Self.emit(hub, 100)
        #expect(onQueue.withLock { $0 })
        withExtendedLifetime(token) {}
    }

    @Test func aNewHandlerHidesTheOldOneAndReleasingItRestoresIt() {
        let hub = EventHub(queue: DispatchQueue(label: "test.events"))
        let received = Received()
        let appWide = hub.on(Self.event) { received.add("app \($0.statusCode)") }
        var screen: HandlerToken? = hub.on(Self.event) { received.add("screen \($0.statusCode)") }
        Self.emit(hub, 100)
        screen = nil
        Self.emit(hub, 110)
        #expect(received.all == ["screen 100", "app 110"])
        #expect(screen == nil)
        withExtendedLifetime(appWide) {}
    }

    @Test func chainedHandlerCanCallThePreviousOne() {
        let hub = EventHub(queue: DispatchQueue(label: "test.events"))
        let received = Received()
        let appWide = hub.on(Self.event) { received.add("app \($0.statusCode)") }
        let screen = hub.chain(Self.event) { result, previous in
            received.add("screen \(result.statusCode)")
            if result.statusCode != 100 { previous(result) }
        }
        Self.emit(hub, 100)
        Self.emit(hub, 153)
        #expect(received.all == ["screen 100", "screen 153", "app 153"])
        // The previous handler is looked up when called: once it is gone, nothing dangles.
        appWide.remove()
        Self.emit(hub, 110)
        #expect(received.all.last == "screen 110")
        withExtendedLifetime(screen) {}
    }

    /// A chained handler (a screen's, a test's log) removed while its payload waits on the
    /// queue: the handler below it still gets the payload.
    @Test func aChainedHandlerRemovedBeforeDeliveryStillPassesThePayloadOn() {
        let queue = DispatchQueue(label: "test.events")
        let hub = EventHub(queue: queue)
        let received = Received()
        let below = hub.on(Self.event) { received.add("below \($0.statusCode.rawValue)") }
        let chained = hub.chain(Self.event) { payload, previous in previous(payload) }
        queue.suspend()
        hub.emit(Self.event, Self.result(153))
        chained.remove()
        queue.resume()
        queue.sync {}
        #expect(received.all == ["below 153"])
        withExtendedLifetime(below) {}
    }

    @Test func removingAMiddleHandlerKeepsTheStackIntact() {
        let hub = EventHub(queue: DispatchQueue(label: "test.events"))
        let received = Received()
        let bottom = hub.on(Self.event) { _ in received.add("bottom") }
        let middle = hub.on(Self.event) { _ in received.add("middle") }
        let top = hub.chain(Self.event) { result, previous in
            received.add("top")
            previous(result)
        }
        middle.remove()
        Self.emit(hub, 100)
        #expect(received.all == ["top", "bottom"])
        top.remove()
        Self.emit(hub, 100)
        #expect(received.all == ["top", "bottom", "bottom"])
        #expect(hub.hasHandler(for: Self.event))
        bottom.remove()
        #expect(!hub.hasHandler(for: Self.event))
    }
}

@Suite struct FileDeviceKeyStoreTests {
    @Test func keysArePrivateFilesThatSignVerifiably() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("custos-sdk-keys-\(UUID().uuidString)")
        let store = FileDeviceKeyStore(directory: directory)
        #expect(try store.key(for: "acct") == nil)
        let key = try store.createKey(for: "acct")
        let reloaded = try #require(try store.key(for: "acct"))
        #expect(reloaded.publicKey == key.publicKey)
        #expect(key.publicKey.kty == "EC" && key.publicKey.crv == "P-256")

        let signature = try reloaded.sign(Data("nonce".utf8))
        #expect(signature.count == 64)
        let verifier = P256DeviceKeyVerifierForTests(key.publicKey)
        #expect(try verifier.verify(signature, "nonce"))
        #expect(try !verifier.verify(signature, "other"))

        let directoryMode = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int
        #expect(directoryMode == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files.count == 1)
        let fileMode = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(files[0]).path)[.posixPermissions] as? Int
        #expect(fileMode == 0o600)

        try store.deleteKey(for: "acct")
        #expect(try store.key(for: "acct") == nil)
    }

    @Test func bindingsArePrivateFilesOnePerServer() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("custos-sdk-keys-\(UUID().uuidString)")
        let store = FileDeviceKeyStore(directory: directory)
        let first = DeviceBinding(server: "https://auth.example/", userID: "alice", deviceID: "dv_1")
        let second = DeviceBinding(server: "https://other.example/", userID: "bob", deviceID: "dv_2")
        #expect(try store.binding(for: first.server) == nil)
        try store.saveBinding(first)
        try store.saveBinding(second)
        #expect(try store.binding(for: first.server) == first && store.binding(for: second.server) == second)
        // A second activation on the same server replaces the binding there.
        let again = DeviceBinding(server: first.server, userID: "carol", deviceID: "dv_3")
        try store.saveBinding(again)
        #expect(try store.binding(for: first.server) == again)
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            let mode = try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent(file).path)[.posixPermissions] as? Int
            #expect(mode == 0o600 && file.hasSuffix(".json"))
        }
        // Clients sharing the directory write at once: each write lands whole.
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            #expect(throws: Never.self) { try store.saveBinding(DeviceBinding(server: first.server, userID: "u\(index)", deviceID: "dv_\(index)")) }
        }
        #expect(try store.binding(for: first.server)?.userID.hasPrefix("u") == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 2)
        try store.deleteBinding(for: first.server)
        #expect(try store.binding(for: first.server) == nil && store.binding(for: second.server) == second)
        // A damaged file is an error, not a silent "not bound".
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        try Data("{".utf8).write(to: directory.appendingPathComponent(try #require(files.first)))
        #expect(throws: CustosError.self) { try store.binding(for: second.server) }
    }
}

import CustosCrypto

/// Verifies with the server's own verifier type, so SDK signatures are what the server accepts.
struct P256DeviceKeyVerifierForTests {
    let jwk: PublicKeyJWK
    init(_ jwk: PublicKeyJWK) { self.jwk = jwk }
    func verify(_ signature: Data, _ message: String) throws -> Bool {
        let key = try JWK(kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y).p256PublicKey()
        return key.verify(signature: Array(signature), message: Array(message.utf8))
    }
}
