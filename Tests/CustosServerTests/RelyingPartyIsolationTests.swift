import CustosAPI
import CustosCore
import CustosSDK
import CustosTestSupport
import Foundation
import Testing

/// One relying party's API key reads only what it created, cannot take a user's notification
/// slots from the others, and cannot re-activate a user behind its back.
@Suite struct RelyingPartyIsolationTests {
    @Test(arguments: StoreKind.available)
    func anotherKeyReadsNoResultOfANotification(kind: StoreKind) async throws {
        let fixture = try await StepUpFixture.make(kind)
        defer { fixture.live.stop() }
        let other = try fixture.live.otherRelyingParty()
        let sent = try await fixture.send(level: .none)
        await expectError("notification_not_found") { try await other.notificationResult(sent.notificationUUID) }
        let answer = try await fixture.client.updateNotification(uuid: sent.notificationUUID, action: "approve")
        #expect(answer.statusCode == .success)
        await expectError("notification_not_found") { try await other.notificationResult(sent.notificationUUID) }
        // The sender reads it; so does an administrator.
        #expect(try await fixture.rp.notificationResult(sent.notificationUUID).status == .answered)
        #expect(try await fixture.live.admin(scope: .admin).notificationResult(sent.notificationUUID).status == .answered)
    }

    @Test func oneKeyCannotFillTheUsersPendingSlotsForAll() async throws {
        let fixture = try await StepUpFixture.make(.sqlite)
        defer { fixture.live.stop() }
        for _ in 0..<5 { _ = try await fixture.send(level: .none) }
        await expectError("too_many_pending") { try await fixture.send(level: .none) }
        let other = try fixture.live.otherRelyingParty()
        let created = try await other.createNotification(CreateNotificationRequest(
            userID: fixture.userID, subject: "Sign-in", message: "Is this you?",
            actions: [NotificationAction(label: "Yes", action: "approve", authLevel: 0)]))
        #expect(created.notificationUUID.count == 32)
    }

    /// The verdict and document images of an identity verification are the relying party's
    /// that created the user: another key gets not found.
    @Test func anotherKeyReadsNoVerdict() async throws {
        let live = try LiveServer(store: LiveServer.store(.sqlite), idv: IDVPolicy())
        defer { live.stop() }
        let owner = try live.admin(), other = try live.otherRelyingParty()
        let userID = "owned-\(UUID().uuidString.prefix(8))"
        let created = try await owner.createUser(userID)
        let client = try live.client()
        _ = try await client.activate(userID: userID, activationCode: created.activation.activationCode,
                                      password: IdentityFlowTests.password, deviceName: "phone")
        // Workflow 8 without a template ends at once (600): a completed transaction with a verdict.
        let transaction = try #require(live.idv).initiate(userID: userID, workflow: .serverBiometricAuthentication, reason: "check",
                                                          consent: nil)
        #expect(try await owner.idvVerdict(transaction.id).idvAuditTransactionID == transaction.id)
        await expectError("idv_transaction_not_found") { try await other.idvVerdict(transaction.id) }
        await expectError("idv_transaction_not_found") { try await other.idvDocument(transaction.id, side: "front") }
        #expect(try await live.admin(scope: .admin).idvVerdict(transaction.id).idvAuditTransactionID == transaction.id)
    }

    /// An active user is not re-activated: a new activation code is refused (it would replace the
    /// password and bind a device unseen). A reset starts over, and ends what the user had.
    @Test(arguments: StoreKind.available)
    func anActiveUserIsResetNotReactivated(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let device = try await BoundSignInAttackTests.RawDevice.make(live)
        let rp = try live.admin()
        await expectError("user_active") { try await rp.issueActivationCode(device.userID) }
        #expect(try await RevocationTests.sessionStatus(live, device.sessionToken) == 200)

        let reset = try await rp.resetUser(device.userID)
        #expect(reset.userID == device.userID && !reset.activationCode.isEmpty)
        #expect(try await RevocationTests.sessionStatus(live, device.sessionToken) == 401)
        #expect(try await rp.devices(device.userID).allSatisfy { $0.revokedAt != nil })
        #expect(try await rp.user(device.userID).status == "pending_activation")
        let events = try live.store.auditEvents(afterSequence: 0, limit: 500, userID: device.userID, transactionID: nil)
        let event = try #require(events.last { $0.kind == AuditKind.userReset.rawValue })
        #expect(event.details["actor"] != nil && event.details["devices_unbound"] == "1")

        // The new code activates a new device, once.
        let client = try live.client()
        let activated = try await client.activate(userID: device.userID, activationCode: reset.activationCode,
                                                  password: IdentityFlowTests.password, deviceName: "new phone")
        #expect(activated.statusCode == .success)
        await expectError("user_active") { try await rp.issueActivationCode(device.userID) }
    }

    /// Another relying party's key can neither see a user nor act on it: each call reads as a
    /// user that does not exist (a reset and an activation, or a registration code, would
    /// otherwise take the user over). The creating key and an administrator's can.
    @Test(arguments: StoreKind.available)
    func anotherKeyCannotSeeOrManageTheUser(kind: StoreKind) async throws {
        let live = try LiveServer.make(kind)
        defer { live.stop() }
        let (_, userID, deviceID) = try await IdentityFlowTests.activatedUser(live)
        let other = try live.otherRelyingParty()
        await expectError("user_not_found") { try await other.user(userID) }
        #expect(try await other.users().users.isEmpty)
        await expectError("user_not_found") { try await other.devices(userID) }
        await expectError("user_not_found") { try await other.resetUser(userID) }
        await expectError("user_not_found") { try await other.issueRegistrationCode(userID) }
        await expectError("user_not_found") { try await other.issueActivationCode(userID) }
        await expectError("user_not_found") { try await other.disableUser(userID) }
        await expectError("user_not_found") { try await other.enableUser(userID) }
        await expectError("user_not_found") { try await other.unlockUser(userID) }
        await expectError("user_not_found") { try await other.grantEnrollment(userID) }
        await expectError("user_not_found") { try await other.revokeDevice(userID: userID, deviceID: deviceID) }
        await expectError("user_not_found") { try await other.deleteUser(userID) }
        // Nothing changed; the owner and an administrator see and manage the user.
        let owner = try live.admin()
        #expect(try await owner.user(userID).status == "active")
        #expect(try await owner.users().users.map(\.userID) == [userID])
        #expect(try await owner.devices(userID).map(\.deviceID) == [deviceID])
        let admin = try live.admin(scope: .admin)
        #expect(try await admin.disableUser(userID).status == "disabled")
        #expect(try await admin.users().users.map(\.userID).contains(userID))
    }
}
