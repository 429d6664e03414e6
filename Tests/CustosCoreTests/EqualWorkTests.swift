import CustosAPI
@testable import CustosCore
import CustosFakes
import Foundation
import Synchronization
import Testing

/// Refusals that must not tell who exists do the same work and give the same answer: the
/// same number of password verifications (Argon2id, about 250 ms) and of device signature
/// checks (ECDSA, about 0.4 ms: bench/timing.sh told them apart before the dummy key), and the
/// same status and attempts left. Timing itself is measured by
/// `bench/timing.sh` on the real server; tests assert no timings.
@Suite struct EqualWorkTests {
    /// Counts verifications, and otherwise is the fake hasher.
    final class CountingHasher: PasswordHasher {
        let inner = FakePasswordHasher()
        let verifications = Atomic<Int>(0)

        func hash(_ password: String) throws -> String { try inner.hash(password) }

        func verify(_ password: String, encoded: String) throws -> Bool {
            verifications.add(1, ordering: .relaxed)
            return try inner.verify(password, encoded: encoded)
        }

        /// The verifications `body` made.
        func counting(_ body: () throws -> AuthenticationOutcome) rethrows -> (verifications: Int, outcome: AuthenticationOutcome) {
            let before = verifications.load(ordering: .relaxed)
            let outcome = try body()
            return (verifications.load(ordering: .relaxed) - before, outcome)
        }
    }

    /// Counts signature checks, and otherwise is the fake verifier.
    final class CountingKeys: DeviceKeyVerifier {
        let inner = FakeDeviceKeys()
        let checks = Atomic<Int>(0)

        func thumbprint(of key: DevicePublicKey) throws -> String { try inner.thumbprint(of: key) }
        func parse(jwkJSON: String) throws -> DevicePublicKey { try inner.parse(jwkJSON: jwkJSON) }

        func verify(signature: [UInt8], message: [UInt8], key: DevicePublicKey) -> Bool {
            checks.add(1, ordering: .relaxed)
            return inner.verify(signature: signature, message: message, key: key)
        }

        func verify(derSignature: [UInt8], message: [UInt8], key: DevicePublicKey) -> Bool {
            checks.add(1, ordering: .relaxed)
            return inner.verify(derSignature: derSignature, message: message, key: key)
        }
    }

    /// alice active, bob disabled, carol locked (five wrong passwords from her device); each with a device.
    static func users(_ harness: ServiceHarness) throws -> [String: Device] {
        var devices: [String: Device] = [:]
        for id in ["alice", "bob", "carol"] { devices[id] = try harness.activeUser(id).device }
        _ = try harness.identity.setDisabled(true, userID: "bob", actor: "test")
        for _ in 0..<5 { _ = try harness.login("carol", device: devices["carol"]!, password: "wrong password") }
        #expect(try harness.store.user(id: "carol")?.isLocked(at: harness.clock.now()) == true)
        return devices
    }

    @Test func passwordRegistrationVerifiesOncePerAnswerWhoeverTheUser() throws {
        let hasher = CountingHasher()
        let harness = try ServiceHarness(hasher: hasher) { $0.passwordRegistration = true }
        _ = try Self.users(harness)
        let key = DevicePublicKey(x: "new-x", y: "new-y")
        let cases: [(String, String)] = [("alice", "wrong password"), ("nobody", ServiceHarness.password),
                                         ("bob", ServiceHarness.password), ("carol", ServiceHarness.password)]
        var answers: [String: String] = [:]
        for (index, (userID, password)) in cases.enumerated() {
            let (verifications, outcome) = try hasher.counting {
                try harness.identity.registerDevice(userID: userID, proof: .password(password), deviceName: "new", deviceKey: key,
                                                    client: "192.0.2.\(index + 1)")
            }
            #expect(verifications == 1, "\(userID): \(verifications) password verifications")
            #expect(outcome.status == .credentialsRejected, "\(userID): \(outcome.status)")
            answers[userID] = "\(outcome.status) \(outcome.attemptsLeft)"
        }
        #expect(Set(answers.values).count == 1, "the answers differ: \(answers)")
    }

    @Test func aLoginWithoutADeviceProofChecksOneSignatureAndNoPasswordWhoeverTheUser() throws {
        let hasher = CountingHasher()
        let keys = CountingKeys()
        let harness = try ServiceHarness(hasher: hasher, keys: keys)
        let devices = try Self.users(harness)
        let cases: [(label: String, user: String, device: String)] = [
            ("wrong signature", "alice", devices["alice"]!.id), ("unknown user", "nobody", "dev-unknown"),
            ("disabled user", "bob", devices["bob"]!.id), ("locked user", "carol", devices["carol"]!.id),
            ("unknown device", "alice", "dev-unknown"), ("another user's device", "alice", devices["bob"]!.id),
        ]
        var answers: [String: String] = [:]
        for (index, item) in cases.enumerated() {
            let nonce = try harness.identity.loginChallenge(userID: item.user, deviceID: item.device)
            let wrong = FakeDeviceKeys.signature(of: nonce.nonce, key: DevicePublicKey(x: "forger-x", y: "forger-y"))
            let checksBefore = keys.checks.load(ordering: .relaxed)
            let (verifications, outcome) = try hasher.counting {
                try harness.identity.login(userID: item.user, deviceID: item.device, nonce: nonce.nonce, signature: wrong,
                                           password: ServiceHarness.password, client: "198.51.100.\(index + 1)")
            }
            #expect(verifications == 0, "\(item.label): \(verifications) password verifications")
            let checks = keys.checks.load(ordering: .relaxed) - checksBefore
            #expect(checks == 1, "\(item.label): \(checks) signature checks")
            #expect(outcome.status == .credentialsRejected, "\(item.label): \(outcome.status)")
            answers[item.label] = "\(outcome.status) \(outcome.attemptsLeft) \(nonce.passwordRequired)"
        }
        #expect(Set(answers.values).count == 1, "the answers differ: \(answers)")
    }

    /// With the device's proof, a wrong password and a disabled user both cost one verification
    /// and answer alike: the device's holder learns nothing of the account's state from the time.
    @Test func aProvedDeviceGetsOneVerificationForAWrongPasswordAndForADisabledUser() throws {
        let hasher = CountingHasher()
        let harness = try ServiceHarness(hasher: hasher)
        let devices = try Self.users(harness)
        let wrong = try hasher.counting { try harness.login("alice", device: devices["alice"]!, password: "wrong password") }
        let disabled = try hasher.counting { try harness.login("bob", device: devices["bob"]!) }
        #expect(wrong.verifications == 1 && disabled.verifications == 1)
        #expect(wrong.outcome.status == .credentialsRejected && disabled.outcome.status == wrong.outcome.status)
        #expect(disabled.outcome.attemptsLeft == wrong.outcome.attemptsLeft)
    }
}
