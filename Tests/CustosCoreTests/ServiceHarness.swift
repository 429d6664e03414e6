import CustosAPI
@testable import CustosCore
import CustosFakes
import Foundation
import Testing

/// Identity and IDV services over the in-memory store, a manual clock, fake crypto and scripted
/// faces: what the HTTP tests prove end to end, checked a layer below, in milliseconds, with
/// every expiry reached by moving the clock.
struct ServiceHarness {
    let store = MemoryStore()
    let clock = ManualClock()
    let identity: IdentityService
    let idv: IDVService
    let audit: AuditTrail

    static let password = "correct horse battery"
    /// Alice's device key.
    static let key = key(for: "alice")

    /// Each user's own device key (a key binds one device only).
    static func key(for userID: String) -> DevicePublicKey { DevicePublicKey(x: userID + "-x", y: userID + "-y") }
    static let consent = BiometricConsent(accepted: true, version: "v1")

    init(hasher: any PasswordHasher = FakePasswordHasher(), keys: any DeviceKeyVerifier = FakeDeviceKeys(), identity adjustIdentity: (inout IdentityPolicy) -> Void = { _ in },
         idv adjustIDV: (inout IDVPolicy) -> Void = { _ in }) throws {
        var identityPolicy = IdentityPolicy()
        adjustIdentity(&identityPolicy)
        var idvPolicy = IDVPolicy()
        adjustIDV(&idvPolicy)
        let random = SeededRandom()
        audit = AuditTrail(store: store, digester: FakeDigester(), clock: clock)
        identity = try IdentityService(store: store, hasher: hasher, keys: keys, digester: FakeDigester(),
                                       random: random, clock: clock, policy: identityPolicy, audit: audit)
        idv = IDVService(store: store, identity: identity, faces: ScriptedFaces(), liveness: ScriptedLiveness(),
                         cipher: FakeTemplateCipher(), audit: audit, digester: FakeDigester(), random: random, clock: clock,
                         policy: idvPolicy)
    }

    /// A user activated with `password` and `key`: its device, first session and bearer token.
    @discardableResult
    func activeUser(_ id: String = "alice") throws -> (device: Device, session: Session, token: String) {
        let (_, code) = try identity.createUser(id: id)
        let outcome = try identity.activate(userID: id, code: code.code, password: Self.password, deviceName: "phone",
                                            deviceKey: Self.key(for: id))
        return (try #require(outcome.device), try #require(outcome.session), try #require(outcome.sessionToken))
    }

    /// A fresh nonce signed with the device key, then the login.
    func login(_ userID: String = "alice", device: Device, password: String? = Self.password) throws -> AuthenticationOutcome {
        let nonce = try identity.loginChallenge(userID: userID, deviceID: device.id)
        return try identity.login(userID: userID, deviceID: device.id, nonce: nonce.nonce,
                                  signature: FakeDeviceKeys.signature(of: nonce.nonce, key: Self.key(for: userID)), password: password)
    }

    /// A transaction of `workflow` confirmed: its liveness challenge.
    func challenged(_ userID: String = "alice", _ workflow: IDVWorkflow = .serverBiometricAuthentication) throws -> IssuedChallenge {
        let transaction = try idv.initiate(userID: userID, workflow: workflow, reason: nil, consent: workflow.enrolls ? Self.consent : nil)
        guard case .selfie(let challenge) = try idv.confirm(userID: userID, transactionID: transaction.id) else {
            throw IDVError.wrongStep(workflow: workflow.rawValue)
        }
        return challenge
    }

    /// Answers `challenge` with a take of `person`'s face.
    func submit(_ challenge: IssuedChallenge, person: String?, spoof: Bool = false, take: String? = nil,
                userID: String = "alice") throws -> (transaction: IDVTransaction, result: IDVResult) {
        try idv.submit(userID: userID, transactionID: challenge.transactionID, nonce: challenge.nonce,
                       frames: ScriptedFrame.take(person: person, spoof: spoof, take: take ?? challenge.transactionID))
    }

    /// An active user with a template of `person`'s face.
    func enrolled(_ userID: String = "alice", person: String = "alice") throws {
        try activeUser(userID)
        let result = try submit(try challenged(userID, .biometricOptIn), person: person, userID: userID).result
        #expect(result.decision == .enrolled)
    }
}
