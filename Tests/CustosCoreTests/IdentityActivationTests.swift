import CustosAPI
@testable import CustosCore
import CustosFakes
import Foundation
import Testing

/// Activation codes: single use, bound to their user, counted, and expired by the clock.
@Suite struct IdentityActivationTests {
    @Test func activationBindsTheDeviceAndOpensASession() throws {
        let harness = try ServiceHarness()
        let (device, session, token) = try harness.activeUser()
        #expect(try harness.identity.user(id: "alice").status == .active)
        #expect(device.passwordVerifiedAt == harness.clock.now())
        #expect(try harness.identity.authenticateSession(token: token) == session)
    }

    @Test func aCodeIsUsedOnce() throws {
        let harness = try ServiceHarness()
        let (_, code) = try harness.identity.createUser(id: "alice")
        _ = try harness.identity.activate(userID: "alice", code: code.code, password: ServiceHarness.password, deviceName: "phone",
                                          deviceKey: ServiceHarness.key)
        #expect(throws: IdentityError.invalidActivationCode) {
            try harness.identity.activate(userID: "alice", code: code.code, password: ServiceHarness.password, deviceName: "tablet",
                                          deviceKey: DevicePublicKey(x: "tablet-x", y: "tablet-y"))
        }
    }

    @Test func aCodeWorksOnlyForItsUser() throws {
        let harness = try ServiceHarness()
        let (_, code) = try harness.identity.createUser(id: "alice")
        _ = try harness.identity.createUser(id: "bob")
        #expect(throws: IdentityError.invalidActivationCode) {
            try harness.identity.activate(userID: "bob", code: code.code, password: ServiceHarness.password, deviceName: "phone",
                                          deviceKey: ServiceHarness.key)
        }
    }

    @Test func theCodeExpiresAtItsLifetime() throws {
        let harness = try ServiceHarness { $0.activationCodeLifetime = 3600 }
        let (_, early) = try harness.identity.createUser(id: "early")
        let (_, late) = try harness.identity.createUser(id: "late")
        #expect(late.expiresAt == harness.clock.now().addingTimeInterval(3600))
        harness.clock.advance(by: 3599)
        _ = try harness.identity.activate(userID: "early", code: early.code, password: ServiceHarness.password, deviceName: "phone",
                                          deviceKey: ServiceHarness.key)
        harness.clock.advance(by: 1)
        #expect(throws: IdentityError.invalidActivationCode) {
            try harness.identity.activate(userID: "late", code: late.code, password: ServiceHarness.password, deviceName: "phone",
                                          deviceKey: DevicePublicKey(x: "late-x", y: "late-y"))
        }
    }

    /// The last wrong code voids the right one too; a new code starts the count again.
    @Test func wrongCodesLockActivationUntilANewCode() throws {
        let harness = try ServiceHarness { $0.activationAttempts = 3 }
        let (_, code) = try harness.identity.createUser(id: "alice")
        func activate(_ code: String) throws -> AuthenticationOutcome {
            try harness.identity.activate(userID: "alice", code: code, password: ServiceHarness.password, deviceName: "phone",
                                          deviceKey: ServiceHarness.key)
        }
        for _ in 0..<3 { #expect(throws: IdentityError.invalidActivationCode) { try activate("WRONG-CODE-0000") } }
        #expect(throws: IdentityError.activationLocked) { try activate(code.code) }
        let fresh = try harness.identity.issueActivationCode(userID: "alice")
        #expect(throws: IdentityError.invalidActivationCode) { try activate(code.code) }
        #expect(try activate(fresh.code).status == .success)
    }

    @Test func aKeyAlreadyBoundUndoesTheWholeActivation() throws {
        let harness = try ServiceHarness()
        try harness.activeUser("alice")
        let (_, code) = try harness.identity.createUser(id: "bob")
        #expect(throws: IdentityError.deviceKeyInUse) {
            try harness.identity.activate(userID: "bob", code: code.code, password: ServiceHarness.password, deviceName: "phone",
                                          deviceKey: ServiceHarness.key)
        }
        // Nothing of it stayed: the code still works with another key, the user was pending.
        #expect(try harness.identity.user(id: "bob").status == .pendingActivation)
        let outcome = try harness.identity.activate(userID: "bob", code: code.code, password: ServiceHarness.password,
                                                    deviceName: "phone", deviceKey: DevicePublicKey(x: "bob-x", y: "bob-y"))
        #expect(outcome.status == .success)
    }
}
