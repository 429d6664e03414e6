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

    /// Wrong codes from one address lock that address out for the window, not the user: the
    /// real code still works from elsewhere, and is voided only by failures from many sources.
    @Test func wrongCodesFromOneSourceLockOnlyThatSource() throws {
        let harness = try ServiceHarness { $0.activationAttempts = 3 }
        let (_, code) = try harness.identity.createUser(id: "alice")
        func activate(_ code: String, from client: String) throws -> AuthenticationOutcome {
            try harness.identity.activate(userID: "alice", code: code, password: ServiceHarness.password, deviceName: "phone",
                                          deviceKey: ServiceHarness.key, client: client)
        }
        for _ in 0..<3 { #expect(throws: IdentityError.invalidActivationCode) { try activate("WRONG-CODE-0000", from: "203.0.113.9") } }
        #expect(throws: IdentityError.activationLocked) { try activate(code.code, from: "203.0.113.9") }
        harness.clock.advance(by: harness.identity.policy.lockoutBase + 1)
        #expect(throws: IdentityError.invalidActivationCode) { try activate("WRONG-CODE-0000", from: "203.0.113.9") }
        #expect(try activate(code.code, from: "198.51.100.7").status == .success)
    }

    /// A stranger's wrong codes for a user id that does not exist leave no counter behind the
    /// housekeeping sweep of throttle counters.
    @Test func wrongCodesForAnUnknownIDAreSwept() throws {
        let harness = try ServiceHarness()
        #expect(throws: IdentityError.invalidActivationCode) {
            try harness.identity.activate(userID: "ghost", code: "WRONG-CODE-0000", password: ServiceHarness.password, deviceName: "phone",
                                          deviceKey: ServiceHarness.key, client: "203.0.113.9")
        }
        let source = IdentityService.activationSourceCounter("ghost", client: "203.0.113.9")
        #expect(try harness.store.value(source) == 1)
        harness.clock.advance(by: harness.identity.policy.lockoutBase + 1)
        _ = try harness.store.purgeCounters(prefix: LoginThrottle.keyPrefix,
                                            updatedBefore: harness.clock.now().addingTimeInterval(-harness.identity.policy.lockoutBase))
        #expect(try harness.store.value(source) == 0)
    }

    /// Enough wrong codes from every source together void the code; a new one starts over.
    @Test func wrongCodesFromManySourcesVoidTheCode() throws {
        let harness = try ServiceHarness {
            $0.activationAttempts = 2
            $0.activationAttemptsPerUser = 4
        }
        let (_, code) = try harness.identity.createUser(id: "alice")
        func activate(_ code: String, from client: String) throws -> AuthenticationOutcome {
            try harness.identity.activate(userID: "alice", code: code, password: ServiceHarness.password, deviceName: "phone",
                                          deviceKey: ServiceHarness.key, client: client)
        }
        for source in ["a", "a", "b", "b"] {
            #expect(throws: IdentityError.invalidActivationCode) { try activate("WRONG-CODE-0000", from: source) }
        }
        #expect(throws: IdentityError.activationLocked) { try activate(code.code, from: "c") }
        let fresh = try harness.identity.issueActivationCode(userID: "alice", actor: "test")
        #expect(throws: IdentityError.invalidActivationCode) { try activate(code.code, from: "c") }
        #expect(try activate(fresh.code, from: "c").status == .success)
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
