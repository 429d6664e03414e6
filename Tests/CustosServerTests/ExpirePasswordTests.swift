import CustosAPI
import CustosCore
import CustosSDK
import CustosTestSupport
import Foundation
import Testing

/// A relying party expires a user's password before its time (a suspected leak): the next
/// password check answers 110 as an aged password does, until the user sets a new one; another
/// relying party cannot do it to a user it does not manage.
@Suite struct ExpirePasswordTests {
    @Test(arguments: StoreKind.available)
    func anExpiredPasswordAnswers110UntilTheUserSetsANewOne(kind: StoreKind) async throws {
        let fixture = try await StepUpFixture.make(kind)
        defer { fixture.live.stop() }
        let client = fixture.client
        // The fixture's user was created without the fixture's relying party key: an admin key manages it.
        let admin = try fixture.live.admin(scope: .admin)
        let expired = try await admin.expirePassword(fixture.userID)
        #expect(expired.passwordMustChange == true && expired.status == "active")
        #expect(try LiveServer.audit(fixture.live.store).list(userID: fixture.userID, transactionID: nil)
            .contains { $0.kind == AuditKind.passwordExpired.rawValue })

        // The session stays; a level-1 step-up meets the 110 and ends it, as an aged password does.
        let created = try await fixture.send(level: 1)
        let prompts = Recorded<Int>()
        let token = fixture.answerPasswords(IdentityFlowTests.password, prompts: prompts)
        defer { token.remove() }
        let answer = try await client.updateNotification(try await fixture.shown(created.notificationUUID), action: "approve")
        #expect(answer.statusCode == 110)
        #expect(client.session.sessionToken == nil)

        // A login answers 110 with the change token; the new password clears the flag.
        let login = try await client.login(userID: fixture.userID, deviceID: fixture.deviceID, password: IdentityFlowTests.password)
        #expect(login.statusCode == 110 && login.session == nil)
        let newPassword = "a brand new long passphrase"
        let changed = try await client.changePassword(userID: fixture.userID, oldPassword: IdentityFlowTests.password, newPassword: newPassword,
                                                      passwordChangeToken: try #require(login.passwordChangeToken))
        #expect(changed.statusCode == 100)
        #expect(try await admin.user(fixture.userID).passwordMustChange == false)
        #expect(try await client.login(userID: fixture.userID, deviceID: fixture.deviceID, password: newPassword).statusCode == 100)
    }

    @Test func anotherRelyingPartyOrAUserWithoutAPasswordIsRefused() async throws {
        let fixture = try await StepUpFixture.make(.sqlite)
        defer { fixture.live.stop() }
        // A relying party key that did not create the user.
        await expectError("user_not_found") { _ = try await fixture.rp.expirePassword(fixture.userID) }
        #expect(try await fixture.live.admin(scope: .admin).user(fixture.userID).passwordMustChange == false)

        _ = try await fixture.rp.createUser("not-yet-active")
        await expectError("user_not_active") { _ = try await fixture.rp.expirePassword("not-yet-active") }
    }
}
