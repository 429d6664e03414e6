import CustosAPI
@testable import CustosCore
import CustosFakes
import Foundation
import Testing

/// Sessions: idle timeout, absolute lifetime, revocation, and the password-change token.
@Suite struct IdentitySessionTests {
    @Test func anIdleSessionEndsAtTheIdleTimeout() throws {
        let harness = try ServiceHarness { $0.sessionIdleTimeout = 600 }
        let (_, session, token) = try harness.activeUser()
        harness.clock.advance(by: 599)
        #expect(try harness.identity.authenticateSession(token: token).id == session.id)
        // That use refreshed it: another 599 s idle is still fine, 600 is not.
        harness.clock.advance(by: 599)
        #expect(try harness.identity.authenticateSession(token: token).id == session.id)
        harness.clock.advance(by: 600)
        #expect(throws: IdentityError.invalidSession) { try harness.identity.authenticateSession(token: token) }
        // Refused sessions are deleted, not just refused.
        #expect(try harness.identity.sessions(userID: "alice").isEmpty)
    }

    @Test func aSessionInUseStillEndsAtItsLifetime() throws {
        let harness = try ServiceHarness { $0.sessionIdleTimeout = 600; $0.sessionLifetime = 3000 }
        let (_, _, token) = try harness.activeUser()
        for _ in 0..<5 {
            harness.clock.advance(by: 500)
            _ = try harness.identity.authenticateSession(token: token)
        }
        harness.clock.advance(by: 499)
        _ = try harness.identity.authenticateSession(token: token)
        harness.clock.advance(by: 1)
        #expect(throws: IdentityError.invalidSession) { try harness.identity.authenticateSession(token: token) }
    }

    @Test func housekeepingPurgesIdleAndExpiredSessions() throws {
        let harness = try ServiceHarness { $0.sessionIdleTimeout = 600 }
        let (device, _, _) = try harness.activeUser()
        harness.clock.advance(by: 300)
        let fresh = try harness.login(device: device)
        harness.clock.advance(by: 301)
        #expect(try harness.identity.purgeExpiredSessions() == 1)
        #expect(try harness.identity.sessions(userID: "alice").map(\.id) == [fresh.session?.id])
    }

    @Test func revokingTheDeviceEndsItsSessions() throws {
        let harness = try ServiceHarness()
        let (device, _, token) = try harness.activeUser()
        try harness.identity.revokeDevice(userID: "alice", deviceID: device.id, actor: "test")
        #expect(throws: IdentityError.invalidSession) { try harness.identity.authenticateSession(token: token) }
        #expect(throws: IdentityError.deviceNotFound) { try harness.identity.revokeDevice(userID: "bob", deviceID: device.id, actor: "test") }
    }

    @Test func revokingOneSessionLeavesTheOthers() throws {
        let harness = try ServiceHarness()
        let (device, first, firstToken) = try harness.activeUser()
        let second = try harness.login(device: device)
        try harness.identity.revokeSession(userID: "alice", sessionID: first.id)
        #expect(throws: IdentityError.invalidSession) { try harness.identity.authenticateSession(token: firstToken) }
        #expect(try harness.identity.authenticateSession(token: try #require(second.sessionToken)) == second.session)
        #expect(throws: IdentityError.sessionNotFound) { try harness.identity.revokeSession(userID: "alice", sessionID: first.id) }
    }

    @Test func disablingTheUserEndsItsSessions() throws {
        let harness = try ServiceHarness()
        let (_, _, token) = try harness.activeUser()
        _ = try harness.identity.setDisabled(true, userID: "alice", actor: "test")
        #expect(throws: IdentityError.invalidSession) { try harness.identity.authenticateSession(token: token) }
        #expect(try harness.identity.sessions(userID: "alice").isEmpty)
    }

    /// An expired password gives a change token instead of a session; the token changes the
    /// password once, and ends every other session.
    @Test func thePasswordChangeTokenIsUsedOnce() throws {
        let harness = try ServiceHarness { $0.passwordMaximumAge = 86400 }
        let (device, _, oldToken) = try harness.activeUser()
        harness.clock.advance(by: 86400)
        let expired = try harness.login(device: device)
        #expect(expired.status == .passwordExpired)
        #expect(expired.session == nil)
        let token = try #require(expired.passwordChangeToken)
        let change = { (newPassword: String) in
            try harness.identity.changePassword(userID: "alice", oldPassword: ServiceHarness.password, newPassword: newPassword,
                                                authorization: .changeToken(token))
        }
        #expect(try change("a new password 1").status == .success)
        #expect(throws: IdentityError.invalidSession) { try change("a new password 2") }
        #expect(throws: IdentityError.invalidSession) { try harness.identity.authenticateSession(token: oldToken) }
        #expect(try harness.login(device: device, password: "a new password 1").status == .success)
    }

    @Test func thePasswordChangeTokenExpiresAtItsLifetime() throws {
        let harness = try ServiceHarness { $0.passwordMaximumAge = 86400; $0.passwordChangeTokenLifetime = 600 }
        let (device, _, _) = try harness.activeUser()
        harness.clock.advance(by: 86400)
        let token = try #require(try harness.login(device: device).passwordChangeToken)
        harness.clock.advance(by: 600)
        #expect(throws: IdentityError.invalidSession) {
            try harness.identity.changePassword(userID: "alice", oldPassword: ServiceHarness.password, newPassword: "a new password 1",
                                                authorization: .changeToken(token))
        }
    }

    /// A policy mistake is found before the token is spent.
    @Test func aRefusedNewPasswordKeepsTheToken() throws {
        let harness = try ServiceHarness { $0.passwordMaximumAge = 86400 }
        let (device, _, _) = try harness.activeUser()
        harness.clock.advance(by: 86400)
        let token = try #require(try harness.login(device: device).passwordChangeToken)
        #expect(throws: IdentityError.passwordPolicy("it must have at least 8 characters")) {
            try harness.identity.changePassword(userID: "alice", oldPassword: ServiceHarness.password, newPassword: "short",
                                                authorization: .changeToken(token))
        }
        #expect(try harness.identity.changePassword(userID: "alice", oldPassword: ServiceHarness.password, newPassword: "a new password 1",
                                                    authorization: .changeToken(token)).status == .success)
    }
}
